/*
 * C tests of netcond.h's RBCC interface table, run by tests/c_api.rs.
 *
 *   rbcc_test cases         every configuration error, NULL arguments, a fair
 *                           share with known answer.
 *   rbcc_test stream SEED   seeded streams of data packets, returned and
 *                           forwarded ACKs, closes and expiries through both
 *                           ACK models; one line each (a hash of every stamped
 *                           header and advertised rate), compared by the Rust
 *                           test with the Rust API.
 */
#include "check.h"

static netcond_rbcc_params params(unsigned model)
{
	netcond_rbcc_params p;
	memset(&p, 0, sizeof p);
	p.capacity_bps = 10000000;
	p.idle_timeout_ns = 2000000000;
	p.tick_hz = 1000000000;
	p.node = 7;
	p.ack_bytes = 40;
	p.data_bytes = 1500;
	p.ack_model = model;
	return p;
}

/* The interface table is 24 kB: static, as a router would keep it. */
static netcond_rbcc_interface table;

static void cases(void)
{
	netcond_rbcc_profile prof, never;
	netcond_rbcc_params p;
	netcond_rbcc_rate_header h;
	netcond_rbcc_ack_header a;
	unsigned f;

	p = params(0);
	CHECK_RC(netcond_rbcc_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_rbcc_profile_config(NULL, &p), NETCOND_E_NULL);
	CHECK_RC(netcond_rbcc_profile_config(&prof, NULL), NETCOND_E_NULL);
	p.node = 0;
	CHECK_RC(netcond_rbcc_profile_config(&prof, &p), NETCOND_E_RBCC_NO_NODE_ID);
	p = params(0);
	p.capacity_bps = 0;
	CHECK_RC(netcond_rbcc_profile_config(&prof, &p), NETCOND_E_RBCC_ZERO_CAPACITY);
	p.capacity_bps = (uint64_t)1 << 47;
	CHECK_RC(netcond_rbcc_profile_config(&prof, &p), NETCOND_E_RBCC_CAPACITY_TOO_LARGE);
	p = params(0);
	p.data_bytes = 0;
	CHECK_RC(netcond_rbcc_profile_config(&prof, &p), NETCOND_E_RBCC_ZERO_DATA_BYTES);
	p = params(0);
	p.ack_bytes = 1500;
	CHECK_RC(netcond_rbcc_profile_config(&prof, &p), NETCOND_E_RBCC_ACK_NOT_SMALLER);
	p = params(0);
	p.idle_timeout_ns = 0;
	CHECK_RC(netcond_rbcc_profile_config(&prof, &p), NETCOND_E_RBCC_ZERO_IDLE_TIMEOUT);
	p = params(2);
	CHECK_RC(netcond_rbcc_profile_config(&prof, &p), NETCOND_E_ENUM);
	p = params(0);
	p.tick_hz = 0;
	CHECK_RC(netcond_rbcc_profile_config(&prof, &p), NETCOND_E_TICK);

	/* Four greedy flows on 10 Mbit/s (ACK load outside, k = 40/1500): each
	 * gets at most C / 4, and the rate fields say so. */
	p = params(0);
	CHECK_RC(netcond_rbcc_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_rbcc_config(&table, &prof, 0), NETCOND_OK);
	CHECK(netcond_rbcc_advertised(&table) == 10000000ull * NETCOND_RBCC_ONE_BPS);
	for (f = 0; f < 4; f++) {
		h.requested = UINT64_MAX;
		h.rate = UINT64_MAX;
		h.bottleneck = 0;
		h.reserved = 0;
		CHECK_RC(netcond_rbcc_on_data(&table, &prof, f, f, &h), 0);
	}
	CHECK(netcond_rbcc_len(&table) == 4);
	CHECK(netcond_rbcc_advertised(&table) <= 2500000ull * NETCOND_RBCC_ONE_BPS);
	CHECK(netcond_rbcc_advertised(&table) > 2490000ull * NETCOND_RBCC_ONE_BPS);
	h.requested = UINT64_MAX;
	h.rate = UINT64_MAX;
	h.bottleneck = 0;
	CHECK_RC(netcond_rbcc_on_data(&table, &prof, 10, 0, &h), 0);
	CHECK(h.rate == netcond_rbcc_advertised(&table) && h.bottleneck == 7);
	a.rate = h.rate;
	a.bottleneck = h.bottleneck;
	a.reserved = 0;
	CHECK_RC(netcond_rbcc_on_return(&table, &prof, 11, 0, &a), NETCOND_OK);
	/* The ACK of flow 0 leaving by this interface gets a row of its own. */
	CHECK_RC(netcond_rbcc_on_ack(&table, &prof, 11, 0, &a), 0);
	CHECK(netcond_rbcc_len(&table) == 5);
	CHECK(netcond_rbcc_close(&table, &prof, 3) == 1);
	CHECK(netcond_rbcc_close(&table, &prof, 3) == 0);
	CHECK(netcond_rbcc_len(&table) == 4);
	CHECK(netcond_rbcc_expire(&table, &prof, 5000000000ull) == 4);
	CHECK(netcond_rbcc_len(&table) == 0);

	/* NULL and unstarted arguments. */
	memset(&never, 0, sizeof never);
	CHECK_RC(netcond_rbcc_config(NULL, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_rbcc_config(&table, &never, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_rbcc_on_data(NULL, &prof, 0, 0, &h), NETCOND_E_NULL);
	CHECK_RC(netcond_rbcc_on_data(&table, NULL, 0, 0, &h), NETCOND_E_NULL);
	CHECK_RC(netcond_rbcc_on_data(&table, &prof, 0, 0, NULL), NETCOND_E_NULL);
	CHECK_RC(netcond_rbcc_on_return(&table, &prof, 0, 0, NULL), NETCOND_E_NULL);
	CHECK_RC(netcond_rbcc_on_ack(NULL, &prof, 0, 0, &a), NETCOND_E_NULL);
	CHECK_RC(netcond_rbcc_close(NULL, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_rbcc_expire(&table, NULL, 0), NETCOND_E_NULL);
	CHECK(netcond_rbcc_advertised(NULL) == 0);
	CHECK(netcond_rbcc_len(NULL) == 0);
}

static netcond_rcp_params rcp_params(void)
{
	netcond_rcp_params p;
	memset(&p, 0, sizeof p);
	p.capacity_bps = 10000000;
	p.rtt_ns = 100000000;
	p.interval_ns = 10000000;
	p.initial_bps = 10000000;
	p.min_rate_bps = 1;
	p.tick_hz = 1000000000;
	p.node = 9;
	p.alpha_num = 1;
	p.alpha_den = 10;
	p.beta_num = 1;
	p.beta_den = 1;
	return p;
}

static void rcp_cases(void)
{
	netcond_rcp_profile prof;
	netcond_rcp_params p;
	netcond_rcp m;
	netcond_rbcc_rate_header h;

	p = rcp_params();
	CHECK_RC(netcond_rcp_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_rcp_profile_config(NULL, &p), NETCOND_E_NULL);
	CHECK_RC(netcond_rcp_profile_config(&prof, NULL), NETCOND_E_NULL);
	p.node = 0;
	CHECK_RC(netcond_rcp_profile_config(&prof, &p), NETCOND_E_RCP_NO_NODE_ID);
	p = rcp_params();
	p.capacity_bps = 0;
	CHECK_RC(netcond_rcp_profile_config(&prof, &p), NETCOND_E_RCP_BAD_CAPACITY);
	p = rcp_params();
	p.beta_den = 0;
	CHECK_RC(netcond_rcp_profile_config(&prof, &p), NETCOND_E_RCP_ZERO_DENOMINATOR);
	p = rcp_params();
	p.alpha_num = 0;
	p.beta_num = 0;
	CHECK_RC(netcond_rcp_profile_config(&prof, &p), NETCOND_E_RCP_NO_GAIN);
	p = rcp_params();
	p.alpha_num = 0;
	CHECK_RC(netcond_rcp_profile_config(&prof, &p), NETCOND_E_RCP_ZERO_ALPHA);
	p = rcp_params();
	p.alpha_num = 16;
	CHECK_RC(netcond_rcp_profile_config(&prof, &p), NETCOND_E_RCP_ALPHA_UNSTABLE);
	p = rcp_params();
	p.rtt_ns = 0;
	CHECK_RC(netcond_rcp_profile_config(&prof, &p), NETCOND_E_RCP_ZERO_TIME);
	p = rcp_params();
	p.rtt_ns = 1;
	p.interval_ns = 1000000;
	CHECK_RC(netcond_rcp_profile_config(&prof, &p), NETCOND_E_RCP_INTERVAL_TOO_LONG);
	p = rcp_params();
	p.min_rate_bps = 0;
	CHECK_RC(netcond_rcp_profile_config(&prof, &p), NETCOND_E_RCP_BAD_MIN_RATE);
	p = rcp_params();
	p.initial_bps = 20000000;
	CHECK_RC(netcond_rcp_profile_config(&prof, &p), NETCOND_E_RCP_BAD_INITIAL);
	p = rcp_params();
	p.tick_hz = 0;
	CHECK_RC(netcond_rcp_profile_config(&prof, &p), NETCOND_E_TICK);

	/* The rate starts at C; an idle interval with an empty queue keeps it at
	 * C; a header asking for less is not touched, one asking for more is
	 * lowered to R with this node as its bottleneck. */
	p = rcp_params();
	CHECK_RC(netcond_rcp_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_rcp_config(&m, &prof, 0), NETCOND_OK);
	CHECK(netcond_rcp_rate(&m) == 10000000ull * NETCOND_RBCC_ONE_BPS);
	CHECK(netcond_rcp_control(&m, &prof, 5000000, 0) == 0);
	CHECK(netcond_rcp_control(&m, &prof, 10000000, 0) == 1);
	CHECK(netcond_rcp_rate(&m) == 10000000ull * NETCOND_RBCC_ONE_BPS);
	h.requested = h.rate = 1000ull * NETCOND_RBCC_ONE_BPS;
	h.bottleneck = 0;
	h.reserved = 0;
	CHECK_RC(netcond_rcp_on_data(&m, &prof, 10000001, 1500, &h), NETCOND_OK);
	CHECK(h.rate == 1000ull * NETCOND_RBCC_ONE_BPS && h.bottleneck == 0);
	h.requested = h.rate = UINT64_MAX;
	CHECK_RC(netcond_rcp_on_data(&m, &prof, 10000002, 1500, &h), NETCOND_OK);
	CHECK(h.rate == netcond_rcp_rate(&m) && h.bottleneck == 9);
	CHECK_RC(netcond_rcp_config(NULL, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_rcp_on_data(&m, &prof, 0, 1, NULL), NETCOND_E_NULL);
	CHECK_RC(netcond_rcp_on_data(NULL, &prof, 0, 1, &h), NETCOND_E_NULL);
	CHECK_RC(netcond_rcp_control(&m, NULL, 0, 0), NETCOND_E_NULL);
	CHECK(netcond_rcp_rate(NULL) == 0);
}

static void streams(uint64_t seed)
{
	unsigned model;
	for (model = 0; model < 2u; model++) {
		netcond_rbcc_profile prof;
		netcond_rbcc_params p = params(model);
		uint64_t now = 0, hash = 0xcbf29ce484222325ull, full = 0;
		unsigned i;

		rng_state = seed;
		CHECK_RC(netcond_rbcc_profile_config(&prof, &p), NETCOND_OK);
		CHECK_RC(netcond_rbcc_config(&table, &prof, 0), NETCOND_OK);
		for (i = 0; i < PACKETS; i++) {
			uint64_t r = next_u64();
			uint32_t flow = (uint32_t)(r % 160u);
			netcond_rbcc_rate_header h;
			netcond_rbcc_ack_header a;
			int rc;
			now += (r >> 10) % 200000u;
			/* Each flow asks for its own fixed rate (or no limit). */
			h.requested = flow % 4u == 0 ? UINT64_MAX
						     : ((uint64_t)(flow * 7919u) % 3000000u + 1000u) *
							       NETCOND_RBCC_ONE_BPS;
			h.rate = h.requested;
			h.bottleneck = 0;
			h.reserved = 0;
			rc = netcond_rbcc_on_data(&table, &prof, now, flow, &h);
			full += (uint64_t)rc;
			hash = (hash ^ h.rate ^ ((uint64_t)h.bottleneck << 60)) * 0x100000001b3ull;
			a.rate = h.rate;
			a.bottleneck = h.bottleneck;
			a.reserved = 0;
			if ((r >> 50) & 1u)
				CHECK_RC(netcond_rbcc_on_return(&table, &prof, now, flow, &a),
					 NETCOND_OK);
			if (((r >> 51) & 3u) == 0) {
				rc = netcond_rbcc_on_ack(&table, &prof, now, flow ^ 1u, &a);
				full += (uint64_t)rc;
				hash = (hash ^ a.rate) * 0x100000001b3ull;
			}
			if (((r >> 53) & 63u) == 0)
				hash = (hash ^ (uint64_t)netcond_rbcc_close(&table, &prof, flow)) *
				       0x100000001b3ull;
			if (i % 1000u == 999u)
				hash = (hash ^ (uint64_t)netcond_rbcc_expire(&table, &prof, now)) *
				       0x100000001b3ull;
			hash = (hash ^ netcond_rbcc_advertised(&table)) * 0x100000001b3ull;
		}
		printf("rbcc%u %" PRIu64 " %u %016" PRIx64 "\n", model, full,
		       netcond_rbcc_len(&table), hash);
	}
	/* RCP: arrivals at 5..15 Mbit/s on a 10 Mbit/s link with a queue that
	 * grows while they exceed it; control at every arrival. */
	{
		netcond_rcp_profile prof;
		netcond_rcp_params p = rcp_params();
		netcond_rcp m;
		uint64_t now = 0, hash = 0xcbf29ce484222325ull, q = 0, updates = 0;
		unsigned i;
		rng_state = seed;
		CHECK_RC(netcond_rcp_profile_config(&prof, &p), NETCOND_OK);
		CHECK_RC(netcond_rcp_config(&m, &prof, 0), NETCOND_OK);
		for (i = 0; i < PACKETS; i++) {
			uint64_t r = next_u64();
			netcond_rbcc_rate_header h;
			uint32_t len = 64u + (uint32_t)(r % 1455u);
			/* 8 len / (5..15 Mbit/s) seconds apart. */
			uint64_t bps = 5000000u + (i / 20000u % 3u) * 5000000u;
			now += (uint64_t)len * 8u * 1000000000u / bps;
			q += len;
			q = q > 1250u ? q - 1250u : 0; /* the link drains ~1 ms of 10 Mbit/s */
			h.requested = h.rate = (r >> 32) % 2u ? UINT64_MAX
						      : ((r >> 40) % 20000000u + 1u) *
								NETCOND_RBCC_ONE_BPS;
			h.bottleneck = 0;
			h.reserved = 0;
			CHECK_RC(netcond_rcp_on_data(&m, &prof, now, len, &h), NETCOND_OK);
			updates += (uint64_t)netcond_rcp_control(&m, &prof, now, q);
			hash = (hash ^ h.rate ^ ((uint64_t)h.bottleneck << 60)) * 0x100000001b3ull;
		}
		printf("rcp %" PRIu64 " %" PRIu64 " %016" PRIx64 "\n", updates,
		       netcond_rcp_rate(&m), hash);
	}
}

int main(int argc, char **argv)
{
	static void (*const all[])(void) = {cases, rcp_cases, NULL};

	return test_main(argc, argv, "RBCC", all, streams);
}
