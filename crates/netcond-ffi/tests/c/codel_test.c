/*
 * C tests of netcond.h's CoDel (netcond_codel_*), run by tests/c_api.rs.
 *
 *   codel_test cases         every configuration error CoDel can raise, NULL,
 *                            unstarted, unconfigured and out-of-range
 *                            arguments, and verdicts with known answers: a
 *                            standing queue's drop times under the exact and
 *                            the Linux law, ECN marks where the kernel and
 *                            ns-3 part, the minimum-bytes rule, leaving the
 *                            dropping state, several drops at one instant;
 *                            FQ-CoDel's configuration errors, bad arguments,
 *                            DRR order of new flows and overflow drops (Linux's
 *                            batch and a single packet) through the
 *                            caller's callback.
 *   codel_test stream SEED   a seeded stream through four profiles; one line
 *                            per profile (counts of each verdict, a hash of
 *                            the verdicts, the final variables), compared by
 *                            the Rust test with the same stream through
 *                            aqm_delay::Codel.
 */
#include "check.h"

#define MS 1000000ull /* ns */

static netcond_codel_params params(netcond_codel_law law, netcond_codel_variant variant,
				   uint32_t ecn)
{
	netcond_codel_params p;
	memset(&p, 0, sizeof p);
	p.target_ns = 5 * MS;
	p.interval_ns = 100 * MS;
	p.tick_hz = 1000000000u;
	p.mtu = 1500;
	p.ecn = ecn;
	p.control_law = (uint32_t)law;
	p.linux_variant = (uint32_t)variant;
	return p;
}

static void errors(void)
{
	netcond_codel_profile prof, never;
	netcond_codel s;
	netcond_codel_params p = params(NETCOND_CODEL_EXACT, NETCOND_CODEL_KERNEL, 0);

	memset(&never, 0, sizeof never);
	CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_codel_profile_config(NULL, &p), NETCOND_E_NULL);
	CHECK_RC(netcond_codel_profile_config(&prof, NULL), NETCOND_E_NULL);

	p.target_ns = 0;
	CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_E_DELAY_ZERO_TARGET);
	p = params(NETCOND_CODEL_EXACT, NETCOND_CODEL_KERNEL, 0);
	p.interval_ns = 0;
	CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_E_DELAY_ZERO_INTERVAL);
	p = params(NETCOND_CODEL_EXACT, NETCOND_CODEL_KERNEL, 0);
	p.target_ns = 100 * MS;
	CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_E_DELAY_TARGET_NOT_BELOW_INTERVAL);
	/* The exact law: at most 2^57 ticks. */
	p = params(NETCOND_CODEL_EXACT, NETCOND_CODEL_KERNEL, 0);
	p.interval_ns = (1ull << 57) + 1;
	CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_E_DELAY_INTERVAL_TOO_LONG);
	p.interval_ns = 1ull << 57;
	CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_OK);
	p.interval_ns = UINT64_MAX; /* "never" is too long for CoDel */
	CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_E_DELAY_INTERVAL_TOO_LONG);
	/* The Linux law: below 2^31 units of 1024 ns; 1023 ns is zero units. */
	p = params(NETCOND_CODEL_LINUX, NETCOND_CODEL_NS3, 0);
	p.interval_ns = (1ull << 31) * 1024;
	CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_E_DELAY_INTERVAL_TOO_LONG);
	p.interval_ns = (1ull << 31) * 1024 - 1;
	CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_OK);
	p = params(NETCOND_CODEL_LINUX, NETCOND_CODEL_NS3, 0);
	p.target_ns = 1023;
	CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_E_DELAY_ZERO_TARGET);
	p.target_ns = 1024;
	CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_OK);
	/* Enums and flags out of range, tick_hz 0. */
	p = params(NETCOND_CODEL_EXACT, NETCOND_CODEL_KERNEL, 2);
	CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_E_ENUM);
	p = params(NETCOND_CODEL_EXACT, NETCOND_CODEL_KERNEL, 0);
	p.control_law = 2;
	CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_E_ENUM);
	p = params(NETCOND_CODEL_EXACT, NETCOND_CODEL_KERNEL, 0);
	p.linux_variant = 2;
	CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_E_ENUM);
	p = params(NETCOND_CODEL_EXACT, NETCOND_CODEL_KERNEL, 0);
	p.tick_hz = 0;
	CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_E_TICK);
	/* The failed configuration left the profile unusable. */
	CHECK_RC(netcond_codel_config(&s, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_codel_config(&s, &never, 0), NETCOND_E_NULL);

	/* Every CoDel code has its rule as text. */
	CHECK(strstr(netcond_strerror(NETCOND_E_DELAY_ZERO_TARGET), "TARGET") != NULL);
	CHECK(strstr(netcond_strerror(NETCOND_E_DELAY_TARGET_NOT_BELOW_INTERVAL),
		     "RFC 8289 section 4.5") != NULL);
	CHECK(strstr(netcond_strerror(NETCOND_E_DELAY_INTERVAL_TOO_LONG), "2^57") != NULL);
	CHECK(strstr(netcond_strerror(NETCOND_E_DELAY_PIE_PARAMETER_TOO_LARGE), "PIE") != NULL);
}

