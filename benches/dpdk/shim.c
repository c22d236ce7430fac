/*
 * The DPDK side of the side-by-side benches (benches/benches/dpdk.rs, the
 * instruction counts of benches/benches/instructions.rs and the contention
 * example, with the `dpdk` feature): per-burst loops that run the
 * bench streams through DPDK's own rte_meter, rte_red and rte_pie functions,
 * shaped like the Rust loops in benches/src/meter_stream.rs,
 * benches/src/red_stream.rs and benches/benches/instructions.rs (PIE). Only
 * DPDK's public headers and API are used (rte_pie's is experimental in 22.11:
 * built with ALLOW_EXPERIMENTAL_API).
 *
 * Built by benches/build.rs with -O3 and -march=x86-64 (the Rust side's
 * default target CPU), not with the -march=corei7 of `pkg-config --cflags`.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_meter.h>
#include <rte_pie.h>
#include <rte_prefetch.h>
#include <rte_random.h>
#include <rte_red.h>

/* The stream constants, as in benches/src (checked from Rust by a test). */
#define TICKS_PER_PACKET 12563u /* BENCH_TICKS_PER_PACKET */
#define METER_AHEAD 8u          /* burst_many's prefetch distance */
#define RED_STEP 1024u          /* red_stream::STEP */
#define RED_TICKS 100u          /* red_stream::TICKS */
#define RED_IDLE_TX_TICKS 1200u /* red_profile's idle_tx_ticks */

/* The Rust side mirrors these structs with #[repr(C)]. */
_Static_assert(sizeof(struct rte_meter_trtcm_profile) == 48, "trTCM profile");
_Static_assert(sizeof(struct rte_meter_srtcm_profile) == 32, "srTCM profile");
_Static_assert(sizeof(struct rte_meter_trtcm) == 32, "trTCM state");
_Static_assert(sizeof(struct rte_meter_srtcm) == 24, "srTCM state");
_Static_assert(sizeof(struct rte_meter_trtcm_rfc4115_profile) == 48,
	       "RFC 4115 profile");
_Static_assert(sizeof(struct rte_meter_trtcm_rfc4115) == 32, "RFC 4115 state");
_Static_assert(sizeof(struct rte_red_config) == 16, "RED config");
_Static_assert(sizeof(struct rte_red) == 16, "RED state");
_Static_assert(sizeof(struct rte_pie_config) == 32, "PIE config");
_Static_assert(sizeof(struct rte_pie) == 80, "PIE state");

uint64_t netcond_dpdk_ticks_per_packet(void) { return TICKS_PER_PACKET; }
uint32_t netcond_dpdk_meter_ahead(void) { return METER_AHEAD; }
uint32_t netcond_dpdk_red_step(void) { return RED_STEP; }
uint32_t netcond_dpdk_red_ticks(void) { return RED_TICKS; }

/*
 * Profiles for a clock of `hz` without the EAL. rte_meter's profile
 * functions read the TSC frequency from rte_get_tsc_hz(), which is the
 * machine's (and 0 before rte_eal_init), while the bench clock is 2.3 GHz
 * ticks. So the public profile fields are filled here with the rule the DPDK
 * 22.11 library applies (a test compares this with rte_meter's own
 * *_profile_config at the machine's TSC frequency after rte_eal_init):
 *
 *   period = hz / rate (as a double)
 *   period >= 100: 1 byte per floor(period) cycles
 *   otherwise:     b = ceil(100 / period) bytes per floor(hz * b / rate) cycles
 *
 * Rate 0 gives 0 bytes per 100 cycles.
 */
static void tb_params(uint64_t hz, uint64_t rate, uint64_t *period,
                      uint64_t *bytes_per_period)
{
	const double min_period = 100.0;
	double p;

	if (rate == 0) {
		*bytes_per_period = 0;
		*period = (uint64_t)min_period;
		return;
	}
	p = (double)hz / (double)rate;
	if (p >= min_period) {
		*bytes_per_period = 1;
		*period = (uint64_t)p;
	} else {
		*bytes_per_period = (uint64_t)ceil(min_period / p);
		*period = (hz * *bytes_per_period) / rate;
	}
}

void netcond_dpdk_tb_params(uint64_t hz, uint64_t rate, uint64_t *period,
                            uint64_t *bytes_per_period)
{
	tb_params(hz, rate, period, bytes_per_period);
}

