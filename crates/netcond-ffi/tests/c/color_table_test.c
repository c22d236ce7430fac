/*
 * C tests of netcond.h's input-color tables (netcond_color_table_*), run by
 * tests/c_api.rs (with -fsanitize=address,undefined when the toolchain has
 * the runtimes).
 *
 *   color_table_test cases   RFC 2597's AF table, the setters, masking, NULL
 *                            arguments, and a table feeding a color-aware
 *                            trTCM.
 */
#include "check.h"

static void rfc2597_case(void)
{
	/* RFC 2597 section 6: AF11..AF43. */
	static const uint8_t low[4] = {10, 18, 26, 34}, medium[4] = {12, 20, 28, 36},
			     high[4] = {14, 22, 30, 38};
	netcond_color_table t;
	unsigned i, d, green = 0;

	memset(&t, 0xff, sizeof t);
	CHECK_RC(netcond_color_table_rfc2597(&t, NETCOND_GREEN), NETCOND_OK);
	for (i = 0; i < 4; i++) {
		CHECK(netcond_color_table_dscp(&t, low[i]) == NETCOND_GREEN);
		CHECK(netcond_color_table_dscp(&t, medium[i]) == NETCOND_YELLOW);
		CHECK(netcond_color_table_dscp(&t, high[i]) == NETCOND_RED);
		/* The DS field byte, ECN bits set. */
		CHECK(netcond_color_table_ds_field(&t, (uint8_t)(medium[i] << 2 | 3)) ==
		      NETCOND_YELLOW);
	}
	for (d = 0; d < 64; d++)
		green += netcond_color_table_dscp(&t, (uint8_t)d) == NETCOND_GREEN;
	CHECK(green == 56);
	CHECK(netcond_color_table_dscp(&t, 46) == NETCOND_GREEN);
	CHECK(netcond_color_table_pcp(&t, 5) == NETCOND_GREEN);

	/* Another default for the rest. */
	CHECK_RC(netcond_color_table_rfc2597(&t, NETCOND_YELLOW), NETCOND_OK);
	CHECK(netcond_color_table_dscp(&t, 0) == NETCOND_YELLOW);
	CHECK(netcond_color_table_dscp(&t, 10) == NETCOND_GREEN);
	CHECK(netcond_color_table_pcp(&t, 0) == NETCOND_YELLOW);
}

static void setters_case(void)
{
	netcond_color_table t;

	CHECK_RC(netcond_color_table_init(&t, NETCOND_GREEN), NETCOND_OK);
	CHECK_RC(netcond_color_table_set_dscp(&t, 46 + 64, NETCOND_YELLOW), NETCOND_OK);
	CHECK_RC(netcond_color_table_set_pcp(&t, 7 + 8, 5), NETCOND_OK); /* 5: red */
	CHECK(netcond_color_table_dscp(&t, 46) == NETCOND_YELLOW);
	CHECK(netcond_color_table_pcp(&t, 7) == NETCOND_RED);
	CHECK(netcond_color_table_pcp(&t, 6) == NETCOND_GREEN);
	/* Filled directly: any value other than 0 and 1 reads as red. */
	t.dscp[3] = 1;
	t.dscp[4] = 200;
	CHECK(netcond_color_table_dscp(&t, 3) == NETCOND_YELLOW);
	CHECK(netcond_color_table_dscp(&t, 4) == NETCOND_RED);

	CHECK_RC(netcond_color_table_init(NULL, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_color_table_rfc2597(NULL, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_color_table_set_dscp(NULL, 0, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_color_table_set_pcp(NULL, 0, 0), NETCOND_E_NULL);
	CHECK(netcond_color_table_dscp(NULL, 10) == NETCOND_RED);
	CHECK(netcond_color_table_ds_field(NULL, 40) == NETCOND_RED);
	CHECK(netcond_color_table_pcp(NULL, 1) == NETCOND_RED);
}

static void with_a_meter_case(void)
{
	netcond_color_table t;
	netcond_trtcm_params p;
	netcond_trtcm_profile prof;
	netcond_trtcm m;

	memset(&p, 0, sizeof p);
	p.cir = 1000;
	p.pir = 2000;
	p.cbs = 1000;
	p.pbs = 2000;
	p.tick_hz = 1000;
	CHECK_RC(netcond_trtcm_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_trtcm_config(&m, &prof, 0), NETCOND_OK);
	CHECK_RC(netcond_color_table_rfc2597(&t, NETCOND_GREEN), NETCOND_OK);
	/* AF11 conforms: green; AF12 stays yellow; AF13 stays red. */
	CHECK(netcond_trtcm_color_aware_check(&m, &prof, 0, 100,
					      (int)netcond_color_table_dscp(&t, 10)) ==
	      NETCOND_GREEN);
	CHECK(netcond_trtcm_color_aware_check(&m, &prof, 0, 100,
					      (int)netcond_color_table_dscp(&t, 12)) ==
	      NETCOND_YELLOW);
	CHECK(netcond_trtcm_color_aware_check(&m, &prof, 0, 100,
					      (int)netcond_color_table_dscp(&t, 14)) ==
	      NETCOND_RED);
}

int main(int argc, char **argv)
{
	static void (*const all[])(void) = {rfc2597_case, setters_case, with_a_meter_case, NULL};

	return test_main(argc, argv, "color table", all, NULL);
}
