/*
 * C tests of netcond.h's per-packet calls for packet mode
 * (netcond_*_color_blind_packet, netcond_*_color_aware_packet, on the 24-byte
 * and the 16-byte compact states, netcond_policer_offer_packet) and per-color
 * counters (the *_counted calls
 * and netcond_counters), run by tests/c_api.rs (with
 * -fsanitize=address,undefined when the toolchain has the runtimes).
 *
 *   meter_counted_test cases         worked cases, NULL and unconfigured
 *                                    arguments; exit 1 if a check failed.
 *   meter_counted_test stream SEED   one line per run: color counts, a hash
 *                                    of the color sequence, the counters and
 *                                    the final state, which the Rust test
 *                                    compares with the same runs through the
 *                                    Rust API.
 */
#include "check.h"
#include "meter_stream.h"

#define HZ 1000000000u

static const netcond_color G = NETCOND_GREEN, Y = NETCOND_YELLOW, R = NETCOND_RED;

/* Byte mode: DPDK's meter test profile. Packet mode: 50 000 and 100 000
 * packets per second, bursts of 16 and 32 packets. */
static netcond_srtcm_params sparams(int packets)
{
	netcond_srtcm_params p;
	memset(&p, 0, sizeof p);
	p.cir = packets ? 50000u : 46000000u;
	p.cbs = packets ? 16u : 2048u;
	p.ebs = packets ? 32u : 4096u;
	p.tick_hz = HZ;
	return p;
}

static netcond_trtcm_params tparams(int packets)
{
	netcond_trtcm_params p;
	memset(&p, 0, sizeof p);
	p.cir = packets ? 50000u : 46000000u;
	p.pir = packets ? 100000u : 69000000u;
	p.cbs = packets ? 16u : 2048u;
	p.pbs = packets ? 32u : 4096u;
	p.tick_hz = HZ;
	return p;
}

static netcond_rfc4115_params eparams(int packets)
{
	netcond_rfc4115_params p;
	memset(&p, 0, sizeof p);
	p.cir = packets ? 50000u : 46000000u;
	p.eir = packets ? 50000u : 69000000u;
	p.cbs = packets ? 16u : 2048u;
	p.ebs = packets ? 32u : 4096u;
	p.tick_hz = HZ;
	p.ties = packets ? NETCOND_RFC4115_FIGURE1 : NETCOND_RFC4115_TEXT;
	return p;
}

/* Byte mode: 20 480 bytes/s, TBs 11 000, PBs 13 000. Packet mode: 20
 * packets/s, TBs 8 and PBs 12 packets. */
static netcond_policer_params pparams(int packets)
{
	netcond_policer_params p;
	memset(&p, 0, sizeof p);
	p.rate = packets ? 20u : 20480u;
	p.tbs = packets ? 8u : 11000u;
	p.pbs = packets ? 12u : 13000u;
	p.max_packet = packets ? 1u : 1500u;
	p.tick_hz = HZ;
	return p;
}

static int zero(const netcond_counters *c)
{
	static const netcond_counters z;
	return memcmp(c, &z, sizeof z) == 0;
}

/* Packet mode: one token per packet whatever its length, on the fast calls
 * and on the length-taking ones alike. */
