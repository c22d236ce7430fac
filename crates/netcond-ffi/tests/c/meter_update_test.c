/*
 * C tests of netcond.h's profile updates (netcond_*_profile_update) and
 * packet-mode profiles (netcond_*_profile_config_packets), run by
 * tests/c_api.rs (with -fsanitize=address,undefined when the toolchain has
 * the runtimes).
 *
 *   meter_update_test cases   worked cases of the carry-over rule for every
 *                             marker, the policer and the compact states, and
 *                             NULL and unconfigured arguments.
 */
#include "check.h"

/* A millisecond clock: 1000 bytes/s is one byte per tick (one unit per byte);
 * 3 bytes/s is 24 bit/s, gcd(24, 8000) = 8, so 1000 units per byte. */
#define HZ 1000u

static netcond_trtcm_params tr(uint64_t cir, uint64_t pir, uint64_t cbs, uint64_t pbs)
{
	netcond_trtcm_params p;
	memset(&p, 0, sizeof p);
	p.cir = cir;
	p.pir = pir;
	p.cbs = cbs;
	p.pbs = pbs;
	p.tick_hz = HZ;
	return p;
}

static void trtcm_case(void)
{
	netcond_trtcm_profile old_p, new_p, tiny_p, unset;
	netcond_trtcm_params a = tr(1000, 2000, 100, 200), b = tr(3, 4000, 50, 1000),
			     c = tr(1000, 2000, 10, 20);
	netcond_trtcm m;
	netcond_tcm_tokens t;

	CHECK_RC(netcond_trtcm_profile_config(&old_p, &a), NETCOND_OK);
	CHECK_RC(netcond_trtcm_profile_config(&new_p, &b), NETCOND_OK);
	CHECK_RC(netcond_trtcm_profile_config(&tiny_p, &c), NETCOND_OK);
	CHECK_RC(netcond_trtcm_config(&m, &old_p, 0), NETCOND_OK);
	CHECK(netcond_trtcm_color_blind_check(&m, &old_p, 0, 100) == NETCOND_GREEN);
	/* 30 ms later: Tc 30 bytes, Tp 160 bytes under the old rates; C's new
	 * unit is 1/1000 byte, P's one byte. */
	CHECK_RC(netcond_trtcm_profile_update(&m, &old_p, &new_p, 30), NETCOND_OK);
	CHECK_RC(netcond_trtcm_read(&m, &t), NETCOND_OK);
	CHECK(t.tc == 30000u && t.te == 160u && t.last == 30u);
	/* Back: exact in bytes. Then to a smaller bucket: capped. */
	CHECK_RC(netcond_trtcm_profile_update(&m, &new_p, &old_p, 30), NETCOND_OK);
	CHECK_RC(netcond_trtcm_read(&m, &t), NETCOND_OK);
	CHECK(t.tc == 30u && t.te == 160u);
	CHECK_RC(netcond_trtcm_profile_update(&m, &old_p, &tiny_p, 30), NETCOND_OK);
	CHECK_RC(netcond_trtcm_read(&m, &t), NETCOND_OK);
	CHECK(t.tc == 10u && t.te == 20u);
	/* An older instant refills nothing and keeps the last update. */
	CHECK_RC(netcond_trtcm_profile_update(&m, &tiny_p, &old_p, 5), NETCOND_OK);
	CHECK_RC(netcond_trtcm_read(&m, &t), NETCOND_OK);
	CHECK(t.tc == 10u && t.te == 20u && t.last == 30u);
	/* The new profile colors from then on: 11 bytes do not fit C (10). */
	CHECK(netcond_trtcm_color_blind_check(&m, &old_p, 30, 11) == NETCOND_YELLOW);

	/* NULL and unconfigured arguments leave the state alone. */
	memset(&unset, 0, sizeof unset);
	CHECK_RC(netcond_trtcm_profile_update(NULL, &old_p, &new_p, 40), NETCOND_E_NULL);
	CHECK_RC(netcond_trtcm_profile_update(&m, NULL, &new_p, 40), NETCOND_E_NULL);
	CHECK_RC(netcond_trtcm_profile_update(&m, &old_p, NULL, 40), NETCOND_E_NULL);
	CHECK_RC(netcond_trtcm_profile_update(&m, &old_p, &unset, 40), NETCOND_E_NULL);
	CHECK_RC(netcond_trtcm_read(&m, &t), NETCOND_OK);
	CHECK(t.tc == 10u && t.te == 9u && t.last == 30u);
}

