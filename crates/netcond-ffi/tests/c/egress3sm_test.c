/*
 * C tests of netcond.h's 3sM egress table (netcond_egress3sm_*), run by
 * tests/c_api.rs.
 *
 *   egress3sm_test cases         NULL, unstarted and out-of-range arguments,
 *                                the full table, and signals with known
 *                                answers (block, terminate, resumption).
 *   egress3sm_test stream SEED   100,000 packets of 80 aggregates (64 fit)
 *                                through two profiles (ET blocks or not); one
 *                                line per profile (signal counts, a hash of
 *                                the signals and resumptions, the final
 *                                admission of every key), compared by the Rust
 *                                test with the same stream through the Rust
 *                                API.
 */
#include "check.h"

static netcond_stop_blocking_params params(uint32_t et_blocks)
{
	netcond_stop_blocking_params p;
	memset(&p, 0, sizeof p);
	p.timeout_ns = 100000000u; /* 100 ms */
	p.tick_hz = 1000000000u;
	p.et_blocks = et_blocks;
	return p;
}

static void cases(void)
{
	netcond_stop_blocking_profile prof, never;
	netcond_stop_blocking_params p = params(1);
	netcond_egress3sm e, unstarted;
	netcond_egress3sm_signal s;
	uint32_t idx = 99, key = 0;
	uint64_t at = 0;
	unsigned i;

	memset(&never, 0, sizeof never);
	memset(&unstarted, 0xa5, sizeof unstarted);
	CHECK_RC(netcond_stop_blocking_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_egress3sm_config(&e, &prof, 0), NETCOND_OK);
	CHECK_RC(netcond_egress3sm_config(NULL, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_egress3sm_config(&e, NULL, 0), NETCOND_E_NULL);
	CHECK(netcond_egress3sm_len(&e) == 0);
	CHECK_RC(netcond_egress3sm_add(&e, 7, &idx), NETCOND_OK);
	CHECK(idx == 0);
	CHECK_RC(netcond_egress3sm_add(&e, 9, &idx), NETCOND_OK);
	CHECK(idx == 1);
	CHECK_RC(netcond_egress3sm_add(&e, 7, &idx), NETCOND_OK); /* already there */
	CHECK(idx == 0);
	CHECK(netcond_egress3sm_admission(&e, 7) == 0);
	CHECK(netcond_egress3sm_admission(&e, 8) == 2);
	CHECK(netcond_egress3sm_next_wakeup(&e, &at) == 0);

	/* NM passes; AS blocks (a new period, then not); ET terminates its flow
	 * and, with et_blocks, blocks. */
	CHECK_RC(netcond_egress3sm_on_packet(&e, &prof, 10, 7, 1234, NETCOND_PCN_NM, &s), NETCOND_OK);
	CHECK(s.action == NETCOND_EGRESS3SM_NOTHING && s.new_block_period == 0);
	CHECK_RC(netcond_egress3sm_on_packet(&e, &prof, 20, 7, 1234, NETCOND_PCN_THM, &s), NETCOND_OK);
	CHECK(s.action == NETCOND_EGRESS3SM_BLOCK && s.new_block_period == 1);
	CHECK_RC(netcond_egress3sm_on_packet(&e, &prof, 30, 7, 1234, NETCOND_PCN_THM, &s), NETCOND_OK);
	CHECK(s.action == NETCOND_EGRESS3SM_BLOCK && s.new_block_period == 0);
	CHECK(netcond_egress3sm_admission(&e, 7) == 1);
	CHECK_RC(netcond_egress3sm_on_packet_at(&e, &prof, 40, 1, 55, NETCOND_PCN_ETM, &s), NETCOND_OK);
	CHECK(s.action == NETCOND_EGRESS3SM_TERMINATE && s.flow == 55 && s.new_block_period == 1);
	/* Not registered; index out of range; state out of range (not-PCN). */
	CHECK_RC(netcond_egress3sm_on_packet(&e, &prof, 50, 8, 1, NETCOND_PCN_THM, &s), 1);
	CHECK_RC(netcond_egress3sm_on_packet_at(&e, &prof, 50, 64, 1, NETCOND_PCN_THM, &s), NETCOND_OK);
	CHECK(s.action == NETCOND_EGRESS3SM_NOTHING);
	CHECK_RC(netcond_egress3sm_on_packet(&e, &prof, 50, 9, 1, 7, &s), NETCOND_OK);
	CHECK(s.action == NETCOND_EGRESS3SM_NOTHING);
	CHECK_RC(netcond_egress3sm_on_packet(&e, &prof, 50, 9, 1, NETCOND_PCN_THM, NULL), NETCOND_OK);

	/* Aggregate 7: blocked at 20, its timer runs to 20 + 100 ms; the second
	 * AS mark at 30 fell in that period, so the timer restarts there and
	 * admission resumes at 20 + 200 ms. Aggregate 9 likewise: 40 + 200 ms. */
	CHECK(netcond_egress3sm_next_wakeup(&e, &at) == 1 && at == 100000020u);
	CHECK(netcond_egress3sm_poll(&e, &prof, 100000019u, &key, &at) == 0);
	CHECK(netcond_egress3sm_poll(&e, &prof, 200000019u, &key, &at) == 0);
	CHECK(netcond_egress3sm_admission(&e, 7) == 1);
	CHECK(netcond_egress3sm_poll(&e, &prof, 300000000u, &key, &at) == 1);
	CHECK(key == 7 && at == 200000020u);
	CHECK(netcond_egress3sm_poll(&e, &prof, 300000000u, &key, &at) == 1);
	CHECK(key == 9 && at == 200000040u);
	CHECK(netcond_egress3sm_poll(&e, &prof, 300000000u, NULL, NULL) == 0);
	CHECK(netcond_egress3sm_admission(&e, 7) == 0 && netcond_egress3sm_admission(&e, 9) == 0);

	/* The table holds NETCOND_EGRESS3SM_AGGS aggregates. */
	for (i = 2; i < NETCOND_EGRESS3SM_AGGS; i++)
		CHECK_RC(netcond_egress3sm_add(&e, 1000 + i, NULL), NETCOND_OK);
	CHECK(netcond_egress3sm_len(&e) == NETCOND_EGRESS3SM_AGGS);
	CHECK_RC(netcond_egress3sm_add(&e, 5, &idx), 1);
	CHECK_RC(netcond_egress3sm_add(&e, 9, &idx), NETCOND_OK);

	/* NULL, unstarted and unconfigured arguments. */
	CHECK_RC(netcond_egress3sm_add(NULL, 1, &idx), NETCOND_E_NULL);
	CHECK_RC(netcond_egress3sm_add(&unstarted, 1, &idx), NETCOND_E_NULL);
	CHECK_RC(netcond_egress3sm_on_packet(NULL, &prof, 0, 7, 1, 1, &s), NETCOND_E_NULL);
	CHECK_RC(netcond_egress3sm_on_packet(&e, NULL, 0, 7, 1, 1, &s), NETCOND_E_NULL);
	CHECK_RC(netcond_egress3sm_on_packet(&e, &never, 0, 7, 1, 1, &s), NETCOND_E_NULL);
	CHECK_RC(netcond_egress3sm_on_packet_at(&unstarted, &prof, 0, 0, 1, 1, &s), NETCOND_E_NULL);
	CHECK_RC(netcond_egress3sm_poll(NULL, &prof, 0, NULL, NULL), NETCOND_E_NULL);
	CHECK_RC(netcond_egress3sm_poll(&e, &never, 0, NULL, NULL), NETCOND_E_NULL);
	CHECK_RC(netcond_egress3sm_next_wakeup(NULL, &at), NETCOND_E_NULL);
	CHECK_RC(netcond_egress3sm_admission(NULL, 7), NETCOND_E_NULL);
	CHECK_RC(netcond_egress3sm_admission(&unstarted, 7), NETCOND_E_NULL);
	CHECK(netcond_egress3sm_len(NULL) == 0 && netcond_egress3sm_len(&unstarted) == 0);
}

/* ---------------------------------------------------------------- streams */

#define KEYS 80u

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

/* Packets 0..200 us apart of 80 aggregates (the first 64 seen fit), flows
 * 0..2^20; states: 1 in 256 AS, 1 in 512 ET, a few out of range, the rest NM
 * or not-PCN. Every other packet goes by index. Polls after each packet. */
static void streams(uint64_t seed)
{
	uint32_t v;

	for (v = 0; v < 2u; v++) {
		netcond_stop_blocking_profile prof;
		netcond_stop_blocking_params p = params(v);
		netcond_egress3sm e;
		uint64_t counts[4] = {0, 0, 0, 0}, hash = 0xcbf29ce484222325ull, now = 0, adm;
		int32_t index[KEYS];
		unsigned i;

		rng_state = seed;
		for (i = 0; i < KEYS; i++)
			index[i] = -1;
		CHECK_RC(netcond_stop_blocking_profile_config(&prof, &p), NETCOND_OK);
		CHECK_RC(netcond_egress3sm_config(&e, &prof, 0), NETCOND_OK);
		for (i = 0; i < PACKETS; i++) {
			uint64_t r = next_u64();
			uint32_t key = (uint32_t)((r >> 10) % KEYS), k, idx;
			uint64_t flow = (r >> 20) & 0xfffffu, at;
			unsigned sel = (unsigned)((r >> 44) & 511u);
			int mark = sel < 2u ? NETCOND_PCN_THM : sel < 3u ? NETCOND_PCN_ETM
				   : sel < 4u ? 9 : (int)((r >> 56) & 2u);
			netcond_egress3sm_signal s;
			int rc;

			now += (r >> 4) % 200000u;
			if (index[key] < 0) {
				rc = netcond_egress3sm_add(&e, key, &idx);
				if (rc == NETCOND_OK)
					index[key] = (int32_t)idx;
				hash = mix(hash, (uint64_t)rc);
			}
			if (i % 2u && index[key] >= 0)
				rc = netcond_egress3sm_on_packet_at(&e, &prof, now, (uint32_t)index[key],
								    flow, mark, &s);
			else
				rc = netcond_egress3sm_on_packet(&e, &prof, now, key, flow, mark, &s);
			if (rc == NETCOND_OK) {
				counts[s.action]++;
				hash = mix(hash, s.action + 4u * s.new_block_period + 8u * s.flow);
			} else {
				counts[3]++;
			}
			while (netcond_egress3sm_poll(&e, &prof, now, &k, &at) == 1)
				hash = mix(mix(hash, k), at);
		}
		adm = 0;
		for (i = 0; i < KEYS; i++)
			adm = mix(adm, (uint64_t)netcond_egress3sm_admission(&e, i));
		printf("egress3sm_%u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %016" PRIx64
		       " %016" PRIx64 " %u\n",
		       v, counts[0], counts[1], counts[2], counts[3], hash, adm,
		       netcond_egress3sm_len(&e));
	}
}

int main(int argc, char **argv)
{
	static void (*const all[])(void) = {cases, NULL};

	return test_main(argc, argv, "egress3sm", all, streams);
}
