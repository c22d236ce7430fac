/*
 * C tests of netcond.h's length adjustment (netcond_length_adjust_apply), run
 * by tests/c_api.rs (with -fsanitize=address,undefined when the toolchain has
 * the runtimes).
 *
 *   length_test cases   tc's overhead, mpu and linklayer atm worked by hand,
 *                       saturation, NULL, and an adjusted length metered by
 *                       an srTCM.
 */
#include "check.h"

static void tc_knobs_case(void)
{
	netcond_length_adjust a;

	memset(&a, 0, sizeof a);
	/* All zero: the length as it is. */
	CHECK(netcond_length_adjust_apply(&a, 1500) == 1500);
	CHECK(netcond_length_adjust_apply(NULL, 1500) == 1500);
	/* overhead 24 (Ethernet preamble, SFD and gap: 8 + 12, plus FCS 4). */
	a.overhead = 24;
	CHECK(netcond_length_adjust_apply(&a, 1500) == 1524);
	/* mpu 64: a 40-byte packet (+24 = 64) and a 20-byte one both 64. */
	a.mpu = 64;
	CHECK(netcond_length_adjust_apply(&a, 40) == 64);
	CHECK(netcond_length_adjust_apply(&a, 20) == 64);
	/* A negative overhead never charges less than zero. */
	a.overhead = -100;
	a.mpu = 0;
	CHECK(netcond_length_adjust_apply(&a, 40) == 0);
	/* ATM: 110 bytes need ceil(110 / 48) = 3 cells of 53 bytes. */
	a.overhead = 10;
	a.linklayer_atm = 1;
	CHECK(netcond_length_adjust_apply(&a, 100) == 159);
	CHECK(netcond_length_adjust_apply(&a, 38) == 53);
	CHECK(netcond_length_adjust_apply(&a, 39) == 106);
	/* Saturation at 4294967295. */
	a.overhead = 2147483647;
	CHECK(netcond_length_adjust_apply(&a, 4294967295u) == 4294967295u);
}

static void with_a_meter_case(void)
{
	/* tc police rate 1000 bytes/s burst 1500 overhead 24: a 1476-byte
	 * packet is charged 1500 and conforms; the next one, at once, exceeds. */
	netcond_srtcm_params p;
	netcond_srtcm_profile prof;
	netcond_srtcm m;
	netcond_length_adjust a;

	memset(&p, 0, sizeof p);
	memset(&a, 0, sizeof a);
	p.cir = 1000;
	p.cbs = 1500;
	p.tick_hz = 1000;
	a.overhead = 24;
	CHECK_RC(netcond_srtcm_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_srtcm_config(&m, &prof, 0), NETCOND_OK);
	CHECK(netcond_srtcm_color_blind_check(&m, &prof, 0,
					      netcond_length_adjust_apply(&a, 1476)) ==
	      NETCOND_GREEN);
	CHECK(netcond_srtcm_color_blind_check(&m, &prof, 0,
					      netcond_length_adjust_apply(&a, 1)) == NETCOND_RED);
}

int main(int argc, char **argv)
{
	static void (*const all[])(void) = {tc_knobs_case, with_a_meter_case, NULL};

	return test_main(argc, argv, "length adjustment", all, NULL);
}
