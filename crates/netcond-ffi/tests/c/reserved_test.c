/*
 * Reserved fields: every profile constructor whose parameters struct has a
 * `reserved` field refuses a non-zero one with NETCOND_E_RESERVED, before any
 * other check (a struct of zeros with one reserved bit set gives
 * NETCOND_E_RESERVED; the same struct with the field cleared gives some other
 * answer), and a valid configuration with a reserved field set is refused
 * where the same with it cleared is accepted.
 *
 *   reserved_test cases
 */
#include "check.h"

/* A zeroed struct, then `field` set: NETCOND_E_RESERVED; cleared: not. */
#define ZEROED_ONLY_RESERVED(type, fn, field, ...)                            \
	do {                                                                   \
		type a_;                                                       \
		memset(&a_, 0, sizeof a_);                                     \
		a_.field = 1;                                                  \
		CHECK_RC(fn(__VA_ARGS__, &a_), NETCOND_E_RESERVED);            \
		a_.field = 0;                                                  \
		CHECK(fn(__VA_ARGS__, &a_) != NETCOND_E_RESERVED);             \
	} while (0)

static void every_constructor_checks_its_reserved_fields(void)
{
	struct netcond_codel_profile codel;
	struct netcond_fq_codel_profile *fq = malloc(sizeof *fq);
	struct netcond_pie_profile pie;
	struct netcond_fq_pie_profile *fqp = malloc(sizeof *fqp);
	struct netcond_dualpi2_profile *dual = malloc(sizeof *dual);
	struct netcond_stop_blocking_profile stop;
	struct netcond_egress_profile egress;
	struct netcond_decision_profile decision;
	struct netcond_et_marker_profile et;
	struct netcond_as_marker_profile as;
	struct netcond_excess_meter_profile excess;
	struct netcond_ras_profile ras;
	struct netcond_rcp_profile rcp;
	struct netcond_red_profile red;
	struct netcond_tbf_profile tbf;
	struct netcond_rfc4115_profile rfc4115;
	struct netcond_rfc4115_compact_profile rfc4115c;
	struct netcond_policer_profile policer;

	CHECK(fq != NULL && fqp != NULL && dual != NULL);
	ZEROED_ONLY_RESERVED(netcond_codel_params, netcond_codel_profile_config, reserved, &codel);
	ZEROED_ONLY_RESERVED(netcond_fq_codel_params, netcond_fq_codel_profile_config, reserved, fq);
	ZEROED_ONLY_RESERVED(netcond_fq_codel_params, netcond_fq_codel_profile_config, codel.reserved, fq);
	ZEROED_ONLY_RESERVED(netcond_pie_params, netcond_pie_profile_config, reserved, &pie);
	ZEROED_ONLY_RESERVED(netcond_pie_params, netcond_pie_profile_config, reserved0, &pie);
	ZEROED_ONLY_RESERVED(netcond_fq_pie_params, netcond_fq_pie_profile_config, reserved, fqp);
	ZEROED_ONLY_RESERVED(netcond_fq_pie_params, netcond_fq_pie_profile_config, pie.reserved, fqp);
	ZEROED_ONLY_RESERVED(netcond_fq_pie_params, netcond_fq_pie_profile_config, pie.reserved0, fqp);
	ZEROED_ONLY_RESERVED(netcond_dualpi2_params, netcond_dualpi2_profile_config, reserved, dual);
	ZEROED_ONLY_RESERVED(netcond_stop_blocking_params, netcond_stop_blocking_profile_config, reserved, &stop);
	ZEROED_ONLY_RESERVED(netcond_egress_params, netcond_egress_profile_config, reserved, &egress);
	ZEROED_ONLY_RESERVED(netcond_decision_params, netcond_decision_profile_config, reserved, &decision);
	ZEROED_ONLY_RESERVED(netcond_et_marker_params, netcond_et_marker_profile_config, reserved, &et);
	ZEROED_ONLY_RESERVED(netcond_as_marker_params, netcond_as_marker_profile_config, reserved, &as);
	ZEROED_ONLY_RESERVED(netcond_excess_meter_params, netcond_excess_meter_profile_config, reserved, &excess);
	ZEROED_ONLY_RESERVED(netcond_srras_params, netcond_srras_profile_config, reserved, &ras);
	ZEROED_ONLY_RESERVED(netcond_trras_params, netcond_trras_profile_config, reserved, &ras);
	ZEROED_ONLY_RESERVED(netcond_rcp_params, netcond_rcp_profile_config, reserved, &rcp);
	ZEROED_ONLY_RESERVED(netcond_red_params, netcond_red_profile_config, reserved, &red);
	ZEROED_ONLY_RESERVED(netcond_tbf_params, netcond_tbf_profile_config, reserved, &tbf);
	ZEROED_ONLY_RESERVED(netcond_rfc4115_params, netcond_rfc4115_profile_config, reserved, &rfc4115);
	ZEROED_ONLY_RESERVED(netcond_rfc4115_params, netcond_rfc4115_profile_config_packets, reserved, &rfc4115);
	ZEROED_ONLY_RESERVED(netcond_rfc4115_params, netcond_rfc4115_compact_profile_config, reserved, &rfc4115c);
	ZEROED_ONLY_RESERVED(netcond_policer_params, netcond_policer_profile_config, reserved, &policer);
	ZEROED_ONLY_RESERVED(netcond_policer_params, netcond_policer_profile_config_packets, reserved, &policer);
	free(fq);
	free(fqp);
	free(dual);
}

