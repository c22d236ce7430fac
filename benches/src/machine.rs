//! A reading of the machine itself, taken in every bench binary beside the
//! measurements.
//!
//! On a shared virtual machine the same binary can run at two speeds from one
//! run to the next. Two loops tell the causes apart:
//!
//! - [`dependent_adds`]: one chain of dependent additions, one per cycle
//!   whatever else the core does. Its time per addition is the clock period.
//! - [`independent_adds`]: eight independent chains, as many additions per
//!   cycle as the core has integer units free for this thread (four on the
//!   Zen 3 cores these figures were taken on).
//!
//! The ratio of the two is the additions per cycle this thread got. A clock
//! that drops lowers both; another hardware thread on the same physical core
//! (invisible from inside the virtual machine) lowers only the second. The
//! markers are limited by how many instructions they can issue per cycle, so
//! they slow down with the second loop, not with the first.

/// Additions in one iteration of either loop.
pub const ADDS_PER_ITER: u64 = 32;

/// `iters` x [`ADDS_PER_ITER`] additions spread over eight independent
/// registers; returns a value that depends on all of them.
#[cfg(target_arch = "x86_64")]
#[must_use]
pub fn independent_adds(iters: u64) -> u64 {
    let (mut a, mut b, mut c, mut d) = (1u64, 2u64, 3u64, 4u64);
    let (mut e, mut f, mut g, mut h) = (5u64, 6u64, 7u64, 8u64);
    for _ in 0..iters {
        // SAFETY: register-only additions; no memory, stack or flags contract.
        #[allow(unsafe_code)]
        unsafe {
            core::arch::asm!(
                "add {a}, 1", "add {b}, 1", "add {c}, 1", "add {d}, 1",
                "add {e}, 1", "add {f}, 1", "add {g}, 1", "add {h}, 1",
                "add {a}, 1", "add {b}, 1", "add {c}, 1", "add {d}, 1",
                "add {e}, 1", "add {f}, 1", "add {g}, 1", "add {h}, 1",
                "add {a}, 1", "add {b}, 1", "add {c}, 1", "add {d}, 1",
                "add {e}, 1", "add {f}, 1", "add {g}, 1", "add {h}, 1",
                "add {a}, 1", "add {b}, 1", "add {c}, 1", "add {d}, 1",
                "add {e}, 1", "add {f}, 1", "add {g}, 1", "add {h}, 1",
                a = inout(reg) a, b = inout(reg) b, c = inout(reg) c, d = inout(reg) d,
                e = inout(reg) e, f = inout(reg) f, g = inout(reg) g, h = inout(reg) h,
                options(nomem, nostack)
            );
        }
    }
    a ^ b ^ c ^ d ^ e ^ f ^ g ^ h
}

/// `iters` x [`ADDS_PER_ITER`] additions, each waiting for the one before.
#[cfg(target_arch = "x86_64")]
#[must_use]
pub fn dependent_adds(iters: u64) -> u64 {
    let mut a = 1u64;
    for _ in 0..iters {
        // SAFETY: register-only additions; no memory, stack or flags contract.
        #[allow(unsafe_code)]
        unsafe {
            core::arch::asm!(
                "add {a}, 1", "add {a}, 1", "add {a}, 1", "add {a}, 1",
                "add {a}, 1", "add {a}, 1", "add {a}, 1", "add {a}, 1",
                "add {a}, 1", "add {a}, 1", "add {a}, 1", "add {a}, 1",
                "add {a}, 1", "add {a}, 1", "add {a}, 1", "add {a}, 1",
                "add {a}, 1", "add {a}, 1", "add {a}, 1", "add {a}, 1",
                "add {a}, 1", "add {a}, 1", "add {a}, 1", "add {a}, 1",
                "add {a}, 1", "add {a}, 1", "add {a}, 1", "add {a}, 1",
                "add {a}, 1", "add {a}, 1", "add {a}, 1", "add {a}, 1",
                a = inout(reg) a,
                options(nomem, nostack)
            );
        }
    }
    a
}

/// Registers the two loops as the benchmarks `machine/<binary>/independent_adds`
/// and `machine/<binary>/dependent_adds`, in nanoseconds per addition. On
/// other architectures there is nothing to register (the loops are x86-64
/// assembly, so that no compiler can merge or vectorize them).
pub fn bench(c: &mut criterion::Criterion, binary: &str) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::hint::black_box;
        const ITERS: u64 = 1024;
        let mut g = c.benchmark_group(format!("machine/{binary}"));
        g.throughput(criterion::Throughput::Elements(ITERS * ADDS_PER_ITER));
        g.sample_size(200);
        g.bench_function("independent_adds", |b| {
            b.iter(|| independent_adds(black_box(ITERS)));
        });
        g.bench_function("dependent_adds", |b| {
            b.iter(|| dependent_adds(black_box(ITERS)));
        });
        g.finish();
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (c, binary);
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    #[test]
    fn loops_add_what_they_say() {
        // 8 registers starting 1..=8, each +4 per iteration.
        let n = 10;
        let x = independent_adds(n);
        let expect = (1..=8u64).map(|r| r + 4 * n).fold(0, |acc, v| acc ^ v);
        assert_eq!(x, expect);
        assert_eq!(dependent_adds(n), 1 + ADDS_PER_ITER * n);
    }
}
