/*
 * C tests of netcond.h's DualPI2 (netcond_dualpi2_*), run by tests/c_api.rs.
 *
 *   dualpi2_test cases         every configuration error DualPI2 can raise,
 *                              NULL, unstarted, unconfigured and
 *                              out-of-range arguments, and known answers:
 *                              RFC 9332's classifier, the shared buffer's
 *                              limit, the first PI update for a standing
 *                              Classic delay of 100 ms (p' = 0.15 x 0.085 +
 *                              3 x 0.1 = 0.31275, 1343251021 / 2^32), the
 *                              coupling p_CL = k p', the L4S step, the round
 *                              robin's order and the time shift.
 *   dualpi2_test stream SEED   an L4S and a Classic sender through two
 *                              profiles (draws supplied per packet); one line
 *                              per profile (counts of each verdict and of
 *                              buffer drops, a hash of the answers, the final
 *                              variables), compared by the Rust test with the
 *                              same stream through aqm_delay::DualPi2.
 */
#include "check.h"

#define MS 1000000ull /* ns */
#define US 1000ull    /* ns */

static netcond_dualpi2_params params(uint32_t scheduler, uint32_t decision)
{
	netcond_dualpi2_params p;
	memset(&p, 0, sizeof p);
	p.target_ns = 15 * MS;
	p.t_update_ns = 15 * MS;
	p.min_th_ns = 800 * US;
	p.range_ns = 400 * US;
	p.tshift_ns = 40 * MS;
	p.limit = 3125000;
	p.tick_hz = 1000000000u;
	p.alpha_mhz = 150;
	p.beta_mhz = 3000;
	p.k16 = 32;
	p.th_len = 1;
	p.mtu = 1500;
	p.curq_max = 1;
	p.scheduler = scheduler;
	p.decision = decision;
	p.wrr_l4s = 3;
	p.wrr_classic = 1;
	return p;
}

