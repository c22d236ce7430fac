/*
 * C tests of netcond.h's rate adaptive shapers whose queue the caller keeps
 * (netcond_ras_core_*), run by tests/c_api.rs.
 *
 *   ras_core_test cases        NULL and unstarted arguments, the caller's
 *                              queue capacity, the buffer limit, nothing
 *                              released before its instant.
 *   ras_core_test stream SEED  seeded arrivals through srRAS and trRAS, each
 *                              twice: through netcond_ras_core with a ring
 *                              buffer of this file's, and through netcond_ras
 *                              with the library's queue; every answer and
 *                              release is checked equal here, and one line
 *                              per kind (counts, a hash of every release, the
 *                              final state) is compared by the Rust test with
 *                              the Rust API.
 */
#include "check.h"
#include "ras_params.h"

/* The caller's queue: a ring of packet lengths, cookies and arrival times. */
#define RING 64u

struct ring {
	uint32_t len[RING];
	uint64_t cookie[RING];
	uint64_t arrival[RING];
	unsigned head, count;
};

static void ring_push(struct ring *q, uint32_t len, uint64_t cookie, uint64_t now)
{
	unsigned i = (q->head + q->count) % RING;
	q->len[i] = len;
	q->cookie[i] = cookie;
	q->arrival[i] = now;
	q->count++;
}

/* Releases the ring's head if the shaper says it is due at `now`: 1 and its
 * length and cookie, or 0. */
static int ring_release(struct ring *q, netcond_ras_core *s, const netcond_ras_profile *p,
			uint64_t now, uint32_t *len, uint64_t *cookie)
{
	uint64_t behind;
	int rc;
	if (q->count == 0)
		return 0;
	/* The arrival of the packet behind the head (ignored if none). */
	behind = q->count > 1 ? q->arrival[(q->head + 1) % RING] : 0;
	rc = netcond_ras_core_dequeue(s, p, now, q->len[q->head], behind);
	if (rc != 1)
		return rc;
	*len = q->len[q->head];
	*cookie = q->cookie[q->head];
	q->head = (q->head + 1) % RING;
	q->count--;
	return 1;
}

static netcond_ras_core core_state;
static netcond_ras own;
static struct ring ring;

