/*
 * C tests of netcond.h's three-color markers and policer, run by
 * tests/c_api.rs (with -fsanitize=address,undefined when the toolchain has
 * the runtimes).
 *
 *   meter_test cases    DPDK's meter test cases restated against netcond.h,
 *                       every configuration error, NULL and out-of-range
 *                       arguments; exits non-zero on the first failure.
 *   meter_test stream   runs seeded streams of packets through every marker
 *                       and prints one line per marker (color counts, a hash
 *                       of the color sequence, the final state), which the
 *                       Rust test compares with the same streams through the
 *                       Rust API.
 */
#include "check.h"
#include "meter_stream.h"

/* DPDK's app/test/test_meter.c parameters. */
#define CIR 46000000u
#define PIR 69000000u
#define EIR 69000000u
#define CBS 2048u
#define PBS 4096u
#define EBS 4096u
#define HZ 1000000000u

static const netcond_color G = NETCOND_GREEN, Y = NETCOND_YELLOW, R = NETCOND_RED;

/* The lengths of DPDK's test: CBS - 1, CBS + 1, PBS/EBS - 1, PBS/EBS + 1. */
static const uint32_t lens[4] = {CBS - 1, CBS + 1, PBS - 1, PBS + 1};

/* Color-blind: green, yellow, yellow, red. Color-aware, for each input
 * color: green G/Y/Y/R, yellow Y/Y/Y/R, red R/R/R/R. The same for all three
 * markers. */
static const netcond_color want_blind[4] = {NETCOND_GREEN, NETCOND_YELLOW,
					    NETCOND_YELLOW, NETCOND_RED};
static const netcond_color want_aware[3][4] = {
	{NETCOND_GREEN, NETCOND_YELLOW, NETCOND_YELLOW, NETCOND_RED},
	{NETCOND_YELLOW, NETCOND_YELLOW, NETCOND_YELLOW, NETCOND_RED},
	{NETCOND_RED, NETCOND_RED, NETCOND_RED, NETCOND_RED},
};

static netcond_srtcm_params sparams(void)
{
	netcond_srtcm_params p;
	memset(&p, 0, sizeof p);
	p.cir = CIR;
	p.cbs = CBS;
	p.ebs = EBS;
	p.tick_hz = HZ;
	return p;
}

static netcond_trtcm_params tparams(void)
{
	netcond_trtcm_params p;
	memset(&p, 0, sizeof p);
	p.cir = CIR;
	p.pir = PIR;
	p.cbs = CBS;
	p.pbs = PBS;
	p.tick_hz = HZ;
	return p;
}

static netcond_rfc4115_params eparams(int ties)
{
	netcond_rfc4115_params p;
	memset(&p, 0, sizeof p);
	p.cir = CIR;
	p.eir = EIR;
	p.cbs = CBS;
	p.ebs = EBS;
	p.tick_hz = HZ;
	p.ties = ties;
	return p;
}

static netcond_policer_params pparams(void)
{
	netcond_policer_params p;
	memset(&p, 0, sizeof p);
	p.rate = 20480; /* 163,840 bit/s */
	p.tbs = 11000;
	p.pbs = 13000;
	p.max_packet = 1500;
	p.tick_hz = HZ;
	return p;
}

/* ---------------------------------------------------------------- DPDK cases */

static void srtcm_config_cases(void)
{
	netcond_srtcm_profile prof;
	netcond_srtcm_params p;

	CHECK_RC(netcond_srtcm_profile_config(NULL, NULL), NETCOND_E_NULL);
	p = sparams();
	CHECK_RC(netcond_srtcm_profile_config(&prof, NULL), NETCOND_E_NULL);
	CHECK_RC(netcond_srtcm_profile_config(NULL, &p), NETCOND_E_NULL);
	p.cbs = 0;
	p.ebs = 0;
	CHECK_RC(netcond_srtcm_profile_config(&prof, &p), NETCOND_E_SRTCM_ZERO_BURSTS);
	p = sparams();
	p.cir = 0;
	CHECK_RC(netcond_srtcm_profile_config(&prof, &p), NETCOND_E_SRTCM_ZERO_CIR);
	p = sparams();
	p.ebs = 0;
	CHECK_RC(netcond_srtcm_profile_config(&prof, &p), NETCOND_OK);
	p = sparams();
	p.cbs = 0;
	CHECK_RC(netcond_srtcm_profile_config(&prof, &p), NETCOND_OK);
	p = sparams();
	CHECK_RC(netcond_srtcm_profile_config(&prof, &p), NETCOND_OK);
	/* Beyond DPDK's cases: the clock and the counter's range. */
	p.tick_hz = 0;
	CHECK_RC(netcond_srtcm_profile_config(&prof, &p), NETCOND_E_TICK);
	p = sparams();
	p.cbs = (uint64_t)1 << 62;
	CHECK_RC(netcond_srtcm_profile_config(&prof, &p), NETCOND_E_SRTCM_TOO_LARGE);
}

