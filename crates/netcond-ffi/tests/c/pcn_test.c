/*
 * C tests of netcond.h's PCN meters and RFC 6660 encoding, run by
 * tests/c_api.rs.
 *
 *   pcn_test cases         every configuration error, NULL and out-of-range
 *                          arguments, RFC 6660 decoding and re-marking.
 *   pcn_test stream SEED   seeded streams through every ET-marker and
 *                          AS-marker form and both RFC 5670 meters (every
 *                          excess mode); one line per meter (counts of the
 *                          states packets leave in, a hash of them), compared
 *                          by the Rust test with the Rust API.
 */
#include "check.h"

/* PCN rates of 1 MB/s (supportable) and 1.2 MB/s (admissible), nanosecond
 * ticks. */
static netcond_et_marker_params et_params(unsigned variant)
{
	netcond_et_marker_params p;
	memset(&p, 0, sizeof p);
	p.sr = 1000000;
	p.bucket_size = 30000;
	p.s = 3000;
	p.tick_hz = 1000000000;
	p.already_et_adds_s = variant != 1u;
	p.marking = variant == 2u ? NETCOND_ET_SIZE_INDEPENDENT : NETCOND_ET_TAIL;
	p.mtu = 1500;
	return p;
}

static netcond_as_marker_params as_params(unsigned form)
{
	netcond_as_marker_params p;
	memset(&p, 0, sizeof p);
	p.ar = 1200000;
	p.bucket_size = 30000;
	p.threshold = 15000;
	p.tick_hz = 1000000000;
	p.form = form;
	return p;
}

static netcond_threshold_meter_params tm_params(void)
{
	netcond_threshold_meter_params p;
	memset(&p, 0, sizeof p);
	p.threshold_rate = 1200000;
	p.bs_tm = 30000;
	p.threshold = 15000;
	p.tick_hz = 1000000000;
	return p;
}

static netcond_excess_meter_params etm_params(unsigned mode)
{
	netcond_excess_meter_params p;
	memset(&p, 0, sizeof p);
	p.excess_rate = 1000000;
	p.bs_etm = 30000;
	p.tick_hz = 1000000000;
	p.mode = mode;
	return p;
}

