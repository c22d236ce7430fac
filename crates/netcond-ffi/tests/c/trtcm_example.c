/* The complete trTCM example of docs/c-api.md (compiled and run by
 * tests/c_api.rs). */
#include <stdio.h>
#include <stdlib.h>

#include "netcond.h"

#define FLOWS 1024

int main(void)
{
	/* RFC 2698: CIR 1 MB/s, PIR 2 MB/s, CBS 3000 B, PBS 6000 B; nanoseconds. */
	netcond_trtcm_params params = {0};
	netcond_trtcm_profile profile; /* shared, read-only once configured */
	netcond_trtcm *flows;          /* 24 bytes per flow, owned by the caller */
	unsigned long counts[3] = {0, 0, 0};
	uint64_t now;
	int rc;

	params.cir = 1000000;
	params.pir = 2000000;
	params.cbs = 3000;
	params.pbs = 6000;
	params.tick_hz = 1000000000;
	rc = netcond_trtcm_profile_config(&profile, &params);
	if (rc != NETCOND_OK) {
		fprintf(stderr, "trTCM profile: %s\n", netcond_strerror(rc));
		return 1;
	}

	flows = malloc(FLOWS * sizeof *flows);
	if (flows == NULL)
		return 1;
	/* Every flow starts with full buckets at time 0. */
	rc = netcond_trtcm_config_array(flows, FLOWS, &profile, 0);
	if (rc != NETCOND_OK) {
		fprintf(stderr, "trTCM flows: %s\n", netcond_strerror(rc));
		return 1;
	}

	/* Flow 7 sends a 1500-byte packet every 500 us for one second: 3 MB/s,
	 * above its PIR. */
	for (now = 0; now <= 1000000000; now += 500000) {
		netcond_color c = netcond_trtcm_color_blind_check(&flows[7], &profile, now, 1500);
		counts[c]++;
	}
	printf("green %lu yellow %lu red %lu\n", counts[NETCOND_GREEN], counts[NETCOND_YELLOW],
	       counts[NETCOND_RED]);
	/* Green bytes: CBS + CIR x 1 s = 1,003,000 at most; green + yellow:
	 * PBS + PIR x 1 s = 2,006,000 at most (each within one packet). */
	free(flows);
	return counts[NETCOND_GREEN] == 668 && counts[NETCOND_YELLOW] == 669 ? 0 : 1;
}