/* As rte_meter_trtcm_profile_config's checks: -1 when refused. */
int netcond_dpdk_trtcm_profile(struct rte_meter_trtcm_profile *p, uint64_t hz,
                               uint64_t cir, uint64_t pir, uint64_t cbs,
                               uint64_t pbs)
{
	if (p == NULL || hz == 0 || cir == 0 || pir == 0 || cbs == 0 ||
	    pbs == 0 || pir < cir)
		return -1;
	p->cbs = cbs;
	p->pbs = pbs;
	tb_params(hz, cir, &p->cir_period, &p->cir_bytes_per_period);
	tb_params(hz, pir, &p->pir_period, &p->pir_bytes_per_period);
	return 0;
}

/* As rte_meter_srtcm_profile_config's checks: -1 when refused. */
int netcond_dpdk_srtcm_profile(struct rte_meter_srtcm_profile *p, uint64_t hz,
                               uint64_t cir, uint64_t cbs, uint64_t ebs)
{
	if (p == NULL || hz == 0 || cir == 0 || (cbs == 0 && ebs == 0))
		return -1;
	p->cbs = cbs;
	p->ebs = ebs;
	tb_params(hz, cir, &p->cir_period, &p->cir_bytes_per_period);
	return 0;
}

/*
 * As rte_meter_trtcm_rfc4115_profile_config's checks: -1 when refused (a
 * rate without its burst). A rate of 0 is allowed: that bucket never fills.
 */
int netcond_dpdk_rfc4115_profile(struct rte_meter_trtcm_rfc4115_profile *p,
                                 uint64_t hz, uint64_t cir, uint64_t eir,
                                 uint64_t cbs, uint64_t ebs)
{
	if (p == NULL || hz == 0 || (cir != 0 && cbs == 0) ||
	    (eir != 0 && ebs == 0))
		return -1;
	p->cbs = cbs;
	p->ebs = ebs;
	tb_params(hz, cir, &p->cir_period, &p->cir_bytes_per_period);
	tb_params(hz, eir, &p->eir_period, &p->eir_bytes_per_period);
	return 0;
}

/*
 * Per-flow state through DPDK's own rte_meter_*_config (full buckets), with
 * the timestamps then set to `now`: the library stamps them with the TSC,
 * the stream starts its own clock at 0, as the Rust markers' start(.., 0).
 */
int netcond_dpdk_trtcm_start(struct rte_meter_trtcm *m,
                             const struct rte_meter_trtcm_profile *p, uint64_t now)
{
	/* The library only reads the profile. */
	int r = rte_meter_trtcm_config(m, (struct rte_meter_trtcm_profile *)p);
	m->time_tc = now;
	m->time_tp = now;
	return r;
}

int netcond_dpdk_srtcm_start(struct rte_meter_srtcm *m,
                             const struct rte_meter_srtcm_profile *p, uint64_t now)
{
	/* The library only reads the profile. */
	int r = rte_meter_srtcm_config(m, (struct rte_meter_srtcm_profile *)p);
	m->time = now;
	return r;
}

int netcond_dpdk_rfc4115_start(struct rte_meter_trtcm_rfc4115 *m,
                               const struct rte_meter_trtcm_rfc4115_profile *p,
                               uint64_t now)
{
	/* The library only reads the profile. */
	int r = rte_meter_trtcm_rfc4115_config(
		m, (struct rte_meter_trtcm_rfc4115_profile *)p);
	m->time_tc = now;
	m->time_te = now;
	return r;
}

/* One packet through each marker (for the tests' single-packet facts). */
uint32_t netcond_dpdk_trtcm_check(struct rte_meter_trtcm *m,
                                  const struct rte_meter_trtcm_profile *p,
                                  uint64_t now, uint32_t len)
{
	struct rte_meter_trtcm_profile pp = *p;

	return (uint32_t)rte_meter_trtcm_color_blind_check(m, &pp, now, len);
}

uint32_t netcond_dpdk_srtcm_check(struct rte_meter_srtcm *m,
                                  const struct rte_meter_srtcm_profile *p,
                                  uint64_t now, uint32_t len)
{
	struct rte_meter_srtcm_profile pp = *p;

	return (uint32_t)rte_meter_srtcm_color_blind_check(m, &pp, now, len);
}