static void config_cases(void)
{
	netcond_et_marker_profile ep;
	netcond_as_marker_profile ap;
	netcond_threshold_meter_profile tp;
	netcond_excess_meter_profile xp;
	netcond_et_marker_params e;
	netcond_as_marker_params a;
	netcond_threshold_meter_params t;
	netcond_excess_meter_params x;

	e = et_params(0);
	CHECK_RC(netcond_et_marker_profile_config(&ep, &e), NETCOND_OK);
	CHECK_RC(netcond_et_marker_profile_config(NULL, &e), NETCOND_E_NULL);
	CHECK_RC(netcond_et_marker_profile_config(&ep, NULL), NETCOND_E_NULL);
	e.sr = 0;
	CHECK_RC(netcond_et_marker_profile_config(&ep, &e), NETCOND_E_ET_ZERO_RATE);
	e = et_params(0);
	e.bucket_size = 0;
	CHECK_RC(netcond_et_marker_profile_config(&ep, &e), NETCOND_E_ET_ZERO_BUCKET);
	e = et_params(2);
	e.mtu = 0;
	CHECK_RC(netcond_et_marker_profile_config(&ep, &e), NETCOND_E_ET_ZERO_MTU);
	e = et_params(2);
	e.mtu = 40000;
	CHECK_RC(netcond_et_marker_profile_config(&ep, &e), NETCOND_E_ET_MTU_ABOVE_BUCKET);
	e = et_params(0);
	e.bucket_size = (uint64_t)1 << 62;
	CHECK_RC(netcond_et_marker_profile_config(&ep, &e), NETCOND_E_ET_TOO_LARGE);
	e = et_params(0);
	e.marking = 2;
	CHECK_RC(netcond_et_marker_profile_config(&ep, &e), NETCOND_E_ENUM);
	e = et_params(0);
	e.already_et_adds_s = 5;
	CHECK_RC(netcond_et_marker_profile_config(&ep, &e), NETCOND_E_ENUM);
	e = et_params(0);
	e.tick_hz = 0;
	CHECK_RC(netcond_et_marker_profile_config(&ep, &e), NETCOND_E_TICK);

	a = as_params(0);
	CHECK_RC(netcond_as_marker_profile_config(&ap, &a), NETCOND_OK);
	CHECK_RC(netcond_as_marker_profile_config(NULL, &a), NETCOND_E_NULL);
	a.ar = 0;
	CHECK_RC(netcond_as_marker_profile_config(&ap, &a), NETCOND_E_AS_ZERO_RATE);
	a = as_params(0);
	a.bucket_size = 0;
	a.threshold = 0;
	CHECK_RC(netcond_as_marker_profile_config(&ap, &a), NETCOND_E_AS_ZERO_BUCKET);
	a = as_params(1);
	a.threshold = 30001;
	CHECK_RC(netcond_as_marker_profile_config(&ap, &a), NETCOND_E_AS_THRESHOLD_ABOVE_SIZE);
	a = as_params(1);
	a.bucket_size = (uint64_t)1 << 62;
	CHECK_RC(netcond_as_marker_profile_config(&ap, &a), NETCOND_E_AS_TOO_LARGE);
	a = as_params(2);
	CHECK_RC(netcond_as_marker_profile_config(&ap, &a), NETCOND_E_ENUM);

	t = tm_params();
	CHECK_RC(netcond_threshold_meter_profile_config(&tp, &t), NETCOND_OK);
	CHECK_RC(netcond_threshold_meter_profile_config(&tp, NULL), NETCOND_E_NULL);
	t.threshold_rate = 0;
	CHECK_RC(netcond_threshold_meter_profile_config(&tp, &t), NETCOND_E_RFC5670_ZERO_RATE);
	t = tm_params();
	t.bs_tm = 0;
	t.threshold = 0;
	CHECK_RC(netcond_threshold_meter_profile_config(&tp, &t), NETCOND_E_RFC5670_ZERO_BUCKET);
	t = tm_params();
	t.threshold = 30001;
	CHECK_RC(netcond_threshold_meter_profile_config(&tp, &t),
		 NETCOND_E_RFC5670_THRESHOLD_ABOVE_SIZE);
	t = tm_params();
	t.bs_tm = (uint64_t)1 << 62;
	CHECK_RC(netcond_threshold_meter_profile_config(&tp, &t), NETCOND_E_RFC5670_TOO_LARGE);

	x = etm_params(0);
	CHECK_RC(netcond_excess_meter_profile_config(&xp, &x), NETCOND_OK);
	CHECK_RC(netcond_excess_meter_profile_config(NULL, &x), NETCOND_E_NULL);
	x.mode = 3;
	CHECK_RC(netcond_excess_meter_profile_config(&xp, &x), NETCOND_E_ENUM);
	x = etm_params(1);
	x.excess_rate = 0;
	CHECK_RC(netcond_excess_meter_profile_config(&xp, &x), NETCOND_E_RFC5670_ZERO_RATE);
	x = etm_params(2);
	x.bs_etm = 0;
	CHECK_RC(netcond_excess_meter_profile_config(&xp, &x), NETCOND_E_RFC5670_ZERO_BUCKET);
	x = etm_params(0);
	x.tick_hz = 0;
	CHECK_RC(netcond_excess_meter_profile_config(&xp, &x), NETCOND_E_TICK);

	{
		netcond_node_3sm_profile np;
		netcond_node_rfc5670_profile rp;
		e = et_params(0);
		a = as_params(0);
		x = etm_params(0);
		t = tm_params();
		CHECK_RC(netcond_node_3sm_profile_config(&np, &e, &a), NETCOND_OK);
		CHECK_RC(netcond_node_3sm_profile_config(&np, NULL, &a), NETCOND_E_NULL);
		CHECK_RC(netcond_node_3sm_profile_config(&np, &e, NULL), NETCOND_E_NULL);
		CHECK_RC(netcond_node_3sm_profile_config(NULL, &e, &a), NETCOND_E_NULL);
		a.threshold = 30001;
		CHECK_RC(netcond_node_3sm_profile_config(&np, &e, &a),
			 NETCOND_E_AS_THRESHOLD_ABOVE_SIZE);
		e.sr = 0;
		CHECK_RC(netcond_node_3sm_profile_config(&np, &e, &a), NETCOND_E_ET_ZERO_RATE);
		CHECK_RC(netcond_node_rfc5670_profile_config(&rp, &x, &t), NETCOND_OK);
		t.bs_tm = 0;
		CHECK_RC(netcond_node_rfc5670_profile_config(&rp, &x, &t),
			 NETCOND_E_RFC5670_ZERO_BUCKET);
		CHECK_RC(netcond_node_rfc5670_profile_config(&rp, &x, NULL), NETCOND_E_NULL);
		CHECK(netcond_node_rfc5670_mark(NULL, &rp, 0, 1, 2) == NETCOND_PCN_NOT_PCN);
		CHECK(netcond_node_3sm_mark(NULL, &np, 0, 1, 2) == NETCOND_PCN_NOT_PCN);
		CHECK_RC(netcond_node_3sm_config(NULL, &np, 0), NETCOND_E_NULL);
		CHECK_RC(netcond_node_rfc5670_config(NULL, &rp, 0), NETCOND_E_NULL);
	}
}