static void srtcm_and_rfc4115_case(void)
{
	netcond_srtcm_profile s1, s2;
	netcond_srtcm_params sa, sb;
	netcond_srtcm sm;
	netcond_rfc4115_profile r1, r2;
	netcond_rfc4115_params ra, rb;
	netcond_rfc4115 rm;
	netcond_tcm_tokens t;

	memset(&sa, 0, sizeof sa);
	sa.cir = 1000;
	sa.cbs = 100;
	sa.ebs = 50;
	sa.tick_hz = HZ;
	sb = sa;
	sb.cir = 3;
	sb.cbs = 40;
	CHECK_RC(netcond_srtcm_profile_config(&s1, &sa), NETCOND_OK);
	CHECK_RC(netcond_srtcm_profile_config(&s2, &sb), NETCOND_OK);
	CHECK_RC(netcond_srtcm_config(&sm, &s1, 0), NETCOND_OK);
	CHECK(netcond_srtcm_color_blind_check(&sm, &s1, 0, 100) == NETCOND_GREEN);
	CHECK(netcond_srtcm_color_blind_check(&sm, &s1, 0, 50) == NETCOND_YELLOW);
	/* 120 ms: C full at 100, 20 bytes overflow into E; then C capped at 40,
	 * both in units of 1/1000 byte. */
	CHECK_RC(netcond_srtcm_profile_update(&sm, &s1, &s2, 120), NETCOND_OK);
	CHECK_RC(netcond_srtcm_read(&sm, &t), NETCOND_OK);
	CHECK(t.tc == 40000u && t.te == 20000u && t.last == 120u);
	CHECK_RC(netcond_srtcm_profile_update(&sm, NULL, &s2, 120), NETCOND_E_NULL);

	memset(&ra, 0, sizeof ra);
	ra.cir = 1000;
	ra.eir = 1000;
	ra.cbs = 100;
	ra.ebs = 100;
	ra.tick_hz = HZ;
	rb = ra;
	rb.eir = 3;
	rb.ebs = 30;
	rb.ties = NETCOND_RFC4115_TEXT;
	CHECK_RC(netcond_rfc4115_profile_config(&r1, &ra), NETCOND_OK);
	CHECK_RC(netcond_rfc4115_profile_config(&r2, &rb), NETCOND_OK);
	CHECK_RC(netcond_rfc4115_config(&rm, &r1, 0), NETCOND_OK);
	CHECK(netcond_rfc4115_color_blind_check(&rm, &r1, 0, 100) == NETCOND_GREEN);
	CHECK_RC(netcond_rfc4115_profile_update(&rm, &r1, &r2, 7), NETCOND_OK);
	CHECK_RC(netcond_rfc4115_read(&rm, &t), NETCOND_OK);
	CHECK(t.tc == 7u && t.te == 30000u && t.last == 7u);
	/* The text's tie rule now: 30 bytes do not conform to E's 30. */
	CHECK(netcond_rfc4115_color_blind_check(&rm, &r2, 7, 30) == NETCOND_RED);
	CHECK(netcond_rfc4115_color_blind_check(&rm, &r2, 7, 29) == NETCOND_YELLOW);
}

