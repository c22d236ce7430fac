/*
 * C tests of netcond.h's RED family, run by tests/c_api.rs.
 *
 *   red_test cases         every configuration error, NULL and out-of-range
 *                          arguments, and a few decisions with known answers.
 *   red_test stream SEED   seeded streams through RED (every spreading, with
 *                          the library's generator and with supplied draws),
 *                          RIO-C, RIO-D, WRED and Adaptive RED; one line per
 *                          queue (decision counts, a hash of the decisions,
 *                          the final average), compared by the Rust test
 *                          with the same streams through the Rust API.
 */
#include "check.h"

static netcond_red_params red_params(void)
{
	netcond_red_params p;
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
	return p;
}

static netcond_rio_params rio_params(unsigned mode)
{
	netcond_rio_params p;
	memset(&p, 0, sizeof p);
	p.mode = mode;
	p.colors[0].min_th = 40;
	p.colors[0].max_th = 70;
	p.colors[0].max_p = PROB(1, 50);
	p.colors[1].min_th = 25;
	p.colors[1].max_th = 50;
	p.colors[1].max_p = PROB(1, 10);
	p.colors[2].min_th = 10;
	p.colors[2].max_th = 30;
	p.colors[2].max_p = PROB(1, 5);
	p.w_q = PROB(1, 512);
	p.limit = 100;
	p.idle_tx_ns = 1200000;
	p.tick_hz = 1000000000u;
	p.ecn_drop_th = NETCOND_RED_NONE;
	p.byte_mode = NETCOND_RED_NONE;
	return p;
}

