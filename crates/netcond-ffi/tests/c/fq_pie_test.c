/*
 * C tests of netcond.h's FQ-PIE (netcond_fq_pie_*), run by tests/c_api.rs.
 *
 *   fq_pie_test cases         every configuration error FQ-PIE adds to PIE's,
 *                             NULL, unstarted and unconfigured arguments, and
 *                             known answers: the packet limit over all flows,
 *                             flow indexes modulo 1024, new flows served in
 *                             arrival order with a quantum of credit, a flow
 *                             out of credit moved behind the others, the
 *                             first update one T_UPDATE after the start.
 *   fq_pie_test stream SEED   flows hashed to 12 indexes (two beyond 1024; two
 *                             heavy) through
 *                             two profiles (draws supplied per packet); one
 *                             line per profile (counts of each verdict, a
 *                             hash of the verdicts and served flows, the
 *                             heavy flows' final probabilities), compared by
 *                             the Rust test with the same stream through
 *                             aqm_delay::FqPie.
 */
#include "check.h"

#define MS 1000000ull /* ns */

static netcond_fq_pie_params params(uint32_t ecn)
{
	netcond_fq_pie_params p;
	memset(&p, 0, sizeof p);
	p.pie.target_ns = 15 * MS;
	p.pie.t_update_ns = 15 * MS;
	p.pie.max_burst_ns = 150 * MS;
	p.pie.tick_hz = 1000000000u;
	p.pie.alpha = 2;
	p.pie.beta = 20;
	p.pie.limit = 1000;
	p.pie.mtu = 1514;
	p.pie.ecn = ecn;
	p.quantum = 1514;
	p.limit = 2000;
	p.ecn_prob = 10;
	return p;
}

/* The queue: 120 KiB, too big for some stacks. */
static netcond_fq_pie q, zero;