static void policer_and_compact_case(void)
{
	netcond_policer_profile p1, p2;
	netcond_policer_params pa, pb;
	netcond_policer pm;
	netcond_policer_tokens pt;
	netcond_trtcm_compact_profile c1, c2;
	netcond_trtcm_params ca = tr(1000, 2000, 100, 200), cb = tr(3, 4000, 50, 1000);
	netcond_trtcm_compact cm;
	netcond_srtcm_compact_profile sc;
	netcond_srtcm_compact sm;
	netcond_rfc4115_compact_profile rc;
	netcond_rfc4115_compact rm;
	netcond_tcm_tokens t;

	memset(&sc, 0, sizeof sc);
	memset(&sm, 0, sizeof sm);
	memset(&rc, 0, sizeof rc);
	memset(&rm, 0, sizeof rm);
	memset(&pa, 0, sizeof pa);
	pa.rate = 1000;
	pa.tbs = 3000;
	pa.pbs = 5000;
	pa.max_packet = 1500;
	pa.tick_hz = HZ;
	pb = pa;
	pb.rate = 3;
	pb.tbs = 2000;
	pb.pbs = 1000;
	pb.max_packet = 1000;
	CHECK_RC(netcond_policer_profile_config(&p1, &pa), NETCOND_OK);
	CHECK_RC(netcond_policer_profile_config(&p2, &pb), NETCOND_OK);
	CHECK_RC(netcond_policer_config(&pm, &p1, 0), NETCOND_OK);
	CHECK(netcond_policer_offer(&pm, &p1, 0, 1500) == NETCOND_ADMITTED);
	CHECK_RC(netcond_policer_profile_update(&pm, &p1, &p2, 0), NETCOND_OK);
	CHECK_RC(netcond_policer_read(&pm, &pt), NETCOND_OK);
	/* 1500 bytes of tokens left, capped at nothing (TBs 2000); the backlog of
	 * 1500 bytes stays, above the new PBs of 1000: no room for anything. */
	CHECK(pt.tokens == 1500000u && pt.backlog == 1500u);
	CHECK(netcond_policer_offer(&pm, &p2, 0, 1) == NETCOND_BUFFER_DROP);
	CHECK_RC(netcond_policer_profile_update(&pm, &p2, NULL, 0), NETCOND_E_NULL);

	CHECK_RC(netcond_trtcm_compact_profile_config(&c1, &ca), NETCOND_OK);
	CHECK_RC(netcond_trtcm_compact_profile_config(&c2, &cb), NETCOND_OK);
	CHECK_RC(netcond_trtcm_compact_config(&cm, &c1, 0), NETCOND_OK);
	CHECK(netcond_trtcm_compact_color_blind_check(&cm, &c1, 0, 100) == NETCOND_GREEN);
	CHECK_RC(netcond_trtcm_compact_profile_update(&cm, &c1, &c2, 30), NETCOND_OK);
	CHECK_RC(netcond_trtcm_compact_read(&cm, &t), NETCOND_OK);
	CHECK(t.tc == 30000u && t.te == 160u && t.last == 30u);
	/* A profile of the wrong kind is refused. */
	CHECK_RC(netcond_srtcm_compact_profile_update(&sm, (const netcond_srtcm_compact_profile *)&c1,
						      &sc, 0),
		 NETCOND_E_NULL);
	CHECK_RC(netcond_rfc4115_compact_profile_update(&rm, &rc, NULL, 0), NETCOND_E_NULL);
}

/* Packet mode: rates in packets per second, bursts in packets, lengths
 * ignored by the markers; the policer is offered length 1. */
