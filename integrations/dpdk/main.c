/*
 * netcond beside DPDK's rte_meter, in the shape of DPDK's qos_meter example:
 * a table of per-flow meter states sharing one profile, packets whose flow is
 * the low byte of the IPv4 destination, color-blind metering of each packet.
 * No NIC: the packets are mbufs from a mempool, filled with a synthetic
 * stream (64..1518-byte frames at about 1.3 x PIR per flow, seeded), and the
 * time is a synthetic TSC clock advanced by a constant gap per packet, so both meters see the
 * same stream at the same instants.
 *
 * For the srTCM, the trTCM and the RFC 4115 marker it prints the color counts
 * of rte_meter and of netcond side by side, and ns per packet of each (the
 * metering loop only: each mbuf's flow and length are read once, before), and
 * the difference of their green and green+yellow bytes. That difference is
 * printed, not checked: DPDK adds whole bytes_per_period every whole period
 * (its rate is hz * bytes_per_period / period, rounded at configuration),
 * netcond adds exactly CIR x time, and once a packet's color parts the
 * buckets' paths no longer bound the byte totals' difference. It exits 1 if
 * netcond's green bytes, summed over the flows, exceed flows x (CBS + CIR x T)
 * or its green+yellow bytes exceed what the buckets behind yellow can hand
 * out over the stream's duration T, or if, with netcond given rte_meter's
 * effective rates and every packet on a whole number of both buckets' periods
 * (where DPDK's refill is exact), any packet is colored differently; it exits
 * 77 if the EAL does not start, and 1 on bad arguments or a setup error.
 * See README.md.
 *
 * Usage: netcond-dpdk-meter [EAL options] -- [-n PACKETS] [-f FLOWS] [-x PPM]
 * (-x offsets netcond's rates by PPM parts per million: a check of the check)
 * (run with no EAL options it uses --no-huge --no-pci --no-shconf).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_meter.h>
#include <rte_version.h>

#include "netcond.h"

/* DPDK's meter test profile, per flow. */
#define CIR 46000000ull
#define PIR 69000000ull
#define CBS 2048ull
#define PBS 4096ull

#define NB_MBUF 8192u
#define MAX_FLOWS 256u
#define ROUNDS 5

static uint32_t n_packets = 2000000;
static uint32_t n_flows = 16;
/* -x: netcond's rates offset by this many parts per million (to see the
 * check fail: the colors then differ beyond the arithmetics' bound). */
static long offset_ppm;

static struct rte_mbuf *pkts[NB_MBUF];
/* Each mbuf's flow and metered length, read once as qos_meter reads them. */
static uint32_t pkt_flow[NB_MBUF], pkt_len[NB_MBUF];
static uint64_t t_start, gap_fx; /* the synthetic clock: t_start + i x gap */

/* The synthetic TSC time of packet i: a constant gap in 32.32 fixed point. */
static inline uint64_t time_of(uint32_t i)
{
	return t_start + (uint64_t)(((unsigned __int128)i * gap_fx) >> 32);
}

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t next_u64(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* qos_meter's view of a packet: the flow from the IPv4 destination's low
 * byte, the length without the Ethernet header. */
static inline void pkt_view(struct rte_mbuf *m, uint32_t *flow, uint32_t *len)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(
		m, const struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	*flow = (rte_be_to_cpu_32(ip->dst_addr) & 0xff) % n_flows;
	*len = rte_pktmbuf_data_len(m) - (uint32_t)sizeof(struct rte_ether_hdr);
}

static int fill_stream(struct rte_mempool *pool, uint64_t hz, uint64_t t0)
{
	uint32_t i;
	/* Per flow about 1.3 x PIR of 791-byte mean frames: the packet gap of
	 * the aggregate, in ticks, as 32.32 fixed point. */
	double gap = (double)hz * 791.0 / (1.3 * (double)PIR * (double)n_flows);

	gap_fx = (uint64_t)(gap * 4294967296.0);
	t_start = t0;

	for (i = 0; i < NB_MBUF; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		struct rte_ipv4_hdr *ip;
		uint64_t r = next_u64();
		uint16_t frame = (uint16_t)(64u + r % 1455u);

		if (m == NULL)
			return -1;
		if (rte_pktmbuf_append(m, frame) == NULL)
			return -1;
		memset(rte_pktmbuf_mtod(m, void *), 0, frame);
		ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
					     sizeof(struct rte_ether_hdr));
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->dst_addr = rte_cpu_to_be_32(0x0a000000u | (uint32_t)((r >> 32) & 0xff));
		pkts[i] = m;
		pkt_view(m, &pkt_flow[i], &pkt_len[i]);
	}
	return 0;
}