uint32_t netcond_dpdk_rfc4115_check(struct rte_meter_trtcm_rfc4115 *m,
                                    const struct rte_meter_trtcm_rfc4115_profile *p,
                                    uint64_t now, uint32_t len)
{
	struct rte_meter_trtcm_rfc4115_profile pp = *p;

	return (uint32_t)rte_meter_trtcm_rfc4115_color_blind_check(m, &pp, now,
								   len);
}

/* The color-aware checks, `color` the pre-color (green 0, yellow 1, red 2). */
uint32_t netcond_dpdk_trtcm_check_aware(struct rte_meter_trtcm *m,
                                        const struct rte_meter_trtcm_profile *p,
                                        uint64_t now, uint32_t len,
                                        uint32_t color)
{
	struct rte_meter_trtcm_profile pp = *p;

	return (uint32_t)rte_meter_trtcm_color_aware_check(
		m, &pp, now, len, (enum rte_color)color);
}

uint32_t netcond_dpdk_srtcm_check_aware(struct rte_meter_srtcm *m,
                                        const struct rte_meter_srtcm_profile *p,
                                        uint64_t now, uint32_t len,
                                        uint32_t color)
{
	struct rte_meter_srtcm_profile pp = *p;

	return (uint32_t)rte_meter_srtcm_color_aware_check(
		m, &pp, now, len, (enum rte_color)color);
}

uint32_t netcond_dpdk_rfc4115_check_aware(
	struct rte_meter_trtcm_rfc4115 *m,
	const struct rte_meter_trtcm_rfc4115_profile *p, uint64_t now,
	uint32_t len, uint32_t color)
{
	struct rte_meter_trtcm_rfc4115_profile pp = *p;

	return (uint32_t)rte_meter_trtcm_rfc4115_color_aware_check(
		m, &pp, now, len, (enum rte_color)color);
}

/*
 * DPDK's per-packet calls behind a C function of their own, as a C program
 * that meters through its own function calls them: the profile pointer is
 * passed through (no copy). Called through a function pointer from the same
 * driver loop as netcond's exported functions (benches/src/c_call.rs), for
 * the instruction counts' dpdk_c_call_* rows.
 */
uint32_t netcond_dpdk_trtcm_call(struct rte_meter_trtcm *m,
                                 const struct rte_meter_trtcm_profile *p,
                                 uint64_t now, uint32_t len)
{
	return (uint32_t)rte_meter_trtcm_color_blind_check(
		m, (struct rte_meter_trtcm_profile *)p, now, len);
}

uint32_t netcond_dpdk_srtcm_call(struct rte_meter_srtcm *m,
                                 const struct rte_meter_srtcm_profile *p,
                                 uint64_t now, uint32_t len)
{
	return (uint32_t)rte_meter_srtcm_color_blind_check(
		m, (struct rte_meter_srtcm_profile *)p, now, len);
}

/*
 * In every burst below, the profile is copied into a local first: the Rust
 * loops take it as a `&` that no store can alias, so they may keep its fields
 * in registers; the copy gives the C compiler the same freedom (otherwise it
 * reloads them after each store to a flow's state or each opaque()).
 *
 * METER_BURSTS(x, profile, state, blind, aware) writes the loops of one
 * rte_meter marker once, with `aware` and `prefetch` as parameters that are
 * constants after inlining (so each exported function holds one of the four
 * loops and no test of them), and the exported functions around them:
 *
 * netcond_dpdk_<x>_burst_one[_aware]: one flow, state and clock in locals
 * for the burst, the clock advanced TICKS_PER_PACKET before each packet;
 * returns the sum of the colors (green 0, yellow 1, red 2, as Color::index on
 * the Rust side). The _aware form passes colors[i] (the packet's pre-color,
 * the same values: netcond's Color is a u8 of them) to the color-aware check.
 *
 * netcond_dpdk_<x>_burst_many[_aware][_prefetched]: each packet updates the
 * flow its index names; the _prefetched form first prefetches the state of
 * the flow METER_AHEAD packets later. The caller guarantees every index < the
 * number of states.
 */