static void trtcm_config_cases(void)
{
	netcond_trtcm_profile prof;
	netcond_trtcm_params p;

	CHECK_RC(netcond_trtcm_profile_config(NULL, NULL), NETCOND_E_NULL);
	p = tparams();
	CHECK_RC(netcond_trtcm_profile_config(&prof, NULL), NETCOND_E_NULL);
	CHECK_RC(netcond_trtcm_profile_config(NULL, &p), NETCOND_E_NULL);
	p.cir = 0;
	CHECK_RC(netcond_trtcm_profile_config(&prof, &p), NETCOND_E_TRTCM_ZERO_CIR);
	p = tparams();
	p.cbs = 0;
	CHECK_RC(netcond_trtcm_profile_config(&prof, &p), NETCOND_E_TRTCM_ZERO_CBS);
	p = tparams();
	p.pbs = 0;
	CHECK_RC(netcond_trtcm_profile_config(&prof, &p), NETCOND_E_TRTCM_ZERO_PBS);
	p = tparams();
	p.pir = 0;
	CHECK_RC(netcond_trtcm_profile_config(&prof, &p), NETCOND_E_TRTCM_ZERO_PIR);
	p = tparams();
	p.pir = p.cir - 1;
	CHECK_RC(netcond_trtcm_profile_config(&prof, &p), NETCOND_E_TRTCM_PIR_BELOW_CIR);
	p = tparams();
	CHECK_RC(netcond_trtcm_profile_config(&prof, &p), NETCOND_OK);
	p.tick_hz = 0;
	CHECK_RC(netcond_trtcm_profile_config(&prof, &p), NETCOND_E_TICK);
	p = tparams();
	p.pbs = (uint64_t)1 << 62;
	CHECK_RC(netcond_trtcm_profile_config(&prof, &p), NETCOND_E_TRTCM_TOO_LARGE);
}

static void rfc4115_config_cases(void)
{
	netcond_rfc4115_profile prof;
	netcond_rfc4115_params p;

	CHECK_RC(netcond_rfc4115_profile_config(NULL, NULL), NETCOND_E_NULL);
	p = eparams(NETCOND_RFC4115_FIGURE1);
	CHECK_RC(netcond_rfc4115_profile_config(&prof, NULL), NETCOND_E_NULL);
	CHECK_RC(netcond_rfc4115_profile_config(NULL, &p), NETCOND_E_NULL);
	/* Both rates zero, both bursts zero: refused; either one alone is fine. */
	p.cir = 0;
	p.eir = 0;
	CHECK_RC(netcond_rfc4115_profile_config(&prof, &p), NETCOND_E_RFC4115_ZERO_RATES);
	p = eparams(0);
	p.cbs = 0;
	p.ebs = 0;
	CHECK_RC(netcond_rfc4115_profile_config(&prof, &p), NETCOND_E_RFC4115_ZERO_BURSTS);
	p = eparams(0);
	p.cir = 0;
	CHECK_RC(netcond_rfc4115_profile_config(&prof, &p), NETCOND_OK);
	p = eparams(0);
	p.eir = 0;
	CHECK_RC(netcond_rfc4115_profile_config(&prof, &p), NETCOND_OK);
	p = eparams(0);
	p.cbs = 0;
	CHECK_RC(netcond_rfc4115_profile_config(&prof, &p), NETCOND_OK);
	p = eparams(0);
	p.ebs = 0;
	CHECK_RC(netcond_rfc4115_profile_config(&prof, &p), NETCOND_OK);
	p = eparams(2);
	CHECK_RC(netcond_rfc4115_profile_config(&prof, &p), NETCOND_E_ENUM);
	p = eparams(-1);
	CHECK_RC(netcond_rfc4115_profile_config(&prof, &p), NETCOND_E_ENUM);
	p = eparams(NETCOND_RFC4115_TEXT);
	p.tick_hz = 0;
	CHECK_RC(netcond_rfc4115_profile_config(&prof, &p), NETCOND_E_TICK);
	p = eparams(NETCOND_RFC4115_TEXT);
	p.ebs = (uint64_t)1 << 62;
	CHECK_RC(netcond_rfc4115_profile_config(&prof, &p), NETCOND_E_RFC4115_TOO_LARGE);
	p = eparams(NETCOND_RFC4115_TEXT);
	CHECK_RC(netcond_rfc4115_profile_config(&prof, &p), NETCOND_OK);
}