static void bad_arguments(void)
{
	netcond_codel_profile prof, never;
	netcond_codel s, zeros;
	netcond_codel_info info;
	netcond_codel_params p = params(NETCOND_CODEL_LINUX, NETCOND_CODEL_KERNEL, 1);

	memset(&never, 0, sizeof never);
	memset(&zeros, 0, sizeof zeros);
	CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_codel_config(NULL, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_codel_config(&s, NULL, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_codel_config(&s, &never, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_codel_config(&s, &prof, 0), NETCOND_OK);

	/* NULL, unconfigured and unstarted arguments: DELIVER, nothing changes. */
	CHECK(netcond_codel_on_dequeue(NULL, &prof, 1, 0, 1500, 1, 1u << 20) ==
	      NETCOND_CODEL_DELIVER);
	CHECK(netcond_codel_on_dequeue(&s, NULL, 1, 0, 1500, 1, 1u << 20) == NETCOND_CODEL_DELIVER);
	CHECK(netcond_codel_on_dequeue(&s, &never, 1, 0, 1500, 1, 1u << 20) ==
	      NETCOND_CODEL_DELIVER);
	CHECK(netcond_codel_on_dequeue(&zeros, &prof, 1, 0, 1500, 1, 1u << 20) ==
	      NETCOND_CODEL_DELIVER);
	netcond_codel_queue_empty(NULL, &prof, 1);
	netcond_codel_queue_empty(&s, NULL, 1);
	netcond_codel_queue_empty(&s, &never, 1);
	netcond_codel_queue_empty(&zeros, &prof, 1);
	{
		netcond_codel z;
		memset(&z, 0, sizeof z);
		CHECK(memcmp(&z, &zeros, sizeof z) == 0);
	}
	CHECK(netcond_codel_count(NULL) == 0);
	CHECK(netcond_codel_count(&zeros) == 0);
	CHECK_RC(netcond_codel_dropping(NULL), NETCOND_E_NULL);
	CHECK_RC(netcond_codel_dropping(&zeros), NETCOND_E_NULL);
	CHECK_RC(netcond_codel_info_get(NULL, &info), NETCOND_E_NULL);
	CHECK_RC(netcond_codel_info_get(&zeros, &info), NETCOND_E_NULL);
	CHECK_RC(netcond_codel_info_get(&s, NULL), NETCOND_E_NULL);
	/* The state is as started: no time seen after 0. */
	CHECK_RC(netcond_codel_info_get(&s, &info), NETCOND_OK);
	CHECK(info.last_seen == 0 && info.count == 0 && info.dropping == 0 &&
	      info.first_above_set == 0 && info.in_drop_loop == 0);
	CHECK_RC(netcond_codel_dropping(&s), 0);
}

/*
 * A standing queue: from 1 ms (11 ms with `from` 11), one dequeue per ms of
 * a packet that waited 10 ms, 10 kB behind it; after a drop the next head (as
 * old) is asked for at the same instant. Writes the ms of each drop or mark
 * to `at` (at most `max`), returns how many.
 */
static unsigned standing(netcond_codel *s, const netcond_codel_profile *prof, int ecn,
			 uint64_t from, uint64_t until, uint64_t *at, unsigned max)
{
	unsigned n = 0;
	uint64_t t;
	for (t = from; t <= until; t++) {
		uint64_t now = t * MS, enq = now - 10 * MS;
		netcond_codel_verdict v = netcond_codel_on_dequeue(s, prof, now, enq, 1500, ecn, 10000);
		if (v != NETCOND_CODEL_DELIVER && n < max)
			at[n++] = t;
		if (v == NETCOND_CODEL_DROP)
			CHECK(netcond_codel_on_dequeue(s, prof, now, enq, 1500, ecn, 8500) ==
			      NETCOND_CODEL_DELIVER);
		if (ecn == 1)
			CHECK(v != NETCOND_CODEL_DROP);
		else
			CHECK(v != NETCOND_CODEL_MARK);
	}
	return n;
}

static void known_answers(void)
{
	netcond_codel_profile prof;
	netcond_codel s;
	netcond_codel_info info;
	netcond_codel_params p;
	uint64_t at[16];
	unsigned n, i;

	/* The exact law: first above target at 1 ms, so first_above_time 101 ms
	 * and the first drop at 101 ms; then 100 / sqrt(count) ms apart:
	 * 201, 271.71 (272), 329.45 (330), 379.45 (380), 424.17 (425), 464.99
	 * (465). */
	{
		static const uint64_t want[] = {101, 201, 272, 330, 380, 425, 465};
		p = params(NETCOND_CODEL_EXACT, NETCOND_CODEL_KERNEL, 0);
		CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_OK);
		CHECK_RC(netcond_codel_config(&s, &prof, 0), NETCOND_OK);
		/* The first packet's sojourn is only 1 ms from time 0 on:
		 * start at 11 ms where it is 10. Above target from 11 ms:
		 * first drop at 111 ms. */
		n = standing(&s, &prof, 0, 11, 500, at, 16);
		CHECK(n >= 3);
		CHECK(n > 0 && at[0] == 111);
		CHECK(n > 1 && at[1] == 211);
		CHECK(n > 2 && at[2] == 282); /* 211 + 70.71 */
		/* From 1 ms (enqueued "10 ms before" 1 ms: the serial clock reads
		 * the wrapped time as 10 ms earlier): aqm-delay's own figures. */
		CHECK_RC(netcond_codel_config(&s, &prof, 0), NETCOND_OK);
		n = standing(&s, &prof, 0, 1, 500, at, 16);
		CHECK(n == 7);
		for (i = 0; i < 7 && i < n; i++)
			CHECK(at[i] == want[i]);
		CHECK_RC(netcond_codel_info_get(&s, &info), NETCOND_OK);
		CHECK(info.count == 7 && info.lastcount == 1 && info.dropping == 1);
		CHECK(info.drop_next == 464991892ull + 37796447ull);
		CHECK(info.last_seen == 500 * MS && info.rec_inv_sqrt == 0);
		CHECK(netcond_codel_count(&s) == 7);
		CHECK_RC(netcond_codel_dropping(&s), 1);
		/* A packet below target leaves the dropping state. */
		CHECK(netcond_codel_on_dequeue(&s, &prof, 501 * MS, 500 * MS, 1500, 0, 10000) ==
		      NETCOND_CODEL_DELIVER);
		CHECK_RC(netcond_codel_dropping(&s), 0);
	}

	/* The Linux law (kernel): 1 ms reads 976 units of 1024 ns, first_above
	 * 98632, and the drop needs now strictly after it: 102 ms; then
	 * 97654 units (the law at count 1), and 48829 (count 2, r = 32769):
	 * 202, 252 ms. */
	p = params(NETCOND_CODEL_LINUX, NETCOND_CODEL_KERNEL, 0);
	CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_codel_config(&s, &prof, 0), NETCOND_OK);
	n = standing(&s, &prof, 0, 1, 260, at, 16);
	CHECK(n == 3);
	CHECK(n > 2 && at[0] == 102 && at[1] == 202 && at[2] == 252);
	CHECK_RC(netcond_codel_info_get(&s, &info), NETCOND_OK);
	CHECK(info.count == 3 && info.rec_inv_sqrt == 36864);

	/* ECN marks with the Linux law from 11 ms: both mark at 112 and 212 ms;
	 * the kernel schedules the third from drop_next (262 ms), ns-3 from now
	 * (263 ms). */
	for (i = 0; i < 2; i++) {
		p = params(NETCOND_CODEL_LINUX, i ? NETCOND_CODEL_NS3 : NETCOND_CODEL_KERNEL, 1);
		CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_OK);
		CHECK_RC(netcond_codel_config(&s, &prof, 0), NETCOND_OK);
		n = standing(&s, &prof, 1, 11, 270, at, 16);
		CHECK(n == 3);
		CHECK(n > 2 && at[0] == 112 && at[1] == 212 && at[2] == (i ? 263u : 262u));
		CHECK_RC(netcond_codel_info_get(&s, &info), NETCOND_OK);
		CHECK(info.drop_next == (i ? 256835u : 255858u) + 54931u);
		/* A not-ECT packet is dropped with ECN on; an ecn_capable other
		 * than 1 counts as not-ECT. */
		CHECK(netcond_codel_on_dequeue(&s, &prof, 400 * MS, 390 * MS, 1500, 2, 10000) ==
		      NETCOND_CODEL_DROP);
		netcond_codel_queue_empty(&s, &prof, 400 * MS);
		CHECK_RC(netcond_codel_dropping(&s), 0);
	}

	/* The minimum-bytes rule: with exactly mtu (1500) bytes behind the head
	 * the kernel reads "at most an MTU" and never drops; ns-3 ("fewer than
	 * MinBytes") does. */
	for (i = 0; i < 2; i++) {
		uint64_t t;
		unsigned drops = 0;
		p = params(NETCOND_CODEL_LINUX, i ? NETCOND_CODEL_NS3 : NETCOND_CODEL_KERNEL, 0);
		CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_OK);
		CHECK_RC(netcond_codel_config(&s, &prof, 0), NETCOND_OK);
		for (t = 11; t <= 300; t++) {
			netcond_codel_verdict v = netcond_codel_on_dequeue(
				&s, &prof, t * MS, (t - 10) * MS, 1500, 0, 1500);
			if (v == NETCOND_CODEL_DROP) {
				drops++;
				netcond_codel_queue_empty(&s, &prof, t * MS);
			}
		}
		CHECK(i ? drops > 0 : drops == 0);
	}

	/* Several drops at one instant: packets all enqueued at 0. At 300 ms
	 * the delay is first above target (first_above_time 400 ms); at 400 ms
	 * the entry drop, and the next head is delivered. */
	p = params(NETCOND_CODEL_EXACT, NETCOND_CODEL_KERNEL, 0);
	CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_codel_config(&s, &prof, 0), NETCOND_OK);
	CHECK(netcond_codel_on_dequeue(&s, &prof, 300 * MS, 0, 1500, 0, 9000) ==
	      NETCOND_CODEL_DELIVER); /* first above: 400 ms */
	CHECK(netcond_codel_on_dequeue(&s, &prof, 400 * MS, 0, 1500, 0, 7500) ==
	      NETCOND_CODEL_DROP); /* entry */
	CHECK_RC(netcond_codel_info_get(&s, &info), NETCOND_OK);
	CHECK(info.in_drop_loop == 1 && info.count == 1 && info.drop_next == 500 * MS);
	CHECK(netcond_codel_on_dequeue(&s, &prof, 400 * MS, 0, 1500, 0, 6000) ==
	      NETCOND_CODEL_DELIVER);
	/* 600 ms: drop_next (500 ms) is due: drop, and with count 2 the next
	 * at 570.71 ms is due too: drop again; then 628.45 is not: deliver. */
	CHECK(netcond_codel_on_dequeue(&s, &prof, 600 * MS, 0, 1500, 0, 4500) ==
	      NETCOND_CODEL_DROP);
	CHECK(netcond_codel_on_dequeue(&s, &prof, 600 * MS, 0, 1500, 0, 3000) ==
	      NETCOND_CODEL_DROP);
	CHECK(netcond_codel_on_dequeue(&s, &prof, 600 * MS, 0, 1500, 0, 1501) ==
	      NETCOND_CODEL_DELIVER);
	CHECK(netcond_codel_count(&s) == 3);
	/* The last packet: 0 bytes behind it, at most an MTU: delivered, and
	 * the dropping state ends; an empty queue then. */
	CHECK(netcond_codel_on_dequeue(&s, &prof, 700 * MS, 0, 1500, 0, 0) ==
	      NETCOND_CODEL_DELIVER);
	CHECK_RC(netcond_codel_dropping(&s), 0);
	netcond_codel_queue_empty(&s, &prof, 700 * MS);
	CHECK_RC(netcond_codel_info_get(&s, &info), NETCOND_OK);
	CHECK(info.first_above_set == 0 && info.in_drop_loop == 0);
}

