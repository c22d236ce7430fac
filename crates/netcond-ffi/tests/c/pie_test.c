/*
 * C tests of netcond.h's PIE (netcond_pie_*), run by tests/c_api.rs.
 *
 *   pie_test cases         every configuration error PIE can raise, NULL,
 *                          unstarted, unconfigured and out-of-range
 *                          arguments, and known answers: the first update's
 *                          probability for a standing delay of 100 ms (Linux
 *                          sch_pie's integers: 4771877968750 / 2^56, RFC
 *                          8033's (0.125 x 0.085 + 1.25 x 0.1) / 2048 =
 *                          6.62e-5), no update before T_UPDATE, the burst
 *                          allowance, the tail drop at the limit, the
 *                          derandomization's sure drop and the supplied draw.
 *   pie_test stream SEED   a seeded queue through two profiles (draws
 *                          supplied per packet); one line per profile
 *                          (counts of each verdict, a hash of the verdicts,
 *                          the final variables), compared by the Rust test
 *                          with the same stream through aqm_delay::Pie.
 */
#include "check.h"

#define MS 1000000ull /* ns */

static netcond_pie_params params(uint32_t ecn, uint32_t bound)
{
	netcond_pie_params p;
	memset(&p, 0, sizeof p);
	p.target_ns = 15 * MS;
	p.t_update_ns = 15 * MS;
	p.max_burst_ns = 150 * MS;
	p.tick_hz = 1000000000u;
	p.alpha = 2;
	p.beta = 20;
	p.limit = 1000;
	p.mtu = 1514;
	p.ecn = ecn;
	p.bound_prob = bound;
	return p;
}

