/*
 * C tests of netcond.h's green rate adaptive shapers (G-srRAS, G-trRAS; RFC
 * 2963 section 3), run by tests/c_api.rs.
 *
 *   green_ras_test cases         NULL, unstarted and unconfigured arguments,
 *                                a burst released green and in order, a full
 *                                queue.
 *   green_ras_test stream SEED   100,000 on-off arrivals through G-srRAS and
 *                                G-trRAS, dequeued at their release instants;
 *                                one line per shaper (released, refused,
 *                                colors, queue length, a hash of the releases,
 *                                the meter's final tokens), compared by the
 *                                Rust test with the same streams through the
 *                                Rust API.
 */
#include "check.h"
#include "ras_params.h"

/* The meters downstream: CIR 125,000 B/s (1 Mbit/s), PIR 250,000 B/s. */
static netcond_srtcm_params srm(void)
{
	netcond_srtcm_params p;
	memset(&p, 0, sizeof p);
	p.cir = 125000;
	p.cbs = 3000;
	p.ebs = 3000;
	p.tick_hz = 1000000000;
	return p;
}

static netcond_trtcm_params trm(void)
{
	netcond_trtcm_params p;
	memset(&p, 0, sizeof p);
	p.cir = 125000;
	p.pir = 250000;
	p.cbs = 3000;
	p.pbs = 3000;
	p.tick_hz = 1000000000;
	return p;
}

static netcond_green_ras shaper, unstarted;