static void packet_mode_cases(void)
{
	netcond_srtcm_params sp = sparams(1);
	netcond_trtcm_params tp = tparams(1);
	netcond_rfc4115_params ep = eparams(1);
	netcond_srtcm_profile s;
	netcond_trtcm_profile t;
	netcond_rfc4115_profile e;
	netcond_srtcm sm, sm2;
	netcond_trtcm tm;
	netcond_rfc4115 em;
	netcond_tcm_tokens tok;
	unsigned i;

	CHECK_RC(netcond_srtcm_profile_config_packets(&s, &sp), NETCOND_OK);
	CHECK_RC(netcond_trtcm_profile_config_packets(&t, &tp), NETCOND_OK);
	CHECK_RC(netcond_rfc4115_profile_config_packets(&e, &ep), NETCOND_OK);

	/* srTCM: 16 green, 32 yellow, then red, at one instant; the same
	 * sequence through the length-taking call with any length. */
	CHECK_RC(netcond_srtcm_config(&sm, &s, 0), NETCOND_OK);
	CHECK_RC(netcond_srtcm_config(&sm2, &s, 0), NETCOND_OK);
	for (i = 0; i < 50; i++) {
		netcond_color want = i < 16 ? G : i < 48 ? Y : R;
		CHECK(netcond_srtcm_color_blind_packet(&sm, &s, 0) == want);
		CHECK(netcond_srtcm_color_blind_check(&sm2, &s, 0, 1500u * i) == want);
	}
	/* 20 us later: one packet of C (50 000/s) refilled. */
	CHECK(netcond_srtcm_color_blind_packet(&sm, &s, 19999) == R);
	CHECK(netcond_srtcm_color_blind_packet(&sm, &s, 20000) == G);
	CHECK(netcond_srtcm_color_blind_packet(&sm, &s, 20000) == R);
	/* Color-aware: a yellow packet never takes C. */
	CHECK_RC(netcond_srtcm_config(&sm, &s, 0), NETCOND_OK);
	CHECK(netcond_srtcm_color_aware_packet(&sm, &s, 0, NETCOND_YELLOW) == Y);
	CHECK(netcond_srtcm_color_aware_packet(&sm, &s, 0, NETCOND_RED) == R);
	CHECK(netcond_srtcm_color_aware_packet(&sm, &s, 0, 77) == R);
	CHECK(netcond_srtcm_color_aware_packet(&sm, &s, 0, NETCOND_GREEN) == G);
	CHECK_RC(netcond_srtcm_read(&sm, &tok), NETCOND_OK);
	/* One packet out of each bucket: C 15, E 31 (in units of the profile). */
	{
		netcond_srtcm fresh;
		netcond_tcm_tokens full;
		CHECK_RC(netcond_srtcm_config(&fresh, &s, 0), NETCOND_OK);
		CHECK_RC(netcond_srtcm_read(&fresh, &full), NETCOND_OK);
		CHECK(tok.tc * 16u == full.tc * 15u && tok.te * 32u == full.te * 31u);
	}

	/* trTCM: P holds 32, C 16: 16 green, 16 yellow, then red. */
	CHECK_RC(netcond_trtcm_config(&tm, &t, 0), NETCOND_OK);
	for (i = 0; i < 40; i++) {
		netcond_color want = i < 16 ? G : i < 32 ? Y : R;
		CHECK(netcond_trtcm_color_blind_packet(&tm, &t, 0) == want);
	}
	/* 10 us: one packet of P (100 000/s), none of C. */
	CHECK(netcond_trtcm_color_aware_packet(&tm, &t, 10000, NETCOND_GREEN) == Y);
	CHECK(netcond_trtcm_color_aware_packet(&tm, &t, 10000, NETCOND_GREEN) == R);

	/* RFC 4115: C 16 then E 32; a yellow input skips C. */
	CHECK_RC(netcond_rfc4115_config(&em, &e, 0), NETCOND_OK);
	CHECK(netcond_rfc4115_color_aware_packet(&em, &e, 0, NETCOND_YELLOW) == Y);
	for (i = 0; i < 16; i++)
		CHECK(netcond_rfc4115_color_blind_packet(&em, &e, 0) == G);
	for (i = 0; i < 31; i++)
		CHECK(netcond_rfc4115_color_blind_packet(&em, &e, 0) == Y);
	CHECK(netcond_rfc4115_color_blind_packet(&em, &e, 0) == R);

	/* On a byte-mode profile the packet calls charge one byte. */
	{
		netcond_srtcm_params bp = sparams(0);
		netcond_srtcm_profile b;
		bp.cbs = 3;
		bp.ebs = 0;
		CHECK_RC(netcond_srtcm_profile_config(&b, &bp), NETCOND_OK);
		CHECK_RC(netcond_srtcm_config(&sm, &b, 0), NETCOND_OK);
		CHECK(netcond_srtcm_color_blind_packet(&sm, &b, 0) == G);
		CHECK(netcond_srtcm_color_blind_packet(&sm, &b, 0) == G);
		CHECK(netcond_srtcm_color_blind_packet(&sm, &b, 0) == G);
		CHECK(netcond_srtcm_color_blind_packet(&sm, &b, 0) == R);
	}
}