static void config_cases(void)
{
	netcond_red_profile prof;
	netcond_rio_profile rprof;
	netcond_adaptive_red_profile aprof, anever;
	netcond_adaptive_red ar;
	netcond_red_params p;
	netcond_rio_params r;

	p = red_params();
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_red_profile_config(NULL, &p), NETCOND_E_NULL);
	CHECK_RC(netcond_red_profile_config(&prof, NULL), NETCOND_E_NULL);
	p.w_q = 0;
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_E_RED_WEIGHT_OUT_OF_RANGE);
	p.w_q = NETCOND_PROB_ONE + 1;
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_E_RED_WEIGHT_OUT_OF_RANGE);
	p = red_params();
	p.max_p = NETCOND_PROB_ONE + 1;
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_E_RED_MAX_P_OUT_OF_RANGE);
	p = red_params();
	p.min_th = 60;
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_E_RED_THRESHOLD_ORDER);
	p = red_params();
	p.limit = 0;
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_E_RED_ZERO_LIMIT);
	p = red_params();
	p.limit = 50;
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_E_RED_THRESHOLD_ABOVE_LIMIT);
	p = red_params();
	p.idle_tx_ns = 0;
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_E_RED_ZERO_TRANSMISSION_TIME);
	p = red_params();
	p.tick_hz = 0;
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_E_TICK);
	/* s below one tick of a 1 kHz clock. */
	p.tick_hz = 1000;
	p.idle_tx_ns = 999999;
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_E_RED_ZERO_TRANSMISSION_TIME);
	p.idle_tx_ns = 1000000;
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_OK);
	p = red_params();
	p.byte_mode = 0;
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_E_RED_ZERO_MAX_PACKET_SIZE);
	p = red_params();
	p.ecn_drop_th = 60;
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_E_RED_ECN_DROP_WITHOUT_ECN);
	p.ecn = 1;
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_OK);
	p.ecn_drop_th = 10;
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_E_RED_ECN_DROP_BELOW_MIN_TH);
	p.ecn_drop_th = 101;
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_E_RED_ECN_DROP_ABOVE_LIMIT);
	/* Enums and flags out of range. */
	p = red_params();
	p.unit = 2;
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_E_ENUM);
	p = red_params();
	p.spreading = 7;
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_E_ENUM);
	p = red_params();
	p.gentle = 2;
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_E_ENUM);
	p = red_params();
	p.ecn = 0xffffffffu;
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_E_ENUM);

	r = rio_params(NETCOND_RIO_COUPLED);
	CHECK_RC(netcond_rio_profile_config(&rprof, &r), NETCOND_OK);
	CHECK_RC(netcond_rio_profile_config(NULL, &r), NETCOND_E_NULL);
	CHECK_RC(netcond_rio_profile_config(&rprof, NULL), NETCOND_E_NULL);
	r.mode = 3;
	CHECK_RC(netcond_rio_profile_config(&rprof, &r), NETCOND_E_ENUM);
	r = rio_params(NETCOND_WRED);
	/* Red's curve above green's somewhere: green dropped more than red. */
	r.colors[0].max_p = PROB(1, 2);
	CHECK_RC(netcond_rio_profile_config(&rprof, &r), NETCOND_E_RED_PRECEDENCE_ORDER);
	r = rio_params(NETCOND_RIO_DECOUPLED);
	r.colors[1].min_th = 50;
	CHECK_RC(netcond_rio_profile_config(&rprof, &r), NETCOND_E_RED_THRESHOLD_ORDER);

	memset(&anever, 0, sizeof anever);
	p = red_params();
	CHECK_RC(netcond_adaptive_red_profile_config(&aprof, &p, 0), NETCOND_E_RED_ZERO_INTERVAL);
	CHECK_RC(netcond_adaptive_red_config(&ar, &aprof, 0), NETCOND_E_NULL);
	CHECK(netcond_adaptive_red_max_p(&ar) == 0); /* failed configuration */
	/* The interval in whole ticks: below one tick of a 1 kHz clock is zero. */
	p.tick_hz = 1000;
	CHECK_RC(netcond_adaptive_red_profile_config(&aprof, &p, 999999), NETCOND_E_RED_ZERO_INTERVAL);
	p = red_params();
	CHECK_RC(netcond_adaptive_red_profile_config(NULL, &p, 500000000), NETCOND_E_NULL);
	CHECK_RC(netcond_adaptive_red_profile_config(&aprof, NULL, 500000000), NETCOND_E_NULL);
	CHECK_RC(netcond_adaptive_red_profile_config(&aprof, &p, 500000000), NETCOND_OK);
	CHECK_RC(netcond_adaptive_red_config(&ar, &aprof, 0), NETCOND_OK);
	CHECK(netcond_adaptive_red_max_p(&ar) == PROB(1, 10));
	CHECK_RC(netcond_adaptive_red_config(NULL, &aprof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_adaptive_red_config(&ar, NULL, 0), NETCOND_E_NULL);
	CHECK(netcond_adaptive_red_max_p(&ar) == 0); /* failed configuration */
	CHECK_RC(netcond_adaptive_red_config(&ar, &anever, 0), NETCOND_E_NULL);
	p.w_q = 0;
	CHECK_RC(netcond_adaptive_red_profile_config(&aprof, &p, 500000000), NETCOND_E_RED_WEIGHT_OUT_OF_RANGE);
	CHECK_RC(netcond_adaptive_red_config(&ar, &aprof, 0), NETCOND_E_NULL);
}

