/* The core's clock while busy, for reading ns figures as cycles
 * (docs/performance.md): times a chain of dependent 64-bit adds, one cycle
 * each on current x86-64 cores, five times.
 *
 *   cc -O2 benches/tools/clock_ghz.c -o /tmp/clock_ghz && taskset -c 0 /tmp/clock_ghz
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define ROUNDS 200000000ULL /* ten adds per round */

int main(void) {
  for (int run = 0; run < 5; run++) {
    struct timespec t0, t1;
    uint64_t x = 1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint64_t i = 0; i < ROUNDS; i++) {
      __asm__ volatile(
          "add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\t"
          "add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0"
          : "+r"(x));
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    printf("%.2f GHz (%llu dependent adds in %.3f s; x %llu)\n", ROUNDS * 10.0 / s / 1e9,
           ROUNDS * 10ULL, s, (unsigned long long)x);
  }
  return 0;
}