/* Packet mode with 16-byte compact states (DPDK's packet_mode with per-flow
 * state in a table): the colors and counts of the 24-byte states. */
static void compact_packet_cases(void)
{
	netcond_srtcm_params sp = sparams(1);
	netcond_trtcm_params tp = tparams(1);
	netcond_rfc4115_params ep = eparams(1);
	netcond_srtcm_profile s;
	netcond_srtcm_compact_profile cs;
	netcond_trtcm_compact_profile ct;
	netcond_rfc4115_compact_profile ce;
	netcond_srtcm sm;
	netcond_srtcm_compact csm, csm2;
	netcond_trtcm_compact ctm;
	netcond_rfc4115_compact cem;
	netcond_tcm_tokens wide, narrow;
	netcond_counters c;
	unsigned i;

	memset(&c, 0, sizeof c);
	CHECK_RC(netcond_srtcm_profile_config_packets(&s, &sp), NETCOND_OK);
	CHECK_RC(netcond_srtcm_compact_profile_config_packets(&cs, &sp), NETCOND_OK);
	CHECK_RC(netcond_trtcm_compact_profile_config_packets(&ct, &tp), NETCOND_OK);
	CHECK_RC(netcond_rfc4115_compact_profile_config_packets(&ce, &ep), NETCOND_OK);

	/* srTCM: 16 green, 32 yellow, then red, at one instant, on the fast
	 * call and on the length-taking one with any length; the 24-byte state
	 * alongside ends with the same counts. */
	CHECK_RC(netcond_srtcm_config(&sm, &s, 0), NETCOND_OK);
	CHECK_RC(netcond_srtcm_compact_config(&csm, &cs, 0), NETCOND_OK);
	CHECK_RC(netcond_srtcm_compact_config(&csm2, &cs, 0), NETCOND_OK);
	for (i = 0; i < 50; i++) {
		netcond_color want = i < 16 ? G : i < 48 ? Y : R;
		CHECK(netcond_srtcm_compact_color_blind_packet(&csm, &cs, 0) == want);
		CHECK(netcond_srtcm_compact_color_blind_check(&csm2, &cs, 0, 1500u * i) == want);
		CHECK(netcond_srtcm_color_blind_packet(&sm, &s, 0) == want);
	}
	/* 20 us later: one packet of C (50 000/s) refilled. */
	CHECK(netcond_srtcm_compact_color_blind_packet(&csm, &cs, 19999) == R);
	CHECK(netcond_srtcm_compact_color_blind_packet(&csm, &cs, 20000) == G);
	CHECK(netcond_srtcm_color_blind_packet(&sm, &s, 19999) == R);
	CHECK(netcond_srtcm_color_blind_packet(&sm, &s, 20000) == G);
	CHECK_RC(netcond_srtcm_read(&sm, &wide), NETCOND_OK);
	CHECK_RC(netcond_srtcm_compact_read(&csm, &narrow), NETCOND_OK);
	CHECK(memcmp(&wide, &narrow, sizeof wide) == 0);
	/* Color-aware: a yellow packet never takes C. */
	CHECK_RC(netcond_srtcm_compact_config(&csm, &cs, 0), NETCOND_OK);
	CHECK(netcond_srtcm_compact_color_aware_packet(&csm, &cs, 0, NETCOND_YELLOW) == Y);
	CHECK(netcond_srtcm_compact_color_aware_packet(&csm, &cs, 0, 77) == R);
	CHECK(netcond_srtcm_compact_color_aware_packet(&csm, &cs, 0, NETCOND_GREEN) == G);

	/* trTCM: P holds 32, C 16: 16 green, 16 yellow, then red; counted, each
	 * packet with its length in bytes. */
	CHECK_RC(netcond_trtcm_compact_config(&ctm, &ct, 0), NETCOND_OK);
	for (i = 0; i < 40; i++) {
		netcond_color want = i < 16 ? G : i < 32 ? Y : R;
		CHECK(netcond_trtcm_compact_color_blind_packet_counted(&ctm, &ct, 0, 100, &c) ==
		      want);
	}
	CHECK(c.packets[G] == 16u && c.packets[Y] == 16u && c.packets[R] == 8u);
	CHECK(c.bytes[G] == 1600u && c.bytes[Y] == 1600u && c.bytes[R] == 800u);
	/* 10 us: one packet of P (100 000/s), none of C. */
	CHECK(netcond_trtcm_compact_color_aware_packet_counted(&ctm, &ct, 10000, 7,
								NETCOND_GREEN, &c) == Y);
	CHECK(netcond_trtcm_compact_color_aware_packet(&ctm, &ct, 10000, NETCOND_GREEN) == R);
	CHECK(c.packets[Y] == 17u && c.bytes[Y] == 1607u && c.packets[R] == 8u);

	/* RFC 4115: C 16 then E 32; a yellow input skips C. */
	CHECK_RC(netcond_rfc4115_compact_config(&cem, &ce, 0), NETCOND_OK);
	CHECK(netcond_rfc4115_compact_color_aware_packet(&cem, &ce, 0, NETCOND_YELLOW) == Y);
	for (i = 0; i < 16; i++)
		CHECK(netcond_rfc4115_compact_color_blind_packet(&cem, &ce, 0) == G);
	for (i = 0; i < 31; i++)
		CHECK(netcond_rfc4115_compact_color_blind_packet(&cem, &ce, 0) == Y);
	CHECK(netcond_rfc4115_compact_color_blind_packet(&cem, &ce, 0) == R);

	/* 3 packets/s on a nanosecond clock: a bucket of 16 packets is
	 * 1.6e10 units, beyond 32 bits: refused for compact states only. */
	sp.cir = 3;
	CHECK_RC(netcond_srtcm_compact_profile_config_packets(&cs, &sp),
		 NETCOND_E_COMPACT_TOO_LARGE);
	CHECK_RC(netcond_srtcm_profile_config_packets(&s, &sp), NETCOND_OK);
	CHECK(netcond_srtcm_compact_color_blind_packet(&csm, &cs, 0) == R);
	CHECK_RC(netcond_srtcm_compact_profile_config_packets(&cs, NULL), NETCOND_E_NULL);
	CHECK_RC(netcond_srtcm_compact_profile_config_packets(NULL, &sp), NETCOND_E_NULL);
}

