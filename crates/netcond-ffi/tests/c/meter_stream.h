/*
 * The meter streams' packets, shared by meter_test.c and
 * meter_counted_test.c (and built alike by next_pkt in tests/c_api.rs):
 * mostly 64..1518-byte packets 0..17.6 us apart (about 114 000 packets/s,
 * 1.3 x PIR of DPDK's test profile on nanosecond ticks), with clock steps
 * backwards, zero-length and u32-max-length packets mixed in. Included after
 * check.h, once by each test program.
 */
#ifndef NETCOND_TEST_METER_STREAM_H
#define NETCOND_TEST_METER_STREAM_H

#include "check.h"

/* One packet of the stream: its time, length and input color. */
struct pkt {
	uint64_t now;
	uint32_t len;
	int color;
};

static struct pkt next_pkt(uint64_t *now)
{
	struct pkt k;
	uint64_t r = next_u64();
	uint64_t step = r % 17600u;
	unsigned kind = (unsigned)((r >> 8) % 1000u);

	if (kind == 0 && *now > 50000u)
		*now -= 50000u; /* a clock stepping back */
	else
		*now += step;
	k.now = *now;
	k.len = 64u + (uint32_t)((r >> 20) % 1455u);
	if (kind == 1)
		k.len = 0;
	if (kind == 2)
		k.len = UINT32_MAX;
	k.color = (int)((r >> 40) % 3u);
	return k;
}

#endif /* NETCOND_TEST_METER_STREAM_H */