static void argument_cases(void)
{
	netcond_et_marker_profile ep, never;
	netcond_et_marker_params e = et_params(0);
	netcond_et_marker m;
	netcond_pcn_dscps d;

	memset(&never, 0, sizeof never);
	CHECK_RC(netcond_et_marker_profile_config(&ep, &e), NETCOND_OK);
	CHECK_RC(netcond_et_marker_config(&m, &ep, 0), NETCOND_OK);
	CHECK_RC(netcond_et_marker_config(NULL, &ep, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_et_marker_config(&m, &never, 0), NETCOND_E_NULL);
	CHECK(netcond_et_marker_mark(NULL, &ep, 1, 100, NETCOND_PCN_NM) == NETCOND_PCN_NOT_PCN);
	CHECK(netcond_et_marker_mark(&m, &never, 1, 100, NETCOND_PCN_NM) == NETCOND_PCN_NOT_PCN);
	CHECK(netcond_et_marker_mark(&m, &ep, 1, 100, 4) == NETCOND_PCN_NOT_PCN);
	CHECK(netcond_et_marker_mark(&m, &ep, 1, 100, -1) == NETCOND_PCN_NOT_PCN);
	/* A full bucket: an NM packet leaves NM; a not-PCN packet is untouched;
	 * a packet larger than the bucket is excess. */
	CHECK(netcond_et_marker_mark(&m, &ep, 1, 100, NETCOND_PCN_NM) == NETCOND_PCN_NM);
	CHECK(netcond_et_marker_mark(&m, &ep, 1, 100, NETCOND_PCN_NOT_PCN) == NETCOND_PCN_NOT_PCN);
	CHECK(netcond_et_marker_mark(&m, &ep, 1, 40000, NETCOND_PCN_NM) == NETCOND_PCN_ETM);
	CHECK(netcond_as_marker_mark(NULL, NULL, 0, 1, 2) == NETCOND_PCN_NOT_PCN);
	CHECK(netcond_threshold_meter_mark(NULL, NULL, 0, 1, 2) == NETCOND_PCN_NOT_PCN);
	CHECK(netcond_excess_meter_mark(NULL, NULL, 0, 1, 2) == NETCOND_PCN_NOT_PCN);
	CHECK_RC(netcond_as_marker_config(NULL, NULL, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_threshold_meter_config(NULL, NULL, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_excess_meter_config(NULL, NULL, 0), NETCOND_E_NULL);

	/* RFC 6660: DSCP 46 (EF) and 34 are PCN-compatible. */
	memset(&d, 0, sizeof d);
	CHECK_RC(netcond_pcn_dscps_add(&d, 46), NETCOND_OK);
	CHECK_RC(netcond_pcn_dscps_add(&d, 34), NETCOND_OK);
	CHECK_RC(netcond_pcn_dscps_add(&d, 64), NETCOND_E_ENUM);
	CHECK_RC(netcond_pcn_dscps_add(NULL, 1), NETCOND_E_NULL);
	CHECK(netcond_pcn_decode_tos(&d, (46 << 2) | 2) == NETCOND_PCN_NM);
	CHECK(netcond_pcn_decode_tos(&d, (34 << 2) | 1) == NETCOND_PCN_THM);
	CHECK(netcond_pcn_decode_tos(&d, (46 << 2) | 3) == NETCOND_PCN_ETM);
	CHECK(netcond_pcn_decode_tos(&d, (46 << 2) | 0) == NETCOND_PCN_NOT_PCN);
	CHECK(netcond_pcn_decode_tos(&d, (10 << 2) | 2) == -1);
	CHECK(netcond_pcn_decode_tos(NULL, (46 << 2) | 2) == -1);
	/* Re-marking: the more severe state wins, not-PCN stays, the DSCP stays;
	 * a DSCP outside the set is never touched. */
	CHECK(netcond_pcn_remark_tos(&d, (46 << 2) | 2, NETCOND_PCN_THM) == ((46 << 2) | 1));
	CHECK(netcond_pcn_remark_tos(&d, (46 << 2) | 1, NETCOND_PCN_ETM) == ((46 << 2) | 3));
	CHECK(netcond_pcn_remark_tos(&d, (46 << 2) | 3, NETCOND_PCN_THM) == ((46 << 2) | 3));
	CHECK(netcond_pcn_remark_tos(&d, (46 << 2) | 0, NETCOND_PCN_ETM) == ((46 << 2) | 0));
	CHECK(netcond_pcn_remark_tos(&d, (10 << 2) | 2, NETCOND_PCN_ETM) == ((10 << 2) | 2));
	CHECK(netcond_pcn_remark_tos(&d, (46 << 2) | 2, 9) == ((46 << 2) | 2));
	CHECK(netcond_pcn_remark_tos(NULL, (46 << 2) | 2, NETCOND_PCN_ETM) == ((46 << 2) | 2));
	CHECK(netcond_pcn_remark_ecn(0xb8 | 2, NETCOND_PCN_ETM) == (0xb8 | 3));
	CHECK(netcond_pcn_remark_ecn(2, NETCOND_PCN_NM) == 2);
	CHECK(netcond_pcn_remark_ecn(2, -3) == 2);
}

static netcond_egress_params egress_params(unsigned behaviour)
{
	netcond_egress_params e;
	memset(&e, 0, sizeof e);
	e.t_meas_ns = 100000000;
	e.tick_hz = 1000000000;
	e.behaviour = behaviour;
	e.u_q16 = 3u << 15; /* U = 1.5 */
	e.record_etm_flows = behaviour == NETCOND_EDGE_CONTROLLED_LOAD;
	return e;
}

static netcond_decision_params decision_params(unsigned behaviour)
{
	netcond_decision_params d;
	memset(&d, 0, sizeof d);
	d.behaviour = behaviour;
	d.u_q16 = 3u << 15;
	d.cle_limit_q31 = (uint32_t)(((uint64_t)50 << 31) / 1000); /* 5 % */
	d.admission_enabled = 1;
	d.termination_enabled = 1;
	return d;
}

static void egress_cases(void)
{
	netcond_egress_profile ep;
	netcond_egress_params e;
	netcond_egress m, never;
	netcond_egress_report r;
	netcond_decision_profile dp;
	netcond_decision_params dd;
	netcond_decision_point pt;
	netcond_decision dec;
	int i;

	e = egress_params(NETCOND_EDGE_CONTROLLED_LOAD);
	CHECK_RC(netcond_egress_profile_config(&ep, &e), NETCOND_OK);
	CHECK_RC(netcond_egress_profile_config(NULL, &e), NETCOND_E_NULL);
	e.t_meas_ns = 0;
	CHECK_RC(netcond_egress_profile_config(&ep, &e), NETCOND_E_EDGE_ZERO_DURATION);
	e = egress_params(NETCOND_EDGE_SINGLE_MARKING);
	e.u_q16 = 1u << 16;
	CHECK_RC(netcond_egress_profile_config(&ep, &e), NETCOND_E_EDGE_U_NOT_ABOVE_ONE);
	e = egress_params(2);
	CHECK_RC(netcond_egress_profile_config(&ep, &e), NETCOND_E_ENUM);
	e = egress_params(0);
	e.suppression = 1;
	e.t_maxsuppress_ns = 3000000000u;
	e.cle_reporting_threshold_q31 = NETCOND_Q31_ONE + 1;
	CHECK_RC(netcond_egress_profile_config(&ep, &e), NETCOND_E_EDGE_FRACTION_ABOVE_ONE);
	e.suppression = 2;
	CHECK_RC(netcond_egress_profile_config(&ep, &e), NETCOND_E_ENUM);

	dd = decision_params(NETCOND_EDGE_CONTROLLED_LOAD);
	CHECK_RC(netcond_decision_profile_config(&dp, &dd), NETCOND_OK);
	dd.cle_limit_q31 = NETCOND_Q31_ONE + 1;
	CHECK_RC(netcond_decision_profile_config(&dp, &dd), NETCOND_E_EDGE_FRACTION_ABOVE_ONE);
	dd = decision_params(NETCOND_EDGE_SINGLE_MARKING);
	dd.u_q16 = 0;
	CHECK_RC(netcond_decision_profile_config(&dp, &dd), NETCOND_E_EDGE_U_NOT_ABOVE_ONE);
	dd = decision_params(0);
	dd.termination_enabled = 3;
	CHECK_RC(netcond_decision_profile_config(&dp, &dd), NETCOND_E_ENUM);
	dd = decision_params(0);
	CHECK_RC(netcond_decision_profile_config(&dp, &dd), NETCOND_OK);

	/* Controlled Load: one 100 ms interval with 1 % ThM and 2 % ETM (flows 7
	 * and 9), 1000-byte packets every ms: CLE 3 % (admit), ETM seen: the
	 * decision point asks for the sent rate; the next interval's report
	 * (ETM again) terminates down to the sustainable rate NM + ThM. */
	e = egress_params(NETCOND_EDGE_CONTROLLED_LOAD);
	CHECK_RC(netcond_egress_profile_config(&ep, &e), NETCOND_OK);
	CHECK_RC(netcond_egress_config(&m, &ep, 0), NETCOND_OK);
	CHECK_RC(netcond_decision_config(&pt, &dp, 0), NETCOND_OK);
	for (i = 0; i < 200; i++) {
		int mark = i % 100 == 0 ? NETCOND_PCN_THM
			   : i % 50 == 1 ? NETCOND_PCN_ETM
					 : NETCOND_PCN_NM;
		netcond_egress_on_packet(&m, &ep, (uint64_t)i * 1000000, 1000, mark,
					 i % 100 == 1 ? 7u : 9u);
		if (i == 99 || i == 199)
			continue;
	}
	CHECK(netcond_egress_poll(&m, &ep, 100000000, &r) == 1);
	CHECK(r.start == 0 && r.end == 100000000);
	CHECK(r.nm_bytes == 97000 && r.thm_bytes == 1000 && r.etm_bytes == 2000);
	CHECK(r.nm_rate == 970000 && r.thm_rate == 10000 && r.etm_rate == 20000);
	CHECK(r.cle_marked == 3000 && r.cle_total == 100000);
	CHECK(r.n_etm_flows == 2 && r.etm_flows[0] == 7 && r.etm_flows[1] == 9);
	CHECK_RC(netcond_decision_on_report(&pt, &dp, &r, &dec), NETCOND_OK);
	CHECK(dec.admission == 0 && dec.termination == 1);
	CHECK(netcond_egress_poll(&m, &ep, 200000000, &r) == 1);
	CHECK_RC(netcond_decision_on_report(&pt, &dp, &r, &dec), NETCOND_OK);
	CHECK(dec.termination == 2 && dec.sar == r.nm_rate + r.thm_rate);
	/* NULL and unstarted arguments. */
	memset(&never, 0, sizeof never);
	netcond_egress_on_packet(NULL, &ep, 0, 1, 2, 0);
	netcond_egress_on_packet(&never, &ep, 0, 1, 2, 0);
	CHECK_RC(netcond_egress_poll(&never, &ep, 0, &r), NETCOND_E_NULL);
	CHECK_RC(netcond_egress_poll(&m, NULL, 0, &r), NETCOND_E_NULL);
	CHECK_RC(netcond_egress_config(NULL, &ep, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_decision_config(NULL, &dp, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_decision_config(&pt, NULL, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_decision_on_report(&pt, &dp, NULL, &dec), NETCOND_E_NULL);
	CHECK_RC(netcond_decision_on_report(&pt, NULL, &r, &dec), NETCOND_E_NULL);
	/* A report claiming more flows than it can hold is read as full. */
	r.n_etm_flows = 1000;
	CHECK_RC(netcond_decision_on_report(&pt, &dp, &r, &dec), NETCOND_OK);
}

static void edge_cases(void)
{
	netcond_stop_blocking_profile sp;
	netcond_stop_blocking_params s;
	netcond_stop_blocking t;
	netcond_cle_admission_profile cp;
	netcond_cle_admission_params c;
	netcond_cle_admission m, never;
	netcond_cle_decision d;
	uint64_t at = 0;
	int i;

	memset(&s, 0, sizeof s);
	s.timeout_ns = 1000000000;
	s.tick_hz = 1000000000;
	s.et_blocks = 1;
	CHECK_RC(netcond_stop_blocking_profile_config(&sp, &s), NETCOND_OK);
	CHECK_RC(netcond_stop_blocking_profile_config(NULL, &s), NETCOND_E_NULL);
	s.et_blocks = 2;
	CHECK_RC(netcond_stop_blocking_profile_config(&sp, &s), NETCOND_E_ENUM);
	s.et_blocks = 1;
	s.timeout_ns = 0;
	CHECK_RC(netcond_stop_blocking_profile_config(&sp, &s), NETCOND_E_EDGE_ZERO_DURATION);
	s.timeout_ns = UINT64_MAX;
	CHECK_RC(netcond_stop_blocking_profile_config(&sp, &s), NETCOND_E_EDGE_DURATION_TOO_LONG);
	s.timeout_ns = 1000000000;
	s.tick_hz = 0;
	CHECK_RC(netcond_stop_blocking_profile_config(&sp, &s), NETCOND_E_TICK);
	s.tick_hz = 1000000000;
	CHECK_RC(netcond_stop_blocking_profile_config(&sp, &s), NETCOND_OK);

	/* Blocked at 0; another mark at 0.5 s keeps it blocked one more
	 * timeout: still blocked at 1.2 s, admitting again at 2 s. */
	CHECK_RC(netcond_stop_blocking_config(&t, &sp, 0), NETCOND_OK);
	CHECK(netcond_stop_blocking_admission(&t) == 0);
	CHECK(netcond_stop_blocking_on_block(&t, &sp, 0) == 1);
	CHECK(netcond_stop_blocking_admission(&t) == 1);
	CHECK(netcond_stop_blocking_on_block(&t, &sp, 500000000) == 0);
	CHECK(netcond_stop_blocking_poll(&t, &sp, 1200000000, &at) == 0);
	CHECK(netcond_stop_blocking_admission(&t) == 1);
	CHECK(netcond_stop_blocking_poll(&t, &sp, 2000000000, &at) == 1);
	CHECK(at == 2000000000);
	CHECK(netcond_stop_blocking_admission(&t) == 0);
	CHECK(netcond_stop_blocking_poll(&t, &sp, 3000000000u, NULL) == 0);
	CHECK_RC(netcond_stop_blocking_config(NULL, &sp, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_stop_blocking_config(&t, NULL, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_stop_blocking_on_block(NULL, &sp, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_stop_blocking_on_block(&t, NULL, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_stop_blocking_poll(NULL, &sp, 0, &at), NETCOND_E_NULL);
	CHECK_RC(netcond_stop_blocking_admission(NULL), NETCOND_E_NULL);

	memset(&c, 0, sizeof c);
	c.interval_ns = 100000000;
	c.tick_hz = 1000000000;
	c.stop_q31 = (uint32_t)(((uint64_t)50 << 31) / 1000);   /* 5 % */
	c.resume_q31 = (uint32_t)(((uint64_t)20 << 31) / 1000); /* 2 % */
	CHECK_RC(netcond_cle_admission_profile_config(&cp, &c), NETCOND_OK);
	CHECK_RC(netcond_cle_admission_profile_config(&cp, NULL), NETCOND_E_NULL);
	c.resume_q31 = c.stop_q31 + 1;
	CHECK_RC(netcond_cle_admission_profile_config(&cp, &c), NETCOND_E_EDGE_CONTINUE_ABOVE_STOP);
	c.stop_q31 = NETCOND_Q31_ONE + 1;
	CHECK_RC(netcond_cle_admission_profile_config(&cp, &c), NETCOND_E_EDGE_FRACTION_ABOVE_ONE);
	c.stop_q31 = (uint32_t)(((uint64_t)50 << 31) / 1000);
	c.resume_q31 = (uint32_t)(((uint64_t)20 << 31) / 1000);
	c.interval_ns = 0;
	CHECK_RC(netcond_cle_admission_profile_config(&cp, &c), NETCOND_E_EDGE_ZERO_DURATION);
	c.interval_ns = 100000000;
	CHECK_RC(netcond_cle_admission_profile_config(&cp, &c), NETCOND_OK);

	/* One interval with 10 % of the PCN bytes marked (and not-PCN traffic,
	 * not counted): blocks; the next, with none marked: admits again. */
	memset(&never, 0, sizeof never);
	CHECK_RC(netcond_cle_admission_config(&m, &cp, 0), NETCOND_OK);
	CHECK_RC(netcond_cle_admission_config(NULL, &cp, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_cle_admission_config(&m, NULL, 0), NETCOND_E_NULL);
	for (i = 0; i < 100; i++) {
		netcond_cle_admission_on_packet(&m, &cp, (uint64_t)i * 1000000, 1000,
						i % 10 == 0 ? NETCOND_PCN_THM : NETCOND_PCN_NM);
		netcond_cle_admission_on_packet(&m, &cp, (uint64_t)i * 1000000, 1000,
						NETCOND_PCN_NOT_PCN);
	}
	CHECK(netcond_cle_admission_poll(&m, &cp, 99000000, &d) == 0);
	CHECK(netcond_cle_admission_poll(&m, &cp, 100000000, &d) == 1);
	CHECK(d.start == 0 && d.end == 100000000 && d.marked == 10000 && d.total == 100000);
	CHECK(d.admission == 1 && d.changed == 1);
	CHECK(netcond_cle_admission_admission(&m) == 1);
	for (i = 100; i < 200; i++)
		netcond_cle_admission_on_packet(&m, &cp, (uint64_t)i * 1000000, 1000,
						NETCOND_PCN_NM);
	CHECK(netcond_cle_admission_poll(&m, &cp, 200000000, &d) == 1);
	CHECK(d.marked == 0 && d.total == 100000 && d.admission == 0 && d.changed == 1);
	/* NULL and unstarted states. */
	netcond_cle_admission_on_packet(NULL, &cp, 0, 1, 2);
	netcond_cle_admission_on_packet(&never, &cp, 0, 1, 2);
	CHECK_RC(netcond_cle_admission_poll(&never, &cp, 0, &d), NETCOND_E_NULL);
	CHECK_RC(netcond_cle_admission_poll(&m, NULL, 0, &d), NETCOND_E_NULL);
	CHECK_RC(netcond_cle_admission_admission(&never), NETCOND_E_NULL);
	CHECK_RC(netcond_cle_admission_admission(NULL), NETCOND_E_NULL);
	egress_cases();
}

/* ---------------------------------------------------------------- streams */

/* Packets of 64..1518 bytes 0..0.9 ms apart (about 1.76 MB/s offered, of
 * which the three quarters that are NM or ThM, 1.32 MB/s, are metered: above
 * every meter's rate), in any of the four states (mostly NM), with a
 * clock stepping back and zero and UINT32_MAX lengths now and then. */
struct pkt {
	uint64_t now;
	uint32_t len;
	int mark;
};

static struct pkt next_pkt(uint64_t *now)
{
	struct pkt k;
	uint64_t r = next_u64();
	unsigned kind = (unsigned)((r >> 8) % 1000u);
	unsigned m = (unsigned)((r >> 40) % 8u);

	if (kind == 0 && *now > 1000000u)
		*now -= 1000000u;
	else
		*now += r % 900000u;
	k.now = *now;
	k.len = 64u + (uint32_t)((r >> 20) % 1455u);
	if (kind == 1)
		k.len = 0;
	if (kind == 2)
		k.len = UINT32_MAX;
	k.mark = m < 5u ? NETCOND_PCN_NM : (int)(m - 5u); /* NM, or 0, 1, 2 */
	if (m == 7u)
		k.mark = NETCOND_PCN_ETM;
	return k;
}

struct run {
	uint64_t counts[4];
	uint64_t hash;
};

static void run_start(struct run *r)
{
	memset(r, 0, sizeof *r);
	r->hash = 0xcbf29ce484222325ull;
}

static void run_add(struct run *r, unsigned v)
{
	if (v < 4)
		r->counts[v]++;
	r->hash = (r->hash ^ v) * 0x100000001b3ull;
}

static void print_line(const char *name, unsigned variant, const struct run *r)
{
	printf("%s%u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %016" PRIx64 "\n", name,
	       variant, r->counts[0], r->counts[1], r->counts[2], r->counts[3], r->hash);
}

#define STREAM(name, variant, PROF, STATE, params, pconfig, config, meter)    \
	do {                                                                 \
		PROF prof;                                                   \
		STATE m;                                                     \
		struct run r;                                                \
		uint64_t now = 0;                                            \
		unsigned i;                                                  \
		rng_state = seed;                                            \
		CHECK_RC(pconfig(&prof, &params), NETCOND_OK);               \
		CHECK_RC(config(&m, &prof, 0), NETCOND_OK);                  \
		run_start(&r);                                               \
		for (i = 0; i < PACKETS; i++) {                              \
			struct pkt k = next_pkt(&now);                       \
			run_add(&r, (unsigned)meter(&m, &prof, k.now, k.len, k.mark)); \
		}                                                            \
		print_line(name, variant, &r);                               \
	} while (0)

static void streams(uint64_t seed)
{
	unsigned v;
	for (v = 0; v < 3u; v++) {
		netcond_et_marker_params p = et_params(v);
		STREAM("et", v, netcond_et_marker_profile, netcond_et_marker, p,
		       netcond_et_marker_profile_config, netcond_et_marker_config,
		       netcond_et_marker_mark);
	}
	for (v = 0; v < 2u; v++) {
		netcond_as_marker_params p = as_params(v);
		STREAM("as", v, netcond_as_marker_profile, netcond_as_marker, p,
		       netcond_as_marker_profile_config, netcond_as_marker_config,
		       netcond_as_marker_mark);
	}
	{
		netcond_threshold_meter_params p = tm_params();
		STREAM("tm", 0u, netcond_threshold_meter_profile, netcond_threshold_meter, p,
		       netcond_threshold_meter_profile_config, netcond_threshold_meter_config,
		       netcond_threshold_meter_mark);
	}
	for (v = 0; v < 3u; v++) {
		netcond_excess_meter_params p = etm_params(v);
		STREAM("etm", v, netcond_excess_meter_profile, netcond_excess_meter, p,
		       netcond_excess_meter_profile_config, netcond_excess_meter_config,
		       netcond_excess_meter_mark);
	}
	/* The node markers: 3sM (ET-marker of 3sm-01, AS-marker of 3sm-01) and
	 * RFC 5670 (size-independent excess meter, threshold meter). */
	{
		netcond_node_3sm_profile prof;
		netcond_node_3sm m;
		netcond_et_marker_params e = et_params(1);
		netcond_as_marker_params a = as_params(1);
		struct run r;
		uint64_t now = 0;
		unsigned i;
		rng_state = seed;
		CHECK_RC(netcond_node_3sm_profile_config(&prof, &e, &a), NETCOND_OK);
		CHECK_RC(netcond_node_3sm_config(&m, &prof, 0), NETCOND_OK);
		run_start(&r);
		for (i = 0; i < PACKETS; i++) {
			struct pkt k = next_pkt(&now);
			run_add(&r, (unsigned)netcond_node_3sm_mark(&m, &prof, k.now, k.len, k.mark));
		}
		print_line("node3sm", 0u, &r);
	}
	{
		netcond_node_rfc5670_profile prof;
		netcond_node_rfc5670 m;
		netcond_excess_meter_params x = etm_params(1);
		netcond_threshold_meter_params t = tm_params();
		struct run r;
		uint64_t now = 0;
		unsigned i;
		rng_state = seed;
		CHECK_RC(netcond_node_rfc5670_profile_config(&prof, &x, &t), NETCOND_OK);
		CHECK_RC(netcond_node_rfc5670_config(&m, &prof, 0), NETCOND_OK);
		run_start(&r);
		for (i = 0; i < PACKETS; i++) {
			struct pkt k = next_pkt(&now);
			run_add(&r,
				(unsigned)netcond_node_rfc5670_mark(&m, &prof, k.now, k.len, k.mark));
		}
		print_line("node5670", 0u, &r);
	}
	/* The edge: the stop-blocking timer blocks on each ETM arrival
	 * (timeout 1 ms); CLE admission over 20 ms intervals (stop 30 %,
	 * resume 20 %). Each packet adds its event to the hash. */
	{
		netcond_stop_blocking_profile sp;
		netcond_stop_blocking_params sb;
		netcond_stop_blocking tmr;
		netcond_cle_admission_profile cp;
		netcond_cle_admission_params cb;
		netcond_cle_admission ca;
		netcond_cle_decision d;
		struct run r1, r2;
		uint64_t now = 0, at;
		unsigned i;
		memset(&sb, 0, sizeof sb);
		sb.timeout_ns = 1000000;
		sb.tick_hz = 1000000000;
		memset(&cb, 0, sizeof cb);
		cb.interval_ns = 20000000;
		cb.tick_hz = 1000000000;
		cb.stop_q31 = (uint32_t)(((uint64_t)300 << 31) / 1000);
		cb.resume_q31 = (uint32_t)(((uint64_t)200 << 31) / 1000);
		rng_state = seed;
		CHECK_RC(netcond_stop_blocking_profile_config(&sp, &sb), NETCOND_OK);
		CHECK_RC(netcond_stop_blocking_config(&tmr, &sp, 0), NETCOND_OK);
		CHECK_RC(netcond_cle_admission_profile_config(&cp, &cb), NETCOND_OK);
		CHECK_RC(netcond_cle_admission_config(&ca, &cp, 0), NETCOND_OK);
		run_start(&r1);
		run_start(&r2);
		for (i = 0; i < PACKETS; i++) {
			struct pkt k = next_pkt(&now);
			if (k.mark == NETCOND_PCN_ETM)
				run_add(&r1, (unsigned)netcond_stop_blocking_on_block(&tmr, &sp, k.now));
			if (netcond_stop_blocking_poll(&tmr, &sp, k.now, &at) == 1)
				r1.hash = (r1.hash ^ at) * 0x100000001b3ull;
			run_add(&r1, (unsigned)netcond_stop_blocking_admission(&tmr) + 2u);
			netcond_cle_admission_on_packet(&ca, &cp, k.now, k.len, k.mark);
			if (netcond_cle_admission_poll(&ca, &cp, k.now, &d) == 1) {
				run_add(&r2, d.admission + 2u * d.changed);
				r2.hash = (r2.hash ^ d.marked ^ (d.total << 20) ^ d.end) * 0x100000001b3ull;
			}
		}
		print_line("stopblock", 0u, &r1);
		print_line("cle", 0u, &r2);
	}
	/* Egress measurement (20 ms intervals) and the decision point, Controlled
	 * Load with recording and Single Marking with suppression. */
	{
		unsigned b;
		for (b = 0; b < 2u; b++) {
			netcond_egress_profile ep;
			netcond_egress_params e = egress_params(b);
			netcond_egress m;
			netcond_decision_profile dp;
			netcond_decision_params dd = decision_params(b);
			netcond_decision_point pt;
			netcond_egress_report r;
			netcond_decision dec;
			struct run run;
			uint64_t now = 0;
			unsigned i, f;
			e.t_meas_ns = 20000000;
			if (b == 1u) {
				e.suppression = 1;
				e.t_maxsuppress_ns = 100000000;
				e.cle_reporting_threshold_q31 =
					(uint32_t)(((uint64_t)100 << 31) / 1000);
			}
			rng_state = seed;
			CHECK_RC(netcond_egress_profile_config(&ep, &e), NETCOND_OK);
			CHECK_RC(netcond_egress_config(&m, &ep, 0), NETCOND_OK);
			CHECK_RC(netcond_decision_profile_config(&dp, &dd), NETCOND_OK);
			CHECK_RC(netcond_decision_config(&pt, &dp, 0), NETCOND_OK);
			run_start(&run);
			for (i = 0; i < PACKETS; i++) {
				struct pkt k = next_pkt(&now);
				netcond_egress_on_packet(&m, &ep, k.now, k.len, k.mark,
							 (uint32_t)(k.now >> 20) % 40u);
				if (netcond_egress_poll(&m, &ep, k.now, &r) == 1) {
					CHECK_RC(netcond_decision_on_report(&pt, &dp, &r, &dec),
						 NETCOND_OK);
					run_add(&run, dec.admission + 2u * dec.termination);
					run.hash = (run.hash ^ r.nm_bytes ^ (r.etm_rate << 7) ^
						    dec.sar ^ r.end) * 0x100000001b3ull;
					for (f = 0; f < r.n_etm_flows; f++)
						run.hash = (run.hash ^ r.etm_flows[f]) * 0x100000001b3ull;
				}
			}
			print_line("egress", b, &run);
		}
	}
}

int main(int argc, char **argv)
{
	static void (*const all[])(void) = {config_cases, argument_cases, edge_cases, NULL};

	return test_main(argc, argv, "PCN", all, streams);
}