static void policer_packet_cases(void)
{
	netcond_policer_params pp = pparams(1);
	netcond_policer_profile p;
	netcond_policer m;
	netcond_policer_tokens t;
	netcond_counters c;
	unsigned i;

	memset(&c, 0, sizeof c);
	CHECK_RC(netcond_policer_profile_config_packets(&p, &pp), NETCOND_OK);
	CHECK_RC(netcond_policer_config(&m, &p, 0), NETCOND_OK);
	/* TBs 8 packets: 8 admitted into the buffer (12), then policer drops. */
	for (i = 0; i < 8; i++)
		CHECK(netcond_policer_offer_packet(&m, &p, 0) == NETCOND_ADMITTED);
	CHECK(netcond_policer_offer_packet(&m, &p, 0) == NETCOND_POLICER_DROP);
	CHECK_RC(netcond_policer_read(&m, &t), NETCOND_OK);
	CHECK(t.backlog == 8u && t.tokens == 0u);
	/* One second later: 20 packets of tokens, capped at 8; the buffer has
	 * room for 4 more. The length is counted in bytes. */
	for (i = 0; i < 4; i++)
		CHECK(netcond_policer_offer_packet_counted(&m, &p, HZ, 100, &c) ==
		      NETCOND_ADMITTED);
	CHECK(netcond_policer_offer_packet_counted(&m, &p, HZ, 1000, &c) ==
	      NETCOND_BUFFER_DROP);
	CHECK(c.packets[G] == 5u && c.bytes[G] == 1400u && c.packets[R] == 0u);
	CHECK(c.dropped_packets == 1u && c.dropped_bytes == 1000u);
	netcond_policer_dequeued(&m, 1);
	CHECK(netcond_policer_offer_packet_counted(&m, &p, HZ, 7, &c) == NETCOND_ADMITTED);
	CHECK(netcond_policer_offer_packet_counted(&m, &p, HZ, 9, &c) == NETCOND_BUFFER_DROP);
	/* Tokens: 8 - 4 - 1 (a buffer drop spends its token) - 1 - 1 = 1 before
	 * the next packet, a buffer drop; then none: a policer drop. */
	CHECK(netcond_policer_offer_packet_counted(&m, &p, HZ, 11, &c) == NETCOND_BUFFER_DROP);
	CHECK(netcond_policer_offer_packet_counted(&m, &p, HZ, 13, &c) == NETCOND_POLICER_DROP);
	CHECK(c.packets[G] == 8u && c.bytes[G] == 1427u);
	CHECK(c.packets[R] == 1u && c.bytes[R] == 13u && c.packets[Y] == 0u);
	CHECK(c.dropped_packets == 4u && c.dropped_bytes == 1033u);
}

