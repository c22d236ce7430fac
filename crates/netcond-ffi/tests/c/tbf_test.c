/*
 * C tests of netcond.h's token bucket filter (netcond_tbf_*), run by
 * tests/c_tbf.rs.
 *
 *   tbf_test cases        NULL and unconfigured arguments, every
 *                         NETCOND_E_TBF_* rule, the limit computed from a
 *                         latency, the burst then the rate, the peak rate,
 *                         tail drop and packets too big for a bucket.
 *   tbf_test stream SEED  seeded arrivals through two filters (a peak rate
 *                         with an Ethernet overhead; a latency with ATM
 *                         cells), the packets in a ring of this file's; one
 *                         line per filter (counts, a hash of every departure
 *                         instant and length, the final backlog) that the
 *                         Rust test compares with the Rust API's.
 */
#include "check.h"

#define MS 1000000ull

static netcond_tbf_params base(void)
{
	netcond_tbf_params a;
	memset(&a, 0, sizeof a);
	a.rate_bps = 8000000; /* 1 byte per us */
	a.burst_bytes = 3000;
	a.limit_bytes = 100000;
	a.tick_hz = 1000000000;
	return a;
}

static void null_and_unconfigured(void)
{
	netcond_tbf_params a = base();
	netcond_tbf_profile p;
	netcond_tbf s;
	uint64_t at = 0;
	memset(&p, 0, sizeof p);
	memset(&s, 0, sizeof s);
	CHECK_RC(netcond_tbf_profile_config(NULL, &a), NETCOND_E_NULL);
	CHECK_RC(netcond_tbf_profile_config(&p, NULL), NETCOND_E_NULL);
	/* Never configured: treated as NULL. */
	CHECK_RC(netcond_tbf_config(&s, &p, 0), NETCOND_E_NULL);
	CHECK(netcond_tbf_limit(&p) == 0);
	CHECK_RC(netcond_tbf_profile_config(&p, &a), NETCOND_OK);
	CHECK_RC(netcond_tbf_config(NULL, &p, 0), NETCOND_E_NULL);
	/* A state never started. */
	CHECK_RC(netcond_tbf_enqueue(&s, &p, 0, 100), NETCOND_E_NULL);
	CHECK_RC(netcond_tbf_dequeue(&s, &p, 0, 100, &at), NETCOND_E_NULL);
	CHECK_RC(netcond_tbf_next_departure(&s, &p, 0, 100, &at), NETCOND_E_NULL);
	CHECK(netcond_tbf_backlog(&s) == 0 && netcond_tbf_packets(NULL) == 0);
	CHECK_RC(netcond_tbf_config(&s, &p, 0), NETCOND_OK);
	CHECK_RC(netcond_tbf_enqueue(&s, NULL, 0, 100), NETCOND_E_NULL);
	CHECK_RC(netcond_tbf_enqueue(NULL, &p, 0, 100), NETCOND_E_NULL);
	/* A failed configuration leaves the profile unusable. */
	a.rate_bps = 0;
	CHECK_RC(netcond_tbf_profile_config(&p, &a), NETCOND_E_TBF_ZERO_RATE);
	CHECK_RC(netcond_tbf_enqueue(&s, &p, 0, 100), NETCOND_E_NULL);
}

static void every_rule(void)
{
	netcond_tbf_profile p;
	netcond_tbf_params a;
	a = base(); a.rate_bps = 0;
	CHECK_RC(netcond_tbf_profile_config(&p, &a), NETCOND_E_TBF_ZERO_RATE);
	a = base(); a.burst_bytes = 0;
	CHECK_RC(netcond_tbf_profile_config(&p, &a), NETCOND_E_TBF_ZERO_BURST);
	a = base(); a.burst_bytes = 1ull << 32;
	CHECK_RC(netcond_tbf_profile_config(&p, &a), NETCOND_E_TBF_BURST_TOO_LARGE);
	a = base(); a.latency_ns = 10 * MS;
	CHECK_RC(netcond_tbf_profile_config(&p, &a), NETCOND_E_TBF_LIMIT_AND_LATENCY);
	a = base(); a.limit_bytes = 0;
	CHECK_RC(netcond_tbf_profile_config(&p, &a), NETCOND_E_TBF_NO_LIMIT);
	a = base(); a.peakrate_bps = 8000000; a.mtu_bytes = 1500;
	CHECK_RC(netcond_tbf_profile_config(&p, &a), NETCOND_E_TBF_PEAK_NOT_ABOVE_RATE);
	a = base(); a.peakrate_bps = 16000000;
	CHECK_RC(netcond_tbf_profile_config(&p, &a), NETCOND_E_TBF_ZERO_MTU);
	a = base(); a.peakrate_bps = 16000000; a.mtu_bytes = 1ull << 32;
	CHECK_RC(netcond_tbf_profile_config(&p, &a), NETCOND_E_TBF_MTU_TOO_LARGE);
	a = base(); a.tick_hz = 1ull << 60;
	CHECK_RC(netcond_tbf_profile_config(&p, &a), NETCOND_E_TBF_BUCKET_TOO_LARGE);
	a = base(); a.tick_hz = 0;
	CHECK_RC(netcond_tbf_profile_config(&p, &a), NETCOND_E_TICK);
	CHECK(strstr(netcond_strerror(NETCOND_E_TBF_NO_LIMIT), "tc-tbf(8)") != NULL);
}

