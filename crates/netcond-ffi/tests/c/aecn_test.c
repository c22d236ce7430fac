/*
 * C tests of netcond.h's AECN (Zheng and Kinicki's Adaptive ECN), run by
 * tests/c_api.rs.
 *
 *   aecn_test cases         every configuration error, NULL and out-of-range
 *                           arguments, and decisions with known answers
 *                           (mark-front of a queued packet of the same class).
 *   aecn_test stream SEED   seeded streams (every spreading, with the
 *                           library's generator and with supplied draws); one
 *                           line per queue (decision counts, a hash of the
 *                           decisions, a hash of the dequeued descriptors, the
 *                           final average, length and per-class counts),
 *                           compared by the Rust test with the same streams
 *                           through the Rust API.
 */
#include "check.h"

/* The router of Zheng and Kinicki's simulations: w_q 0.001, min_th 10, max_th
 * 30, 50 packets, alpha = beta = 2.5, base_max_p 0.5, s = 1500 bytes at 90
 * Mbit/s in ns. */
static netcond_aecn_params aecn_params(void)
{
	netcond_aecn_params p;
	memset(&p, 0, sizeof p);
	p.w_q = PROB(1, 1000);
	p.base_max_p = PROB(1, 2);
	p.alpha = PROB(5, 2);
	p.beta = PROB(5, 2);
	p.idle_tx_ns = 133333;
	p.tick_hz = 1000000000u;
	p.min_th = 10;
	p.max_th = 30;
	p.limit = 50;
	p.spreading = NETCOND_SPREAD_UNIFORM_COUNT_FIRST;
	return p;
}