/* The counted calls color as the plain ones and add up per color. */
static void counted_cases(void)
{
	netcond_trtcm_params tp = tparams(0);
	netcond_trtcm_profile t;
	netcond_trtcm m, plain;
	netcond_counters c;
	netcond_policer_params pp = pparams(0);
	netcond_policer_profile p;
	netcond_policer pm;
	netcond_trtcm_compact_profile ct;
	netcond_trtcm_compact cm;

	memset(&c, 0, sizeof c);
	CHECK_RC(netcond_trtcm_profile_config(&t, &tp), NETCOND_OK);
	CHECK_RC(netcond_trtcm_config(&m, &t, 1000), NETCOND_OK);
	CHECK_RC(netcond_trtcm_config(&plain, &t, 1000), NETCOND_OK);
	/* DPDK's facts, one after another on one flow: 2047 green (C 1),
	 * 2049 yellow (P 0), then red. */
	CHECK(netcond_trtcm_color_blind_counted(&m, &t, 1000, 2047, &c) == G);
	CHECK(netcond_trtcm_color_blind_counted(&m, &t, 1000, 2000, &c) == Y);
	CHECK(netcond_trtcm_color_blind_counted(&m, &t, 1000, 100, &c) == R);
	CHECK(netcond_trtcm_color_aware_counted(&m, &t, 1000, 1, NETCOND_GREEN, &c) == G);
	CHECK(c.packets[G] == 2u && c.packets[Y] == 1u && c.packets[R] == 1u);
	CHECK(c.bytes[G] == 2048u && c.bytes[Y] == 2000u && c.bytes[R] == 100u);
	CHECK(c.dropped_packets == 0u && c.dropped_bytes == 0u);
	/* Counts add to what the struct holds, and saturate. */
	c.bytes[R] = UINT64_MAX - 5;
	CHECK(netcond_trtcm_color_aware_counted(&m, &t, 1000, 10, NETCOND_RED, &c) == R);
	CHECK(c.packets[R] == 2u && c.bytes[R] == UINT64_MAX);
	/* A NULL counter struct: colored, counted nowhere. */
	CHECK(netcond_trtcm_color_blind_check(&plain, &t, 1000, 2047) == G);
	CHECK(netcond_trtcm_color_blind_counted(&plain, &t, 1000, 2000, NULL) == Y);
	/* C holds one byte: a one-byte charge on a byte-mode profile. */
	CHECK(netcond_trtcm_color_blind_packet_counted(&plain, &t, 1000, 9, NULL) == G);
	CHECK(netcond_trtcm_color_blind_packet_counted(&plain, &t, 1000, 9, NULL) == Y);

	/* Compact states count as the full ones. */
	memset(&c, 0, sizeof c);
	CHECK_RC(netcond_trtcm_compact_profile_config(&ct, &tp), NETCOND_OK);
	CHECK_RC(netcond_trtcm_compact_config(&cm, &ct, 1000), NETCOND_OK);
	CHECK(netcond_trtcm_compact_color_blind_counted(&cm, &ct, 1000, 2049, &c) == Y);
	CHECK(netcond_trtcm_compact_color_aware_counted(&cm, &ct, 1000, 5, NETCOND_YELLOW,
							&c) == Y);
	CHECK(netcond_trtcm_compact_color_blind_counted(&cm, &ct, 1000, 2000, &c) == G);
	CHECK(c.packets[G] == 1u && c.bytes[G] == 2000u && c.packets[Y] == 2u && c.bytes[Y] == 2054u);

	/* The policer: admitted green, policer drop red and dropped. */
	memset(&c, 0, sizeof c);
	CHECK_RC(netcond_policer_profile_config(&p, &pp), NETCOND_OK);
	CHECK_RC(netcond_policer_config(&pm, &p, 0), NETCOND_OK);
	CHECK(netcond_policer_offer_counted(&pm, &p, 0, 10000, &c) == NETCOND_ADMITTED);
	CHECK(netcond_policer_offer_counted(&pm, &p, 0, 1001, &c) == NETCOND_POLICER_DROP);
	CHECK(netcond_policer_offer_counted(&pm, &p, 0, 1000, &c) == NETCOND_ADMITTED);
	CHECK(c.packets[G] == 2u && c.bytes[G] == 11000u);
	CHECK(c.packets[R] == 1u && c.bytes[R] == 1001u);
	CHECK(c.dropped_packets == 1u && c.dropped_bytes == 1001u);
}

