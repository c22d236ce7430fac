/*
 * What every C test in this directory shares: the includes, the check
 * macros, the streams' generator and the command line
 *
 *   <test> cases         the case checks; exit 1 if any failed
 *   <test> stream SEED   the seeded streams, one line per run, which the Rust
 *                        test (tests/c_api.rs) compares with the Rust API's
 *
 * Included once by each test program (its definitions are static).
 */
#ifndef NETCOND_TEST_CHECK_H
#define NETCOND_TEST_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netcond.h"

/* Checks that failed so far. */
static int failures;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
			failures++;                                            \
		}                                                              \
	} while (0)

#define CHECK_RC(expr, want)                                                   \
	do {                                                                   \
		int rc_ = (expr);                                              \
		if (rc_ != (want)) {                                           \
			fprintf(stderr, "%s:%d: %s returned %d (%s), want %d\n", \
				__FILE__, __LINE__, #expr, rc_,                \
				netcond_strerror(rc_), (want));                \
			failures++;                                            \
		}                                                              \
	} while (0)

/* 32.32 fixed point of num/den. */
#define PROB(num, den) ((uint64_t)(((num) * NETCOND_PROB_ONE) / (den)))

/* Packets (or arrivals) of each stream. */
#define PACKETS 100000u

/* The streams' generator (SplitMix64), seeded by setting rng_state. */
static uint64_t rng_state;

static inline uint64_t next_u64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * main's body: runs the NULL-terminated list `cases` for "cases" (printing
 * "all <family> cases passed" when every check held), `streams` for
 * "stream SEED".
 */
static inline int test_main(int argc, char **argv, const char *family,
			    void (*const *cases)(void), void (*streams)(uint64_t))
{
	if (argc >= 2 && strcmp(argv[1], "cases") == 0) {
		for (; *cases; cases++)
			(*cases)();
		if (failures) {
			fprintf(stderr, "%d checks failed\n", failures);
			return 1;
		}
		printf("all %s cases passed\n", family);
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "stream") == 0) {
		streams(strtoull(argv[2], NULL, 0));
		return failures ? 1 : 0;
	}
	fprintf(stderr, "usage: %s cases | stream SEED\n", argv[0]);
	return 2;
}

#endif /* NETCOND_TEST_CHECK_H */