#define METER_BURSTS(x, PROFILE, STATE, BLIND, AWARE)                          \
	static inline __attribute__((always_inline)) enum rte_color x##_one_check( \
		struct STATE *m, struct PROFILE *p, uint64_t t, uint32_t len,    \
		const uint8_t *colors, size_t i, int aware)                      \
	{                                                                        \
		if (aware)                                                       \
			return AWARE(m, p, t, len, (enum rte_color)colors[i]);   \
		return BLIND(m, p, t, len);                                      \
	}                                                                        \
                                                                                 \
	static inline __attribute__((always_inline)) uint64_t x##_one(           \
		const struct PROFILE *p, const uint32_t *lens,                   \
		const uint8_t *colors, size_t n, struct STATE *m, uint64_t *t,   \
		int aware)                                                       \
	{                                                                        \
		struct PROFILE pp = *p;                                          \
		struct STATE mm = *m;                                            \
		uint64_t tt = *t, acc = 0;                                       \
                                                                                 \
		for (size_t i = 0; i < n; i++) {                                 \
			tt += TICKS_PER_PACKET;                                  \
			acc += (uint64_t)x##_one_check(&mm, &pp, tt, lens[i],    \
						       colors, i, aware);        \
		}                                                                \
		*m = mm;                                                         \
		*t = tt;                                                         \
		return acc;                                                      \
	}                                                                        \
                                                                                 \
	static inline __attribute__((always_inline)) uint64_t x##_many(          \
		const struct PROFILE *p, const uint32_t *lens,                   \
		const uint8_t *colors, const uint32_t *flows, size_t n,          \
		struct STATE *states, uint64_t *t, int aware, int prefetch)      \
	{                                                                        \
		struct PROFILE pp = *p;                                          \
		uint64_t tt = *t, acc = 0;                                       \
                                                                                 \
		for (size_t i = 0; i < n; i++) {                                 \
			if (prefetch && i + METER_AHEAD < n)                     \
				rte_prefetch0(&states[flows[i + METER_AHEAD]]);  \
			tt += TICKS_PER_PACKET;                                  \
			acc += (uint64_t)x##_one_check(&states[flows[i]], &pp,   \
						       tt, lens[i], colors, i,   \
						       aware);                   \
		}                                                                \
		*t = tt;                                                         \
		return acc;                                                      \
	}                                                                        \
                                                                                 \
	uint64_t netcond_dpdk_##x##_burst_one(const struct PROFILE *p,           \
					      const uint32_t *lens, size_t n,    \
					      struct STATE *m, uint64_t *t)      \
	{                                                                        \
		return x##_one(p, lens, NULL, n, m, t, 0);                       \
	}                                                                        \
                                                                                 \
	uint64_t netcond_dpdk_##x##_burst_one_aware(                             \
		const struct PROFILE *p, const uint32_t *lens,                   \
		const uint8_t *colors, size_t n, struct STATE *m, uint64_t *t)   \
	{                                                                        \
		return x##_one(p, lens, colors, n, m, t, 1);                     \
	}                                                                        \
                                                                                 \
	uint64_t netcond_dpdk_##x##_burst_many(                                  \
		const struct PROFILE *p, const uint32_t *lens,                   \
		const uint32_t *flows, size_t n, struct STATE *states,           \
		uint64_t *t)                                                     \
	{                                                                        \
		return x##_many(p, lens, NULL, flows, n, states, t, 0, 0);       \
	}                                                                        \
                                                                                 \
	uint64_t netcond_dpdk_##x##_burst_many_prefetched(                       \
		const struct PROFILE *p, const uint32_t *lens,                   \
		const uint32_t *flows, size_t n, struct STATE *states,           \
		uint64_t *t)                                                     \
	{                                                                        \
		return x##_many(p, lens, NULL, flows, n, states, t, 0, 1);       \
	}                                                                        \
                                                                                 \
	uint64_t netcond_dpdk_##x##_burst_many_aware(                            \
		const struct PROFILE *p, const uint32_t *lens,                   \
		const uint8_t *colors, const uint32_t *flows, size_t n,          \
		struct STATE *states, uint64_t *t)                               \
	{                                                                        \
		return x##_many(p, lens, colors, flows, n, states, t, 1, 0);     \
	}                                                                        \
                                                                                 \
	uint64_t netcond_dpdk_##x##_burst_many_aware_prefetched(                 \
		const struct PROFILE *p, const uint32_t *lens,                   \
		const uint8_t *colors, const uint32_t *flows, size_t n,          \
		struct STATE *states, uint64_t *t)                               \
	{                                                                        \
		return x##_many(p, lens, colors, flows, n, states, t, 1, 1);     \
	}