static void packet_mode_case(void)
{
	netcond_srtcm_profile sp;
	netcond_srtcm_params s;
	netcond_srtcm sm;
	netcond_trtcm_profile tp;
	netcond_trtcm_params t = tr(10, 20, 2, 3);
	netcond_trtcm tm;
	netcond_rfc4115_profile rp;
	netcond_rfc4115_params r;
	netcond_rfc4115 rm;
	netcond_policer_profile pp;
	netcond_policer_params pa;
	netcond_policer pm;

	memset(&s, 0, sizeof s);
	s.cir = 1000; /* packets per second: one per tick */
	s.cbs = 2;
	s.ebs = 1;
	s.tick_hz = HZ;
	CHECK_RC(netcond_srtcm_profile_config_packets(&sp, &s), NETCOND_OK);
	CHECK_RC(netcond_srtcm_config(&sm, &sp, 0), NETCOND_OK);
	CHECK(netcond_srtcm_color_blind_check(&sm, &sp, 0, 9000) == NETCOND_GREEN);
	CHECK(netcond_srtcm_color_blind_check(&sm, &sp, 0, 64) == NETCOND_GREEN);
	CHECK(netcond_srtcm_color_blind_check(&sm, &sp, 0, 1500) == NETCOND_YELLOW);
	CHECK(netcond_srtcm_color_blind_check(&sm, &sp, 0, 1) == NETCOND_RED);
	CHECK(netcond_srtcm_color_blind_check(&sm, &sp, 1, 1500) == NETCOND_GREEN);

	CHECK_RC(netcond_trtcm_profile_config_packets(&tp, &t), NETCOND_OK);
	CHECK_RC(netcond_trtcm_config(&tm, &tp, 0), NETCOND_OK);
	CHECK(netcond_trtcm_color_blind_check(&tm, &tp, 0, 1500) == NETCOND_GREEN);
	CHECK(netcond_trtcm_color_blind_check(&tm, &tp, 0, 1500) == NETCOND_GREEN);
	CHECK(netcond_trtcm_color_blind_check(&tm, &tp, 0, 1500) == NETCOND_YELLOW);
	CHECK(netcond_trtcm_color_blind_check(&tm, &tp, 0, 40) == NETCOND_RED);
	/* 100 ms at 10 packet/s: one more green. */
	CHECK(netcond_trtcm_color_aware_check(&tm, &tp, 100, 1500, NETCOND_GREEN) ==
	      NETCOND_GREEN);

	memset(&r, 0, sizeof r);
	r.cir = 1;
	r.eir = 1;
	r.cbs = 1;
	r.ebs = 1;
	r.tick_hz = HZ;
	CHECK_RC(netcond_rfc4115_profile_config_packets(&rp, &r), NETCOND_OK);
	CHECK_RC(netcond_rfc4115_config(&rm, &rp, 0), NETCOND_OK);
	CHECK(netcond_rfc4115_color_blind_check(&rm, &rp, 0, 70000) == NETCOND_GREEN);
	CHECK(netcond_rfc4115_color_blind_check(&rm, &rp, 0, 70000) == NETCOND_YELLOW);
	CHECK(netcond_rfc4115_color_blind_check(&rm, &rp, 0, 0) == NETCOND_RED);

	memset(&pa, 0, sizeof pa);
	pa.rate = 1000;
	pa.tbs = 4;
	pa.pbs = 2;
	pa.tick_hz = HZ;
	CHECK_RC(netcond_policer_profile_config_packets(&pp, &pa), NETCOND_OK);
	CHECK_RC(netcond_policer_config(&pm, &pp, 0), NETCOND_OK);
	CHECK(netcond_policer_offer(&pm, &pp, 0, 1) == NETCOND_ADMITTED);
	CHECK(netcond_policer_offer(&pm, &pp, 0, 1) == NETCOND_ADMITTED);
	CHECK(netcond_policer_offer(&pm, &pp, 0, 1) == NETCOND_BUFFER_DROP);
	netcond_policer_dequeued(&pm, 1);
	CHECK(netcond_policer_offer(&pm, &pp, 0, 1) == NETCOND_ADMITTED);
	CHECK(netcond_policer_offer(&pm, &pp, 0, 1) == NETCOND_POLICER_DROP);

	/* The packet-mode rules are the byte-mode ones: zero bursts refused. */
	s.cbs = 0;
	s.ebs = 0;
	CHECK_RC(netcond_srtcm_profile_config_packets(&sp, &s), NETCOND_E_SRTCM_ZERO_BURSTS);
	CHECK_RC(netcond_srtcm_profile_config_packets(NULL, &s), NETCOND_E_NULL);
}

int main(int argc, char **argv)
{
	static void (*const all[])(void) = {trtcm_case, srtcm_and_rfc4115_case,
					    policer_and_compact_case, packet_mode_case, NULL};

	return test_main(argc, argv, "profile update", all, NULL);
}