static void decision_cases(void)
{
	netcond_red_profile prof, never;
	netcond_red_params p = red_params();
	netcond_red m;
	netcond_rng rng;
	netcond_rio_profile rprof;
	netcond_rio_params r = rio_params(NETCOND_RIO_COUPLED);
	netcond_rio rm;
	uint32_t q3[3] = {0, 0, 0};
	int i, marks = 0;

	memset(&never, 0, sizeof never);
	netcond_rng_seed(&rng, 1);
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_red_config(&m, &prof, 0), NETCOND_OK);
	CHECK_RC(netcond_red_config(NULL, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_red_config(&m, NULL, 0), NETCOND_E_NULL);
	/* Below min_th everything is queued; a full buffer is a forced drop. */
	CHECK(netcond_red_enqueue(&m, &prof, 1, 5, 1500, 0, &rng) == NETCOND_ENQUEUE);
	CHECK(netcond_red_enqueue(&m, &prof, 2, 100, 1500, 0, &rng) == NETCOND_DROP_FORCED);
	CHECK(netcond_red_enqueue_draw(&m, &prof, 3, 5, 1500, 0, 7) == NETCOND_ENQUEUE);
	/* NULL and unconfigured arguments. */
	CHECK(netcond_red_enqueue(NULL, &prof, 4, 5, 1500, 0, &rng) == NETCOND_DROP_FORCED);
	CHECK(netcond_red_enqueue(&m, NULL, 4, 5, 1500, 0, &rng) == NETCOND_DROP_FORCED);
	CHECK(netcond_red_enqueue(&m, &prof, 4, 5, 1500, 0, NULL) == NETCOND_DROP_FORCED);
	CHECK(netcond_red_enqueue(&m, &never, 4, 5, 1500, 0, &rng) == NETCOND_DROP_FORCED);
	CHECK(netcond_red_enqueue_draw(NULL, &prof, 4, 5, 1500, 0, 1) == NETCOND_DROP_FORCED);
	CHECK(netcond_red_avg(NULL, &prof) == 0);
	CHECK(netcond_red_avg(&m, &never) == 0);
	netcond_red_queue_empty(NULL, &prof, 5);
	netcond_red_queue_empty(&m, NULL, 5);
	netcond_rng_seed(NULL, 1);
	CHECK(netcond_rng_next_u32(NULL) == 0);

	/* A standing queue of 40 with ECN: marks (never early drops) at about
	 * 2 p_b / (1 + p_b) with p_b = 0.05. An ECN field above 3 is not-ECT. */
	p.ecn = 1;
	CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_red_config(&m, &prof, 0), NETCOND_OK);
	for (i = 0; i < 20000; i++) {
		netcond_red_decision d = netcond_red_enqueue(&m, &prof, (uint64_t)i * 1000, 40,
							     1000, 2, &rng);
		CHECK(d == NETCOND_ENQUEUE || d == NETCOND_MARK);
		marks += d == NETCOND_MARK;
	}
	CHECK(netcond_red_avg(&m, &prof) >> 32 == 39 || netcond_red_avg(&m, &prof) >> 32 == 40);
	CHECK(marks > 1400 && marks < 2400);
	for (i = 0; i < 2000; i++) {
		netcond_red_decision d = netcond_red_enqueue(&m, &prof, 30000000 + (uint64_t)i, 40,
							     1000, 7, &rng);
		CHECK(d != NETCOND_MARK);
	}

	CHECK_RC(netcond_rio_profile_config(&rprof, &r), NETCOND_OK);
	CHECK_RC(netcond_rio_config(&rm, &rprof, 0), NETCOND_OK);
	CHECK_RC(netcond_rio_config(NULL, &rprof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_rio_config(&rm, NULL, 0), NETCOND_E_NULL);
	CHECK(netcond_rio_enqueue(&rm, &rprof, 1, q3, NETCOND_GREEN, 100, 0, &rng) ==
	      NETCOND_ENQUEUE);
	CHECK(netcond_rio_enqueue(&rm, &rprof, 1, NULL, NETCOND_GREEN, 100, 0, &rng) ==
	      NETCOND_DROP_FORCED);
	CHECK(netcond_rio_enqueue(NULL, &rprof, 1, q3, NETCOND_GREEN, 100, 0, &rng) ==
	      NETCOND_DROP_FORCED);
	CHECK(netcond_rio_enqueue(&rm, &rprof, 1, q3, NETCOND_GREEN, 100, 0, NULL) ==
	      NETCOND_DROP_FORCED);
	CHECK(netcond_rio_enqueue_draw(&rm, NULL, 1, q3, 0, 100, 0, 5) == NETCOND_DROP_FORCED);
	q3[0] = 100;
	/* A full buffer, and a color out of range (counts as red). */
	CHECK(netcond_rio_enqueue_draw(&rm, &rprof, 2, q3, 9, 100, 0, 5) == NETCOND_DROP_FORCED);
	CHECK(netcond_rio_avg(&rm, &rprof, -4) == netcond_rio_avg(&rm, &rprof, NETCOND_RED));
	CHECK(netcond_rio_avg(NULL, &rprof, 0) == 0);
	netcond_rio_queue_empty(NULL, &rprof, 1);
	netcond_rio_queue_empty(&rm, NULL, 1);

	{
		netcond_adaptive_red_profile ap;
		netcond_adaptive_red ar;
		CHECK_RC(netcond_adaptive_red_profile_config(&ap, &p, 500000000), NETCOND_OK);
		CHECK_RC(netcond_adaptive_red_config(&ar, &ap, 0), NETCOND_OK);
		CHECK(netcond_adaptive_red_enqueue(&ar, &ap, 1, 5, 1500, 0, &rng) == NETCOND_ENQUEUE);
		CHECK(netcond_adaptive_red_enqueue(NULL, &ap, 0, 1, 1, 0, &rng) == NETCOND_DROP_FORCED);
		CHECK(netcond_adaptive_red_enqueue(&ar, NULL, 0, 1, 1, 0, &rng) == NETCOND_DROP_FORCED);
		CHECK(netcond_adaptive_red_enqueue_draw(NULL, &ap, 0, 1, 1, 0, 1) == NETCOND_DROP_FORCED);
		CHECK(netcond_adaptive_red_enqueue_draw(&ar, NULL, 0, 1, 1, 0, 1) == NETCOND_DROP_FORCED);
		CHECK(netcond_adaptive_red_avg(NULL, &ap) == 0);
		CHECK(netcond_adaptive_red_avg(&ar, NULL) == 0);
		netcond_adaptive_red_queue_empty(NULL, &ap, 0);
		netcond_adaptive_red_queue_empty(&ar, NULL, 0);
	}
}