static void policer_config_cases(void)
{
	netcond_policer_profile prof;
	netcond_policer_params p;

	CHECK_RC(netcond_policer_profile_config(NULL, NULL), NETCOND_E_NULL);
	p = pparams();
	CHECK_RC(netcond_policer_profile_config(&prof, NULL), NETCOND_E_NULL);
	CHECK_RC(netcond_policer_profile_config(NULL, &p), NETCOND_E_NULL);
	p.rate = 0;
	CHECK_RC(netcond_policer_profile_config(&prof, &p), NETCOND_E_POLICER_ZERO_RATE);
	p = pparams();
	p.tbs = 0;
	CHECK_RC(netcond_policer_profile_config(&prof, &p), NETCOND_E_POLICER_ZERO_TBS);
	p = pparams();
	p.max_packet = 0;
	CHECK_RC(netcond_policer_profile_config(&prof, &p), NETCOND_E_POLICER_ZERO_MAX_PACKET);
	p = pparams();
	p.tbs = 1499;
	CHECK_RC(netcond_policer_profile_config(&prof, &p),
		 NETCOND_E_POLICER_TBS_BELOW_MAX_PACKET);
	p = pparams();
	p.pbs = 1499;
	CHECK_RC(netcond_policer_profile_config(&prof, &p),
		 NETCOND_E_POLICER_PBS_BELOW_MAX_PACKET);
	p = pparams();
	p.tbs = (uint64_t)1 << 62;
	CHECK_RC(netcond_policer_profile_config(&prof, &p), NETCOND_E_POLICER_TOO_LARGE);
	p = pparams();
	p.tick_hz = 0;
	CHECK_RC(netcond_policer_profile_config(&prof, &p), NETCOND_E_TICK);
	p = pparams();
	CHECK_RC(netcond_policer_profile_config(&prof, &p), NETCOND_OK);
}

static void compact_config_cases(void)
{
	netcond_srtcm_compact_profile sp;
	netcond_trtcm_compact_profile tp;
	netcond_rfc4115_compact_profile ep;
	netcond_srtcm_params s = sparams();
	netcond_trtcm_params t = tparams();
	netcond_rfc4115_params e = eparams(0);

	CHECK_RC(netcond_srtcm_compact_profile_config(&sp, &s), NETCOND_OK);
	CHECK_RC(netcond_trtcm_compact_profile_config(&tp, &t), NETCOND_OK);
	CHECK_RC(netcond_rfc4115_compact_profile_config(&ep, &e), NETCOND_OK);
	/* A bucket of 2^32 bytes holds at least 2^32 units: fine for the
	 * 24-byte state, refused for the compact one. */
	s.ebs = (uint64_t)1 << 32;
	t.pbs = (uint64_t)1 << 32;
	e.cbs = (uint64_t)1 << 32;
	{
		netcond_srtcm_profile wide;
		CHECK_RC(netcond_srtcm_profile_config(&wide, &s), NETCOND_OK);
	}
	CHECK_RC(netcond_srtcm_compact_profile_config(&sp, &s), NETCOND_E_COMPACT_TOO_LARGE);
	CHECK_RC(netcond_trtcm_compact_profile_config(&tp, &t), NETCOND_E_COMPACT_TOO_LARGE);
	CHECK_RC(netcond_rfc4115_compact_profile_config(&ep, &e), NETCOND_E_COMPACT_TOO_LARGE);
	/* The wrapped profile's own errors come first. */
	t = tparams();
	t.pir = 1;
	CHECK_RC(netcond_trtcm_compact_profile_config(&tp, &t), NETCOND_E_TRTCM_PIR_BELOW_CIR);
	e = eparams(7);
	CHECK_RC(netcond_rfc4115_compact_profile_config(&ep, &e), NETCOND_E_ENUM);
	CHECK_RC(netcond_srtcm_compact_profile_config(NULL, &s), NETCOND_E_NULL);
	CHECK_RC(netcond_trtcm_compact_profile_config(&tp, NULL), NETCOND_E_NULL);
}

/* Each DPDK case starts a fresh state and offers one packet one second
 * later (the buckets are full either way). */
