/*
 * pie_compare: the same queue-delay sequence into DPDK's rte_pie (DPDK
 * 22.11, lib/sched: rte_pie_rt_data_init, a config as rte_pie_config_init
 * computes it, rte_pie_enqueue, which updates the drop probability in
 * double every dp_update_interval) and into netcond's PIE (netcond_pie_*,
 * Linux sch_pie's integers), and the two drop-probability traces compared.
 *
 * rte_pie takes its time in TSC cycles and estimates the queue delay as
 * qlen x (avg_dq_time >> 14); the program sets those two fields before each
 * update so that the estimate is the trace's delay, in cycles of a nominal
 * 2 GHz TSC (no EAL is needed: the config holds what rte_pie_config_init
 * writes for that rate). netcond gets the same delay as the sojourn time of
 * a departing packet 64 ns before each update (max_burst 0, probability
 * bounded to one, as RFC 8033 and rte_pie bound it).
 *
 * The two cannot agree within any tolerance, for three reasons in rte_pie
 * 22.11's _calc_drop_probability, which this program checks rather than
 * papers over:
 *   1. alpha (0.125) and beta (1.25) multiply delays in TSC cycles, not
 *      seconds, so every step is tsc_hz times RFC 8033's: one update at a
 *      delay above QDELAY_REF takes the probability to one;
 *   2. the differences current - qdelay_ref and current - qdelay_old are
 *      uint64_t, so a delay below the reference (or below the previous
 *      delay) wraps to about 1.8e19: instead of falling, the probability
 *      is raised by the 2 % cap and then decayed by 2 %, and converges to
 *      0.98 while the queue stays short;
 *   3. burst_allowance - dp_update_interval is uint64_t too and wraps, so
 *      the burst allowance never reaches zero and rte_pie_enqueue never
 *      drops early (it returns 2 never, only 1 at the tail limit).
 * What is compared within a tolerance is netcond against RFC 8033's update
 * evaluated in double with signed differences in seconds (rte_pie's own
 * formula, scaling table and cap with those two errors corrected), on the
 * same trace: |difference| <= 4e-6 x (sum of the reference's |changes|) +
 * 1e-12, the bound of integrations/ns3/tests/netcond-pie-crosscheck.cc (the
 * largest truncation in netcond's scaled gains is alpha / 2048, 3.5e-6
 * relative; every delay is a multiple of 64 ns, so netcond measures it
 * exactly).
 *
 * Exit status: 0 when netcond is within the tolerance of the corrected
 * formula and rte_pie shows the three behaviours above (so a DPDK release
 * that changes rte_pie fails this program and calls for a new look); 1
 * otherwise. Prints one line per phase and a summary.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <rte_pie.h>

#include "netcond.h"

#define MS 1000000ull              /* ns */
#define TSC_HZ 2000000000ull       /* the nominal TSC rate */
#define CYC_PER_NS (TSC_HZ / 1000000000ull)
#define UPDATE_MS 15ull
#define REF_MS 15ull
#define BASE (1000 * MS)           /* both clocks start 1 s in */

/* The reference: RFC 8033 section 4.2's update in double, as rte_pie writes
 * it, with signed differences in seconds. */
struct ref {
	double p, old;
};

static void ref_update(struct ref *r, double qdelay)
{
	const double refs = REF_MS / 1e3;
	double p = 0.125 * (qdelay - refs) + 1.25 * (qdelay - r->old);
	if (r->p < 0.000001)
		p /= 2048;
	else if (r->p < 0.00001)
		p /= 512;
	else if (r->p < 0.0001)
		p /= 128;
	else if (r->p < 0.001)
		p /= 32;
	else if (r->p < 0.01)
		p /= 8;
	else if (r->p < 0.1)
		p /= 2;
	if (r->p >= 0.1 && p > 0.02)
		p = 0.02;
	p += r->p;
	/* Linux and RFC 8033 decay only when the delay stays zero; the trace
	 * has no zero delays, so neither decay applies. */
	r->p = p < 0 ? 0 : p > 1 ? 1 : p;
	r->old = qdelay;
}

/* The trace: delays in ns, multiples of 64 ns, 0.2 to 240 ms, never zero. */
static uint64_t delay_ns(uint64_t k)
{
	uint64_t phase = (k / 400) % 5;
	double ms;
	switch (phase) {
	case 0: ms = 15.5 + (double)(k % 7) * 0.1; break;    /* just above the reference */
	case 1: ms = 120 + (double)(k % 13) * 9; break;      /* high */
	case 2: ms = 1 + (double)(k % 5) * 0.5; break;       /* low */
	case 3: ms = (double)(k % 400) * 0.6; break;         /* a ramp */
	default: ms = 14 + (double)(k % 11) * 0.2; break;    /* around the reference */
	}
	uint64_t ns = (uint64_t)(ms * 1e6) / 64 * 64;
	return ns < 64 ? 64 : ns;
}