static void cases(void)
{
	netcond_ras_profile prof, never;
	netcond_srtcm_profile mprof, mnever;
	netcond_srtcm meter;
	netcond_srras_params s = sr();
	netcond_srtcm_params m = srm();
	netcond_color color = NETCOND_RED;
	uint64_t at = 0, cookie = 0, prev = 0;
	uint32_t len = 0;
	unsigned i, refused = 0, greens = 0;

	memset(&never, 0, sizeof never);
	memset(&mnever, 0, sizeof mnever);
	memset(&unstarted, 0x5a, sizeof unstarted);
	CHECK_RC(netcond_srras_profile_config(&prof, &s), NETCOND_OK);
	CHECK_RC(netcond_srtcm_profile_config(&mprof, &m), NETCOND_OK);
	CHECK_RC(netcond_srtcm_config(&meter, &mprof, 0), NETCOND_OK);
	CHECK_RC(netcond_green_ras_config(&shaper, &prof, 0), NETCOND_OK);
	CHECK_RC(netcond_green_ras_config(NULL, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_green_ras_config(&shaper, NULL, 0), NETCOND_E_NULL);
	CHECK(netcond_green_ras_next_release(&shaper, &at) == 0);

	/* A burst of twenty 1000-byte packets at t = 1 ms: each released no
	 * earlier than the one before plus 1000 bytes at MIR (2 ms), in order,
	 * not before its release instant, colored by the meter: green when it
	 * leaves at T2, possibly not when T1 (the shaping rate) comes first. */
	for (i = 0; i < 20; i++)
		CHECK_RC(netcond_gsrras_enqueue(&shaper, &prof, &mprof, &meter, 1000000, 1000, i),
			 NETCOND_OK);
	CHECK(netcond_green_ras_len(&shaper) == 20);
	for (i = 0; i < 20; i++) {
		CHECK(netcond_green_ras_next_release(&shaper, &at) == 1);
		CHECK(netcond_gsrras_dequeue(&shaper, &prof, &mprof, &meter, at > 0 ? at - 1 : 0,
					     &len, &cookie, &color) == 0 || at == 0);
		CHECK(netcond_gsrras_dequeue(&shaper, &prof, &mprof, &meter, at, &len, &cookie,
					     &color) == 1);
		CHECK(len == 1000 && cookie == i);
		CHECK(color == NETCOND_GREEN || color == NETCOND_YELLOW || color == NETCOND_RED);
		greens += color == NETCOND_GREEN;
		CHECK(i == 0 || at >= prev + 2000000u);
		prev = at;
	}
	CHECK(netcond_green_ras_len(&shaper) == 0);
	/* The meter's CBS of 3000 bytes refills at 125,000 B/s: the first three
	 * fit the full bucket, later ones wait for T2 unless T1 is earlier. */
	CHECK(greens >= 3);

	/* The buffer of 60,000 bytes: the 41st 1500-byte packet is refused. */
	for (i = 0; i < 41; i++)
		refused += (unsigned)netcond_gsrras_enqueue(&shaper, &prof, &mprof, &meter,
							    100000000, 1500, i);
	CHECK(refused == 1);

	/* NULL, unstarted and unconfigured arguments. */
	CHECK_RC(netcond_gsrras_enqueue(NULL, &prof, &mprof, &meter, 0, 1, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_gsrras_enqueue(&unstarted, &prof, &mprof, &meter, 0, 1, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_gsrras_enqueue(&shaper, &never, &mprof, &meter, 0, 1, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_gsrras_enqueue(&shaper, &prof, &mnever, &meter, 0, 1, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_gsrras_enqueue(&shaper, &prof, NULL, &meter, 0, 1, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_gsrras_enqueue(&shaper, &prof, &mprof, NULL, 0, 1, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_gsrras_dequeue(&shaper, &prof, &mprof, NULL, 0, NULL, NULL, NULL),
		 NETCOND_E_NULL);
	CHECK_RC(netcond_gsrras_dequeue(&unstarted, &prof, &mprof, &meter, 0, NULL, NULL, NULL),
		 NETCOND_E_NULL);
	/* A trTCM profile is not an srTCM profile: the tags differ. */
	CHECK_RC(netcond_gtrras_enqueue(&shaper, &prof, (const netcond_trtcm_profile *)(const void *)&mprof,
					(const netcond_trtcm *)(const void *)&meter, 0, 1, 0),
		 NETCOND_E_NULL);
	CHECK_RC(netcond_gtrras_dequeue(NULL, &prof, NULL, NULL, 0, NULL, NULL, NULL), NETCOND_E_NULL);
	CHECK_RC(netcond_green_ras_next_release(NULL, &at), NETCOND_E_NULL);
	CHECK_RC(netcond_green_ras_next_release(&unstarted, &at), NETCOND_E_NULL);
	CHECK(netcond_green_ras_len(NULL) == 0 && netcond_green_ras_len(&unstarted) == 0);
	CHECK(netcond_green_ras_len(&shaper) == 40);
}

/* ---------------------------------------------------------------- streams */

static void streams(uint64_t seed)
{
	int kind;
	for (kind = 0; kind < 2; kind++) {
		netcond_ras_profile prof;
		netcond_srtcm_profile sp;
		netcond_trtcm_profile tp;
		netcond_srtcm sm;
		netcond_trtcm tm;
		netcond_tcm_tokens tok;
		uint64_t now = 0, hash = 0xcbf29ce484222325ull, refused = 0, sent = 0, at, cookie;
		uint64_t colors[3] = {0, 0, 0};
		uint32_t len;
		netcond_color color;
		unsigned i;

		rng_state = seed;
		if (kind == 0) {
			netcond_srras_params s = sr();
			netcond_srtcm_params m = srm();
			CHECK_RC(netcond_srras_profile_config(&prof, &s), NETCOND_OK);
			CHECK_RC(netcond_srtcm_profile_config(&sp, &m), NETCOND_OK);
			CHECK_RC(netcond_srtcm_config(&sm, &sp, 0), NETCOND_OK);
		} else {
			netcond_trras_params t = tr();
			netcond_trtcm_params m = trm();
			CHECK_RC(netcond_trras_profile_config(&prof, &t), NETCOND_OK);
			CHECK_RC(netcond_trtcm_profile_config(&tp, &m), NETCOND_OK);
			CHECK_RC(netcond_trtcm_config(&tm, &tp, 0), NETCOND_OK);
		}
		CHECK_RC(netcond_green_ras_config(&shaper, &prof, 0), NETCOND_OK);
		for (i = 0; i < PACKETS; i++) {
			uint64_t r = next_u64();
			/* On-off arrivals: bursts at 8 Mbit/s, pauses. */
			uint32_t l = 64u + (uint32_t)(r % 1437u);
			now += (r >> 32) % 8u == 0 ? (r >> 12) % 50000000u
						   : (uint64_t)l * 1000u;
			while (netcond_green_ras_next_release(&shaper, &at) == 1 && at <= now) {
				int rc = kind == 0 ? netcond_gsrras_dequeue(&shaper, &prof, &sp, &sm, at,
									     &len, &cookie, &color)
						   : netcond_gtrras_dequeue(&shaper, &prof, &tp, &tm, at,
									     &len, &cookie, &color);
				CHECK(rc == 1);
				colors[(unsigned)color % 3u]++;
				hash = (hash ^ at ^ ((uint64_t)len << 40) ^ cookie ^
					((uint64_t)color << 60)) *
				       0x100000001b3ull;
				sent++;
			}
			refused += (uint64_t)(kind == 0
				? netcond_gsrras_enqueue(&shaper, &prof, &sp, &sm, now, l, i)
				: netcond_gtrras_enqueue(&shaper, &prof, &tp, &tm, now, l, i));
		}
		if (kind == 0)
			CHECK_RC(netcond_srtcm_read(&sm, &tok), NETCOND_OK);
		else
			CHECK_RC(netcond_trtcm_read(&tm, &tok), NETCOND_OK);
		printf("green_ras%d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		       " %u %016" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		       kind, sent, refused, colors[0], colors[1], colors[2],
		       netcond_green_ras_len(&shaper), hash, tok.tc, tok.te, tok.last);
	}
}

int main(int argc, char **argv)
{
	static void (*const all[])(void) = {cases, NULL};

	return test_main(argc, argv, "green RAS", all, streams);
}
