//! PIE under both laws (Linux's `sch_pie` arithmetic; RFC 8033's with either
//! delay estimator, with and without derandomization), any valid
//! configuration, against the reference models (`reference::LinuxPie`, a
//! transcription of `sch_pie.c`, and `reference::RfcPie`, RFC 8033's
//! pseudocode in exact arithmetic): arrivals, departures with any sojourn
//! time and backlog, polls and backward clock steps, with the same random
//! draws; every verdict and variable equal (for the RFC law the probability
//! at the exact update's floor, or one unit below it after the decay, the
//! model re-synchronised before each step), and `invariants::check_pie`
//! after every step.
#![no_main]

use aqm_delay::invariants::check_pie;
use aqm_delay::reference::{LinuxPie, RfcPie};
use aqm_delay::{Head, Pie, PieConfig, PieEstimator, PieLaw, PieProfile};
use arbitrary::Arbitrary;
use core::time::Duration;
use libfuzzer_sys::fuzz_target;
use netcond_core::{Instant, SplitMix64, TickRate};

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Op {
    Arrive {
        dt: u32,
        len: u16,
        ecn: bool,
        qlen: u16,
        backlog: u32,
    },
    Depart {
        dt: u32,
        age: u32,
        len: u16,
        backlog: u32,
    },
    Poll {
        dt: u32,
        backlog: u32,
    },
    Back {
        dt: u32,
    },
    Jump {
        dt: u64,
    },
}

#[derive(Arbitrary, Debug)]
struct Input {
    rfc: bool,
    rate: bool,
    derandomize: bool,
    ecn: bool,
    bytemode: bool,
    bound: bool,
    tick: u8,
    target_us: u32,
    t_update_us: u32,
    burst_ms: u16,
    alpha: u8,
    beta: u8,
    limit: u16,
    mtu: u16,
    seed: u64,
    start: u64,
    ops: Vec<Op>,
}

enum Model {
    Linux(LinuxPie),
    Rfc(RfcPie),
}

fuzz_target!(|input: Input| {
    let tick = match input.tick % 3 {
        0 => TickRate::NANOS,
        1 => TickRate::MICROS,
        _ => TickRate::from_hz(2_400_000_000).unwrap(),
    };
    let cfg = if input.rfc {
        PieConfig::rfc8033()
            .with_law(PieLaw::Rfc8033)
            .with_estimator(if input.rate {
                PieEstimator::DepartureRate
            } else {
                PieEstimator::Timestamp
            })
            .with_derandomize(input.derandomize)
    } else {
        PieConfig::linux()
    }
    .with_ecn(input.ecn)
    .with_bytemode(input.bytemode)
    .with_bound_prob(input.bound)
    .with_tick(tick)
    .with_target(Duration::from_micros(u64::from(
        input.target_us % 1_000_000,
    )))
    .with_t_update(Duration::from_micros(u64::from(
        input.t_update_us % 1_000_000,
    )))
    .with_max_burst(Duration::from_millis(u64::from(input.burst_ms)))
    .with_alpha_beta(u32::from(input.alpha), u32::from(input.beta))
    .with_limit(u32::from(input.limit))
    .with_mtu(u32::from(input.mtu));
    let Ok(p) = PieProfile::new(&cfg) else {
        return;
    };
    let mut now = input.start;
    let start = Instant::from_ticks(now);
    let mut pie = Pie::new(&p, start);
    let mut model = if input.rfc {
        Model::Rfc(RfcPie::new(&p, start))
    } else {
        Model::Linux(LinuxPie::new(&p, start))
    };
    let (mut ra, mut rb) = (SplitMix64::new(input.seed), SplitMix64::new(input.seed));
    for op in input.ops.iter().take(4096) {
        let at = match *op {
            Op::Arrive { dt, .. } | Op::Depart { dt, .. } | Op::Poll { dt, .. } => {
                now = now.wrapping_add(u64::from(dt));
                now
            }
            Op::Back { dt } => now.wrapping_sub(u64::from(dt)),
            Op::Jump { dt } => {
                // Up to 2^40 ticks: over a whole input the clock moves less
                // than 2^62 ticks, where the state machines and the models
                // read stale instants alike (see the crate's docs on time).
                now = now.wrapping_add(dt % (1 << 40));
                now
            }
        };
        let t = Instant::from_ticks(at);
        if let Model::Rfc(r) = &mut model {
            r.drop_prob_ = pie.prob();
        }
        match *op {
            Op::Arrive {
                len,
                ecn,
                qlen,
                backlog,
                ..
            } => {
                let h = Head::new(t, u32::from(len), ecn);
                let (ql, bl) = (u32::from(qlen), u64::from(backlog));
                let a = pie.on_arrival(&p, t, h, ql, bl, &mut ra);
                let b = match &mut model {
                    Model::Linux(m) => m.enqueue(&p, t, h, ql, bl, &mut rb),
                    Model::Rfc(m) => m.enque(&p, t, h, ql, bl, &mut rb),
                };
                assert_eq!(a, b, "pie: verdict differs from the model ({cfg:?})");
            }
            Op::Depart {
                age, len, backlog, ..
            } => {
                let h = Head::new(
                    Instant::from_ticks(at.wrapping_sub(u64::from(age))),
                    u32::from(len),
                    false,
                );
                pie.on_dequeue(&p, t, h, u64::from(backlog));
                match &mut model {
                    Model::Linux(m) => m.dequeue(&p, t, h, u64::from(backlog)),
                    Model::Rfc(m) => m.deque(&p, t, h, u64::from(backlog)),
                }
            }
            Op::Poll { backlog, .. } | Op::Back { dt: backlog } => {
                let bl = u64::from(backlog);
                let a = pie.poll(&p, t, bl);
                let b = match &mut model {
                    Model::Linux(m) => m.timer(&p, t, bl),
                    Model::Rfc(m) => m.calculate_drop_prob(&p, t, bl),
                };
                assert_eq!(a, b, "pie: timer differs from the model ({cfg:?})");
                if let (true, Model::Rfc(m)) = (a, &mut model) {
                    let floor = m.last_exact.0;
                    assert!(
                        pie.prob() == floor || (pie.prob() + 1 == floor && pie.qdelay_old() == 0),
                        "pie: prob {} off the exact update's floor {floor} ({cfg:?})",
                        pie.prob()
                    );
                    m.drop_prob_ = pie.prob();
                }
            }
            Op::Jump { .. } => {}
        }
        let a = (
            pie.prob(),
            pie.accu_prob(),
            pie.qdelay(),
            pie.qdelay_old(),
            pie.burst_time(),
            pie.next_update(),
        );
        let b = match &model {
            Model::Linux(m) => (
                m.prob,
                m.accu_prob,
                m.qdelay,
                m.qdelay_old,
                m.burst_time,
                m.next_update,
            ),
            Model::Rfc(m) => (
                m.drop_prob_,
                m.accu_prob_,
                m.current_qdelay,
                m.qdelay_old_,
                m.burst_allowance_,
                m.next_update,
            ),
        };
        assert_eq!(a, b, "pie: state differs from the model ({cfg:?})");
        if let Model::Rfc(m) = &model {
            assert_eq!(
                (pie.avg_dq_time(), pie.in_measurement(), pie.dq_count()),
                (m.avg_dq_time_, m.in_measurement_, m.dq_count_),
                "pie: departure-rate estimator differs ({cfg:?})"
            );
        }
        if let Err(e) = check_pie(&pie, &p) {
            panic!("pie: {e} ({cfg:?})");
        }
    }
});