static void errors(void)
{
	netcond_dualpi2_profile prof, never;
	netcond_dualpi2 s, zero;
	netcond_rng rng;
	netcond_dualpi2_info info;
	netcond_dualpi2_params p = params(0, 0);

	memset(&never, 0, sizeof never);
	memset(&zero, 0, sizeof zero);
	netcond_rng_seed(&rng, 1);
	CHECK_RC(netcond_dualpi2_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_dualpi2_profile_config(NULL, &p), NETCOND_E_NULL);
	CHECK_RC(netcond_dualpi2_profile_config(&prof, NULL), NETCOND_E_NULL);
	p.target_ns = 0;
	CHECK_RC(netcond_dualpi2_profile_config(&prof, &p), NETCOND_E_DELAY_DUALPI2_ZERO_TARGET);
	p = params(0, 0);
	p.t_update_ns = 0;
	CHECK_RC(netcond_dualpi2_profile_config(&prof, &p), NETCOND_E_DELAY_DUALPI2_ZERO_UPDATE);
	p = params(0, 0);
	p.k16 = 0;
	CHECK_RC(netcond_dualpi2_profile_config(&prof, &p), NETCOND_E_DELAY_DUALPI2_ZERO_COUPLING);
	p = params(0, 0);
	p.min_th_ns = 0;
	p.range_ns = 0;
	CHECK_RC(netcond_dualpi2_profile_config(&prof, &p), NETCOND_E_DELAY_DUALPI2_ZERO_THRESHOLD);
	p = params(0, 0);
	p.limit = 1499;
	CHECK_RC(netcond_dualpi2_profile_config(&prof, &p), NETCOND_E_DELAY_DUALPI2_LIMIT_BELOW_MTU);
	p = params(1, 0);
	p.wrr_l4s = 0;
	CHECK_RC(netcond_dualpi2_profile_config(&prof, &p), NETCOND_E_DELAY_DUALPI2_ZERO_WEIGHT);
	p = params(0, 0);
	p.k16 = 257;
	CHECK_RC(netcond_dualpi2_profile_config(&prof, &p),
		 NETCOND_E_DELAY_DUALPI2_PARAMETER_TOO_LARGE);
	p = params(2, 0);
	CHECK_RC(netcond_dualpi2_profile_config(&prof, &p), NETCOND_E_ENUM);
	p = params(0, 3);
	CHECK_RC(netcond_dualpi2_profile_config(&prof, &p), NETCOND_E_ENUM);
	p = params(0, 0);
	p.tick_hz = 0;
	CHECK_RC(netcond_dualpi2_profile_config(&prof, &p), NETCOND_E_TICK);
	/* The failed configuration left prof unusable. */
	CHECK_RC(netcond_dualpi2_config(&s, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_dualpi2_config(&s, &never, 0), NETCOND_E_NULL);
	p = params(0, 0);
	CHECK_RC(netcond_dualpi2_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_dualpi2_config(NULL, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_dualpi2_config(&s, NULL, 0), NETCOND_E_NULL);
	/* Unstarted: the classifier's answer, deliver, nothing changes. */
	CHECK(netcond_dualpi2_enqueue(&zero, &prof, 1, 1, 100, 1ull << 40) == NETCOND_DUALPI2_L4S);
	CHECK(netcond_dualpi2_enqueue(&zero, &prof, 1, 0, 100, 1ull << 40) ==
	      NETCOND_DUALPI2_CLASSIC);
	CHECK(netcond_dualpi2_schedule(&zero, &prof, 1, 1, 0, 1, 0) == NETCOND_DUALPI2_NONE);
	CHECK(netcond_dualpi2_on_dequeue(&zero, &prof, 1, NETCOND_DUALPI2_L4S, 0, 100, 1, 5, &rng) ==
	      NETCOND_CODEL_DELIVER);
	CHECK_RC(netcond_dualpi2_poll(&zero, &prof, 1ull << 40, 1, 0, 1, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_dualpi2_info_get(&zero, &prof, &info), NETCOND_E_NULL);
	netcond_dualpi2 z2;
	memset(&z2, 0, sizeof z2);
	CHECK(memcmp(&zero, &z2, sizeof z2) == 0);
	CHECK_RC(netcond_dualpi2_config(&s, &prof, 0), NETCOND_OK);
	CHECK(netcond_dualpi2_on_dequeue(&s, &prof, 1, NETCOND_DUALPI2_L4S, 0, 100, 1, 5, NULL) ==
	      NETCOND_CODEL_DELIVER);
	CHECK(netcond_dualpi2_on_dequeue(&s, &prof, 1, NETCOND_DUALPI2_NONE, 0, 100, 1, 5, &rng) ==
	      NETCOND_CODEL_DELIVER);
	CHECK_RC(netcond_dualpi2_poll(NULL, &prof, 1, 0, 0, 0, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_dualpi2_poll(&s, &never, 1, 0, 0, 0, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_dualpi2_info_get(&s, NULL, &info), NETCOND_E_NULL);
	CHECK_RC(netcond_dualpi2_info_get(&s, &prof, NULL), NETCOND_E_NULL);
	CHECK_RC(netcond_dualpi2_info_get(NULL, &prof, &info), NETCOND_E_NULL);
}

static void known_answers(void)
{
	netcond_dualpi2_profile prof;
	netcond_dualpi2 s;
	netcond_dualpi2_info info;
	netcond_dualpi2_params p = params(0, 0);
	const uint64_t base = 1000 * MS;

	CHECK_RC(netcond_dualpi2_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_dualpi2_config(&s, &prof, base), NETCOND_OK);
	/* RFC 9332's classifier: ECT(1) and CE to L4S, Not-ECT and ECT(0) to
	 * Classic; only the low two bits count. */
	CHECK(netcond_dualpi2_enqueue(&s, &prof, base, 0, 1500, 0) == NETCOND_DUALPI2_CLASSIC);
	CHECK(netcond_dualpi2_enqueue(&s, &prof, base, 1, 1500, 0) == NETCOND_DUALPI2_L4S);
	CHECK(netcond_dualpi2_enqueue(&s, &prof, base, 2, 1500, 0) == NETCOND_DUALPI2_CLASSIC);
	CHECK(netcond_dualpi2_enqueue(&s, &prof, base, 3, 1500, 0) == NETCOND_DUALPI2_L4S);
	CHECK(netcond_dualpi2_enqueue(&s, &prof, base, 5, 1500, 0) == NETCOND_DUALPI2_L4S);
	/* The shared buffer: bytes queued + MTU above the limit drops. */
	CHECK(netcond_dualpi2_enqueue(&s, &prof, base, 1, 1500, 3125000 - 1500) ==
	      NETCOND_DUALPI2_L4S);
	CHECK(netcond_dualpi2_enqueue(&s, &prof, base, 1, 1500, 3125000 - 1499) ==
	      NETCOND_DUALPI2_NONE);
	/* No update before Tupdate; the first at 15 ms with a Classic head
	 * 100 ms old. */
	CHECK_RC(netcond_dualpi2_poll(&s, &prof, base + 15 * MS - 1, 0, 0, 1, base - 85 * MS), 0);
	CHECK_RC(netcond_dualpi2_poll(&s, &prof, base + 15 * MS, 0, 0, 1, base - 85 * MS), 1);
	CHECK_RC(netcond_dualpi2_info_get(&s, &prof, &info), NETCOND_OK);
	CHECK(info.p_prime == 1343251021ull);
	CHECK(info.prevq == 100 * MS);
	/* p_CL = k p' with k = 2, p_C = p'^2 in 2^-64. */
	CHECK(info.p_cl == 2 * 1343251021ull);
	CHECK(info.p_c == 1343251021ull * 1343251021ull);
	CHECK(info.next_update == base + 30 * MS);
	/* The time-shifted FIFO: the L4S head unless the Classic head is more
	 * than 40 ms older. */
	uint64_t now = base + 16 * MS;
	CHECK(netcond_dualpi2_schedule(&s, &prof, now, 1, now - MS, 1, now - 41 * MS) ==
	      NETCOND_DUALPI2_L4S);
	CHECK(netcond_dualpi2_schedule(&s, &prof, now, 1, now - MS, 1, now - 42 * MS) ==
	      NETCOND_DUALPI2_CLASSIC);
	CHECK(netcond_dualpi2_schedule(&s, &prof, now, 0, 0, 1, now) == NETCOND_DUALPI2_CLASSIC);
	CHECK(netcond_dualpi2_schedule(&s, &prof, now, 0, 0, 0, 0) == NETCOND_DUALPI2_NONE);
	/* The L4S ramp from 800 us to 1200 us: above it the likelihood is one,
	 * and recur() signals when its count passes one (strictly): the first
	 * such packet only fills the count, every later one is marked. */
	CHECK(netcond_dualpi2_on_dequeue_draw(&s, &prof, now, NETCOND_DUALPI2_L4S, now - 1300 * US, 1500,
					   1, 5, UINT64_MAX) == NETCOND_CODEL_DELIVER);
	for (int k = 0; k < 3; k++)
		CHECK(netcond_dualpi2_on_dequeue_draw(&s, &prof, now, NETCOND_DUALPI2_L4S,
						   now - 1300 * US, 1500, 1, 5,
						   UINT64_MAX) == NETCOND_CODEL_MARK);
	/* With Th_len packets or fewer behind it, only the coupled p_CL = 2 p'
	 * = 0.6255 counts: from a count of 1, 1.6255 and 1.251 pass one (marks),
	 * 0.8765 does not. */
	for (int k = 0; k < 3; k++)
		CHECK(netcond_dualpi2_on_dequeue_draw(&s, &prof, now, NETCOND_DUALPI2_L4S,
						   now - 1300 * US, 1500, 1, 1, UINT64_MAX) ==
		      (k < 2 ? NETCOND_CODEL_MARK : NETCOND_CODEL_DELIVER));

	/* The round robin, 3 L4S then 1 Classic, both backlogged, p' = 0. */
	p = params(1, 1);
	CHECK_RC(netcond_dualpi2_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_dualpi2_config(&s, &prof, 0), NETCOND_OK);
	int order[8];
	for (int k = 0; k < 8; k++) {
		netcond_dualpi2_queue q = netcond_dualpi2_schedule(&s, &prof, 10 + k, 1, 9, 1, 8);
		order[k] = (int)q;
		CHECK(netcond_dualpi2_on_dequeue_draw(&s, &prof, 10 + k, q, 9, 100, q == 0 ? 1 : 0, 5,
						   UINT64_MAX) == NETCOND_CODEL_DELIVER);
	}
	const int want[8] = {0, 0, 0, 1, 0, 0, 0, 1};
	CHECK(memcmp(order, want, sizeof want) == 0);
}

/* The stream: an L4S and a Classic sender, phases of 1.5, 1 and 0.5 times
 * the link; one line per profile. */
static void streams(uint64_t seed)
{
	netcond_dualpi2_params ps[2] = {params(0, 0), params(1, 1)};
	for (int k = 0; k < 2; k++) {
		netcond_dualpi2_profile prof;
		netcond_dualpi2 s;
		netcond_dualpi2_info info;
		uint64_t counts[4] = {0, 0, 0, 0}, hash = 0xcbf29ce484222325ull;
		/* Two FIFOs: enqueue instants, lengths, ECN fields. */
		static uint64_t at[2][4096];
		static uint32_t len[2][4096], ecnf[2][4096];
		size_t head[2] = {0, 0}, n[2] = {0, 0};
		uint64_t bytes = 0, now = 0;
		CHECK_RC(netcond_dualpi2_profile_config(&prof, &ps[k]), NETCOND_OK);
		CHECK_RC(netcond_dualpi2_config(&s, &prof, 0), NETCOND_OK);
		rng_state = seed ^ (uint64_t)k;
		for (uint32_t i = 0; i < PACKETS; i++) {
			uint64_t r = next_u64();
			uint64_t phase = (i / 10000) % 3;
			now += (r % 100 + 1) * 1000;
			netcond_dualpi2_poll(&s, &prof, now, n[0] > 0, n[0] ? at[0][head[0]] : 0,
					     n[1] > 0, n[1] ? at[1][head[1]] : 0);
			int arrive = phase == 0 ? (r >> 20) % 4 < 3 : phase == 1 ? (r >> 20) % 2 == 0
										 : (r >> 20) % 4 == 0;
			if (arrive) {
				uint32_t l = 64 + (uint32_t)((r >> 24) % 1437);
				uint32_t e = (uint32_t)((r >> 40) % 4);
				netcond_dualpi2_queue q =
					netcond_dualpi2_enqueue(&s, &prof, now, e, l, bytes);
				hash = (hash ^ (uint64_t)q) * 0x100000001b3ull;
				if (q == NETCOND_DUALPI2_NONE || n[q] == 4096) {
					counts[3]++;
				} else {
					size_t t = (head[q] + n[q]) % 4096;
					at[q][t] = now;
					len[q][t] = l;
					ecnf[q][t] = e;
					n[q]++;
					bytes += l;
				}
			}
			if ((r >> 50) % 2 == 0) {
				for (;;) {
					netcond_dualpi2_queue q = netcond_dualpi2_schedule(
						&s, &prof, now, n[0] > 0, n[0] ? at[0][head[0]] : 0,
						n[1] > 0, n[1] ? at[1][head[1]] : 0);
					if (q == NETCOND_DUALPI2_NONE)
						break;
					size_t h = head[q];
					head[q] = (h + 1) % 4096;
					n[q]--;
					bytes -= len[q][h];
					uint64_t draw = next_u64();
					netcond_codel_verdict v = netcond_dualpi2_on_dequeue_draw(
						&s, &prof, now, q, at[q][h], len[q][h], ecnf[q][h],
						(uint32_t)n[q], draw);
					counts[v]++;
					hash = (hash ^ (uint64_t)(4 + v + 3 * q)) * 0x100000001b3ull;
					if (v != NETCOND_CODEL_DROP)
						break;
				}
			}
		}
		netcond_dualpi2_info_get(&s, &prof, &info);
		printf("dualpi2_%d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %016" PRIx64
		       " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		       k, counts[0], counts[1], counts[2], counts[3], hash, info.p_prime, info.prevq,
		       info.l_count, info.c_count);
	}
}

static void (*const all_cases[])(void) = {errors, known_answers, NULL};

int main(int argc, char **argv)
{
	return test_main(argc, argv, "DualPI2", all_cases, streams);
}