static void srtcm_color_cases(void)
{
	netcond_srtcm_profile prof;
	netcond_srtcm_compact_profile cprof;
	netcond_srtcm_params p = sparams();
	int i, c;

	CHECK_RC(netcond_srtcm_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_srtcm_compact_profile_config(&cprof, &p), NETCOND_OK);
	for (i = 0; i < 4; i++) {
		netcond_srtcm m;
		netcond_srtcm_compact cm;
		CHECK_RC(netcond_srtcm_config(&m, &prof, 0), NETCOND_OK);
		CHECK(netcond_srtcm_color_blind_check(&m, &prof, HZ, lens[i]) == want_blind[i]);
		CHECK_RC(netcond_srtcm_compact_config(&cm, &cprof, 0), NETCOND_OK);
		CHECK(netcond_srtcm_compact_color_blind_check(&cm, &cprof, HZ, lens[i]) ==
		      want_blind[i]);
		for (c = 0; c < 3; c++) {
			CHECK_RC(netcond_srtcm_config(&m, &prof, 0), NETCOND_OK);
			CHECK(netcond_srtcm_color_aware_check(&m, &prof, HZ, lens[i], c) ==
			      want_aware[c][i]);
			CHECK_RC(netcond_srtcm_compact_config(&cm, &cprof, 0), NETCOND_OK);
			CHECK(netcond_srtcm_compact_color_aware_check(&cm, &cprof, HZ, lens[i],
								      c) == want_aware[c][i]);
		}
	}
}

static void trtcm_color_cases(void)
{
	netcond_trtcm_profile prof;
	netcond_trtcm_compact_profile cprof;
	netcond_trtcm_params p = tparams();
	int i, c;

	CHECK_RC(netcond_trtcm_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_trtcm_compact_profile_config(&cprof, &p), NETCOND_OK);
	for (i = 0; i < 4; i++) {
		netcond_trtcm m;
		netcond_trtcm_compact cm;
		CHECK_RC(netcond_trtcm_config(&m, &prof, 0), NETCOND_OK);
		CHECK(netcond_trtcm_color_blind_check(&m, &prof, HZ, lens[i]) == want_blind[i]);
		CHECK_RC(netcond_trtcm_compact_config(&cm, &cprof, 0), NETCOND_OK);
		CHECK(netcond_trtcm_compact_color_blind_check(&cm, &cprof, HZ, lens[i]) ==
		      want_blind[i]);
		for (c = 0; c < 3; c++) {
			CHECK_RC(netcond_trtcm_config(&m, &prof, 0), NETCOND_OK);
			CHECK(netcond_trtcm_color_aware_check(&m, &prof, HZ, lens[i], c) ==
			      want_aware[c][i]);
			CHECK_RC(netcond_trtcm_compact_config(&cm, &cprof, 0), NETCOND_OK);
			CHECK(netcond_trtcm_compact_color_aware_check(&cm, &cprof, HZ, lens[i],
								      c) == want_aware[c][i]);
		}
	}
}

static void rfc4115_color_cases(void)
{
	int ties, i, c;

	for (ties = 0; ties < 2; ties++) {
		netcond_rfc4115_profile prof;
		netcond_rfc4115_compact_profile cprof;
		netcond_rfc4115_params p = eparams(ties);

		CHECK_RC(netcond_rfc4115_profile_config(&prof, &p), NETCOND_OK);
		CHECK_RC(netcond_rfc4115_compact_profile_config(&cprof, &p), NETCOND_OK);
		for (i = 0; i < 4; i++) {
			netcond_rfc4115 m;
			netcond_rfc4115_compact cm;
			CHECK_RC(netcond_rfc4115_config(&m, &prof, 0), NETCOND_OK);
			CHECK(netcond_rfc4115_color_blind_check(&m, &prof, HZ, lens[i]) ==
			      want_blind[i]);
			CHECK_RC(netcond_rfc4115_compact_config(&cm, &cprof, 0), NETCOND_OK);
			CHECK(netcond_rfc4115_compact_color_blind_check(&cm, &cprof, HZ,
									lens[i]) == want_blind[i]);
			for (c = 0; c < 3; c++) {
				CHECK_RC(netcond_rfc4115_config(&m, &prof, 0), NETCOND_OK);
				CHECK(netcond_rfc4115_color_aware_check(&m, &prof, HZ, lens[i],
									c) == want_aware[c][i]);
				CHECK_RC(netcond_rfc4115_compact_config(&cm, &cprof, 0),
					 NETCOND_OK);
				CHECK(netcond_rfc4115_compact_color_aware_check(
					      &cm, &cprof, HZ, lens[i], c) == want_aware[c][i]);
			}
		}
		/* The tie rules differ only on a packet exactly as large as a
		 * bucket: CBS bytes are green by figure 1, yellow by the text. */
		{
			netcond_rfc4115 m;
			CHECK_RC(netcond_rfc4115_config(&m, &prof, 0), NETCOND_OK);
			CHECK(netcond_rfc4115_color_blind_check(&m, &prof, HZ, CBS) ==
			      (ties == NETCOND_RFC4115_FIGURE1 ? G : Y));
		}
	}
}