static void errors(void)
{
	netcond_pie_profile prof, never;
	netcond_pie s, zero;
	netcond_rng rng;
	netcond_pie_info info;
	netcond_pie_params p = params(0, 0);

	memset(&never, 0, sizeof never);
	memset(&zero, 0, sizeof zero);
	netcond_rng_seed(&rng, 1);
	CHECK_RC(netcond_pie_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_pie_profile_config(NULL, &p), NETCOND_E_NULL);
	CHECK_RC(netcond_pie_profile_config(&prof, NULL), NETCOND_E_NULL);
	p.target_ns = 63; /* below one 64 ns unit */
	CHECK_RC(netcond_pie_profile_config(&prof, &p), NETCOND_E_DELAY_ZERO_TARGET);
	p = params(0, 0);
	p.t_update_ns = 0;
	CHECK_RC(netcond_pie_profile_config(&prof, &p), NETCOND_E_DELAY_ZERO_UPDATE);
	p = params(0, 0);
	p.limit = 0;
	CHECK_RC(netcond_pie_profile_config(&prof, &p), NETCOND_E_DELAY_ZERO_LIMIT);
	p = params(0, 0);
	p.mtu = 0;
	CHECK_RC(netcond_pie_profile_config(&prof, &p), NETCOND_E_DELAY_ZERO_MTU);
	p = params(0, 0);
	p.beta = 33;
	CHECK_RC(netcond_pie_profile_config(&prof, &p), NETCOND_E_DELAY_PIE_PARAMETER_TOO_LARGE);
	p = params(0, 0);
	p.target_ns = 1ull << 40;
	CHECK_RC(netcond_pie_profile_config(&prof, &p), NETCOND_E_DELAY_PIE_PARAMETER_TOO_LARGE);
	p = params(2, 0);
	CHECK_RC(netcond_pie_profile_config(&prof, &p), NETCOND_E_ENUM);
	p = params(0, 0);
	p.bytemode = 3;
	CHECK_RC(netcond_pie_profile_config(&prof, &p), NETCOND_E_ENUM);
	p = params(0, 0);
	p.tick_hz = 0;
	CHECK_RC(netcond_pie_profile_config(&prof, &p), NETCOND_E_TICK);
	/* The failed configuration left prof unusable. */
	CHECK_RC(netcond_pie_config(&s, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_pie_config(&s, &never, 0), NETCOND_E_NULL);
	p = params(0, 0);
	CHECK_RC(netcond_pie_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_pie_config(NULL, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_pie_config(&s, NULL, 0), NETCOND_E_NULL);
	/* Unstarted state, NULL generator: enqueue, nothing changes. */
	CHECK(netcond_pie_enqueue(&zero, &prof, 1, 1500, 0, 10, 1 << 20, &rng) == NETCOND_PIE_ENQUEUE);
	CHECK(netcond_pie_enqueue_draw(&zero, &prof, 1, 1500, 0, 10, 1 << 20, 0) == NETCOND_PIE_ENQUEUE);
	netcond_pie_on_dequeue(&zero, &prof, 1, 0, 1500, 0);
	CHECK_RC(netcond_pie_poll(&zero, &prof, 1ull << 40, 0), NETCOND_E_NULL);
	CHECK(netcond_pie_prob(&zero) == 0);
	CHECK_RC(netcond_pie_info_get(&zero, &info), NETCOND_E_NULL);
	CHECK_RC(netcond_pie_config(&s, &prof, 0), NETCOND_OK);
	CHECK(netcond_pie_enqueue(&s, &prof, 1, 1500, 0, 10, 1 << 20, NULL) == NETCOND_PIE_ENQUEUE);
	CHECK(netcond_pie_enqueue(&s, &never, 1, 1500, 0, 10, 1 << 20, &rng) == NETCOND_PIE_ENQUEUE);
	CHECK(netcond_pie_enqueue(NULL, &prof, 1, 1500, 0, 10, 1 << 20, &rng) == NETCOND_PIE_ENQUEUE);
	netcond_pie_on_dequeue(NULL, &prof, 1, 0, 1, 0);
	netcond_pie_on_dequeue(&s, NULL, 1, 0, 1, 0);
	CHECK_RC(netcond_pie_poll(NULL, &prof, 1, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_pie_poll(&s, &never, 1, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_pie_info_get(&s, NULL), NETCOND_E_NULL);
	CHECK_RC(netcond_pie_info_get(NULL, &info), NETCOND_E_NULL);
	/* The tail drop: an arrival to a queue holding the limit. */
	CHECK(netcond_pie_enqueue(&s, &prof, 2, 100, 0, 1000, 100000, &rng) == NETCOND_PIE_DROP);
	CHECK(netcond_pie_enqueue(&s, &prof, 2, 100, 0, 999, 100000, &rng) == NETCOND_PIE_ENQUEUE);
}

/* The queues start at BASE. */
#define BASE (1000 * MS)

/* A standing delay of 100 ms: one departure per ms of a packet enqueued
 * 100 ms before, 150 kB queued, from BASE + from_ms to BASE + to_ms. */
static void standing(netcond_pie *s, const netcond_pie_profile *p, uint64_t from_ms,
		     uint64_t to_ms)
{
	for (uint64_t ms = from_ms; ms <= to_ms; ms++) {
		uint64_t now = BASE + ms * MS;
		netcond_pie_poll(s, p, now, 150000);
		netcond_pie_on_dequeue(s, p, now, now - 100 * MS, 1500, 150000);
	}
}

static void known_answers(void)
{
	netcond_pie_profile prof;
	netcond_pie s;
	netcond_pie_info info;
	netcond_pie_params p = params(0, 1);

	CHECK_RC(netcond_pie_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_pie_config(&s, &prof, BASE), NETCOND_OK);
	CHECK_RC(netcond_pie_info_get(&s, &info), NETCOND_OK);
	CHECK(info.burst_time == (150 * MS) >> 6 && info.next_update == BASE + 15 * MS && info.prob == 0);
	/* No update before T_UPDATE; the first at 15 ms. */
	standing(&s, &prof, 1, 14);
	CHECK(netcond_pie_prob(&s) == 0);
	CHECK_RC(netcond_pie_poll(&s, &prof, BASE + 15 * MS, 150000), 1);
	CHECK_RC(netcond_pie_poll(&s, &prof, BASE + 15 * MS, 150000), 0);
	/* alpha / 2048 = 281474, beta / 2048 = 2814749 per 64 ns; delay 1562500
	 * units, target 234375. */
	CHECK(netcond_pie_prob(&s) == 281474ull * (1562500 - 234375) + 2814749ull * 1562500);
	CHECK(netcond_pie_prob(&s) == 4771877968750ull);
	/* The burst allowance: 14 ms of departures taken from 150 ms. */
	CHECK_RC(netcond_pie_info_get(&s, &info), NETCOND_OK);
	CHECK(info.burst_time == ((150 * MS) >> 6) - ((13 * MS) >> 6));
	CHECK(info.qdelay == (100 * MS) >> 6 && info.qdelay_old == (100 * MS) >> 6);
	/* During the burst allowance no early drop, whatever the draw. */
	CHECK(netcond_pie_enqueue_draw(&s, &prof, BASE + 15 * MS, 1500, 0, 100, 150000, 0) ==
	      NETCOND_PIE_ENQUEUE);
	/* Ten seconds later the probability is high; bounded to one. */
	standing(&s, &prof, 16, 10000);
	CHECK(netcond_pie_prob(&s) > NETCOND_PIE_MAX_PROB / 5 &&
	      netcond_pie_prob(&s) <= NETCOND_PIE_MAX_PROB);
	CHECK_RC(netcond_pie_info_get(&s, &info), NETCOND_OK);
	CHECK(info.burst_time == 0);
	/* A draw of 0 drops (below any probability), all ones does not, while
	 * the accumulated probability is below 8.5. */
	netcond_pie s2 = s;
	int drops0 = 0, drops1 = 0;
	for (int i = 0; i < 2; i++) {
		drops0 += netcond_pie_enqueue_draw(&s, &prof, BASE + 10000 * MS, 1500, 0, 100, 150000, 0) ==
			  NETCOND_PIE_DROP;
		drops1 += netcond_pie_enqueue_draw(&s2, &prof, BASE + 10000 * MS, 1500, 0, 100, 150000,
						   UINT64_MAX) == NETCOND_PIE_DROP;
	}
	CHECK(drops0 == 2);
	CHECK(drops1 == 0);
	/* Accumulated past 8.5 the drop is sure, whatever the draw. */
	for (int i = 0; i < 60 && netcond_pie_enqueue_draw(&s2, &prof, BASE + 10000 * MS, 1500, 0, 100,
							   150000, UINT64_MAX) !=
					  NETCOND_PIE_DROP;
	     i++)
		;
	CHECK_RC(netcond_pie_info_get(&s2, &info), NETCOND_OK);
	CHECK(info.accu_prob == 0); /* reset by the sure drop */
	/* Work conserving: fewer than two MTUs queued, no early drop. */
	CHECK(netcond_pie_enqueue_draw(&s, &prof, BASE + 10000 * MS, 1500, 0, 1, 3000, 0) ==
	      NETCOND_PIE_ENQUEUE);
	/* ECN: an ECN-capable packet is marked only while the probability is at
	 * most 10 %; here it is above, so it is dropped. */
	p = params(1, 1);
	CHECK_RC(netcond_pie_profile_config(&prof, &p), NETCOND_OK);
	CHECK(netcond_pie_enqueue_draw(&s, &prof, BASE + 10000 * MS, 1500, 1, 100, 150000, 0) ==
	      NETCOND_PIE_DROP);
	/* A fresh queue brought to about 5 %: marked. */
	CHECK_RC(netcond_pie_config(&s, &prof, BASE), NETCOND_OK);
	uint64_t ms = 1;
	for (; netcond_pie_prob(&s) < NETCOND_PIE_MAX_PROB / 20; ms++)
		standing(&s, &prof, ms, ms);
	CHECK(netcond_pie_prob(&s) <= NETCOND_PIE_MAX_PROB / 10);
	/* The first arrivals only accumulate (below 0.85); the first early-drop
	 * candidate, ECN-capable, is marked; the accumulation starts again and
	 * the next candidate, not-ECT, is dropped. */
	netcond_pie_verdict v = NETCOND_PIE_ENQUEUE;
	int waited = 0;
	for (; waited < 100 && v == NETCOND_PIE_ENQUEUE; waited++)
		v = netcond_pie_enqueue_draw(&s, &prof, BASE + ms * MS, 1500, 1, 100, 150000, 0);
	CHECK(v == NETCOND_PIE_MARK && waited > 1);
	v = NETCOND_PIE_ENQUEUE;
	for (int i = 0; i < 100 && v == NETCOND_PIE_ENQUEUE; i++)
		v = netcond_pie_enqueue_draw(&s, &prof, BASE + ms * MS, 1500, 0, 100, 150000, 0);
	CHECK(v == NETCOND_PIE_DROP);
}

/* The stream: phases of 1.5, 1 and 0.5 times the link, one line per
 * profile. */
static void streams(uint64_t seed)
{
	netcond_pie_params ps[2] = {params(0, 0), params(1, 1)};
	for (int k = 0; k < 2; k++) {
		netcond_pie_profile prof;
		netcond_pie s;
		netcond_pie_info info;
		uint64_t counts[3] = {0, 0, 0}, hash = 0xcbf29ce484222325ull;
		/* The FIFO: enqueue instants and lengths. */
		static uint64_t at[1024];
		static uint32_t len[1024];
		size_t head = 0, n = 0;
		uint64_t bytes = 0, now = 0;
		CHECK_RC(netcond_pie_profile_config(&prof, &ps[k]), NETCOND_OK);
		CHECK_RC(netcond_pie_config(&s, &prof, 0), NETCOND_OK);
		rng_state = seed ^ (uint64_t)k;
		for (uint32_t i = 0; i < PACKETS; i++) {
			uint64_t r = next_u64();
			uint64_t phase = (i / 10000) % 3;
			now += (r % 200 + 1) * 1000;
			netcond_pie_poll(&s, &prof, now, bytes);
			int arrive = phase == 0 ? (r >> 20) % 4 < 3 : phase == 1 ? (r >> 20) % 2 == 0
										 : (r >> 20) % 4 == 0;
			if (arrive) {
				uint32_t l = 64 + (uint32_t)((r >> 24) % 1451);
				int ecn = (r >> 40) % 2 == 0;
				uint64_t draw = next_u64();
				netcond_pie_verdict v = netcond_pie_enqueue_draw(
					&s, &prof, now, l, ecn, (uint32_t)n, bytes, draw);
				counts[v]++;
				hash = (hash ^ (uint64_t)v) * 0x100000001b3ull;
				if (v != NETCOND_PIE_DROP && n < 1024) {
					at[(head + n) % 1024] = now;
					len[(head + n) % 1024] = l;
					n++;
					bytes += l;
				}
			}
			if ((r >> 50) % 2 == 0 && n > 0) {
				bytes -= len[head];
				netcond_pie_on_dequeue(&s, &prof, now, at[head], len[head], bytes);
				head = (head + 1) % 1024;
				n--;
			}
		}
		netcond_pie_info_get(&s, &info);
		printf("pie_%d %" PRIu64 " %" PRIu64 " %" PRIu64 " %016" PRIx64 " %" PRIu64
		       " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		       k, counts[0], counts[1], counts[2], hash, info.prob, info.accu_prob,
		       info.qdelay, info.burst_time);
	}
}

static void (*const all_cases[])(void) = {errors, known_answers, NULL};

int main(int argc, char **argv)
{
	return test_main(argc, argv, "PIE", all_cases, streams);
}