int main(void)
{
	const uint64_t updates = 4000;
	int ok = 1;

	/* rte_pie: what rte_pie_config_init(cfg, 15, 15, 150, 1000) writes for
	 * a TSC of TSC_HZ. */
	struct rte_pie_config cfg;
	struct rte_pie pie;
	memset(&cfg, 0, sizeof cfg);
	cfg.qdelay_ref = TSC_HZ * REF_MS / 1000;
	cfg.dp_update_interval = TSC_HZ * UPDATE_MS / 1000;
	cfg.max_burst = TSC_HZ * 150 / 1000;
	cfg.tailq_th = 1000;
	if (rte_pie_rt_data_init(&pie) != 0) {
		fprintf(stderr, "rte_pie_rt_data_init failed\n");
		return 1;
	}

	netcond_pie_params p;
	memset(&p, 0, sizeof p);
	p.target_ns = REF_MS * MS;
	p.t_update_ns = UPDATE_MS * MS;
	p.max_burst_ns = 0;
	p.tick_hz = 1000000000u;
	p.alpha = 2;
	p.beta = 20;
	p.limit = 1000;
	p.mtu = 1000;
	p.bound_prob = 1;
	netcond_pie_profile prof;
	netcond_pie st;
	if (netcond_pie_profile_config(&prof, &p) != NETCOND_OK ||
	    netcond_pie_config(&st, &prof, BASE) != NETCOND_OK) {
		fprintf(stderr, "netcond refused the configuration\n");
		return 1;
	}

	/* Activate rte_pie at BASE: an arrival to a queue of tailq_th / 10 (it
	 * stays active while the queue holds that many; the tail limit,
	 * tailq_th, is never reached). */
	pie.qlen = 100;
	if (rte_pie_enqueue(&cfg, &pie, 100, 1000, BASE * CYC_PER_NS) != 0) {
		fprintf(stderr, "rte_pie refused the activating packet\n");
		return 1;
	}
	struct ref ref = {0, 0};
	double variation = 0, worst = 0, worst_ratio = 0;
	uint64_t outside = 0, rte_early = 0;
	double rte_first = -1, nc_first = -1, rte_low_min = 2, nc_low_max = 0;
	double phase_diff = 0, phase_rte = 0;
	for (uint64_t k = 1; k <= updates; k++) {
		const uint64_t d = delay_ns(k);
		const uint64_t t = BASE + k * UPDATE_MS * MS; /* ns */
		/* netcond: a packet that waited d leaves 64 ns before the update,
		 * one stays behind it. */
		netcond_pie_on_dequeue(&st, &prof, t - 64, t - 64 - d, 1000, 1000);
		netcond_pie_poll(&st, &prof, t, 1000);
		const double nc = (double)netcond_pie_prob(&st) / (double)NETCOND_PIE_MAX_PROB;
		/* rte_pie: its delay estimate qlen x (avg_dq_time >> 14) set to d
		 * in cycles; the arrival at t runs the update. */
		pie.qlen = 100;
		pie.avg_dq_time = (d * CYC_PER_NS / 100) << 14;
		int v = rte_pie_enqueue(&cfg, &pie, 100, 1000, t * CYC_PER_NS);
		if (v == 2)
			rte_early++;
		const double rp = pie.drop_prob;
		/* The reference. */
		const double before = ref.p;
		ref_update(&ref, (double)d / 1e9);
		variation += fabs(ref.p - before);
		const double diff = fabs(ref.p - nc);
		const double bound = 4e-6 * variation + 1e-12;
		if (diff > worst)
			worst = diff;
		if (diff / bound > worst_ratio)
			worst_ratio = diff / bound;
		if (diff > bound) {
			if (outside++ < 5)
				printf("update %" PRIu64 " (delay %.6f ms): RFC 8033 in double %.12g, "
				       "netcond %.12g, difference %.3g > %.3g\n",
				       k, (double)d / 1e6, ref.p, nc, diff, bound);
		}
		if (k == 1) {
			rte_first = rp;
			nc_first = nc;
		}
		if ((k / 400) % 5 == 2 && k % 400 > 300) {
			/* The end of a low phase (delays of 1 to 3 ms). */
			if (rp < rte_low_min)
				rte_low_min = rp;
			if (nc > nc_low_max)
				nc_low_max = nc;
		}
		if (fabs(rp - nc) > phase_diff)
			phase_diff = fabs(rp - nc);
		phase_rte = rp;
		if (k % 400 == 0) {
			printf("updates %4" PRIu64 "-%4" PRIu64 " (%s): netcond %.6g, rte_pie %.6g, "
			       "RFC 8033 in double %.6g; largest |rte_pie - netcond| %.3g\n",
			       k - 399, k,
			       (const char *[]){"just above the reference", "high", "low", "a ramp",
						"around the reference"}[(k / 400 - 1) % 5],
			       nc, phase_rte, ref.p, phase_diff);
			phase_diff = 0;
		}
	}
	printf("netcond against RFC 8033's update in double: %" PRIu64 " updates, %" PRIu64
	       " outside the bound; largest difference %.3g, largest difference / bound %.3g\n",
	       updates, outside, worst, worst_ratio);
	if (outside != 0)
		ok = 0;
	/* rte_pie's three behaviours. */
	const int gain = rte_first == 1.0 && nc_first > 0 && nc_first < 1e-4;
	const int wrap = rte_low_min > 0.97 && rte_low_min < 0.99 && nc_low_max < 0.5;
	const int burst = rte_early == 0 && pie.burst_allowance != 0;
	printf("rte_pie: first update at %.3f ms of delay: rte_pie %.6g, netcond %.6g (per-cycle "
	       "gains: %s)\n",
	       (double)delay_ns(1) / 1e6, rte_first, nc_first, gain ? "as documented" : "CHANGED");
	printf("rte_pie: at the end of the low phases (1 to 3 ms): rte_pie at least %.6g, netcond "
	       "at most %.6g (unsigned differences: %s)\n",
	       rte_low_min, nc_low_max, wrap ? "as documented" : "CHANGED");
	printf("rte_pie: early drops %" PRIu64 ", burst allowance left %u cycles (unsigned "
	       "burst allowance: %s)\n",
	       rte_early, pie.burst_allowance, burst ? "as documented" : "CHANGED");
	if (!gain || !wrap || !burst) {
		printf("rte_pie no longer behaves as integrations/dpdk/README.md says: look again\n");
		ok = 0;
	}
	printf("pie_compare: %s\n", ok ? "ok" : "FAILED");
	return ok ? 0 : 1;
}
