//! The RCP-style controller (`rbcc_rate::rcp`): a configuration with extreme
//! capacities, round-trip times, intervals, gains and clocks (an invalid one
//! must be refused, never panic), then data packets, ACKs, arrivals, control
//! ticks at any time (backwards, wrap-around, 2^62-tick jumps, right at and
//! around the due instant) and direct updates with any rate, input rate,
//! elapsed time and queue. `rbcc_rate::invariants::check_rcp` checks after
//! every step that R stays within `[min_rate, C]`, stamping only lowers a
//! packet's rate field (to `min(field, R)`), ACKs pass unchanged, updates come
//! once per interval and move in the direction of their sign.
//!
//! Differential: every direct update is compared with the update as written,
//! `R (1 + (t/d0) (alpha (C - y) - beta q/d0) / C)` clamped to
//! `[min_rate, C]`, in `f64`, within the bound `RcpProfile::step` documents:
//! `R ((1 + 2^-15) t/d0 + 1) 2^-32 + 2^-16` bit/s (the input and queue terms
//! truncated to 2^-48 bit/s, their ratio to C and the relative change to
//! 2^-32, the rate to 2^-16 bit/s), plus the `f64` evaluation's own error
//! (2^-49 relative to the magnitudes it adds, times `R t/d0 / C`, and to the
//! result). Only inside the documented limits: a queue of at most 2^40
//! bytes, `t <= 2^16 T`, `|f/C| < 255`, a relative change within
//! `(-0.999, 2^27)`, the terms below 2^77 bit/s.
#![no_main]

use arbitrary::Arbitrary;
use core::time::Duration;
use libfuzzer_sys::fuzz_target;
use netcond_core::Rate;
use netcond_fuzz::{bounded, Len, RateSel, Step, TickSel};
use rbcc_rate::invariants::{check_rcp, RcpOp};
use rbcc_rate::{FixedRate, NodeId, RcpConfig, RcpProfile};

/// A rate in a packet header or an update's input.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum HdrRate {
    Bps(RateSel),
    Raw(u64),
    Unlimited,
    Zero,
}

impl HdrRate {
    fn get(self) -> FixedRate {
        match self {
            HdrRate::Bps(r) => FixedRate::from_rate(r.get()),
            HdrRate::Raw(v) => FixedRate::from_raw(v),
            HdrRate::Unlimited => FixedRate::UNLIMITED,
            HdrRate::Zero => FixedRate::ZERO,
        }
    }
}

/// A time in nanoseconds for d0 and T.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Nanos {
    Zero,
    Small(u8),
    /// Up to ~4.3 s.
    Typical(u32),
    /// 100 ms.
    Rtt,
    Max,
    Any(u64),
}

impl Nanos {
    fn get(self) -> u64 {
        match self {
            Nanos::Zero => 0,
            Nanos::Small(v) => u64::from(v) + 1,
            Nanos::Typical(v) => u64::from(v),
            Nanos::Rtt => 100_000_000,
            Nanos::Max => u64::MAX,
            Nanos::Any(v) => v,
        }
    }
}

/// A queue in bytes.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Queue {
    Empty,
    Typical(u32),
    Any(u64),
}

