/*
 * C tests of netcond.h's RFC 2963 rate adaptive shapers, run by
 * tests/c_api.rs.
 *
 *   ras_test cases         configuration errors, NULL arguments, a shaper
 *                          releasing a burst no faster than its rate.
 *   ras_test stream SEED   seeded arrivals through srRAS and trRAS, dequeued
 *                          at their release instants; one line each (counts,
 *                          a hash of every release instant, length, cookie),
 *                          compared by the Rust test with the Rust API.
 */
#include "check.h"
#include "ras_params.h"

static netcond_ras shaper;

static void cases(void)
{
	netcond_ras_profile prof, never;
	netcond_srras_params s;
	netcond_trras_params t;
	uint64_t at = 0, cookie = 0, now;
	uint32_t len = 0;
	int i, n;

	s = sr();
	CHECK_RC(netcond_srras_profile_config(&prof, &s), NETCOND_OK);
	CHECK_RC(netcond_srras_profile_config(NULL, &s), NETCOND_E_NULL);
	CHECK_RC(netcond_srras_profile_config(&prof, NULL), NETCOND_E_NULL);
	s.cir_bps = 0;
	CHECK_RC(netcond_srras_profile_config(&prof, &s), NETCOND_E_RAS_ZERO_CIR);
	s = sr();
	s.cir_bps = 5000000;
	CHECK_RC(netcond_srras_profile_config(&prof, &s), NETCOND_E_RAS_CIR_ABOVE_MIR);
	s = sr();
	s.mir_bps = 20000000;
	CHECK_RC(netcond_srras_profile_config(&prof, &s), NETCOND_E_RAS_MIR_ABOVE_LINE_RATE);
	s = sr();
	s.buffer_bytes = 0;
	CHECK_RC(netcond_srras_profile_config(&prof, &s), NETCOND_E_RAS_ZERO_BUFFER);
	s = sr();
	s.cir_th = 30000;
	s.mir_th = 20000;
	CHECK_RC(netcond_srras_profile_config(&prof, &s), NETCOND_E_RAS_CIR_TH_ABOVE_MIR_TH);
	s.mir_th = 70000;
	CHECK_RC(netcond_srras_profile_config(&prof, &s), NETCOND_E_RAS_MIR_TH_ABOVE_BUFFER);
	s = sr();
	s.k_ns = 0;
	CHECK_RC(netcond_srras_profile_config(&prof, &s), NETCOND_E_RAS_ZERO_K);
	s = sr();
	s.k_ns = UINT64_MAX;
	CHECK_RC(netcond_srras_profile_config(&prof, &s), NETCOND_E_RAS_K_TOO_LONG);
	s = sr();
	s.max_packet_bytes = 0;
	CHECK_RC(netcond_srras_profile_config(&prof, &s), NETCOND_E_RAS_ZERO_MAX_PACKET);
	s = sr();
	s.buffer_bytes = 1000;
	CHECK_RC(netcond_srras_profile_config(&prof, &s), NETCOND_E_RAS_BUFFER_BELOW_MAX_PACKET);
	s = sr();
	s.tick_hz = 1000;
	s.line_rate_bps = UINT64_MAX;
	s.mir_bps = UINT64_MAX;
	CHECK_RC(netcond_srras_profile_config(&prof, &s), NETCOND_E_RAS_LINE_RATE_TOO_HIGH);
	s = sr();
	s.tick_hz = 0;
	CHECK_RC(netcond_srras_profile_config(&prof, &s), NETCOND_E_TICK);

	t = tr();
	CHECK_RC(netcond_trras_profile_config(&prof, &t), NETCOND_OK);
	t.cir_bps = 3000000;
	CHECK_RC(netcond_trras_profile_config(&prof, &t), NETCOND_E_RAS_CIR_ABOVE_PIR);
	t = tr();
	t.pir_bps = 5000000;
	CHECK_RC(netcond_trras_profile_config(&prof, &t), NETCOND_E_RAS_PIR_ABOVE_MIR);
	t = tr();
	t.cir_th = 30000;
	t.pir_th = 20000;
	t.mir_th = 40000;
	CHECK_RC(netcond_trras_profile_config(&prof, &t), NETCOND_E_RAS_CIR_TH_ABOVE_PIR_TH);
	t.cir_th = 10000;
	t.pir_th = 50000;
	CHECK_RC(netcond_trras_profile_config(&prof, &t), NETCOND_E_RAS_PIR_TH_ABOVE_MIR_TH);
	CHECK_RC(netcond_trras_profile_config(&prof, NULL), NETCOND_E_NULL);

	/* Twenty 1500-byte packets at once into an idle srRAS: every one leaves,
	 * in order, and no faster than MIR (4 Mbit/s: 3 ms per packet). */
	s = sr();
	CHECK_RC(netcond_srras_profile_config(&prof, &s), NETCOND_OK);
	CHECK_RC(netcond_ras_config(&shaper, &prof, 0), NETCOND_OK);
	for (i = 0; i < 20; i++)
		CHECK_RC(netcond_ras_enqueue(&shaper, &prof, 0, 1500, 100u + (uint64_t)i), 0);
	CHECK(netcond_ras_len(&shaper) == 20);
	CHECK(netcond_ras_shaping_rate(&shaper, &prof) >= 1000000);
	n = 0;
	now = 0;
	while (netcond_ras_next_release(&shaper, &at) == 1 && n < 100) {
		CHECK(at >= now);
		now = at;
		CHECK(netcond_ras_dequeue(&shaper, &prof, now, &len, &cookie) == 1);
		CHECK(len == 1500 && cookie == 100u + (uint64_t)n);
		n++;
	}
	CHECK(n == 20);
	CHECK(now >= 19u * 3000000u);
	CHECK(netcond_ras_dequeue(&shaper, &prof, now, &len, &cookie) == 0);
	/* A 60,000-byte buffer takes forty 1500-byte packets; the 41st is
	 * refused and stays the caller's. */
	CHECK_RC(netcond_ras_config(&shaper, &prof, 0), NETCOND_OK);
	for (i = 0; i < 40; i++)
		CHECK_RC(netcond_ras_enqueue(&shaper, &prof, 0, 1500, (uint64_t)i), 0);
	CHECK_RC(netcond_ras_enqueue(&shaper, &prof, 0, 1500, 40), 1);
	CHECK(netcond_ras_len(&shaper) == 40);

	/* NULL and unstarted arguments. */
	memset(&never, 0, sizeof never);
	CHECK_RC(netcond_ras_config(NULL, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_ras_config(&shaper, NULL, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_ras_enqueue(NULL, &prof, 0, 1, 1), NETCOND_E_NULL);
	CHECK_RC(netcond_ras_enqueue(&shaper, &never, 0, 1, 1), NETCOND_E_NULL);
	CHECK_RC(netcond_ras_dequeue(&shaper, NULL, 0, &len, &cookie), NETCOND_E_NULL);
	CHECK_RC(netcond_ras_next_release(NULL, &at), NETCOND_E_NULL);
	CHECK(netcond_ras_shaping_rate(NULL, &prof) == 0);
	CHECK(netcond_ras_len(NULL) == 0);
}

static void streams(uint64_t seed)
{
	int kind;
	for (kind = 0; kind < 2; kind++) {
		netcond_ras_profile prof;
		uint64_t now = 0, hash = 0xcbf29ce484222325ull, refused = 0, sent = 0, at, cookie;
		uint32_t len;
		unsigned i;

		rng_state = seed;
		if (kind == 0) {
			netcond_srras_params s = sr();
			CHECK_RC(netcond_srras_profile_config(&prof, &s), NETCOND_OK);
		} else {
			netcond_trras_params t = tr();
			CHECK_RC(netcond_trras_profile_config(&prof, &t), NETCOND_OK);
		}
		CHECK_RC(netcond_ras_config(&shaper, &prof, 0), NETCOND_OK);
		for (i = 0; i < PACKETS; i++) {
			uint64_t r = next_u64();
			/* On-off arrivals: bursts at 8 Mbit/s, pauses. */
			uint32_t l = 64u + (uint32_t)(r % 1437u);
			now += (r >> 32) % 8u == 0 ? (r >> 12) % 50000000u
						   : (uint64_t)l * 1000u;
			while (netcond_ras_next_release(&shaper, &at) == 1 && at <= now) {
				CHECK(netcond_ras_dequeue(&shaper, &prof, at, &len, &cookie) == 1);
				hash = (hash ^ at ^ ((uint64_t)len << 40) ^ cookie) * 0x100000001b3ull;
				sent++;
			}
			refused += (uint64_t)netcond_ras_enqueue(&shaper, &prof, now, l, i);
		}
		printf("ras%d %" PRIu64 " %" PRIu64 " %u %016" PRIx64 "\n", kind, sent, refused,
		       netcond_ras_len(&shaper), hash);
	}
}

int main(int argc, char **argv)
{
	static void (*const all[])(void) = {cases, NULL};

	return test_main(argc, argv, "RAS", all, streams);
}