/* NULL and unconfigured arguments on every path; bad input colors. */
/*
 * The trTCM bulk call against the per-packet call: the same colors and the
 * same final state on 10,000 packets (lengths 0 to 9999, the clock stepping
 * back now and then), in bursts of 1 to 64; and its bad arguments.
 */
static void bulk_cases(void)
{
	enum { N = 10000, BURST = 64 };
	static uint64_t times[N];
	static uint32_t lens[N];
	static uint8_t colors[N];
	netcond_trtcm_profile prof, never;
	netcond_trtcm_params p = tparams();
	netcond_trtcm a, b;
	netcond_tcm_tokens ta, tb;
	uint64_t now = 0;
	unsigned i, done, mismatches = 0;

	rng_state = 17;
	memset(&never, 0, sizeof never);
	CHECK_RC(netcond_trtcm_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_trtcm_config(&a, &prof, 0), NETCOND_OK);
	CHECK_RC(netcond_trtcm_config(&b, &prof, 0), NETCOND_OK);
	for (i = 0; i < N; i++) {
		uint64_t r = next_u64();
		now = (r % 16 == 0 && now > 50000) ? now - 50000 : now + r % 100000;
		times[i] = now;
		lens[i] = (uint32_t)((r >> 8) % 10000);
	}
	for (done = 0; done < N;) {
		size_t n = 1 + next_u64() % BURST;
		if (n > N - done)
			n = N - done;
		CHECK_RC(netcond_trtcm_color_blind_bulk(&b, &prof, times + done, lens + done,
							colors + done, n),
			 NETCOND_OK);
		done += (unsigned)n;
	}
	for (i = 0; i < N; i++)
		if (netcond_trtcm_color_blind_check(&a, &prof, times[i], lens[i]) !=
		    (netcond_color)colors[i])
			mismatches++;
	CHECK(mismatches == 0);
	CHECK_RC(netcond_trtcm_read(&a, &ta), NETCOND_OK);
	CHECK_RC(netcond_trtcm_read(&b, &tb), NETCOND_OK);
	CHECK(ta.tc == tb.tc && ta.te == tb.te && ta.last == tb.last);

	/* Bad arguments: an error, nothing written, the state untouched. */
	memset(colors, 0xee, 4);
	CHECK_RC(netcond_trtcm_color_blind_bulk(NULL, &prof, times, lens, colors, 4), NETCOND_E_NULL);
	CHECK_RC(netcond_trtcm_color_blind_bulk(&b, NULL, times, lens, colors, 4), NETCOND_E_NULL);
	CHECK_RC(netcond_trtcm_color_blind_bulk(&b, &never, times, lens, colors, 4), NETCOND_E_NULL);
	CHECK_RC(netcond_trtcm_color_blind_bulk(&b, &prof, NULL, lens, colors, 4), NETCOND_E_NULL);
	CHECK_RC(netcond_trtcm_color_blind_bulk(&b, &prof, times, NULL, colors, 4), NETCOND_E_NULL);
	CHECK_RC(netcond_trtcm_color_blind_bulk(&b, &prof, times, lens, NULL, 4), NETCOND_E_NULL);
	CHECK_RC(netcond_trtcm_color_blind_bulk(&b, &prof, times, lens, colors, 0), NETCOND_E_COUNT);
	CHECK(colors[0] == 0xee && colors[3] == 0xee);
	CHECK_RC(netcond_trtcm_read(&b, &ta), NETCOND_OK);
	CHECK(ta.tc == tb.tc && ta.te == tb.te && ta.last == tb.last);
}

