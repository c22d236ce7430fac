/*
 * The srRAS and trRAS shapers of ras_test.c, ras_core_test.c and
 * green_ras_test.c (the Rust side's ras::profiles in tests/c_api/ras.rs):
 * CIR 1 Mbit/s (trRAS: PIR 2 Mbit/s), MIR 4 Mbit/s, a 10 Mbit/s line, a
 * 60,000-byte buffer, K 100 ms, nanosecond ticks. Included after check.h,
 * once by each test program.
 */
#ifndef NETCOND_TEST_RAS_PARAMS_H
#define NETCOND_TEST_RAS_PARAMS_H

#include "check.h"

static netcond_srras_params sr(void)
{
	netcond_srras_params p;
	memset(&p, 0, sizeof p);
	p.cir_bps = 1000000;
	p.mir_bps = 4000000;
	p.line_rate_bps = 10000000;
	p.buffer_bytes = 60000;
	p.k_ns = 100000000;
	p.tick_hz = 1000000000;
	p.max_packet_bytes = 1500;
	return p;
}

static netcond_trras_params tr(void)
{
	netcond_trras_params p;
	memset(&p, 0, sizeof p);
	p.cir_bps = 1000000;
	p.pir_bps = 2000000;
	p.mir_bps = 4000000;
	p.line_rate_bps = 10000000;
	p.buffer_bytes = 60000;
	p.k_ns = 100000000;
	p.tick_hz = 1000000000;
	p.max_packet_bytes = 1500;
	return p;
}

#endif /* NETCOND_TEST_RAS_PARAMS_H */