/* NULL and unconfigured arguments: red (or a policer drop), nothing counted,
 * the state unchanged. */
static void bad_argument_cases(void)
{
	netcond_srtcm_params sp = sparams(1);
	netcond_srtcm_profile s, unset;
	netcond_srtcm m;
	netcond_tcm_tokens before, after;
	netcond_policer_profile punset;
	netcond_policer pm;
	netcond_counters c;

	memset(&c, 0, sizeof c);
	memset(&unset, 0, sizeof unset);
	memset(&punset, 0, sizeof punset);
	memset(&pm, 0, sizeof pm);
	CHECK_RC(netcond_srtcm_profile_config_packets(&s, &sp), NETCOND_OK);
	CHECK_RC(netcond_srtcm_config(&m, &s, 0), NETCOND_OK);
	CHECK_RC(netcond_srtcm_read(&m, &before), NETCOND_OK);
	CHECK(netcond_srtcm_color_blind_packet(NULL, &s, 5) == R);
	CHECK(netcond_srtcm_color_blind_packet(&m, NULL, 5) == R);
	CHECK(netcond_srtcm_color_blind_packet(&m, &unset, 5) == R);
	CHECK(netcond_srtcm_color_aware_packet(&m, &unset, 5, NETCOND_GREEN) == R);
	CHECK(netcond_trtcm_color_blind_packet(NULL, NULL, 5) == R);
	CHECK(netcond_trtcm_color_aware_packet(NULL, NULL, 5, 0) == R);
	CHECK(netcond_rfc4115_color_blind_packet(NULL, NULL, 5) == R);
	CHECK(netcond_rfc4115_color_aware_packet(NULL, NULL, 5, 0) == R);
	CHECK(netcond_srtcm_color_blind_counted(&m, &unset, 5, 10, &c) == R);
	CHECK(netcond_srtcm_color_aware_counted(NULL, &s, 5, 10, 0, &c) == R);
	CHECK(netcond_srtcm_color_blind_packet_counted(&m, NULL, 5, 10, &c) == R);
	CHECK(netcond_srtcm_color_aware_packet_counted(&m, &unset, 5, 10, 0, &c) == R);
	CHECK(netcond_trtcm_color_blind_counted(NULL, NULL, 5, 10, &c) == R);
	CHECK(netcond_rfc4115_color_aware_counted(NULL, NULL, 5, 10, 0, &c) == R);
	CHECK(netcond_srtcm_compact_color_blind_counted(NULL, NULL, 5, 10, &c) == R);
	CHECK(netcond_rfc4115_compact_color_aware_counted(NULL, NULL, 5, 10, 0, &c) == R);
	CHECK(netcond_srtcm_compact_color_blind_packet(NULL, NULL, 5) == R);
	CHECK(netcond_trtcm_compact_color_aware_packet(NULL, NULL, 5, 0) == R);
	CHECK(netcond_rfc4115_compact_color_blind_packet_counted(NULL, NULL, 5, 10, &c) == R);
	CHECK(netcond_trtcm_compact_color_aware_packet_counted(NULL, NULL, 5, 10, 0, &c) == R);
	CHECK(netcond_policer_offer_packet(&pm, &punset, 5) == NETCOND_POLICER_DROP);
	CHECK(netcond_policer_offer_counted(&pm, &punset, 5, 10, &c) == NETCOND_POLICER_DROP);
	CHECK(netcond_policer_offer_packet_counted(NULL, NULL, 5, 10, &c) ==
	      NETCOND_POLICER_DROP);
	CHECK(zero(&c));
	CHECK_RC(netcond_srtcm_read(&m, &after), NETCOND_OK);
	CHECK(memcmp(&before, &after, sizeof before) == 0);
}