/* ---------------------------------------------------------------- FQ-CoDel */

/* The caller's per-flow FIFOs of packet lengths, for the overflow callback. */
struct fifos {
	uint32_t len[4][8];
	unsigned head[4], n[4];
	unsigned calls;
};

static void fifo_push(struct fifos *f, unsigned flow, uint32_t len)
{
	f->len[flow][(f->head[flow] + f->n[flow]) % 8] = len;
	f->n[flow]++;
}

static int fifo_drop_head(void *ctx, uint32_t flow, uint32_t *len)
{
	struct fifos *f = ctx;
	f->calls++;
	if (flow >= 4 || f->n[flow] == 0)
		return 0;
	*len = f->len[flow][f->head[flow]];
	f->head[flow] = (f->head[flow] + 1) % 8;
	f->n[flow]--;
	return 1;
}

static netcond_fq_codel_params fq_params(void)
{
	netcond_fq_codel_params p;
	memset(&p, 0, sizeof p);
	p.codel = params(NETCOND_CODEL_LINUX, NETCOND_CODEL_KERNEL, 0);
	p.quantum = 1500;
	p.limit = 4;
	p.overflow = NETCOND_FQ_OVERFLOW_BATCH;
	p.drop_batch = 64;
	return p;
}

static void fq_cases(void)
{
	static netcond_fq_codel q, zeros;
	netcond_fq_codel_profile prof, never;
	netcond_fq_codel_params p = fq_params();
	netcond_fq_overflow_info o;
	netcond_fq_codel_flow fl;
	struct fifos f;
	uint32_t flow, order[8];
	unsigned n = 0, i;

	memset(&never, 0, sizeof never);
	memset(&zeros, 0, sizeof zeros);
	/* Configuration errors. */
	p.quantum = 0;
	CHECK_RC(netcond_fq_codel_profile_config(&prof, &p), NETCOND_E_DELAY_ZERO_QUANTUM);
	p.quantum = 1u << 31;
	CHECK_RC(netcond_fq_codel_profile_config(&prof, &p), NETCOND_E_DELAY_QUANTUM_TOO_LARGE);
	p = fq_params();
	p.limit = 0;
	CHECK_RC(netcond_fq_codel_profile_config(&prof, &p), NETCOND_E_DELAY_ZERO_LIMIT);
	p = fq_params();
	p.drop_batch = 0;
	CHECK_RC(netcond_fq_codel_profile_config(&prof, &p), NETCOND_E_DELAY_ZERO_DROP_BATCH);
	p.overflow = 2;
	CHECK_RC(netcond_fq_codel_profile_config(&prof, &p), NETCOND_E_ENUM);
	p = fq_params();
	p.codel.interval_ns = 0;
	CHECK_RC(netcond_fq_codel_profile_config(&prof, &p), NETCOND_E_DELAY_ZERO_INTERVAL);
	CHECK_RC(netcond_fq_codel_config(&q, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_fq_codel_profile_config(NULL, &p), NETCOND_E_NULL);
	CHECK_RC(netcond_fq_codel_profile_config(&prof, NULL), NETCOND_E_NULL);

	/* Two flows, both new: flow 1 queues three 1500-byte packets, then flow
	 * 2 one of 100 bytes; each gets a quantum before flow 1 goes on:
	 * 1, 2, 1, 1. */
	p = fq_params();
	p.limit = 100;
	CHECK_RC(netcond_fq_codel_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_fq_codel_config(&q, &never, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_fq_codel_config(NULL, &prof, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_fq_codel_config(&q, &prof, 0), NETCOND_OK);
	memset(&f, 0, sizeof f);
	for (i = 0; i < 4; i++) {
		unsigned fl_ = i < 3 ? 1 : 2;
		uint32_t len = i < 3 ? 1500 : 100;
		fifo_push(&f, fl_, len);
		CHECK_RC(netcond_fq_codel_enqueue(&q, &prof, 0, fl_, len, fifo_drop_head, &f, &o), 0);
	}
	CHECK(netcond_fq_codel_packets(&q) == 4 && netcond_fq_codel_bytes(&q) == 4600);
	CHECK_RC(netcond_fq_codel_flow_get(&q, 1, &fl), NETCOND_OK);
	CHECK(fl.packets == 3 && fl.bytes == 4500 && fl.list == 1 && fl.deficit == 1500);
	while (netcond_fq_codel_schedule(&q, &prof, 0, &flow) == 1 && n < 8) {
		uint32_t len = f.len[flow][f.head[flow]];
		f.head[flow] = (f.head[flow] + 1) % 8;
		f.n[flow]--;
		if (netcond_fq_codel_on_dequeue(&q, &prof, 0, flow, 0, len, 0) != NETCOND_CODEL_DROP)
			order[n++] = flow;
	}
	CHECK(n == 4);
	CHECK(n == 4 && order[0] == 1 && order[1] == 2 && order[2] == 1 && order[3] == 1);
	CHECK(netcond_fq_codel_packets(&q) == 0);
	CHECK_RC(netcond_fq_codel_schedule(&q, &prof, 0, &flow), 0);

	/* Overflow, Linux's batch: limit 4, flow 0 holds 3000 bytes in three
	 * packets, flow 1 500 bytes; the fifth packet drops from flow 0's head
	 * until half its bytes are gone: two packets, 2000 bytes. */
	p = fq_params();
	CHECK_RC(netcond_fq_codel_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_fq_codel_config(&q, &prof, 0), NETCOND_OK);
	memset(&f, 0, sizeof f);
	for (i = 0; i < 3; i++) {
		fifo_push(&f, 0, 1000);
		CHECK_RC(netcond_fq_codel_enqueue(&q, &prof, 0, 0, 1000, fifo_drop_head, &f, &o), 0);
	}
	fifo_push(&f, 1, 500);
	CHECK_RC(netcond_fq_codel_enqueue(&q, &prof, 0, 1, 500, fifo_drop_head, &f, &o), 0);
	fifo_push(&f, 1, 500);
	memset(&o, 0xff, sizeof o);
	CHECK_RC(netcond_fq_codel_enqueue(&q, &prof, 0, 1, 500, fifo_drop_head, &f, &o), 1);
	CHECK(o.victim == 0 && o.packets == 2 && o.bytes == 2000 && f.calls == 2);
	CHECK(f.n[0] == 1 && netcond_fq_codel_packets(&q) == 3);
	/* The Linux law counts the overflow drops in the victim's CoDel. */
	CHECK_RC(netcond_fq_codel_flow_get(&q, 0, &fl), NETCOND_OK);
	CHECK(fl.packets == 1 && fl.bytes == 1000 && fl.codel.count == 2);
	/* One packet at a time with NETCOND_FQ_OVERFLOW_SINGLE. */
	p.overflow = NETCOND_FQ_OVERFLOW_SINGLE;
	CHECK_RC(netcond_fq_codel_profile_config(&prof, &p), NETCOND_OK);
	CHECK_RC(netcond_fq_codel_config(&q, &prof, 0), NETCOND_OK);
	memset(&f, 0, sizeof f);
	for (i = 0; i < 5; i++) {
		unsigned fl_ = i < 3 ? 0 : 1;
		uint32_t len = i < 3 ? 1000 : 500;
		fifo_push(&f, fl_, len);
		CHECK_RC(netcond_fq_codel_enqueue(&q, &prof, 0, fl_, len, fifo_drop_head, &f, NULL),
			 i < 4 ? 0 : 1);
	}
	CHECK(f.calls == 1 && f.n[0] == 2 && netcond_fq_codel_packets(&q) == 4);

	/* NULL, unstarted and unconfigured arguments. */
	CHECK_RC(netcond_fq_codel_enqueue(&q, &prof, 0, 0, 1, NULL, &f, &o), NETCOND_E_NULL);
	CHECK_RC(netcond_fq_codel_enqueue(&zeros, &prof, 0, 0, 1, fifo_drop_head, &f, &o),
		 NETCOND_E_NULL);
	CHECK_RC(netcond_fq_codel_enqueue(&q, &never, 0, 0, 1, fifo_drop_head, &f, &o),
		 NETCOND_E_NULL);
	CHECK_RC(netcond_fq_codel_enqueue(NULL, &prof, 0, 0, 1, fifo_drop_head, &f, &o),
		 NETCOND_E_NULL);
	CHECK(netcond_fq_codel_packets(&q) == 4);
	CHECK_RC(netcond_fq_codel_schedule(&zeros, &prof, 0, &flow), NETCOND_E_NULL);
	CHECK_RC(netcond_fq_codel_schedule(&q, NULL, 0, &flow), NETCOND_E_NULL);
	CHECK_RC(netcond_fq_codel_schedule(&q, &prof, 0, NULL), 1);
	CHECK(netcond_fq_codel_on_dequeue(NULL, &prof, 0, 0, 0, 1, 0) == NETCOND_CODEL_DELIVER);
	CHECK(netcond_fq_codel_on_dequeue(&zeros, &prof, 0, 0, 0, 1, 0) == NETCOND_CODEL_DELIVER);
	CHECK(netcond_fq_codel_packets(NULL) == 0 && netcond_fq_codel_bytes(&zeros) == 0);
	CHECK_RC(netcond_fq_codel_flow_get(&zeros, 0, &fl), NETCOND_E_NULL);
	CHECK_RC(netcond_fq_codel_flow_get(&q, 0, NULL), NETCOND_E_NULL);
	/* Flow indexes are taken modulo NETCOND_FQ_CODEL_FLOWS. */
	CHECK_RC(netcond_fq_codel_flow_get(&q, NETCOND_FQ_CODEL_FLOWS, &fl), NETCOND_OK);
	CHECK(fl.packets == 2 && fl.bytes == 2000);
}

/* ---------------------------------------------------------------- streams */

/*
 * A queue the generator fills and drains: phases of 4000 steps that add a
 * packet with probability 2/3, 1/2, 1/4, a departure attempt with
 * probability 1/2 (dropped packets followed by the next head at the same
 * instant), steps of 0..399 us plus one tick, one step in 997 a 2 s idle
 * gap, lengths 40..1489 (one in 64 of 0 bytes, one in 64 of 9000), two
 * packets in three ECN-capable. Up to 4096 packets are queued (more are
 * not enqueued).
 */
#define QCAP 4096u

static void streams(uint64_t seed)
{
	static const struct {
		netcond_codel_law law;
		netcond_codel_variant variant;
		uint32_t ecn;
	} cfg[4] = {
		{NETCOND_CODEL_EXACT, NETCOND_CODEL_KERNEL, 1},
		{NETCOND_CODEL_LINUX, NETCOND_CODEL_KERNEL, 0},
		{NETCOND_CODEL_LINUX, NETCOND_CODEL_KERNEL, 1},
		{NETCOND_CODEL_LINUX, NETCOND_CODEL_NS3, 1},
	};
	static uint64_t q_at[QCAP];
	static uint32_t q_len[QCAP];
	static int q_ecn[QCAP];
	unsigned k;

	for (k = 0; k < 4; k++) {
		netcond_codel_profile prof;
		netcond_codel s;
		netcond_codel_info info;
		netcond_codel_params p = params(cfg[k].law, cfg[k].variant, cfg[k].ecn);
		uint64_t counts[3] = {0, 0, 0}, hash = 0xcbf29ce484222325ull;
		uint64_t now = 1000, bytes = 0;
		unsigned head = 0, len = 0, i;

		rng_state = seed;
		CHECK_RC(netcond_codel_profile_config(&prof, &p), NETCOND_OK);
		CHECK_RC(netcond_codel_config(&s, &prof, now), NETCOND_OK);
		for (i = 0; i < PACKETS; i++) {
			uint64_t r = next_u64();
			unsigned phase = (i / 4000) % 3;
			int arrive;
			now += (r % 400) * 1000 + 1;
			if ((r >> 9) % 997 == 0)
				now += 2000 * MS;
			arrive = phase == 0 ? (r >> 30) % 3 != 0
				 : phase == 1 ? (r >> 30) % 2 == 0
					      : (r >> 30) % 4 == 0;
			if (arrive && len < QCAP) {
				unsigned slot = (head + len) % QCAP, kind = (unsigned)((r >> 40) % 64);
				q_at[slot] = now;
				q_len[slot] = kind == 0 ? 0 : kind == 1 ? 9000 : 40 + kind * 23;
				q_ecn[slot] = (r >> 50) % 3 != 0;
				bytes += q_len[slot];
				len++;
			}
			if ((r >> 33) % 2 == 0)
				continue;
			for (;;) {
				netcond_codel_verdict v;
				if (len == 0) {
					netcond_codel_queue_empty(&s, &prof, now);
					break;
				}
				bytes -= q_len[head];
				v = netcond_codel_on_dequeue(&s, &prof, now, q_at[head], q_len[head],
							     q_ecn[head], bytes);
				head = (head + 1) % QCAP;
				len--;
				counts[v]++;
				hash = (hash ^ (uint64_t)v) * 0x100000001b3ull;
				if (v != NETCOND_CODEL_DROP)
					break;
			}
		}
		CHECK_RC(netcond_codel_info_get(&s, &info), NETCOND_OK);
		printf("codel_%u %" PRIu64 " %" PRIu64 " %" PRIu64 " %016" PRIx64 " %" PRIu64
		       " %" PRIu64 " %u %u %u\n",
		       k, counts[0], counts[1], counts[2], hash, info.drop_next, info.last_seen,
		       info.count, info.lastcount, info.dropping);
	}
}

static void (*const all_cases[])(void) = {errors, bad_arguments, known_answers, fq_cases, NULL};

int main(int argc, char **argv)
{
	return test_main(argc, argv, "CoDel", all_cases, streams);
}