impl Queue {
    fn get(self) -> u64 {
        match self {
            Queue::Empty => 0,
            Queue::Typical(v) => u64::from(v),
            Queue::Any(v) => v,
        }
    }
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Op {
    Data {
        step: Step,
        rate: HdrRate,
        node: u8,
    },
    Ack {
        step: Step,
        rate: HdrRate,
    },
    Arrive(Len),
    Control {
        step: Step,
        queue: Queue,
    },
    ControlNearDue {
        offset: i8,
        queue: Queue,
    },
    Step {
        r: HdrRate,
        y: HdrRate,
        t: Step,
        q: Queue,
    },
}

#[derive(Arbitrary, Debug)]
struct Input {
    node: u8,
    capacity: RateSel,
    alpha: (u32, u32),
    beta: (u32, u32),
    /// false: alpha 0.1 and beta 1, the defaults.
    gains: bool,
    rtt: Nanos,
    /// `None`: T = d0.
    interval: Option<Nanos>,
    initial: Option<RateSel>,
    min_rate: Option<RateSel>,
    tick: TickSel,
    start: u64,
    ops: Vec<Op>,
}

fuzz_target!(|input: Input| {
    let capacity = input.capacity.get();
    let mut cfg = RcpConfig::new(
        NodeId(u32::from(input.node % 4)),
        capacity,
        Duration::from_nanos(input.rtt.get()),
    );
    if input.gains {
        cfg.alpha = input.alpha;
        cfg.beta = input.beta;
    }
    if let Some(t) = input.interval {
        cfg.interval = Duration::from_nanos(t.get());
    }
    if let Some(r) = input.initial {
        cfg.initial = r.get();
    }
    if let Some(r) = input.min_rate {
        cfg.min_rate = r.get();
    }
    cfg.tick = input.tick.get();
    let Ok(p) = RcpProfile::new(&cfg) else {
        // Refused: a rule must have been broken (the rules accepted are
        // checked by `check_rcp`'s `rcp_profile_ok` otherwise).
        let c = cfg.capacity.bits_per_sec();
        assert!(
            cfg.node == NodeId::NONE
                || c == 0
                || c >= 1 << 47
                || cfg.alpha.1 == 0
                || cfg.beta.1 == 0
                // NoGain and ZeroAlpha; AlphaUnstable (alpha <= 1.5707963267).
                || cfg.alpha.0 == 0
                || u128::from(cfg.alpha.0) * 10_000_000_000
                    > u128::from(cfg.alpha.1) * 15_707_963_267
                || cfg.tick.ticks_from_duration(cfg.rtt) == 0
                || cfg.tick.ticks_from_duration(cfg.interval) == 0
                || u128::from(cfg.tick.ticks_from_duration(cfg.interval))
                    > u128::from(cfg.tick.ticks_from_duration(cfg.rtt)) << 16
                || cfg.min_rate == Rate::ZERO
                || cfg.min_rate.bits_per_sec() > c
                || cfg.initial.bits_per_sec() < cfg.min_rate.bits_per_sec()
                || cfg.initial.bits_per_sec() > c,
            "rcp: a valid configuration was refused: {cfg:?}"
        );
        return;
    };
    let ops: Vec<RcpOp> = bounded(&input.ops)
        .iter()
        .map(|op| match *op {
            Op::Data { step, rate, node } => RcpOp::Data {
                dt: step.wild(0),
                rate: rate.get(),
                node: NodeId(u32::from(node % 4)),
            },
            Op::Ack { step, rate } => RcpOp::Ack {
                dt: step.wild(0),
                rate: rate.get(),
            },
            Op::Arrive(len) => RcpOp::Arrive { len: len.get() },
            Op::Control { step, queue } => RcpOp::Control {
                dt: step.wild(0),
                queue: queue.get(),
            },
            Op::ControlNearDue { offset, queue } => RcpOp::ControlNearDue {
                offset,
                queue: queue.get(),
            },
            Op::Step { r, y, t, q } => RcpOp::Step {
                r: r.get(),
                y: y.get(),
                t: t.wild(0),
                q: q.get(),
            },
        })
        .collect();
    if let Err(e) = check_rcp(&p, input.start, &ops) {
        panic!("rcp: {e} (config {cfg:?})");
    }
    for op in &ops {
        if let RcpOp::Step { r, y, t, q } = *op {
            differential(&cfg, &p, r, y, t, q);
        }
    }
});

/// `p.step(r, y, t, q)` against the formula in `f64` (see the module notes).
fn differential(cfg: &RcpConfig, p: &RcpProfile, r: FixedRate, y: FixedRate, t: u64, q: u64) {
    let unit = 65536.0;
    let (lo, c) = (
        p.min_rate().raw() as f64 / unit,
        p.capacity().raw() as f64 / unit,
    );
    let rf = r.raw() as f64 / unit;
    if q > 1 << 40 || t > p.interval_ticks().saturating_mul(1 << 16) || rf < lo || rf > c {
        return;
    }
    let yf = y.raw() as f64 / unit;
    let alpha = f64::from(cfg.alpha.0) / f64::from(cfg.alpha.1);
    let beta = f64::from(cfg.beta.0) / f64::from(cfg.beta.1);
    let d0 = p.rtt_ticks() as f64;
    let hz = cfg.tick.hz() as f64;
    let drain = beta * (q as f64) * 8.0 * hz / d0;
    let f = alpha * (c - yf) - drain;
    let ratio = t as f64 / d0;
    let h = f / c * ratio;
    let lim = 2f64.powi(77);
    if (f / c).abs() >= 255.0
        || !(-0.999..2f64.powi(27)).contains(&h)
        || drain >= lim
        || f.abs() >= lim
    {
        return;
    }
    let want = (rf * (1.0 + h)).clamp(lo, c);
    let got = p.step(r, y, t, q).raw() as f64 / unit;
    let bound = rf * ((1.0 + 2f64.powi(-15)) * ratio + 1.0) * 2f64.powi(-32) + 2f64.powi(-16);
    let magnitude = alpha * (c + yf) + drain;
    let slack = rf * ratio * magnitude / c * 2f64.powi(-49) + want * 2f64.powi(-49);
    assert!(
        (got - want).abs() <= bound + slack,
        "rcp: step from {rf} bit/s, y {yf}, t {t}, q {q}: {got} vs the formula's {want} \
         (bound {bound} + {slack}; config {cfg:?})"
    );
}