METER_BURSTS(trtcm, rte_meter_trtcm_profile, rte_meter_trtcm,
	     rte_meter_trtcm_color_blind_check,
	     rte_meter_trtcm_color_aware_check)
METER_BURSTS(srtcm, rte_meter_srtcm_profile, rte_meter_srtcm,
	     rte_meter_srtcm_color_blind_check,
	     rte_meter_srtcm_color_aware_check)
METER_BURSTS(rfc4115, rte_meter_trtcm_rfc4115_profile, rte_meter_trtcm_rfc4115,
	     rte_meter_trtcm_rfc4115_color_blind_check,
	     rte_meter_trtcm_rfc4115_color_aware_check)

/* RED: DPDK's own configuration and run-time data functions. */
int netcond_dpdk_red_config(struct rte_red_config *c, uint16_t wq_log2,
                            uint16_t min_th, uint16_t max_th,
                            uint16_t maxp_inv)
{
	return rte_red_config_init(c, wq_log2, min_th, max_th, maxp_inv);
}

int netcond_dpdk_red_start(struct rte_red *r) { return rte_red_rt_data_init(r); }

/* rte_red's generator state (two globals in librte_sched), for the tests. */
void netcond_dpdk_red_seed(uint32_t seed)
{
	rte_red_rand_seed = seed;
	rte_red_rand_val = 0;
}

/*
 * As std::hint::black_box on the Rust side: the value goes through memory
 * the compiler must assume is read and written.
 */
static inline unsigned opaque(unsigned x)
{
	__asm__ volatile("" : : "r"(&x) : "memory");
	return x;
}

/*
 * rte_red's `time` is read only when the queue is empty, and is then in
 * units of 1/RTE_RED_S of a packet transmission time: (time - q_time) /
 * RTE_RED_S packets could have been sent while the queue was empty. The
 * Rust profile says a packet takes RED_IDLE_TX_TICKS ticks to send, so tick
 * t is t * RTE_RED_S / RED_IDLE_TX_TICKS in DPDK's units.
 */
static inline uint64_t red_time(uint64_t t)
{
	return (t / RED_IDLE_TX_TICKS) * (uint64_t)RTE_RED_S +
	       ((t % RED_IDLE_TX_TICKS) * (uint64_t)RTE_RED_S) / RED_IDLE_TX_TICKS;
}

/*
 * red_burst: RED_STEP arrivals at queue length q (opaque per packet), the
 * clock RED_TICKS further before each; returns the drops (rte_red_enqueue
 * non-zero: 1 above max_th, 2 a random drop).
 */
uint32_t netcond_dpdk_red_burst(const struct rte_red_config *c,
                                struct rte_red *r, uint64_t *now, uint32_t q)
{
	struct rte_red_config cc = *c;
	struct rte_red rr = *r;
	uint64_t t = *now;
	uint32_t drops = 0;

	for (uint32_t i = 0; i < RED_STEP; i++) {
		t += RED_TICKS;
		drops += rte_red_enqueue(&cc, &rr, opaque(q), red_time(t)) != 0;
	}
	*r = rr;
	*now = t;
	return drops;
}

/*
 * PIE. rte_pie_config_init converts milliseconds to cycles of
 * rte_get_tsc_hz(), which is 0 before rte_eal_init; the fields are filled
 * here with its rule, (hz * ms) / 1000, at the bench clock's `hz`.
 */
void netcond_dpdk_pie_config(struct rte_pie_config *c, uint64_t hz,
                             uint16_t qdelay_ref, uint16_t dp_update_interval,
                             uint16_t max_burst, uint16_t tailq_th)
{
	c->qdelay_ref = (hz * qdelay_ref) / 1000;
	c->dp_update_interval = (hz * dp_update_interval) / 1000;
	c->max_burst = (hz * max_burst) / 1000;
	c->tailq_th = tailq_th;
}

/*
 * rte_pie_rt_data_init, then the operating point of the bench: PIE active,
 * drop probability `drop_prob`, the burst allowance spent, the last queue
 * delay at qdelay_ref (congested) and the last measurement at `now` (so that
 * no update of the probability falls in a burst at `now`). rte_drand's
 * generator (rte_rand's state for threads outside the EAL) is seeded with
 * `seed`.
 */