/* ---------------------------------------------------------------- streams */

/* The stream: time advances 0..2 ms per arrival; the queue takes steps of
 * -2..+2 plus a pull toward a center that sweeps 10..110..10 every 20 s of
 * stream time (so the average crosses every region and the buffer of 100
 * overflows); one arrival in 4096 finds the queue just emptied (reported
 * first); lengths 64..1518, ECN field 0..3. */
struct arrival {
	uint64_t now;
	uint32_t q;
	uint32_t len;
	uint32_t ecn;
	uint32_t color;
	uint32_t draw;
	int emptied;
};

static struct arrival next_arrival(uint64_t *now, uint32_t *q)
{
	struct arrival a;
	uint64_t r = next_u64();
	uint32_t phase, center;
	int step;

	*now += (r >> 8) % 2000000u;
	phase = (uint32_t)((*now / 100000000u) % 200u);
	center = 10u + (phase < 100u ? phase : 200u - phase);
	step = (int)(r % 5u) - 2 + (int)((r >> 3) & 1u) * (*q < center ? 1 : -1);
	if (step < 0 && *q < 2u)
		*q = 0;
	else
		*q = (uint32_t)((int)*q + step);
	if (*q > 110u)
		*q = 110u;
	a.emptied = ((r >> 30) & 4095u) == 0;
	if (a.emptied)
		*q = 0;
	a.now = *now;
	a.q = *q;
	a.len = 64u + (uint32_t)((r >> 36) % 1455u);
	a.ecn = (uint32_t)((r >> 50) & 3u);
	a.color = (uint32_t)((r >> 52) % 3u);
	a.draw = (uint32_t)(next_u64() >> 32);
	return a;
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

static void run_add(struct run *r, unsigned d)
{
	if (d < 4)
		r->counts[d]++;
	r->hash = (r->hash ^ d) * 0x100000001b3ull;
}

static void print_line(const char *name, unsigned variant, const struct run *r, uint64_t avg)
{
	printf("%s%u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %016" PRIx64 " %" PRIu64 "\n",
	       name, variant, r->counts[0], r->counts[1], r->counts[2], r->counts[3], r->hash, avg);
}

static netcond_red_params red_variant(unsigned v)
{
	netcond_red_params p = red_params();
	p.spreading = v % 6u;
	if (v >= 6u) {
		/* Bytes, gentle, byte mode, ECN with a hard threshold, w_q 2^-9. */
		p.unit = NETCOND_QUEUE_BYTES;
		p.min_th = 20 * 1000;
		p.max_th = 60 * 1000;
		p.limit = 100 * 1000;
		p.gentle = 1;
		p.byte_mode = 1500;
		p.ecn = 1;
		p.ecn_drop_th = 80 * 1000;
		p.w_q = PROB(1, 512);
	}
	return p;
}

static void streams(uint64_t seed)
{
	unsigned v, mode;

	for (v = 0; v < 12u; v++) {
		int supplied;
		for (supplied = 0; supplied < 2; supplied++) {
			netcond_red_profile prof;
			netcond_red m;
			netcond_rng rng;
			netcond_red_params p = red_variant(v);
			struct run r;
			uint64_t now = 0;
			uint32_t q = 0;
			unsigned i;

			rng_state = seed;
			netcond_rng_seed(&rng, seed ^ 0x5555);
			CHECK_RC(netcond_red_profile_config(&prof, &p), NETCOND_OK);
			CHECK_RC(netcond_red_config(&m, &prof, 0), NETCOND_OK);
			run_start(&r);
			for (i = 0; i < PACKETS; i++) {
				struct arrival a = next_arrival(&now, &q);
				uint32_t ql = p.unit == NETCOND_QUEUE_BYTES ? a.q * 1000u : a.q;
				netcond_red_decision d;
				if (a.emptied)
					netcond_red_queue_empty(&m, &prof, a.now - 1);
				d = supplied ? netcond_red_enqueue_draw(&m, &prof, a.now, ql, a.len,
									a.ecn, a.draw)
					     : netcond_red_enqueue(&m, &prof, a.now, ql, a.len, a.ecn,
								   &rng);
				run_add(&r, (unsigned)d);
			}
			print_line(supplied ? "red_draw" : "red_rng", v, &r, netcond_red_avg(&m, &prof));
		}
	}

	for (mode = 0; mode < 3u; mode++) {
		netcond_rio_profile prof;
		netcond_rio m;
		netcond_rng rng;
		netcond_rio_params p = rio_params(mode);
		struct run r;
		uint64_t now = 0;
		uint32_t q = 0;
		unsigned i;

		rng_state = seed;
		netcond_rng_seed(&rng, seed ^ 0x7777);
		CHECK_RC(netcond_rio_profile_config(&prof, &p), NETCOND_OK);
		CHECK_RC(netcond_rio_config(&m, &prof, 0), NETCOND_OK);
		run_start(&r);
		for (i = 0; i < PACKETS; i++) {
			struct arrival a = next_arrival(&now, &q);
			/* The queue split over the colors: half green, a third
			 * yellow, the rest red. */
			uint32_t q3[3];
			q3[0] = a.q / 2u;
			q3[1] = a.q / 3u;
			q3[2] = a.q - q3[0] - q3[1];
			if (a.emptied)
				netcond_rio_queue_empty(&m, &prof, a.now - 1);
			run_add(&r, (unsigned)(i % 2u ? netcond_rio_enqueue(&m, &prof, a.now, q3,
									    (int)a.color, a.len,
									    a.ecn, &rng)
						      : netcond_rio_enqueue_draw(&m, &prof, a.now, q3,
									         (int)a.color, a.len,
									         a.ecn, a.draw)));
		}
		print_line("rio", mode, &r, netcond_rio_avg(&m, &prof, NETCOND_YELLOW));
	}

	{
		netcond_adaptive_red_profile ap;
		netcond_adaptive_red ar;
		netcond_rng rng;
		netcond_red_params p = red_params();
		struct run r;
		uint64_t now = 0;
		uint32_t q = 0;
		unsigned i;

		rng_state = seed;
		netcond_rng_seed(&rng, seed ^ 0x9999);
		CHECK_RC(netcond_adaptive_red_profile_config(&ap, &p, 500000000u), NETCOND_OK);
		CHECK_RC(netcond_adaptive_red_config(&ar, &ap, 0), NETCOND_OK);
		run_start(&r);
		for (i = 0; i < PACKETS; i++) {
			struct arrival a = next_arrival(&now, &q);
			if (a.emptied)
				netcond_adaptive_red_queue_empty(&ar, &ap, a.now - 1);
			run_add(&r, (unsigned)(i % 2u ? netcond_adaptive_red_enqueue(
							       &ar, &ap, a.now, a.q, a.len, a.ecn, &rng)
						      : netcond_adaptive_red_enqueue_draw(
							       &ar, &ap, a.now, a.q, a.len, a.ecn, a.draw)));
		}
		print_line("adaptive", 0, &r, netcond_adaptive_red_avg(&ar, &ap));
		printf("adaptive_max_p %" PRIu64 "\n", netcond_adaptive_red_max_p(&ar));
	}
}

int main(int argc, char **argv)
{
	static void (*const all[])(void) = {config_cases, decision_cases, NULL};

	return test_main(argc, argv, "RED", all, streams);
}