struct counts {
	uint64_t packets[3];
	uint64_t bytes[3];
	double ns_per_packet;
};

static void count(struct counts *c, unsigned color, uint32_t len)
{
	if (color > 2)
		color = 2;
	c->packets[color]++;
	c->bytes[color] += len;
}

/* ---------------------------------------------------------- the loops */

#define TIMED(c, hz, body)                                                    \
	do {                                                                  \
		uint64_t start_ = rte_rdtsc_precise();                        \
		body;                                                         \
		uint64_t cyc_ = rte_rdtsc_precise() - start_;                 \
		double ns_ = (double)cyc_ * 1e9 / (double)(hz) / (double)n_packets; \
		if ((c)->ns_per_packet == 0 || ns_ < (c)->ns_per_packet)      \
			(c)->ns_per_packet = ns_;                             \
	} while (0)

static struct rte_meter_srtcm_profile d_sp;
static struct rte_meter_trtcm_profile d_tp;
static struct rte_meter_trtcm_rfc4115_profile d_ep;
static struct rte_meter_srtcm d_s[MAX_FLOWS];
static struct rte_meter_trtcm d_t[MAX_FLOWS];
static struct rte_meter_trtcm_rfc4115 d_e[MAX_FLOWS];

static netcond_srtcm_profile n_sp;
static netcond_trtcm_profile n_tp;
static netcond_rfc4115_profile n_ep;
static netcond_srtcm n_s[MAX_FLOWS];
static netcond_trtcm n_t[MAX_FLOWS];
static netcond_rfc4115 n_e[MAX_FLOWS];

enum marker { SRTCM, TRTCM, RFC4115 };
static const char *names[] = {"srTCM", "trTCM", "RFC 4115"};

static int start_states(enum marker k, uint64_t t0)
{
	uint32_t f;
	for (f = 0; f < n_flows; f++) {
		int rc = 0;
		switch (k) {
		case SRTCM:
			rc |= rte_meter_srtcm_config(&d_s[f], &d_sp);
			d_s[f].time = t0;
			break;
		case TRTCM:
			rc |= rte_meter_trtcm_config(&d_t[f], &d_tp);
			d_t[f].time_tc = d_t[f].time_tp = t0;
			break;
		case RFC4115:
			rc |= rte_meter_trtcm_rfc4115_config(&d_e[f], &d_ep);
			d_e[f].time_tc = d_e[f].time_te = t0;
			break;
		}
		if (rc != 0)
			return rc;
	}
	switch (k) {
	case SRTCM:
		return netcond_srtcm_config_array(n_s, n_flows, &n_sp, t0);
	case TRTCM:
		return netcond_trtcm_config_array(n_t, n_flows, &n_tp, t0);
	case RFC4115:
		return netcond_rfc4115_config_array(n_e, n_flows, &n_ep, t0);
	}
	return -1;
}