int netcond_dpdk_pie_start(struct rte_pie *s, const struct rte_pie_config *c,
                           double drop_prob, uint64_t now, uint64_t seed)
{
	int e = rte_pie_rt_data_init(s);

	if (e != 0)
		return e;
	s->active = 1;
	s->drop_prob = drop_prob;
	s->accu_prob = 0;
	s->burst_allowance = 0;
	s->qdelay_old = c->qdelay_ref;
	s->last_measurement = now;
	s->start_measurement = now;
	rte_srand(seed);
	return 0;
}

/*
 * pie_burst: n arrivals of lens[i] bytes at `now` with `qlen` packets queued
 * (rte_pie_enqueue's qlen argument, opaque per packet); returns the drops.
 * rte_pie_enqueue also counts the arrival in its own packet count
 * (pie->qlen), which the queue's dequeues would bring down again: it is put
 * back to qlen before each call (one store), so that every packet meets the
 * same queue.
 */
uint32_t netcond_dpdk_pie_burst(const struct rte_pie_config *c,
                                struct rte_pie *s, const uint32_t *lens,
                                size_t n, uint32_t qlen, uint64_t now)
{
	struct rte_pie_config cc = *c;
	struct rte_pie ss = *s;
	uint32_t drops = 0;

	for (size_t i = 0; i < n; i++) {
		ss.qlen = qlen;
		drops += rte_pie_enqueue(&cc, &ss, opaque(qlen), lens[i], now) != 0;
	}
	*s = ss;
	return drops;
}

/*
 * pie_burst_linux_reset: as pie_burst, and after each drop rte_pie's
 * accumulated probability is put back to zero (one store), as Linux's
 * sch_pie and netcond's PIE do after every drop. rte_pie itself zeroes it
 * only after a drop by its random draw: once the accumulator has passed 8.5
 * it drops every arrival without a draw, and keeps it past 8.5, until its
 * probability falls to zero (benches/dpdk/tests.rs shows both).
 */
uint32_t netcond_dpdk_pie_burst_linux_reset(const struct rte_pie_config *c,
                                            struct rte_pie *s,
                                            const uint32_t *lens, size_t n,
                                            uint32_t qlen, uint64_t now)
{
	struct rte_pie_config cc = *c;
	struct rte_pie ss = *s;
	uint32_t drops = 0;

	for (size_t i = 0; i < n; i++) {
		ss.qlen = qlen;
		if (rte_pie_enqueue(&cc, &ss, opaque(qlen), lens[i], now) != 0) {
			ss.accu_prob = 0;
			drops++;
		}
	}
	*s = ss;
	return drops;
}

/*
 * For the tests: rte_eal_init with the given arguments, the TSC frequency it
 * found, and rte_meter's own profile functions at that frequency.
 */
int netcond_dpdk_eal_init(int argc, char **argv) { return rte_eal_init(argc, argv); }

int netcond_dpdk_eal_cleanup(void) { return rte_eal_cleanup(); }

uint64_t netcond_dpdk_tsc_hz(void) { return rte_get_tsc_hz(); }

int netcond_dpdk_trtcm_profile_eal(struct rte_meter_trtcm_profile *p,
                                   uint64_t cir, uint64_t pir, uint64_t cbs,
                                   uint64_t pbs)
{
	struct rte_meter_trtcm_params params = {
		.cir = cir, .pir = pir, .cbs = cbs, .pbs = pbs};
	return rte_meter_trtcm_profile_config(p, &params);
}

int netcond_dpdk_srtcm_profile_eal(struct rte_meter_srtcm_profile *p,
                                   uint64_t cir, uint64_t cbs, uint64_t ebs)
{
	struct rte_meter_srtcm_params params = {
		.cir = cir, .cbs = cbs, .ebs = ebs};
	return rte_meter_srtcm_profile_config(p, &params);
}

int netcond_dpdk_rfc4115_profile_eal(struct rte_meter_trtcm_rfc4115_profile *p,
                                     uint64_t cir, uint64_t eir, uint64_t cbs,
                                     uint64_t ebs)
{
	struct rte_meter_trtcm_rfc4115_params params = {
		.cir = cir, .eir = eir, .cbs = cbs, .ebs = ebs};
	return rte_meter_trtcm_rfc4115_profile_config(p, &params);
}