static void config_cases(void)
{
	netcond_aecn_profile prof, never;
	netcond_aecn q;
	netcond_aecn_params p = aecn_params();

	memset(&never, 0, sizeof never);
	CHECK_RC(netcond_aecn_profile_config(&prof, &p), NETCOND_OK);
	CHECK(netcond_aecn_max_p(&prof, NETCOND_FLOW_ROBUST) == NETCOND_PROB_ONE);
	CHECK(netcond_aecn_max_p(&prof, NETCOND_FLOW_AVERAGE) == PROB(1, 2));
	/* 0.5 / 2.5 = 0.2, rounded down to 2^-32. */
	CHECK(netcond_aecn_max_p(&prof, NETCOND_FLOW_FRAGILE) == PROB(1, 5));
	CHECK(netcond_aecn_max_p(&prof, 3) == 0);
	CHECK(netcond_aecn_max_p(NULL, 0) == 0);
	CHECK(netcond_aecn_max_p(&never, 0) == 0);
	CHECK_RC(netcond_aecn_profile_config(NULL, &p), NETCOND_E_NULL);
	CHECK_RC(netcond_aecn_profile_config(&prof, NULL), NETCOND_E_NULL);

	p.spreading = 7;
	CHECK_RC(netcond_aecn_profile_config(&prof, &p), NETCOND_E_ENUM);
	CHECK(netcond_aecn_max_p(&prof, 1) == 0); /* failed configuration */
	p = aecn_params();
	p.w_q = 0;
	CHECK_RC(netcond_aecn_profile_config(&prof, &p), NETCOND_E_RED_WEIGHT_OUT_OF_RANGE);
	p = aecn_params();
	p.base_max_p = NETCOND_PROB_ONE + 1;
	CHECK_RC(netcond_aecn_profile_config(&prof, &p), NETCOND_E_RED_MAX_P_OUT_OF_RANGE);
	p = aecn_params();
	p.beta = 0;
	CHECK_RC(netcond_aecn_profile_config(&prof, &p), NETCOND_E_RED_ZERO_BETA);
	p.beta = PROB(1, 2);
	CHECK_RC(netcond_aecn_profile_config(&prof, &p), NETCOND_E_RED_BETA_BELOW_ONE);
	p = aecn_params();
	p.alpha = 0;
	CHECK_RC(netcond_aecn_profile_config(&prof, &p), NETCOND_E_RED_ZERO_ALPHA);
	p.alpha = PROB(9, 10);
	CHECK_RC(netcond_aecn_profile_config(&prof, &p), NETCOND_E_RED_ALPHA_BELOW_ONE);
	p = aecn_params();
	p.min_th = 30;
	CHECK_RC(netcond_aecn_profile_config(&prof, &p), NETCOND_E_RED_THRESHOLD_ORDER);
	p = aecn_params();
	p.limit = 0;
	CHECK_RC(netcond_aecn_profile_config(&prof, &p), NETCOND_E_RED_ZERO_LIMIT);
	p = aecn_params();
	p.limit = 20;
	CHECK_RC(netcond_aecn_profile_config(&prof, &p), NETCOND_E_RED_THRESHOLD_ABOVE_LIMIT);
	p = aecn_params();
	p.idle_tx_ns = 0;
	CHECK_RC(netcond_aecn_profile_config(&prof, &p), NETCOND_E_RED_ZERO_TRANSMISSION_TIME);

	p = aecn_params();
	p.tick_hz = 0;
	CHECK_RC(netcond_aecn_profile_config(&prof, &p), NETCOND_E_TICK);

	/* The queue holds at most NETCOND_AECN_QUEUE packets: with a larger
	 * buffer (thresholds above it, so RED admits every arrival) the arrival
	 * to a full queue is a forced drop, and one that leaves makes room. */
	p = aecn_params();
	p.limit = NETCOND_AECN_QUEUE + 100;
	p.min_th = NETCOND_AECN_QUEUE + 10;
	p.max_th = NETCOND_AECN_QUEUE + 50;
	CHECK_RC(netcond_aecn_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_aecn_config(&q, &prof, 0), NETCOND_OK);
	{
		unsigned i;
		for (i = 0; i < NETCOND_AECN_QUEUE; i++)
			CHECK(netcond_aecn_enqueue_draw(&q, &prof, i, i, NETCOND_FLOW_AVERAGE, 2, 0) ==
			      NETCOND_ENQUEUE);
		CHECK(netcond_aecn_len(&q) == NETCOND_AECN_QUEUE);
		CHECK(netcond_aecn_enqueue_draw(&q, &prof, i, i, NETCOND_FLOW_AVERAGE, 2, 0) ==
		      NETCOND_DROP_FORCED);
		CHECK(netcond_aecn_len(&q) == NETCOND_AECN_QUEUE);
		CHECK(netcond_aecn_dequeue(&q, &prof, i, NULL) == 1);
		CHECK(netcond_aecn_enqueue_draw(&q, &prof, i, i, NETCOND_FLOW_AVERAGE, 2, 0) ==
		      NETCOND_ENQUEUE);
	}
	CHECK_RC(netcond_aecn_config(NULL, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_aecn_config(&q, NULL, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_aecn_config(&q, &never, 0), NETCOND_E_NULL);
}

static void decision_cases(void)
{
	netcond_aecn_profile prof, never;
	netcond_aecn_params p = aecn_params();
	netcond_aecn q;
	netcond_aecn_pkt out;
	netcond_rng rng;
	uint32_t counts[3] = {9, 9, 9};

	memset(&never, 0, sizeof never);
	netcond_rng_seed(&rng, 1);
	/* w_q 1: the average is the queue length; every class's max_p is 1;
	 * no spreading, so p_a = p_b = (avg - 2) / 2 between 2 and 4. */
	p.w_q = NETCOND_PROB_ONE;
	p.base_max_p = NETCOND_PROB_ONE;
	p.alpha = NETCOND_PROB_ONE;
	p.beta = NETCOND_PROB_ONE;
	p.min_th = 2;
	p.max_th = 4;
	p.limit = 8;
	p.spreading = NETCOND_SPREAD_GEOMETRIC;
	CHECK_RC(netcond_aecn_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_aecn_config(&q, &prof, 0), NETCOND_OK);

	CHECK(netcond_aecn_enqueue_draw(&q, &prof, 1, 101, NETCOND_FLOW_ROBUST, 2, 0) ==
	      NETCOND_ENQUEUE);
	CHECK(netcond_aecn_enqueue_draw(&q, &prof, 2, 102, NETCOND_FLOW_FRAGILE, 0, 0) ==
	      NETCOND_ENQUEUE);
	CHECK(netcond_aecn_enqueue_draw(&q, &prof, 3, 103, NETCOND_FLOW_FRAGILE, 1, 0) ==
	      NETCOND_ENQUEUE);
	CHECK(netcond_aecn_len(&q) == 3);
	CHECK(netcond_aecn_avg(&q, &prof) == 2 * NETCOND_PROB_ONE);
	/* Average 3: p_b 1/2. A draw of all ones does not pick. */
	CHECK(netcond_aecn_enqueue_draw(&q, &prof, 4, 104, NETCOND_FLOW_FRAGILE, 2, 0xffffffffu) ==
	      NETCOND_ENQUEUE);
	/* Average 4 = max_th: dropped, whatever the draw. */
	CHECK(netcond_aecn_enqueue_draw(&q, &prof, 5, 105, NETCOND_FLOW_FRAGILE, 2, 0) ==
	      NETCOND_DROP_FORCED);
	CHECK(netcond_aecn_dequeue(&q, &prof, 6, &out) == 1);
	CHECK(out.cookie == 101 && out.flow_class == NETCOND_FLOW_ROBUST && out.ecn == 2);
	/* Average 3 again; a draw of 0 picks: mark-front skips the not-ECT
	 * fragile packet 102 and marks 103, the first ECN-capable fragile one. */
	CHECK(netcond_aecn_enqueue_draw(&q, &prof, 7, 106, NETCOND_FLOW_FRAGILE, 2, 0) ==
	      NETCOND_MARK);
	/* A not-ECT arrival picked is dropped early, an ECN field above 3 counts
	 * as not-ECT, and a class out of range is refused. */
	CHECK(netcond_aecn_dequeue(&q, &prof, 8, &out) == 1);
	CHECK(out.cookie == 102 && out.ecn == 0);
	CHECK(netcond_aecn_enqueue_draw(&q, &prof, 9, 107, NETCOND_FLOW_AVERAGE, 0, 0) ==
	      NETCOND_DROP_EARLY);
	CHECK(netcond_aecn_enqueue_draw(&q, &prof, 9, 107, NETCOND_FLOW_AVERAGE, 9, 0) ==
	      NETCOND_DROP_EARLY);
	CHECK(netcond_aecn_enqueue_draw(&q, &prof, 9, 107, 3, 2, 0xffffffffu) ==
	      NETCOND_DROP_FORCED);
	CHECK(netcond_aecn_len(&q) == 3);
	CHECK_RC(netcond_aecn_counts(&q, counts), NETCOND_OK);
	CHECK_RC(netcond_aecn_counts(NULL, counts), NETCOND_E_NULL);
	CHECK_RC(netcond_aecn_counts(&q, NULL), NETCOND_E_NULL);
	CHECK(netcond_aecn_dequeue(&q, &prof, 10, &out) == 1);
	CHECK(out.cookie == 103 && out.flow_class == NETCOND_FLOW_FRAGILE && out.ecn == 3);
	CHECK(netcond_aecn_dequeue(&q, &prof, 11, NULL) == 1);
	CHECK(netcond_aecn_dequeue(&q, &prof, 12, &out) == 1);
	CHECK(out.cookie == 106 && out.ecn == 2);
	CHECK(netcond_aecn_dequeue(&q, &prof, 13, &out) == 0);
	CHECK(netcond_aecn_len(&q) == 0);

	/* A full buffer of 30 while the average (w_q 0.001) is still below min_th. */
	p = aecn_params();
	p.limit = 30;
	CHECK_RC(netcond_aecn_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_aecn_config(&q, &prof, 0), NETCOND_OK);
	{
		unsigned i;
		for (i = 0; i < 30; i++)
			CHECK(netcond_aecn_enqueue(&q, &prof, 1 + i, i, i % 3, 1, &rng) ==
			      NETCOND_ENQUEUE);
		CHECK(netcond_aecn_enqueue(&q, &prof, 40, 99, 0, 1, &rng) == NETCOND_DROP_FORCED);
		CHECK(netcond_aecn_len(&q) == 30);
	}

	/* NULL and unstarted arguments. */
	CHECK(netcond_aecn_enqueue(NULL, &prof, 1, 1, 0, 0, &rng) == NETCOND_DROP_FORCED);
	CHECK(netcond_aecn_enqueue(&q, NULL, 1, 1, 0, 0, &rng) == NETCOND_DROP_FORCED);
	CHECK(netcond_aecn_enqueue(&q, &never, 1, 1, 0, 0, &rng) == NETCOND_DROP_FORCED);
	CHECK(netcond_aecn_enqueue(&q, &prof, 1, 1, 0, 0, NULL) == NETCOND_DROP_FORCED);
	CHECK(netcond_aecn_enqueue_draw(NULL, &prof, 1, 1, 0, 0, 1) == NETCOND_DROP_FORCED);
	CHECK(netcond_aecn_dequeue(NULL, &prof, 1, &out) == NETCOND_E_NULL);
	CHECK(netcond_aecn_dequeue(&q, NULL, 1, &out) == NETCOND_E_NULL);
	CHECK(netcond_aecn_dequeue(&q, &never, 1, &out) == NETCOND_E_NULL);
	CHECK(netcond_aecn_len(NULL) == 0);
	CHECK(netcond_aecn_avg(NULL, &prof) == 0);
	CHECK(netcond_aecn_avg(&q, &never) == 0);
	CHECK(netcond_aecn_len(&q) == 30);
}

/* ---------------------------------------------------------------- streams */

/* The stream: one arrival per step, time advancing 0..2 ms; then 0, 1 or 2
 * departures, on average 0.75 in the first half of every 20 s of stream time
 * (the queue fills) and 1.125 in the second (it drains); one step in 4096
 * empties the queue. Classes 0..2, ECN field 0..3, a draw per arrival. */
static void streams(uint64_t seed)
{
	unsigned v;
	int supplied;

	for (v = 0; v < 6u; v++) {
		for (supplied = 0; supplied < 2; supplied++) {
			netcond_aecn_profile prof;
			netcond_aecn q;
			netcond_rng rng;
			netcond_aecn_params p = aecn_params();
			netcond_aecn_pkt out;
			uint64_t counts[4] = {0, 0, 0, 0};
			uint64_t hash = 0xcbf29ce484222325ull, deq = 0xcbf29ce484222325ull;
			uint64_t now = 0;
			uint32_t c3[3];
			unsigned i;

			p.spreading = v;
			rng_state = seed;
			netcond_rng_seed(&rng, seed ^ 0xaec0);
			CHECK_RC(netcond_aecn_profile_config(&prof, &p), NETCOND_OK);
			CHECK_RC(netcond_aecn_config(&q, &prof, 0), NETCOND_OK);
			for (i = 0; i < PACKETS; i++) {
				uint64_t r = next_u64();
				uint32_t draw = (uint32_t)(next_u64() >> 32);
				uint32_t cls = (uint32_t)((r >> 40) % 3u);
				uint32_t ecn = (uint32_t)((r >> 50) & 3u);
				unsigned u = (unsigned)((r >> 20) & 7u), phase, k, j;
				netcond_red_decision d;

				now += (r >> 8) % 2000000u;
				d = supplied ? netcond_aecn_enqueue_draw(&q, &prof, now, i, cls, ecn, draw)
					     : netcond_aecn_enqueue(&q, &prof, now, i, cls, ecn, &rng);
				if ((unsigned)d < 4u)
					counts[d]++;
				hash = (hash ^ (uint64_t)d) * 0x100000001b3ull;
				phase = (unsigned)((now / 100000000u) % 200u);
				if (phase < 100u)
					k = u < 3u ? 0u : u < 7u ? 1u : 2u;
				else
					k = u < 2u ? 0u : u < 5u ? 1u : 2u;
				if (((r >> 30) & 4095u) == 0)
					k = NETCOND_AECN_QUEUE;
				for (j = 0; j < k && netcond_aecn_dequeue(&q, &prof, now + 1, &out) == 1; j++)
					deq = (deq ^ (out.cookie * 4u + out.ecn)) * 0x100000001b3ull;
			}
			CHECK_RC(netcond_aecn_counts(&q, c3), NETCOND_OK);
			printf("aecn_%s%u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %016" PRIx64
			       " %016" PRIx64 " %" PRIu64 " %u %u %u %u\n",
			       supplied ? "draw" : "rng", v, counts[0], counts[1], counts[2],
			       counts[3], hash, deq, netcond_aecn_avg(&q, &prof), netcond_aecn_len(&q),
			       c3[0], c3[1], c3[2]);
		}
	}
}

int main(int argc, char **argv)
{
	static void (*const all[])(void) = {config_cases, decision_cases, NULL};

	return test_main(argc, argv, "AECN", all, streams);
}