static void run_dpdk(enum marker k, struct counts *c, uint64_t hz, uint64_t t0)
{
	uint32_t i, flow, len;
	memset(c->packets, 0, sizeof c->packets);
	memset(c->bytes, 0, sizeof c->bytes);
	(void)start_states(k, t0);
	TIMED(c, hz, {
		for (i = 0; i < n_packets; i++) {
			enum rte_color col;
			flow = pkt_flow[i % NB_MBUF];
			len = pkt_len[i % NB_MBUF];
			switch (k) {
			case SRTCM:
				col = rte_meter_srtcm_color_blind_check(&d_s[flow], &d_sp,
									time_of(i), len);
				break;
			case TRTCM:
				col = rte_meter_trtcm_color_blind_check(&d_t[flow], &d_tp,
									time_of(i), len);
				break;
			default:
				col = rte_meter_trtcm_rfc4115_color_blind_check(
					&d_e[flow], &d_ep, time_of(i), len);
				break;
			}
			count(c, (unsigned)col, len);
		}
	});
}

static void run_netcond(enum marker k, struct counts *c, uint64_t hz, uint64_t t0)
{
	uint32_t i, flow, len;
	memset(c->packets, 0, sizeof c->packets);
	memset(c->bytes, 0, sizeof c->bytes);
	(void)start_states(k, t0);
	TIMED(c, hz, {
		for (i = 0; i < n_packets; i++) {
			netcond_color col;
			flow = pkt_flow[i % NB_MBUF];
			len = pkt_len[i % NB_MBUF];
			switch (k) {
			case SRTCM:
				col = netcond_srtcm_color_blind_check(&n_s[flow], &n_sp,
								      time_of(i), len);
				break;
			case TRTCM:
				col = netcond_trtcm_color_blind_check(&n_t[flow], &n_tp,
								      time_of(i), len);
				break;
			default:
				col = netcond_rfc4115_color_blind_check(&n_e[flow], &n_ep,
									time_of(i), len);
				break;
			}
			count(c, (unsigned)col, len);
		}
	});
}

/* A rate offset by -x. */
#define OFFSET(rate) ((uint64_t)((double)(rate) * (1.0 + (double)offset_ppm / 1e6)))

/* DPDK's effective rate of a bucket: whole bytes per whole period. */
static double dpdk_rate(uint64_t hz, uint64_t period, uint64_t bytes_per_period)
{
	return period == 0 ? 0.0 : (double)hz * (double)bytes_per_period / (double)period;
}

/* The nominal comparison: both libraries at the configured rates, on the
 * stream's own instants. Colors part where DPDK's refill (whole bytes at whole
 * periods, at its rounded rate) and the exact one first disagree on a packet,
 * and from there each flow's buckets follow their own path, full (and
 * discarding tokens) at different moments: no bound on the difference of the
 * byte totals follows from the arithmetics alone, so the difference is
 * printed, not checked. What is checked is netcond's own conformance: per
 * flow, green bytes are at most CBS + CIR x T (the tokens bucket C can ever
 * have handed out over the stream's duration T), and green + yellow bytes at
 * most what the buckets behind yellow can hand out. */
static int compare(enum marker k, const struct counts *d, const struct counts *n,
		   double seconds)
{
	double cap_g, cap_gy, ng, ngy, dg, dgy;
	int ok;

	switch (k) {
	case SRTCM: /* C and E both filled at CIR */
		cap_g = (double)CBS + (double)CIR * seconds;
		cap_gy = (double)(CBS + PBS) + (double)CIR * seconds;
		break;
	case TRTCM: /* green + yellow through P */
		cap_g = (double)CBS + (double)CIR * seconds;
		cap_gy = (double)PBS + (double)PIR * seconds;
		break;
	default: /* C at CIR, E at EIR */
		cap_g = (double)CBS + (double)CIR * seconds;
		cap_gy = (double)(CBS + PBS) + (double)(CIR + PIR) * seconds;
		break;
	}
	cap_g *= (double)n_flows;
	cap_gy *= (double)n_flows;
	ng = (double)n->bytes[0];
	ngy = (double)(n->bytes[0] + n->bytes[1]);
	dg = (double)d->bytes[0] - ng;
	dgy = (double)(d->bytes[0] + d->bytes[1]) - ngy;
	ok = ng <= cap_g && ngy <= cap_gy;

	printf("%-9s %-8s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %8.2f\n", names[k], "rte_meter",
	       d->packets[0], d->packets[1], d->packets[2], d->ns_per_packet);
	printf("%-9s %-8s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %8.2f\n", "", "netcond",
	       n->packets[0], n->packets[1], n->packets[2], n->ns_per_packet);
	printf("%-9s rte_meter - netcond: green bytes %+.0f (%+.4f %%), green+yellow %+.0f "
	       "(%+.4f %%)\n",
	       "", dg, 100.0 * dg / ng, dgy, 100.0 * dgy / ngy);
	printf("%-9s netcond within CBS + CIR x T (green) and the yellow buckets' tokens "
	       "(green+yellow): %s\n",
	       "", ok ? "yes" : "NO");
	return ok ? 0 : 1;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b != 0) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* The exact comparison. With netcond given DPDK's effective rates (its whole
 * bytes per whole period) and every packet arriving at a whole number of both
 * buckets' periods after the start, DPDK's refill is the exact refill, so the
 * two libraries must color every packet alike. The clock stays the TSC; netcond
 * reads it at tick_hz = step x scale, where step is the least common multiple
 * of the two periods, so that each rate is a whole number of bytes per second
 * (bytes_per_period x tick_hz / period). -x offsets these rates too. */
