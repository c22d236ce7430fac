/*
 * C tests of netcond.h's ET-marker as simulated (netcond_et_marker_sim48_*),
 * run by tests/c_api.rs.
 *
 *   et48_test cases         every configuration error, NULL, unconfigured and
 *                           out-of-range arguments, and marks with known
 *                           answers (take first, mark at or below zero, add
 *                           pcn_px).
 *   et48_test stream SEED   100,000-packet seeded streams through two
 *                           profiles; one line per profile (counts of each
 *                           output state, a hash of the outputs, the final
 *                           token count), compared by the Rust test with the
 *                           same streams through the Rust API.
 */
#include "check.h"

static netcond_et_marker_sim48_params params(unsigned v)
{
	netcond_et_marker_sim48_params p;
	memset(&p, 0, sizeof p);
	if (v == 0) {
		p.pcn_pt = 1000000; /* 8 Mbit/s */
		p.pcn_tb = 3000;
		p.pcn_px = 1500;
		p.tick_hz = 1000000000u; /* ns */
	} else {
		p.pcn_pt = 1250000; /* 10 Mbit/s */
		p.pcn_tb = 1500;
		p.pcn_px = 0;
		p.tick_hz = 1000000u; /* us */
	}
	return p;
}

static void cases(void)
{
	netcond_et_marker_sim48_profile prof, never;
	netcond_et_marker_sim48 m;
	netcond_et_marker_sim48_params p = params(0);

	memset(&never, 0, sizeof never);
	CHECK_RC(netcond_et_marker_sim48_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_et_marker_sim48_profile_config(NULL, &p), NETCOND_E_NULL);
	CHECK_RC(netcond_et_marker_sim48_profile_config(&prof, NULL), NETCOND_E_NULL);
	p.pcn_pt = 0;
	CHECK_RC(netcond_et_marker_sim48_profile_config(&prof, &p), NETCOND_E_ET48_ZERO_RATE);
	p = params(0);
	p.pcn_tb = 0;
	CHECK_RC(netcond_et_marker_sim48_profile_config(&prof, &p), NETCOND_E_ET48_ZERO_BUCKET);
	p = params(0);
	p.pcn_tb = UINT64_MAX / 2;
	CHECK_RC(netcond_et_marker_sim48_profile_config(&prof, &p), NETCOND_E_ET48_TOO_LARGE);
	p = params(0);
	p.pcn_px = UINT64_MAX / 2;
	CHECK_RC(netcond_et_marker_sim48_profile_config(&prof, &p), NETCOND_E_ET48_TOO_LARGE);
	p = params(0);
	p.tick_hz = 0;
	CHECK_RC(netcond_et_marker_sim48_profile_config(&prof, &p), NETCOND_E_TICK);
	/* The failed configuration left the profile unusable. */
	CHECK_RC(netcond_et_marker_sim48_config(&m, &prof, 0), NETCOND_E_NULL);

	p = params(0);
	CHECK_RC(netcond_et_marker_sim48_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_et_marker_sim48_config(&m, &prof, 0), NETCOND_OK);
	CHECK_RC(netcond_et_marker_sim48_config(NULL, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_et_marker_sim48_config(&m, NULL, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_et_marker_sim48_config(&m, &never, 0), NETCOND_E_NULL);
	CHECK(netcond_et_marker_sim48_tokens(&m, &prof) == 3000);
	/* All at t = 0 (no refill): 3000 - 1000 - 1000 = 1000 > 0: not marked;
	 * - 1000 = 0: marked, + 1500; - 1500 = 0: marked again, + 1500. */
	CHECK(netcond_et_marker_sim48_mark(&m, &prof, 0, 1000, NETCOND_PCN_NM) == NETCOND_PCN_NM);
	CHECK(netcond_et_marker_sim48_mark(&m, &prof, 0, 1000, NETCOND_PCN_THM) == NETCOND_PCN_THM);
	CHECK(netcond_et_marker_sim48_tokens(&m, &prof) == 1000);
	CHECK(netcond_et_marker_sim48_mark(&m, &prof, 0, 1000, NETCOND_PCN_NM) == NETCOND_PCN_ETM);
	CHECK(netcond_et_marker_sim48_tokens(&m, &prof) == 1500);
	CHECK(netcond_et_marker_sim48_mark(&m, &prof, 0, 1500, NETCOND_PCN_NM) == NETCOND_PCN_ETM);
	CHECK(netcond_et_marker_sim48_tokens(&m, &prof) == 1500);
	/* Not-PCN and out-of-range states pass untouched and are not metered. */
	CHECK(netcond_et_marker_sim48_mark(&m, &prof, 0, 9000, NETCOND_PCN_NOT_PCN) ==
	      NETCOND_PCN_NOT_PCN);
	CHECK(netcond_et_marker_sim48_mark(&m, &prof, 0, 9000, 4) == NETCOND_PCN_NOT_PCN);
	CHECK(netcond_et_marker_sim48_mark(&m, &prof, 0, 9000, -1) == NETCOND_PCN_NOT_PCN);
	CHECK(netcond_et_marker_sim48_tokens(&m, &prof) == 1500);
	/* An overdraft: 1500 - 4000 = -2500, marked, + 1500 = -1000. */
	CHECK(netcond_et_marker_sim48_mark(&m, &prof, 0, 4000, NETCOND_PCN_ETM) == NETCOND_PCN_ETM);
	CHECK(netcond_et_marker_sim48_tokens(&m, &prof) == -1000);
	/* 2 ms at 1,000,000 B/s: + 2000 = 1000; a 100-byte packet passes. */
	CHECK(netcond_et_marker_sim48_mark(&m, &prof, 2000000, 100, NETCOND_PCN_NM) ==
	      NETCOND_PCN_NM);
	CHECK(netcond_et_marker_sim48_tokens(&m, &prof) == 900);
	/* The refill stops at pcn_tb; a clock step back adds nothing. */
	CHECK(netcond_et_marker_sim48_mark(&m, &prof, 1000000000u, 0, NETCOND_PCN_NM) ==
	      NETCOND_PCN_NM);
	CHECK(netcond_et_marker_sim48_tokens(&m, &prof) == 3000);
	CHECK(netcond_et_marker_sim48_mark(&m, &prof, 5, 3000, NETCOND_PCN_NM) == NETCOND_PCN_ETM);
	CHECK(netcond_et_marker_sim48_tokens(&m, &prof) == 1500);
	/* The largest packet is charged in full (no time has passed since the
	 * last update at 1 s: the step back to 5 did not move it). */
	CHECK(netcond_et_marker_sim48_mark(&m, &prof, 1000000000u, UINT32_MAX, NETCOND_PCN_NM) ==
	      NETCOND_PCN_ETM);
	CHECK(netcond_et_marker_sim48_tokens(&m, &prof) == 1500 - (int64_t)UINT32_MAX + 1500);

	/* NULL and unconfigured arguments. */
	CHECK(netcond_et_marker_sim48_mark(NULL, &prof, 0, 1, NETCOND_PCN_NM) == NETCOND_PCN_NOT_PCN);
	CHECK(netcond_et_marker_sim48_mark(&m, NULL, 0, 1, NETCOND_PCN_NM) == NETCOND_PCN_NOT_PCN);
	CHECK(netcond_et_marker_sim48_mark(&m, &never, 0, 1, NETCOND_PCN_NM) == NETCOND_PCN_NOT_PCN);
	CHECK(netcond_et_marker_sim48_tokens(NULL, &prof) == 0);
	CHECK(netcond_et_marker_sim48_tokens(&m, &never) == 0);
}

/* ---------------------------------------------------------------- streams */

/* Arrivals at about 1.3 times pcn_pt (0..1.215 ms apart, 64..1518 bytes),
 * the input state the two ECN bits (every state, not-PCN included), one
 * arrival in 1024 stepping the clock back 5000 ticks, one in 1024 of length 0
 * and one in 512 with an input state out of range (5). */
static void streams(uint64_t seed)
{
	unsigned v;

	for (v = 0; v < 2u; v++) {
		netcond_et_marker_sim48_profile prof;
		netcond_et_marker_sim48 m;
		netcond_et_marker_sim48_params p = params(v);
		uint64_t counts[4] = {0, 0, 0, 0};
		uint64_t hash = 0xcbf29ce484222325ull, now = 0;
		unsigned i;

		rng_state = seed;
		CHECK_RC(netcond_et_marker_sim48_profile_config(&prof, &p), NETCOND_OK);
		CHECK_RC(netcond_et_marker_sim48_config(&m, &prof, 0), NETCOND_OK);
		for (i = 0; i < PACKETS; i++) {
			uint64_t r = next_u64();
			uint64_t gap_ns = (r >> 8) % 1215000u;
			uint32_t len = 64u + (uint32_t)((r >> 36) % 1455u);
			int in = (int)((r >> 50) & 3u);
			uint64_t t;
			netcond_pcn_mark out;

			now += v == 0 ? gap_ns : gap_ns / 1000u;
			t = now;
			if (((r >> 20) & 1023u) == 0)
				t = now > 5000u ? now - 5000u : 0;
			if (((r >> 40) & 1023u) == 0)
				len = 0;
			if (((r >> 52) & 511u) == 0)
				in = 5;
			out = netcond_et_marker_sim48_mark(&m, &prof, t, len, in);
			counts[(unsigned)out & 3u]++;
			hash = (hash ^ (uint64_t)out) * 0x100000001b3ull;
		}
		printf("et48_%u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %016" PRIx64
		       " %" PRId64 "\n",
		       v, counts[0], counts[1], counts[2], counts[3], hash,
		       netcond_et_marker_sim48_tokens(&m, &prof));
	}
}

int main(int argc, char **argv)
{
	static void (*const all[])(void) = {cases, NULL};

	return test_main(argc, argv, "ET48", all, streams);
}