static void latency_limit(void)
{
	/* tc: 10mbit burst 32k latency 50ms -> 1250000 B/s x 0.05 s + 32768. */
	netcond_tbf_params a = base();
	netcond_tbf_profile p;
	a.rate_bps = 10000000;
	a.burst_bytes = 32768;
	a.limit_bytes = 0;
	a.latency_ns = 50 * MS;
	CHECK_RC(netcond_tbf_profile_config(&p, &a), NETCOND_OK);
	CHECK(netcond_tbf_limit(&p) == 95268);
	CHECK(netcond_tbf_max_size(&p) == 32768);
	/* A slow peak rate takes the smaller limit: 11mbit x 50 ms + mtu. */
	a.peakrate_bps = 11000000;
	a.mtu_bytes = 1514;
	CHECK_RC(netcond_tbf_profile_config(&p, &a), NETCOND_OK);
	CHECK(netcond_tbf_limit(&p) == 68750 + 1514);
	CHECK(netcond_tbf_max_size(&p) == 1514);
}

static void burst_then_rate(void)
{
	netcond_tbf_params a = base();
	netcond_tbf_profile p;
	netcond_tbf s;
	uint64_t at = 0;
	CHECK_RC(netcond_tbf_profile_config(&p, &a), NETCOND_OK);
	CHECK_RC(netcond_tbf_config(&s, &p, 0), NETCOND_OK);
	for (int i = 0; i < 3; i++)
		CHECK_RC(netcond_tbf_enqueue(&s, &p, 0, 1500), NETCOND_TBF_ACCEPT);
	CHECK(netcond_tbf_backlog(&s) == 4500 && netcond_tbf_packets(&s) == 3);
	CHECK_RC(netcond_tbf_dequeue(&s, &p, 0, 1500, &at), NETCOND_TBF_NOW);
	CHECK_RC(netcond_tbf_dequeue(&s, &p, 0, 1500, &at), NETCOND_TBF_NOW);
	CHECK_RC(netcond_tbf_dequeue(&s, &p, 0, 1500, &at), NETCOND_TBF_WAIT);
	CHECK(at == 1500000);
	at = 0;
	CHECK_RC(netcond_tbf_next_departure(&s, &p, 1000, 1500, &at), 1);
	CHECK(at == 1500000);
	CHECK_RC(netcond_tbf_dequeue(&s, &p, 1499999, 1500, NULL), NETCOND_TBF_WAIT);
	CHECK_RC(netcond_tbf_dequeue(&s, &p, 1500000, 1500, NULL), NETCOND_TBF_NOW);
	CHECK(netcond_tbf_backlog(&s) == 0 && netcond_tbf_packets(&s) == 0);
}

static void peak_and_drops(void)
{
	netcond_tbf_params a = base();
	netcond_tbf_profile p;
	netcond_tbf s;
	uint64_t at = 0;
	a.burst_bytes = 10000;
	a.limit_bytes = 4500;
	a.peakrate_bps = 80000000; /* 10 bytes per us */
	a.mtu_bytes = 1500;
	CHECK_RC(netcond_tbf_profile_config(&p, &a), NETCOND_OK);
	CHECK_RC(netcond_tbf_config(&s, &p, 0), NETCOND_OK);
	CHECK_RC(netcond_tbf_enqueue(&s, &p, 0, 1501), NETCOND_TBF_DROP_TOO_BIG);
	CHECK_RC(netcond_tbf_next_departure(&s, &p, 0, 1501, &at), 0);
	CHECK_RC(netcond_tbf_dequeue(&s, &p, 0, 1501, &at), NETCOND_TBF_NEVER);
	for (int i = 0; i < 3; i++)
		CHECK_RC(netcond_tbf_enqueue(&s, &p, 0, 1500), NETCOND_TBF_ACCEPT);
	CHECK_RC(netcond_tbf_enqueue(&s, &p, 0, 1), NETCOND_TBF_DROP_OVER_LIMIT);
	CHECK_RC(netcond_tbf_dequeue(&s, &p, 0, 1500, &at), NETCOND_TBF_NOW);
	/* The peak bucket refills 1500 bytes in 150 us. */
	CHECK_RC(netcond_tbf_dequeue(&s, &p, 0, 1500, &at), NETCOND_TBF_WAIT);
	CHECK(at == 150000);
	CHECK_RC(netcond_tbf_dequeue(&s, &p, at, 1500, &at), NETCOND_TBF_NOW);
	CHECK_RC(netcond_tbf_enqueue(&s, &p, 150000, 1500), NETCOND_TBF_ACCEPT);
	CHECK(netcond_tbf_backlog(&s) == 3000);
}