/* ---------------------------------------------------------------- streams */

/* The packets: meter_stream.h. */

struct run {
	uint64_t counts[3];
	uint64_t hash;
	netcond_counters c;
};

static void run_start(struct run *r)
{
	memset(r, 0, sizeof *r);
	r->hash = 0xcbf29ce484222325ull;
}

static void run_add(struct run *r, unsigned v)
{
	if (v < 3)
		r->counts[v]++;
	r->hash = (r->hash ^ v) * 0x100000001b3ull;
}

static void print_line(const char *name, const struct run *r, uint64_t a, uint64_t b,
		       uint64_t c)
{
	const netcond_counters *k = &r->c;
	printf("%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %016" PRIx64, name, r->counts[0],
	       r->counts[1], r->counts[2], r->hash);
	printf(" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
	       " %" PRIu64 " %" PRIu64,
	       k->packets[0], k->packets[1], k->packets[2], k->bytes[0], k->bytes[1],
	       k->bytes[2], k->dropped_packets, k->dropped_bytes);
	printf(" %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", a, b, c);
}

/* One run of marker state `T` (srtcm, trtcm_compact, ...): profile built by
 * netcond_T_profile_config`mode` from `params`, state by netcond_T_config, each
 * packet colored by `call` (which sees m, prof, k and r.c). */