static netcond_srtcm_profile x_sp;
static netcond_trtcm_profile x_tp;
static netcond_rfc4115_profile x_ep;

static int exact_check(enum marker k, uint64_t hz, uint64_t t0)
{
	uint64_t pc, pp, bc, bp, step, scale, tick_hz, rc, rp, last = 0;
	uint32_t i, f, differ = 0, first = 0;
	int ret;

	switch (k) {
	case SRTCM:
		pc = pp = d_sp.cir_period;
		bc = bp = d_sp.cir_bytes_per_period;
		break;
	case TRTCM:
		pc = d_tp.cir_period, bc = d_tp.cir_bytes_per_period;
		pp = d_tp.pir_period, bp = d_tp.pir_bytes_per_period;
		break;
	default:
		pc = d_ep.cir_period, bc = d_ep.cir_bytes_per_period;
		pp = d_ep.eir_period, bp = d_ep.eir_bytes_per_period;
		break;
	}
	step = pc / gcd64(pc, pp) * pp;
	scale = hz / step > 0 ? hz / step : 1;
	tick_hz = step * scale;
	rc = OFFSET(bc * scale * (step / pc));
	rp = OFFSET(bp * scale * (step / pp));
	switch (k) {
	case SRTCM: {
		netcond_srtcm_params x = {.cir = rc, .cbs = CBS, .ebs = PBS, .tick_hz = tick_hz};
		ret = netcond_srtcm_profile_config(&x_sp, &x);
		break;
	}
	case TRTCM: {
		netcond_trtcm_params x = {
			.cir = rc, .pir = rp, .cbs = CBS, .pbs = PBS, .tick_hz = tick_hz};
		ret = netcond_trtcm_profile_config(&x_tp, &x);
		break;
	}
	default: {
		netcond_rfc4115_params x;
		memset(&x, 0, sizeof x);
		x.cir = rc, x.eir = rp, x.cbs = CBS, x.ebs = PBS, x.tick_hz = tick_hz;
		x.ties = NETCOND_RFC4115_FIGURE1;
		ret = netcond_rfc4115_profile_config(&x_ep, &x);
		break;
	}
	}
	if (ret != 0) {
		printf("%-9s netcond refused DPDK's effective rates: %s\n", names[k],
		       netcond_strerror(ret));
		return 1;
	}
	(void)start_states(k, t0);
	for (f = 0; f < n_flows; f++) {
		switch (k) {
		case SRTCM:
			ret = netcond_srtcm_config(&n_s[f], &x_sp, t0);
			break;
		case TRTCM:
			ret = netcond_trtcm_config(&n_t[f], &x_tp, t0);
			break;
		default:
			ret = netcond_rfc4115_config(&n_e[f], &x_ep, t0);
			break;
		}
		if (ret != 0)
			return 1;
	}
	for (i = 0; i < n_packets; i++) {
		uint32_t flow = pkt_flow[i % NB_MBUF], len = pkt_len[i % NB_MBUF];
		uint64_t t = t0 + (time_of(i) - t0) / step * step;
		unsigned dc, nc;
		switch (k) {
		case SRTCM:
			dc = (unsigned)rte_meter_srtcm_color_blind_check(&d_s[flow], &d_sp, t, len);
			nc = (unsigned)netcond_srtcm_color_blind_check(&n_s[flow], &x_sp, t, len);
			break;
		case TRTCM:
			dc = (unsigned)rte_meter_trtcm_color_blind_check(&d_t[flow], &d_tp, t, len);
			nc = (unsigned)netcond_trtcm_color_blind_check(&n_t[flow], &x_tp, t, len);
			break;
		default:
			dc = (unsigned)rte_meter_trtcm_rfc4115_color_blind_check(&d_e[flow], &d_ep,
										  t, len);
			nc = (unsigned)netcond_rfc4115_color_blind_check(&n_e[flow], &x_ep, t, len);
			break;
		}
		if (dc != nc && differ++ == 0)
			first = i;
		last = t;
	}
	printf("%-9s at rte_meter's rates (%.0f and %.0f B/s), every packet on a whole %" PRIu64
	       " cycles (%.3f ms in all): ",
	       names[k], dpdk_rate(hz, pc, bc), dpdk_rate(hz, pp, bp), step,
	       (double)(last - t0) * 1e3 / (double)hz);
	if (differ == 0)
		printf("all %u packets colored alike\n", n_packets);
	else
		printf("%u of %u packets colored differently, the first is packet %u: DIFFERENT\n",
		       differ, n_packets, first);
	return differ == 0 ? 0 : 1;
}


