//! Tests of RED, ECN, Adaptive RED, and the shared fixed-point machinery,
//! by subject: the average ([`average`]), the curve and the decisions
//! ([`curve_and_decisions`]), the spreadings ([`spreading`]), byte mode
//! ([`byte_mode`]), ECN ([`ecn`]), configuration ([`configuration`]),
//! Adaptive RED ([`adaptive`]), the invariants ([`properties`]), the short
//! paths ([`short_path`]) and the checks' detector runs on the real code
//! ([`mutations`]). This file
//! holds what they share: fixtures, the settling driver and the configuration
//! strategy.
//!
//! Floats are used freely here (reference values and statistics).

#![allow(clippy::float_arithmetic)]

use super::*;
use crate::invariants::{self, Op};
use crate::reference::{gap_moments, gap_pmf, p_b as ref_p_b, RefAvg};
use crate::{AdaptiveRed, AdaptiveRedConfig, AdaptiveRedProfile, Ecn, Supplied};
use netcond_core::SplitMix64;
use proptest::prelude::*;

mod adaptive;
mod average;
mod byte_mode;
mod configuration;
mod curve_and_decisions;
mod ecn;
mod mutations;
mod properties;
mod short_path;
mod spreading;

const ALL_SPREADINGS: [Spreading; 7] = [
    Spreading::Accumulated,
    Spreading::AccumulatedDpdk,
    Spreading::Uniform,
    Spreading::UniformCountFirst,
    Spreading::Dpdk,
    Spreading::Geometric,
    Spreading::Wait,
];

fn cfg(min_th: u32, max_th: u32, max_p: f64, w_q: f64, limit: u32) -> RedConfig {
    RedConfig::packets(
        min_th,
        max_th,
        RedConfig::prob(max_p),
        RedConfig::prob(w_q),
        limit,
    )
}

fn zheng_kinicki_router() -> RedConfig {
    cfg(10, 30, 0.5, 0.001, 50)
}

fn t(x: u64) -> Instant {
    Instant::from_ticks(x)
}

fn units(p: &RedProfile, red: &Red) -> f64 {
    red.avg(p).to_num::<f64>()
}

/// Runs `n` arrivals at a constant queue `q` and returns the state.
///
/// Miri interprets every instruction, and tens of thousands of arrivals per
/// call are too slow there: under Miri the average starts at the fixed point
/// those arrivals converge to (`q` in fixed point, which
/// `average_converges_exactly_to_a_constant_queue` checks natively) and at
/// most 20 arrivals run.
fn settle(p: &RedProfile, q: u32, n: u64) -> Red {
    let mut red = Red::new(p, Instant::ZERO);
    let mut rng = SplitMix64::new(99);
    let n = if cfg!(miri) {
        red.avg = p.common.avg.q_fx(q);
        n.min(20)
    } else {
        n
    };
    for i in 0..n {
        red.on_arrival(p, t(i * 100), q, Packet::not_ect(1000), &mut rng);
    }
    red
}

fn arb_config() -> impl Strategy<Value = RedConfig> {
    (
        (
            0u32..500,
            1u32..500,
            0u64..=1 << 32,
            1u64..=1 << 32,
            0u32..3000,
        ),
        (
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            prop::option::of(0u32..1000),
            0..ALL_SPREADINGS.len(),
            1u64..10_000_000,
            prop::option::of(1u32..10_000),
        ),
    )
        .prop_map(
            |((min_th, span, max_p, w, extra), (bytes, gentle, ecn, hard, s, idle, byte_mode))| {
                let mut c = RedConfig::packets(
                    min_th,
                    min_th + span,
                    U32F32::from_bits(max_p),
                    U32F32::from_bits(w),
                    min_th + span + extra,
                );
                c.queue.unit = if bytes {
                    QueueUnit::Bytes
                } else {
                    QueueUnit::Packets
                };
                c.queue.gentle = gentle;
                c.queue.ecn = ecn;
                // RFC 3168 section 7's hard threshold: with ECN only, within
                // [min_th, limit] (the profile's rules).
                c.queue.ecn_drop_th = hard
                    .filter(|_| ecn)
                    .map(|h| h.clamp(min_th, min_th + span + extra));
                c.queue.spreading = ALL_SPREADINGS[s];
                c.queue.typical_tx = core::time::Duration::from_nanos(idle);
                c.queue.byte_mode = byte_mode;
                c
            },
        )
}