#define STREAM(name, T, params, mode, call)                                    \
	do {                                                                   \
		netcond_##T##_profile prof;                                    \
		netcond_##T m;                                                 \
		struct run r;                                                  \
		netcond_tcm_tokens t;                                          \
		uint64_t now = 1000;                                           \
		unsigned i;                                                    \
		rng_state = seed;                                              \
		CHECK_RC(netcond_##T##_profile_config##mode(&prof, &params),   \
			 NETCOND_OK);                                          \
		CHECK_RC(netcond_##T##_config(&m, &prof, now), NETCOND_OK);    \
		run_start(&r);                                                 \
		for (i = 0; i < PACKETS; i++) {                                \
			struct pkt k = next_pkt(&now);                         \
			run_add(&r, (unsigned)(call));                         \
		}                                                              \
		CHECK_RC(netcond_##T##_read(&m, &t), NETCOND_OK);              \
		print_line(name, &r, t.tc, t.te, t.last);                      \
	} while (0)

/* The byte-mode counted runs of marker state `T`, on params `by`. */
#define COUNTED_STREAMS(T, by)                                                  \
	STREAM(#T "_blind_counted", T, by, ,                                   \
	       netcond_##T##_color_blind_counted(&m, &prof, k.now, k.len, &r.c)); \
	STREAM(#T "_aware_counted", T, by, ,                                   \
	       netcond_##T##_color_aware_counted(&m, &prof, k.now, k.len, k.color, &r.c))

/* The six runs of marker state `T`: packet mode on params `pk` (plain, then
 * counted around the byte-mode counted runs on params `by`). */
#define MARKER_STREAMS(T, by, pk)                                               \
	STREAM(#T "_blind_packet", T, pk, _packets,                            \
	       netcond_##T##_color_blind_packet(&m, &prof, k.now));            \
	STREAM(#T "_aware_packet", T, pk, _packets,                            \
	       netcond_##T##_color_aware_packet(&m, &prof, k.now, k.color));   \
	COUNTED_STREAMS(T, by);                                                \
	STREAM(#T "_blind_packet_counted", T, pk, _packets,                    \
	       netcond_##T##_color_blind_packet_counted(&m, &prof, k.now, k.len, &r.c)); \
	STREAM(#T "_aware_packet_counted", T, pk, _packets,                    \
	       netcond_##T##_color_aware_packet_counted(&m, &prof, k.now, k.len, k.color, \
							&r.c))

/* One policer run: packets ~30 ms apart, one departure of `out` units every
 * `every` packets. */
#define POLICER(name, params, pconfig, call, out, every)                        \
	do {                                                                   \
		netcond_policer_profile prof;                                  \
		netcond_policer m;                                             \
		netcond_policer_tokens t;                                      \
		struct run r;                                                  \
		uint64_t now = 1000;                                           \
		unsigned i;                                                    \
		rng_state = seed;                                              \
		CHECK_RC(pconfig(&prof, &params), NETCOND_OK);                 \
		CHECK_RC(netcond_policer_config(&m, &prof, now), NETCOND_OK);  \
		run_start(&r);                                                 \
		for (i = 0; i < PACKETS; i++) {                                \
			struct pkt k = next_pkt(&now);                         \
			(void)k;                                               \
			now += 30000000u;                                      \
			run_add(&r, (unsigned)(call));                         \
			if (i % (every) == (every) - 1u)                       \
				netcond_policer_dequeued(&m, out);             \
		}                                                              \
		CHECK_RC(netcond_policer_read(&m, &t), NETCOND_OK);            \
		print_line(name, &r, t.tokens, t.backlog, t.last);             \
	} while (0)

static void streams(uint64_t seed)
{
	netcond_srtcm_params sb = sparams(0), sk = sparams(1);
	netcond_trtcm_params tb = tparams(0), tk = tparams(1);
	netcond_rfc4115_params eb = eparams(0), ek = eparams(1);
	netcond_policer_params pb = pparams(0), pk = pparams(1);

	MARKER_STREAMS(srtcm, sb, sk);
	MARKER_STREAMS(trtcm, tb, tk);
	MARKER_STREAMS(rfc4115, eb, ek);
	MARKER_STREAMS(srtcm_compact, sb, sk);
	MARKER_STREAMS(trtcm_compact, tb, tk);
	MARKER_STREAMS(rfc4115_compact, eb, ek);

	POLICER("policer_offer_counted", pb, netcond_policer_profile_config,
		netcond_policer_offer_counted(&m, &prof, now, k.len, &r.c), 1500u, 16u);
	POLICER("policer_offer_packet", pk, netcond_policer_profile_config_packets,
		netcond_policer_offer_packet(&m, &prof, now), 1u, 2u);
	POLICER("policer_offer_packet_counted", pk, netcond_policer_profile_config_packets,
		netcond_policer_offer_packet_counted(&m, &prof, now, k.len, &r.c), 1u, 2u);
}

int main(int argc, char **argv)
{
	static void (*const all[])(void) = {packet_mode_cases, compact_packet_cases,
					    policer_packet_cases, counted_cases,
					    bad_argument_cases, NULL};

	return test_main(argc, argv, "packet mode and counter", all, streams);
}