static void bad_argument_cases(void)
{
	netcond_trtcm_profile prof, never;
	netcond_trtcm_params p = tparams();
	netcond_trtcm m[4];
	netcond_tcm_tokens tok;
	netcond_policer_profile pprof;
	netcond_policer_params pp = pparams();
	netcond_policer pm;
	netcond_policer_tokens ptok;

	memset(&never, 0, sizeof never);
	CHECK_RC(netcond_trtcm_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_trtcm_config(NULL, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_trtcm_config(&m[0], NULL, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_trtcm_config(&m[0], &never, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_trtcm_config_array(m, 0, &prof, 0), NETCOND_E_COUNT);
	CHECK_RC(netcond_trtcm_config_array(NULL, 4, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_trtcm_config_array(m, 4, &never, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_trtcm_config_array(m, 4, &prof, 5), NETCOND_OK);
	CHECK_RC(netcond_trtcm_read(&m[3], &tok), NETCOND_OK);
	CHECK(tok.last == 5 && tok.tc > 0 && tok.te > 0);
	CHECK_RC(netcond_trtcm_read(NULL, &tok), NETCOND_E_NULL);
	CHECK_RC(netcond_trtcm_read(&m[0], NULL), NETCOND_E_NULL);

	CHECK(netcond_trtcm_color_blind_check(NULL, &prof, 1, 64) == R);
	CHECK(netcond_trtcm_color_blind_check(&m[0], NULL, 1, 64) == R);
	CHECK(netcond_trtcm_color_blind_check(&m[0], &never, 1, 64) == R);
	CHECK(netcond_trtcm_color_aware_check(NULL, &prof, 1, 64, 0) == R);
	/* Out-of-range input colors count as red, never promoted. */
	CHECK(netcond_trtcm_color_aware_check(&m[0], &prof, 1, 64, 3) == R);
	CHECK(netcond_trtcm_color_aware_check(&m[0], &prof, 1, 64, -1) == R);
	CHECK(netcond_trtcm_color_aware_check(&m[0], &prof, 1, 64, 0x7fffffff) == R);
	/* Nothing above consumed tokens from m[0]: a green packet is green. */
	CHECK(netcond_trtcm_color_aware_check(&m[0], &prof, 1, 64, 0) == G);

	/* A failed configuration leaves the profile unusable. */
	p.cir = 0;
	CHECK_RC(netcond_trtcm_profile_config(&prof, &p), NETCOND_E_TRTCM_ZERO_CIR);
	CHECK(netcond_trtcm_color_blind_check(&m[1], &prof, 1, 64) == R);
	CHECK_RC(netcond_trtcm_config(&m[1], &prof, 0), NETCOND_E_NULL);

	/* Extreme inputs on a good profile: no crash, defined colors. */
	p = tparams();
	CHECK_RC(netcond_trtcm_profile_config(&prof, &p), NETCOND_OK);
	CHECK(netcond_trtcm_color_blind_check(&m[2], &prof, UINT64_MAX, UINT32_MAX) == R);
	CHECK(netcond_trtcm_color_blind_check(&m[2], &prof, 0, 0) == G);
	CHECK(netcond_trtcm_color_blind_check(&m[2], &prof, UINT64_MAX, 1) == G);

	/* The other families' NULL paths. */
	CHECK(netcond_srtcm_color_blind_check(NULL, NULL, 0, 1) == R);
	CHECK(netcond_srtcm_color_aware_check(NULL, NULL, 0, 1, 0) == R);
	CHECK(netcond_rfc4115_color_blind_check(NULL, NULL, 0, 1) == R);
	CHECK(netcond_rfc4115_color_aware_check(NULL, NULL, 0, 1, 0) == R);
	CHECK(netcond_srtcm_compact_color_blind_check(NULL, NULL, 0, 1) == R);
	CHECK(netcond_trtcm_compact_color_blind_check(NULL, NULL, 0, 1) == R);
	CHECK(netcond_rfc4115_compact_color_aware_check(NULL, NULL, 0, 1, 1) == R);
	CHECK_RC(netcond_srtcm_config(NULL, NULL, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_rfc4115_config(NULL, NULL, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_srtcm_config_array(NULL, 1, NULL, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_rfc4115_config_array(NULL, 0, NULL, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_trtcm_compact_config_array(NULL, 1, NULL, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_srtcm_read(NULL, NULL), NETCOND_E_NULL);
	CHECK_RC(netcond_rfc4115_read(NULL, NULL), NETCOND_E_NULL);
	CHECK_RC(netcond_trtcm_compact_read(NULL, NULL), NETCOND_E_NULL);

	/* Profiles of one marker are not accepted by another's calls. */
	CHECK_RC(netcond_srtcm_config((netcond_srtcm *)&m[0],
				      (const netcond_srtcm_profile *)&prof, 0),
		 NETCOND_E_NULL);

	CHECK_RC(netcond_policer_profile_config(&pprof, &pp), NETCOND_OK);
	CHECK_RC(netcond_policer_config(NULL, &pprof, 0), NETCOND_E_NULL);
	CHECK(netcond_policer_offer(NULL, &pprof, 0, 100) == NETCOND_POLICER_DROP);
	CHECK(netcond_policer_offer(&pm, NULL, 0, 100) == NETCOND_POLICER_DROP);
	netcond_policer_dequeued(NULL, 100);
	CHECK_RC(netcond_policer_config(&pm, &pprof, 0), NETCOND_OK);
	CHECK(netcond_policer_offer(&pm, &pprof, 0, 1500) == NETCOND_ADMITTED);
	CHECK_RC(netcond_policer_read(&pm, &ptok), NETCOND_OK);
	CHECK(ptok.backlog == 1500);
	netcond_policer_dequeued(&pm, 4000);
	CHECK_RC(netcond_policer_read(&pm, &ptok), NETCOND_OK);
	CHECK(ptok.backlog == 0);
	CHECK_RC(netcond_policer_read(NULL, &ptok), NETCOND_E_NULL);
}

static void strerror_cases(void)
{
	static const int codes[] = {
		NETCOND_E_NULL, NETCOND_E_ENUM, NETCOND_E_UNKNOWN, NETCOND_E_TICK,
		NETCOND_E_COUNT, NETCOND_E_SRTCM_ZERO_CIR, NETCOND_E_TRTCM_PIR_BELOW_CIR,
		NETCOND_E_RFC4115_ZERO_RATES, NETCOND_E_POLICER_TOO_LARGE,
		NETCOND_E_COMPACT_TOO_LARGE,
	};
	size_t i;

	CHECK(strcmp(netcond_strerror(0), "ok") == 0);
	CHECK(strcmp(netcond_strerror(12345), "unknown netcond status") == 0);
	CHECK(strstr(netcond_strerror(NETCOND_E_TRTCM_PIR_BELOW_CIR), "RFC 2698") != NULL);
	for (i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		const char *s = netcond_strerror(codes[i]);
		CHECK(s != NULL && strlen(s) > 10);
		CHECK(strcmp(s, "unknown netcond status") != 0);
	}
	CHECK(netcond_version() == NETCOND_VERSION);
}

/* ---------------------------------------------------------------- streams */

/* The packets: meter_stream.h (from SplitMix64, as the Rust side's). */

/* FNV-1a over the output sequence. */
static uint64_t fnv(uint64_t h, unsigned v)
{
	return (h ^ v) * 0x100000001b3ull;
}

struct run {
	uint64_t counts[3];
	uint64_t hash;
};

static void run_start(struct run *r)
{
	memset(r, 0, sizeof *r);
	r->hash = 0xcbf29ce484222325ull;
}

static void run_add(struct run *r, unsigned c)
{
	if (c < 3)
		r->counts[c]++;
	r->hash = fnv(r->hash, c);
}

static void print_line(const char *name, const struct run *r, const netcond_tcm_tokens *t)
{
	printf("%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %016" PRIx64 " %" PRIu64 " %" PRIu64
	       " %" PRIu64 "\n",
	       name, r->counts[0], r->counts[1], r->counts[2], r->hash, t->tc, t->te, t->last);
}

#define STREAM(name, PROF, STATE, PARAMS, pconfig, config, call, read)          \
	do {                                                                   \
		PROF prof;                                                     \
		STATE m;                                                       \
		struct run r;                                                  \
		netcond_tcm_tokens t;                                          \
		uint64_t now = 1000;                                           \
		unsigned i;                                                    \
		PARAMS;                                                        \
		rng_state = seed;                                              \
		CHECK_RC(pconfig(&prof, &params), NETCOND_OK);                 \
		CHECK_RC(config(&m, &prof, now), NETCOND_OK);                  \
		run_start(&r);                                                 \
		for (i = 0; i < PACKETS; i++) {                                \
			struct pkt k = next_pkt(&now);                         \
			run_add(&r, (unsigned)(call));                         \
		}                                                              \
		CHECK_RC(read(&m, &t), NETCOND_OK);                            \
		print_line(name, &r, &t);                                      \
	} while (0)

static void streams(uint64_t seed)
{
	STREAM("srtcm_blind", netcond_srtcm_profile, netcond_srtcm,
	       netcond_srtcm_params params = sparams(), netcond_srtcm_profile_config,
	       netcond_srtcm_config, netcond_srtcm_color_blind_check(&m, &prof, k.now, k.len),
	       netcond_srtcm_read);
	STREAM("srtcm_aware", netcond_srtcm_profile, netcond_srtcm,
	       netcond_srtcm_params params = sparams(), netcond_srtcm_profile_config,
	       netcond_srtcm_config,
	       netcond_srtcm_color_aware_check(&m, &prof, k.now, k.len, k.color),
	       netcond_srtcm_read);
	STREAM("trtcm_blind", netcond_trtcm_profile, netcond_trtcm,
	       netcond_trtcm_params params = tparams(), netcond_trtcm_profile_config,
	       netcond_trtcm_config, netcond_trtcm_color_blind_check(&m, &prof, k.now, k.len),
	       netcond_trtcm_read);
	STREAM("trtcm_aware", netcond_trtcm_profile, netcond_trtcm,
	       netcond_trtcm_params params = tparams(), netcond_trtcm_profile_config,
	       netcond_trtcm_config,
	       netcond_trtcm_color_aware_check(&m, &prof, k.now, k.len, k.color),
	       netcond_trtcm_read);
	STREAM("rfc4115_figure1_blind", netcond_rfc4115_profile, netcond_rfc4115,
	       netcond_rfc4115_params params = eparams(0), netcond_rfc4115_profile_config,
	       netcond_rfc4115_config,
	       netcond_rfc4115_color_blind_check(&m, &prof, k.now, k.len), netcond_rfc4115_read);
	STREAM("rfc4115_text_aware", netcond_rfc4115_profile, netcond_rfc4115,
	       netcond_rfc4115_params params = eparams(1), netcond_rfc4115_profile_config,
	       netcond_rfc4115_config,
	       netcond_rfc4115_color_aware_check(&m, &prof, k.now, k.len, k.color),
	       netcond_rfc4115_read);
	STREAM("srtcm_compact_aware", netcond_srtcm_compact_profile, netcond_srtcm_compact,
	       netcond_srtcm_params params = sparams(), netcond_srtcm_compact_profile_config,
	       netcond_srtcm_compact_config,
	       netcond_srtcm_compact_color_aware_check(&m, &prof, k.now, k.len, k.color),
	       netcond_srtcm_compact_read);
	STREAM("trtcm_compact_blind", netcond_trtcm_compact_profile, netcond_trtcm_compact,
	       netcond_trtcm_params params = tparams(), netcond_trtcm_compact_profile_config,
	       netcond_trtcm_compact_config,
	       netcond_trtcm_compact_color_blind_check(&m, &prof, k.now, k.len),
	       netcond_trtcm_compact_read);
	STREAM("rfc4115_compact_blind", netcond_rfc4115_compact_profile,
	       netcond_rfc4115_compact, netcond_rfc4115_params params = eparams(1),
	       netcond_rfc4115_compact_profile_config, netcond_rfc4115_compact_config,
	       netcond_rfc4115_compact_color_blind_check(&m, &prof, k.now, k.len),
	       netcond_rfc4115_compact_read);

	/* The policer: packets at about 1.05 x its rate; the buffer drains
	 * 1500 bytes at every 16th packet, slower than the policer admits,
	 * so the buffer fills and drops too. */
	{
		netcond_policer_profile prof;
		netcond_policer m;
		netcond_policer_params params = pparams();
		netcond_policer_tokens t;
		struct run r;
		uint64_t now = 1000;
		unsigned i;

		rng_state = seed;
		CHECK_RC(netcond_policer_profile_config(&prof, &params), NETCOND_OK);
		CHECK_RC(netcond_policer_config(&m, &prof, now), NETCOND_OK);
		run_start(&r);
		for (i = 0; i < PACKETS; i++) {
			struct pkt k = next_pkt(&now);
			now += 30000000u; /* ~30 ms per packet of ~790 bytes */
			run_add(&r, (unsigned)netcond_policer_offer(&m, &prof, now, k.len));
			if (i % 16u == 15u)
				netcond_policer_dequeued(&m, 1500);
		}
		CHECK_RC(netcond_policer_read(&m, &t), NETCOND_OK);
		printf("policer %" PRIu64 " %" PRIu64 " %" PRIu64 " %016" PRIx64 " %" PRIu64
		       " %" PRIu64 " %" PRIu64 "\n",
		       r.counts[0], r.counts[1], r.counts[2], r.hash, t.tokens, t.backlog, t.last);
	}
}

int main(int argc, char **argv)
{
	static void (*const all[])(void) = {
		srtcm_config_cases, trtcm_config_cases, rfc4115_config_cases,
		policer_config_cases, compact_config_cases, srtcm_color_cases,
		trtcm_color_cases, rfc4115_color_cases, bulk_cases,
		bad_argument_cases, strerror_cases, NULL};

	return test_main(argc, argv, "meter", all, streams);
}