static void cases(void)
{
	netcond_ras_profile prof, never;
	netcond_ras_core unstarted;
	netcond_ras_core_info info;
	netcond_srras_params s = sr();
	uint64_t at = 0, cookie = 0;
	uint32_t len = 0;
	int i;

	CHECK_RC(netcond_srras_profile_config(&prof, &s), NETCOND_OK);
	memset(&never, 0, sizeof never);
	memset(&unstarted, 0, sizeof unstarted);

	/* NULL, unstarted and unconfigured arguments. */
	CHECK_RC(netcond_ras_core_config(NULL, &prof, 0, RING), NETCOND_E_NULL);
	CHECK_RC(netcond_ras_core_config(&core_state, NULL, 0, RING), NETCOND_E_NULL);
	CHECK_RC(netcond_ras_core_enqueue(NULL, &prof, 0, 100), NETCOND_E_NULL);
	CHECK_RC(netcond_ras_core_enqueue(&unstarted, &prof, 0, 100), NETCOND_E_NULL);
	CHECK_RC(netcond_ras_core_config(&core_state, &prof, 0, RING), NETCOND_OK);
	CHECK_RC(netcond_ras_core_enqueue(&core_state, NULL, 0, 100), NETCOND_E_NULL);
	CHECK_RC(netcond_ras_core_enqueue(&core_state, &never, 0, 100), NETCOND_E_NULL);
	CHECK_RC(netcond_ras_core_dequeue(NULL, &prof, 0, 100, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_ras_core_dequeue(&core_state, &never, 0, 100, 0), NETCOND_E_NULL);
	CHECK_RC(netcond_ras_core_next_release(NULL, &at), NETCOND_E_NULL);
	CHECK_RC(netcond_ras_core_next_release(&unstarted, &at), NETCOND_E_NULL);
	CHECK_RC(netcond_ras_core_info_get(NULL, &info), NETCOND_E_NULL);
	CHECK_RC(netcond_ras_core_info_get(&core_state, NULL), NETCOND_E_NULL);
	CHECK(netcond_ras_core_shaping_rate(NULL, &prof) == 0);
	CHECK(netcond_ras_core_shaping_rate(&core_state, NULL) == 0);
	/* Nothing was accepted by the failed calls. */
	CHECK_RC(netcond_ras_core_next_release(&core_state, NULL), 0);
	CHECK_RC(netcond_ras_core_info_get(&core_state, &info), NETCOND_OK);
	CHECK(info.packets == 0 && info.bytes == 0);

	/* An empty queue releases nothing. */
	CHECK_RC(netcond_ras_core_dequeue(&core_state, &prof, 0, 100, 0), 0);

	/* The caller's queue of three packets: the fourth is refused. */
	CHECK_RC(netcond_ras_core_config(&core_state, &prof, 0, 3), NETCOND_OK);
	for (i = 0; i < 3; i++)
		CHECK_RC(netcond_ras_core_enqueue(&core_state, &prof, 0, 1500), 0);
	CHECK_RC(netcond_ras_core_enqueue(&core_state, &prof, 0, 1500), 1);
	CHECK_RC(netcond_ras_core_info_get(&core_state, &info), NETCOND_OK);
	CHECK(info.packets == 3 && info.bytes == 4500);

	/* No packet limit: the 60,000-byte buffer takes forty 1500-byte
	 * packets. */
	CHECK_RC(netcond_ras_core_config(&core_state, &prof, 0, UINT32_MAX), NETCOND_OK);
	for (i = 0; i < 40; i++)
		CHECK_RC(netcond_ras_core_enqueue(&core_state, &prof, 0, 1500), 0);
	CHECK_RC(netcond_ras_core_enqueue(&core_state, &prof, 0, 1500), 1);
	CHECK(netcond_ras_core_shaping_rate(&core_state, &prof) >= 1000000);

	/* The first leaves at once; the second not before its instant, which
	 * is at least a transmission time at MIR (3 ms) later. */
	CHECK_RC(netcond_ras_core_next_release(&core_state, &at), 1);
	CHECK(at == 0);
	CHECK_RC(netcond_ras_core_dequeue(&core_state, &prof, 0, 1500, 0), 1);
	CHECK_RC(netcond_ras_core_next_release(&core_state, &at), 1);
	CHECK(at >= 3000000);
	CHECK_RC(netcond_ras_core_dequeue(&core_state, &prof, at - 1, 1500, 0), 0);
	CHECK_RC(netcond_ras_core_dequeue(&core_state, &prof, at, 1500, 0), 1);
	(void)len;
	(void)cookie;
}

static void streams(uint64_t seed)
{
	int kind;
	for (kind = 0; kind < 2; kind++) {
		netcond_ras_profile prof;
		netcond_ras_core_info info;
		uint64_t now = 0, hash = 0xcbf29ce484222325ull, refused = 0, sent = 0;
		unsigned i;

		rng_state = seed;
		if (kind == 0) {
			netcond_srras_params s = sr();
			CHECK_RC(netcond_srras_profile_config(&prof, &s), NETCOND_OK);
		} else {
			netcond_trras_params t = tr();
			CHECK_RC(netcond_trras_profile_config(&prof, &t), NETCOND_OK);
		}
		CHECK_RC(netcond_ras_core_config(&core_state, &prof, 0, RING), NETCOND_OK);
		CHECK_RC(netcond_ras_config(&own, &prof, 0), NETCOND_OK);
		memset(&ring, 0, sizeof ring);
		for (i = 0; i < PACKETS; i++) {
			uint64_t r = next_u64(), at, own_at, cookie, own_cookie;
			/* On-off arrivals: bursts at 8 Mbit/s, pauses; one packet
			 * in eight of 0 or 9000 bytes (the buffer refuses those
			 * above its room). */
			uint32_t l = 64u + (uint32_t)(r % 1437u), len, own_len;
			int late = (int)((r >> 8) & 1u), a, b;
			if ((r >> 40) % 8u == 0)
				l = (r >> 44) % 2u == 0 ? 0u : 9000u;
			now += (r >> 32) % 8u == 0 ? (r >> 12) % 50000000u
						   : (uint64_t)l * 1000u;
			/* Release what is due: at its instant, or (late) at now. */
			for (;;) {
				a = netcond_ras_core_next_release(&core_state, &at);
				b = netcond_ras_next_release(&own, &own_at);
				CHECK(a == b);
				if (a != 1 || at > now)
					break;
				CHECK(at == own_at);
				a = ring_release(&ring, &core_state, &prof, late ? now : at, &len, &cookie);
				b = netcond_ras_dequeue(&own, &prof, late ? now : at, &own_len, &own_cookie);
				CHECK(a == 1 && b == 1);
				if (a != 1 || b != 1)
					break;
				CHECK(len == own_len && cookie == own_cookie);
				hash = (hash ^ at ^ ((uint64_t)len << 40) ^ cookie) * 0x100000001b3ull;
				sent++;
			}
			/* A release tried before its instant: nothing leaves. */
			if (netcond_ras_core_next_release(&core_state, &at) == 1) {
				CHECK(at > now);
				CHECK_RC(ring_release(&ring, &core_state, &prof, now, &len, &cookie), 0);
				CHECK_RC(netcond_ras_dequeue(&own, &prof, now, &own_len, &own_cookie), 0);
			}
			a = netcond_ras_core_enqueue(&core_state, &prof, now, l);
			b = netcond_ras_enqueue(&own, &prof, now, l, i);
			CHECK(a == b);
			if (a == 0)
				ring_push(&ring, l, i, now);
			refused += (uint64_t)(a == 1);
			CHECK(netcond_ras_core_shaping_rate(&core_state, &prof) ==
			      netcond_ras_shaping_rate(&own, &prof));
		}
		CHECK_RC(netcond_ras_core_info_get(&core_state, &info), NETCOND_OK);
		CHECK(info.packets == ring.count && info.packets == netcond_ras_len(&own));
		printf("ras_core%d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		       " %" PRIu64 " %" PRIu64 " %u %" PRIu64 " %u %" PRIu64 " %016" PRIx64 "\n",
		       kind, sent, refused, info.packets, info.bytes, info.ear_raw, info.ear_last,
		       info.head_at, info.head_frac, info.next_at, info.next_frac,
		       netcond_ras_core_shaping_rate(&core_state, &prof), hash);
	}
}

int main(int argc, char **argv)
{
	static void (*const all[])(void) = {cases, NULL};

	return test_main(argc, argv, "RAS core", all, streams);
}