static int parse_args(int argc, char **argv)
{
	int opt;
	while ((opt = getopt(argc, argv, "n:f:x:")) != -1) {
		switch (opt) {
		case 'n':
			n_packets = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'f':
			n_flows = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'x':
			offset_ppm = strtol(optarg, NULL, 0);
			break;
		default:
			return -1;
		}
	}
	if (n_packets == 0 || n_flows == 0 || n_flows > MAX_FLOWS)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	static char *default_eal[] = {"netcond-dpdk-meter", "--no-huge", "--no-pci",
				      "--no-shconf", "--no-telemetry", "-l", "0",
				      "--log-level=error", NULL};
	struct rte_mempool *pool;
	struct rte_meter_srtcm_params dsp = {.cir = CIR, .cbs = CBS, .ebs = PBS};
	struct rte_meter_trtcm_params dtp = {.cir = CIR, .pir = PIR, .cbs = CBS, .pbs = PBS};
	struct rte_meter_trtcm_rfc4115_params dep = {.cir = CIR, .eir = PIR, .cbs = CBS, .ebs = PBS};
	netcond_srtcm_params nsp;
	netcond_trtcm_params ntp;
	netcond_rfc4115_params nep;
	uint64_t hz, t0;
	double seconds;
	int ret, k, round, failed = 0;

	if (argc > 1 && strcmp(argv[1], "--") != 0) {
		ret = rte_eal_init(argc, argv);
	} else {
		ret = rte_eal_init((int)RTE_DIM(default_eal) - 1, default_eal);
		ret = ret < 0 ? ret : 0;
	}
	if (ret < 0)
		rte_exit(77, "rte_eal_init failed: %s\n", rte_strerror(rte_errno));
	argc -= ret;
	argv += ret;
	if (argc > 1 && strcmp(argv[1], "--") == 0) {
		argc--;
		argv++;
	}
	if (parse_args(argc, argv) < 0)
		rte_exit(EXIT_FAILURE, "usage: [EAL options] -- [-n PACKETS] [-f FLOWS<=256] [-x PPM]\n");

	hz = rte_get_tsc_hz();
	pool = rte_pktmbuf_pool_create("pkts", NB_MBUF + 1, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       (int)rte_socket_id());
	if (pool == NULL)
		rte_exit(EXIT_FAILURE, "cannot allocate the stream\n");

	if (rte_meter_srtcm_profile_config(&d_sp, &dsp) != 0 ||
	    rte_meter_trtcm_profile_config(&d_tp, &dtp) != 0 ||
	    rte_meter_trtcm_rfc4115_profile_config(&d_ep, &dep) != 0)
		rte_exit(EXIT_FAILURE, "rte_meter profile configuration failed\n");
	memset(&nsp, 0, sizeof nsp);
	memset(&ntp, 0, sizeof ntp);
	memset(&nep, 0, sizeof nep);
	nsp.cir = OFFSET(CIR), nsp.cbs = CBS, nsp.ebs = PBS, nsp.tick_hz = hz;
	ntp.cir = OFFSET(CIR), ntp.pir = OFFSET(PIR), ntp.cbs = CBS, ntp.pbs = PBS;
	ntp.tick_hz = hz;
	nep.cir = OFFSET(CIR), nep.eir = OFFSET(PIR), nep.cbs = CBS, nep.ebs = PBS;
	nep.tick_hz = hz;
	nep.ties = NETCOND_RFC4115_FIGURE1;
	if ((ret = netcond_srtcm_profile_config(&n_sp, &nsp)) != 0 ||
	    (ret = netcond_trtcm_profile_config(&n_tp, &ntp)) != 0 ||
	    (ret = netcond_rfc4115_profile_config(&n_ep, &nep)) != 0)
		rte_exit(EXIT_FAILURE, "netcond: %s\n", netcond_strerror(ret));

	t0 = rte_get_tsc_cycles();
	if (fill_stream(pool, hz, t0) != 0)
		rte_exit(EXIT_FAILURE, "cannot build the mbuf stream\n");
	seconds = (double)(time_of(n_packets - 1) - t0) / (double)hz;

	printf("netcond %u.%u.%u beside DPDK %s rte_meter: %u packets, %u flows, "
	       "%.3f ms of traffic at %.2f GHz TSC ticks, best of %d rounds\n",
	       netcond_version() / 10000, netcond_version() / 100 % 100, netcond_version() % 100,
	       rte_version(), n_packets, n_flows, seconds * 1e3, (double)hz / 1e9, ROUNDS);
	printf("rte_meter's trTCM rates at this TSC: CIR %" PRIu64 " B every %" PRIu64
	       " cycles = %.0f B/s, PIR %" PRIu64 " B every %" PRIu64 " cycles = %.0f B/s "
	       "(configured %llu and %llu; netcond enforces those exactly)\n",
	       d_tp.cir_bytes_per_period, d_tp.cir_period,
	       dpdk_rate(hz, d_tp.cir_period, d_tp.cir_bytes_per_period), d_tp.pir_bytes_per_period,
	       d_tp.pir_period, dpdk_rate(hz, d_tp.pir_period, d_tp.pir_bytes_per_period), CIR, PIR);
	printf("%-9s %-8s %10s %10s %10s %8s\n", "marker", "library", "green", "yellow", "red",
	       "ns/pkt");
	for (k = SRTCM; k <= RFC4115; k++) {
		struct counts d, n;
		memset(&d, 0, sizeof d);
		memset(&n, 0, sizeof n);
		for (round = 0; round < ROUNDS; round++) {
			run_dpdk((enum marker)k, &d, hz, t0);
			run_netcond((enum marker)k, &n, hz, t0);
		}
		failed |= compare((enum marker)k, &d, &n, seconds);
	}
	printf("The same packets with netcond at rte_meter's rates, each packet at a whole number "
	       "of both buckets' periods (there DPDK's refill is exact):\n");
	for (k = SRTCM; k <= RFC4115; k++)
		failed |= exact_check((enum marker)k, hz, t0);
	rte_eal_cleanup();
	if (failed)
		printf("FAILED: a color differs at rte_meter's rates, or netcond passed more than "
		       "its rates allow\n");
	return failed;
}