static void a_valid_configuration_with_a_reserved_field_set_is_refused(void)
{
	struct netcond_red_profile red;
	struct netcond_adaptive_red_profile *q = malloc(sizeof *q);
	struct netcond_policer_profile policer;
	struct netcond_node_3sm_profile node;
	struct netcond_red st;
	netcond_red_params p;
	netcond_policer_params pp;
	netcond_et_marker_params ep;
	netcond_as_marker_params ap;

	CHECK(q != NULL);
	memset(&p, 0, sizeof p);
	p.min_th = 20;
	p.max_th = 60;
	p.limit = 100;
	p.max_p = PROB(1, 10);
	p.w_q = PROB(1, 500);
	p.idle_tx_ns = 1200000;
	p.tick_hz = 1000000000u;
	p.unit = NETCOND_QUEUE_PACKETS;
	p.ecn_drop_th = NETCOND_RED_NONE;
	p.byte_mode = NETCOND_RED_NONE;
	p.spreading = NETCOND_SPREAD_ACCUMULATED;
	CHECK_RC(netcond_red_profile_config(&red, &p), NETCOND_OK);
	CHECK_RC(netcond_adaptive_red_profile_config(q, &p, 500000000), NETCOND_OK);
	p.reserved = 0x80000000u;
	CHECK_RC(netcond_red_profile_config(&red, &p), NETCOND_E_RESERVED);
	CHECK_RC(netcond_adaptive_red_profile_config(q, &p, 500000000), NETCOND_E_RESERVED);
	/* The refused profile is left unconfigured. */
	CHECK_RC(netcond_red_config(&st, &red, 0), NETCOND_E_NULL);
	free(q);

	memset(&pp, 0, sizeof pp);
	pp.rate = 1000000;
	pp.tbs = 3000;
	pp.pbs = 6000;
	pp.tick_hz = 1000000000;
	pp.max_packet = 1500;
	CHECK_RC(netcond_policer_profile_config(&policer, &pp), NETCOND_OK);
	pp.reserved = 1;
	CHECK_RC(netcond_policer_profile_config(&policer, &pp), NETCOND_E_RESERVED);

	/* A node marker refuses either of its two structs' reserved field. */
	memset(&ep, 0, sizeof ep);
	memset(&ap, 0, sizeof ap);
	ep.reserved = 1;
	CHECK_RC(netcond_node_3sm_profile_config(&node, &ep, &ap), NETCOND_E_RESERVED);
	/* With a valid ET-marker part, the AS-marker part's reserved field. */
	ep.reserved = 0;
	ep.sr = 1000000;
	ep.bucket_size = 30000;
	ep.s = 3000;
	ep.tick_hz = 1000000000;
	ep.marking = NETCOND_ET_TAIL;
	ep.mtu = 1500;
	ap.reserved = 1;
	CHECK_RC(netcond_node_3sm_profile_config(&node, &ep, &ap), NETCOND_E_RESERVED);

	CHECK(strcmp(netcond_strerror(NETCOND_E_RESERVED),
		     "every reserved field of a parameters struct must be zero") == 0);
}

static void (*const cases[])(void) = {
	every_constructor_checks_its_reserved_fields,
	a_valid_configuration_with_a_reserved_field_set_is_refused,
	NULL,
};

static void no_streams(uint64_t seed)
{
	(void)seed;
}

int main(int argc, char **argv)
{
	return test_main(argc, argv, "reserved-field", cases, no_streams);
}