static void errors(void)
{
	netcond_fq_pie_profile prof, never;
	netcond_rng rng;
	netcond_fq_pie_flow fl;
	netcond_fq_pie_params p = params(0);
	uint32_t flow = 0;

	memset(&never, 0, sizeof never);
	memset(&q, 0, sizeof q);
	netcond_rng_seed(&rng, 1);
	CHECK_RC(netcond_fq_pie_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_fq_pie_profile_config(NULL, &p), NETCOND_E_NULL);
	CHECK_RC(netcond_fq_pie_profile_config(&prof, NULL), NETCOND_E_NULL);
	p.quantum = 0;
	CHECK_RC(netcond_fq_pie_profile_config(&prof, &p), NETCOND_E_DELAY_ZERO_QUANTUM);
	p = params(0);
	p.quantum = 1u << 31;
	CHECK_RC(netcond_fq_pie_profile_config(&prof, &p), NETCOND_E_DELAY_QUANTUM_TOO_LARGE);
	p = params(0);
	p.limit = 0;
	CHECK_RC(netcond_fq_pie_profile_config(&prof, &p), NETCOND_E_DELAY_ZERO_LIMIT);
	p = params(0);
	p.ecn_prob = 101;
	CHECK_RC(netcond_fq_pie_profile_config(&prof, &p), NETCOND_E_DELAY_FQ_PIE_ECN_PROB_TOO_LARGE);
	p = params(0);
	p.pie.mtu = 0;
	CHECK_RC(netcond_fq_pie_profile_config(&prof, &p), NETCOND_E_DELAY_ZERO_MTU);
	p = params(3);
	CHECK_RC(netcond_fq_pie_profile_config(&prof, &p), NETCOND_E_ENUM);
	p = params(0);
	p.pie.tick_hz = 0;
	CHECK_RC(netcond_fq_pie_profile_config(&prof, &p), NETCOND_E_TICK);
	/* The failed configuration left prof unusable. */
	CHECK_RC(netcond_fq_pie_config(&q, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_fq_pie_config(&q, &never, 0), NETCOND_E_NULL);
	p = params(0);
	CHECK_RC(netcond_fq_pie_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_fq_pie_config(NULL, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_fq_pie_config(&q, NULL, 0), NETCOND_E_NULL);
	/* Unstarted: enqueue, nothing changes. */
	CHECK(netcond_fq_pie_enqueue(&q, &prof, 1, 0, 1500, 0, &rng) == NETCOND_PIE_ENQUEUE);
	CHECK(netcond_fq_pie_enqueue_draw(&q, &prof, 1, 0, 1500, 0, 0) == NETCOND_PIE_ENQUEUE);
	CHECK_RC(netcond_fq_pie_schedule(&q, &prof, 1, &flow), NETCOND_E_NULL);
	CHECK_RC(netcond_fq_pie_poll(&q, &prof, 1ull << 40), NETCOND_E_NULL);
	netcond_fq_pie_on_dequeue(&q, &prof, 1, 0, 0, 1500);
	CHECK(memcmp(&q, &zero, sizeof q) == 0);
	CHECK(netcond_fq_pie_packets(&q) == 0 && netcond_fq_pie_bytes(&q) == 0);
	CHECK_RC(netcond_fq_pie_flow_get(&q, 0, &fl), NETCOND_E_NULL);
	CHECK_RC(netcond_fq_pie_config(&q, &prof, 0), NETCOND_OK);
	CHECK(netcond_fq_pie_enqueue(&q, &prof, 1, 0, 1500, 0, NULL) == NETCOND_PIE_ENQUEUE);
	CHECK(netcond_fq_pie_enqueue(&q, &never, 1, 0, 1500, 0, &rng) == NETCOND_PIE_ENQUEUE);
	CHECK(netcond_fq_pie_enqueue(NULL, &prof, 1, 0, 1500, 0, &rng) == NETCOND_PIE_ENQUEUE);
	CHECK(netcond_fq_pie_packets(&q) == 0);
	CHECK_RC(netcond_fq_pie_schedule(&q, &prof, 1, NULL), 0);
	CHECK_RC(netcond_fq_pie_flow_get(&q, 0, NULL), NETCOND_E_NULL);
	CHECK_RC(netcond_fq_pie_flow_get(NULL, 0, &fl), NETCOND_E_NULL);
}

static void known_answers(void)
{
	netcond_fq_pie_profile prof;
	netcond_fq_pie_flow fl;
	netcond_fq_pie_params p = params(0);
	uint32_t flow = 99;

	CHECK_RC(netcond_fq_pie_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_fq_pie_config(&q, &prof, 0), NETCOND_OK);
	/* 2000 packets over flows 0..1999 (modulo 1024) fill the limit. */
	for (uint32_t i = 0; i < 2000; i++)
		CHECK(netcond_fq_pie_enqueue_draw(&q, &prof, 2, i, 100, 0, UINT64_MAX) ==
		      NETCOND_PIE_ENQUEUE);
	CHECK(netcond_fq_pie_packets(&q) == 2000 && netcond_fq_pie_bytes(&q) == 200000);
	CHECK(netcond_fq_pie_enqueue_draw(&q, &prof, 2, 5, 100, 0, UINT64_MAX) == NETCOND_PIE_DROP);
	CHECK_RC(netcond_fq_pie_flow_get(&q, 1024, &fl), NETCOND_OK);
	CHECK(fl.packets == 2 && fl.bytes == 200 && fl.deficit == 1514);
	CHECK_RC(netcond_fq_pie_flow_get(&q, 1023, &fl), NETCOND_OK);
	CHECK(fl.packets == 1 && fl.bytes == 100);
	/* New flows in arrival order; a flow keeps the turn while it has
	 * credit and packets. */
	CHECK_RC(netcond_fq_pie_schedule(&q, &prof, 3, &flow), 1);
	CHECK(flow == 0);
	netcond_fq_pie_on_dequeue(&q, &prof, 3, 0, 2, 100);
	CHECK_RC(netcond_fq_pie_flow_get(&q, 0, &fl), NETCOND_OK);
	CHECK(fl.packets == 1 && fl.deficit == 1414);
	CHECK_RC(netcond_fq_pie_schedule(&q, &prof, 3, &flow), 1);
	CHECK(flow == 0);
	/* A big packet takes the credit: flow 0 goes behind the others. */
	netcond_fq_pie_on_dequeue(&q, &prof, 3, 0, 2, 1500);
	CHECK_RC(netcond_fq_pie_schedule(&q, &prof, 3, &flow), 1);
	CHECK(flow == 1);
	CHECK(netcond_fq_pie_packets(&q) == 1998);
	/* The first update one T_UPDATE after the start. */
	CHECK_RC(netcond_fq_pie_poll(&q, &prof, 15 * MS - 1), 0);
	CHECK_RC(netcond_fq_pie_poll(&q, &prof, 15 * MS), 1);
	CHECK_RC(netcond_fq_pie_poll(&q, &prof, 15 * MS), 0);
}

/* The FIFOs: per flow index, a ring of enqueue instants and lengths. */
#define RING 2048
static uint64_t at[12][RING];
static uint32_t len[12][RING];

static void streams(uint64_t seed)
{
	static const uint32_t keys[12] = {0, 1, 2, 3, 5, 8, 13, 21, 34, 1023, 1030, 1060};
	netcond_fq_pie_params ps[2] = {params(0), params(1)};
	for (int k = 0; k < 2; k++) {
		netcond_fq_pie_profile prof;
		netcond_fq_pie_flow f0, f1;
		uint64_t counts[3] = {0, 0, 0}, hash = 0xcbf29ce484222325ull;
		size_t head[12], n[12];
		uint64_t now = 0;
		memset(head, 0, sizeof head);
		memset(n, 0, sizeof n);
		CHECK_RC(netcond_fq_pie_profile_config(&prof, &ps[k]), NETCOND_OK);
		CHECK_RC(netcond_fq_pie_config(&q, &prof, 0), NETCOND_OK);
		rng_state = seed ^ (uint64_t)k;
		for (uint32_t i = 0; i < PACKETS; i++) {
			uint64_t r = next_u64();
			uint64_t phase = (i / 10000) % 3;
			now += (r % 100 + 1) * 1000;
			netcond_fq_pie_poll(&q, &prof, now);
			int arrive = phase == 0 ? (r >> 20) % 4 < 3 : phase == 1 ? (r >> 20) % 2 == 0
										 : (r >> 20) % 4 == 0;
			if (arrive) {
				size_t j = (r >> 30) % 2 == 0 ? (size_t)((r >> 31) % 2)
							      : (size_t)((r >> 32) % 12);
				uint32_t l = 64 + (uint32_t)((r >> 40) % 1451);
				int ecn = (r >> 52) % 2 == 0;
				uint64_t draw = next_u64();
				netcond_pie_verdict v =
					netcond_fq_pie_enqueue_draw(&q, &prof, now, keys[j], l, ecn, draw);
				counts[v]++;
				hash = (hash ^ (uint64_t)v) * 0x100000001b3ull;
				if (v != NETCOND_PIE_DROP) {
					size_t t = (head[j] + n[j]) % RING;
					at[j][t] = now;
					len[j][t] = l;
					n[j]++;
				}
			}
			if ((r >> 56) % 2 == 0) {
				uint32_t f;
				if (netcond_fq_pie_schedule(&q, &prof, now, &f) == 1) {
					size_t j = 0;
					while (keys[j] % 1024 != f)
						j++;
					size_t h = head[j];
					head[j] = (h + 1) % RING;
					n[j]--;
					netcond_fq_pie_on_dequeue(&q, &prof, now, f, at[j][h], len[j][h]);
					hash = (hash ^ (uint64_t)(3 + f)) * 0x100000001b3ull;
				}
			}
		}
		netcond_fq_pie_flow_get(&q, 0, &f0);
		netcond_fq_pie_flow_get(&q, 1, &f1);
		printf("fq_pie_%d %" PRIu64 " %" PRIu64 " %" PRIu64 " %016" PRIx64 " %" PRIu64
		       " %" PRIu64 " %u\n",
		       k, counts[0], counts[1], counts[2], hash, f0.pie.prob, f1.pie.prob,
		       netcond_fq_pie_packets(&q));
	}
}

static void (*const all_cases[])(void) = {errors, known_answers, NULL};

int main(int argc, char **argv)
{
	return test_main(argc, argv, "FQ-PIE", all_cases, streams);
}