/* The caller's FIFO: packet lengths. */
#define RING 65536u

static uint32_t ring[RING];

#define FNV 0x100000001b3ull

static void one_stream(const netcond_tbf_params *a, uint64_t seed, const char *name)
{
	netcond_tbf_profile p;
	netcond_tbf s;
	unsigned head = 0, count = 0;
	uint64_t now = 0, cur = 0, at = 0, hash = 0xcbf29ce484222325ull;
	uint64_t acc = 0, over = 0, big = 0, sent = 0;
	rng_state = seed;
	CHECK_RC(netcond_tbf_profile_config(&p, a), NETCOND_OK);
	CHECK_RC(netcond_tbf_config(&s, &p, 0), NETCOND_OK);
	for (unsigned i = 0; i <= PACKETS; i++) {
		uint64_t r = next_u64();
		uint32_t len = 40 + (uint32_t)(r % 1461);
		if ((r >> 40) % 64 == 0)
			len = (r >> 46) % 2 ? 0 : 2000;
		now += (r >> 32) % 64 == 0 ? (r >> 12) % (20 * MS) : (uint64_t)len * 400;
		if (i == PACKETS)
			now = UINT64_MAX / 2; /* drain */
		/* Every head due by `now` leaves, at its own instant. */
		while (count > 0) {
			int rc = netcond_tbf_dequeue(&s, &p, cur, ring[head], &at);
			if (rc == NETCOND_TBF_NOW) {
				hash = (hash ^ cur ^ ((uint64_t)ring[head] << 40)) * FNV;
				head = (head + 1) % RING;
				count--;
				sent++;
			} else if (rc == NETCOND_TBF_WAIT && at <= now) {
				CHECK(at > cur);
				cur = at;
			} else {
				CHECK(rc == NETCOND_TBF_WAIT);
				break;
			}
		}
		if (i == PACKETS)
			break;
		if (now > cur)
			cur = now;
		switch (netcond_tbf_enqueue(&s, &p, cur, len)) {
		case NETCOND_TBF_ACCEPT:
			CHECK(count < RING);
			ring[(head + count) % RING] = len;
			count++;
			acc++;
			break;
		case NETCOND_TBF_DROP_OVER_LIMIT:
			over++;
			break;
		case NETCOND_TBF_DROP_TOO_BIG:
			big++;
			break;
		default:
			CHECK(0);
		}
	}
	CHECK(count == 0 && netcond_tbf_backlog(&s) == 0);
	printf("%s accepted=%" PRIu64 " over=%" PRIu64 " big=%" PRIu64 " sent=%" PRIu64
	       " hash=%016" PRIx64 " last=%" PRIu64 "\n",
	       name, acc, over, big, sent, hash, cur);
}

static void streams(uint64_t seed)
{
	netcond_tbf_params a = base();
	a.rate_bps = 10000000;
	a.burst_bytes = 16000;
	a.limit_bytes = 30000;
	a.peakrate_bps = 50000000;
	a.mtu_bytes = 1600;
	a.overhead = 14;
	one_stream(&a, seed, "peak");
	a = base();
	a.rate_bps = 7000001;
	a.burst_bytes = 1999;
	a.limit_bytes = 0;
	a.latency_ns = 25 * MS;
	a.mpu = 64;
	a.linklayer_atm = 1;
	one_stream(&a, seed, "atm");
}

int main(int argc, char **argv)
{
	static void (*const cases[])(void) = {
		null_and_unconfigured, every_rule, latency_limit, burst_then_rate, peak_and_drops, NULL,
	};
	return test_main(argc, argv, "TBF", cases, streams);
}
