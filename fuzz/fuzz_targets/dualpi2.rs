//! DualPI2 (RFC 9332) with any valid configuration (either scheduler, every
//! decision method, any gains, coupling, ramp, Th_len and limit) against
//! `aqm_delay::reference::RfcDualPi2` (Appendix A's pseudocode in loop form,
//! exact arithmetic): arrivals of every ECN codepoint, dequeue loops, PI
//! updates and backward clock steps, with the same random draws; every
//! classification, every sent and dropped packet, every variable equal, and
//! `invariants::check_dualpi2` after every step.
#![no_main]

use std::collections::VecDeque;

use aqm_delay::invariants::check_dualpi2;
use aqm_delay::reference::{DualFifo, RfcDualPi2};
use aqm_delay::{
    DualDecision, DualHead, DualPi2, DualPi2Config, DualPi2Profile, DualQueue, DualScheduler, Ecn,
    Verdict,
};
use arbitrary::Arbitrary;
use core::time::Duration;
use libfuzzer_sys::fuzz_target;
use netcond_core::{Instant, SplitMix64, TickRate};

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Op {
    Arrive { dt: u32, len: u16, ecn: u8 },
    Dequeue { dt: u32 },
    Poll { dt: u32 },
    Back { dt: u32 },
    Jump { dt: u64 },
}

#[derive(Arbitrary, Debug)]
struct Input {
    decision: u8,
    curq_max: bool,
    wrr: Option<(u16, u16)>,
    tshift_us: u32,
    k16: u16,
    alpha_mhz: u32,
    beta_mhz: u32,
    target_us: u32,
    t_update_us: u32,
    min_th_us: u16,
    range_us: u16,
    th_len: u8,
    limit: u32,
    mtu: u16,
    tick: u8,
    seed: u64,
    start: u64,
    ops: Vec<Op>,
}

#[derive(Default, Clone, PartialEq, Eq, Debug)]
struct Q {
    items: VecDeque<DualHead>,
    bytes: u64,
}

impl DualFifo for Q {
    fn pop(&mut self) -> Option<DualHead> {
        let h = self.items.pop_front()?;
        self.bytes -= u64::from(h.len);
        Some(h)
    }
    fn head(&self) -> Option<DualHead> {
        self.items.front().copied()
    }
    fn len(&self) -> usize {
        self.items.len()
    }
    fn byt(&self) -> u64 {
        self.bytes
    }
}

impl Q {
    fn push(&mut self, h: DualHead) {
        self.bytes += u64::from(h.len);
        self.items.push_back(h);
    }
}

fuzz_target!(|input: Input| {
    let tick = match input.tick % 3 {
        0 => TickRate::NANOS,
        1 => TickRate::MICROS,
        _ => TickRate::from_hz(2_400_000_000).unwrap(),
    };
    let cfg = DualPi2Config::rfc9332()
        .with_decision(match input.decision % 3 {
            0 => DualDecision::Recur,
            1 => DualDecision::Random { two_draws: true },
            _ => DualDecision::Random { two_draws: false },
        })
        .with_curq_max(input.curq_max)
        .with_scheduler(match input.wrr {
            Some((l4s, classic)) => DualScheduler::WeightedRoundRobin { l4s, classic },
            None => DualScheduler::TimeShifted {
                tshift: Duration::from_micros(u64::from(input.tshift_us)),
            },
        })
        .with_k16(u32::from(input.k16))
        .with_gains(input.alpha_mhz, input.beta_mhz)
        .with_target(Duration::from_micros(u64::from(
            input.target_us % 1_000_000,
        )))
        .with_t_update(Duration::from_micros(u64::from(
            input.t_update_us % 1_000_000,
        )))
        .with_ramp(
            Duration::from_micros(u64::from(input.min_th_us)),
            Duration::from_micros(u64::from(input.range_us)),
        )
        .with_th_len(u32::from(input.th_len))
        .with_limit(u64::from(input.limit), u32::from(input.mtu))
        .with_tick(tick);
    let Ok(p) = DualPi2Profile::new(&cfg) else {
        return;
    };
    let mut now = input.start;
    let mut d = DualPi2::new(&p, Instant::from_ticks(now));
    let mut r = RfcDualPi2::new(&p, Instant::from_ticks(now));
    let (mut ra, mut rb) = (SplitMix64::new(input.seed), SplitMix64::new(input.seed));
    let (mut la, mut ca, mut lb, mut cb) = (Q::default(), Q::default(), Q::default(), Q::default());
    for op in input.ops.iter().take(4096) {
        let at = match *op {
            Op::Arrive { dt, .. } | Op::Dequeue { dt } | Op::Poll { dt } => {
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
        match *op {
            Op::Arrive { len, ecn, .. } => {
                let ecn = Ecn::from_bits(ecn);
                let h = DualHead::new(t, u32::from(len), ecn);
                let x = d.on_arrival(&p, t, ecn, h.len, la.bytes + ca.bytes);
                let y = r.enqueue(&p, t, &lb, &cb, ecn);
                assert_eq!(x, y, "dualpi2: enqueue differs from the model ({cfg:?})");
                match x {
                    Some(DualQueue::L4s) => {
                        la.push(h);
                        lb.push(h);
                    }
                    Some(DualQueue::Classic) => {
                        ca.push(h);
                        cb.push(h);
                    }
                    None => {}
                }
            }
            Op::Dequeue { .. } | Op::Back { .. } => {
                let mut da = Vec::new();
                let x = loop {
                    let l = la.head().map(|h| h.enqueued);
                    let c = ca.head().map(|h| h.enqueued);
                    let Some(q) = d.schedule(&p, t, l, c) else {
                        break None;
                    };
                    let fifo = if q == DualQueue::L4s {
                        &mut la
                    } else {
                        &mut ca
                    };
                    let h = fifo.pop().expect("the scheduled queue holds a packet");
                    let left = fifo.items.len() as u32;
                    match d.on_dequeue(&p, t, q, h, left, &mut ra) {
                        Verdict::Drop => da.push((q, h)),
                        Verdict::Deliver => break Some((q, h, false)),
                        Verdict::Mark => break Some((q, h, true)),
                    }
                };
                let mut db = Vec::new();
                let y = r.dequeue(&p, t, &mut lb, &mut cb, &mut rb, |q, h| db.push((q, h)));
                assert_eq!((x, &da), (y, &db), "dualpi2: dequeue differs ({cfg:?})");
            }
            Op::Poll { .. } | Op::Jump { .. } => {
                let a = d.poll(
                    &p,
                    t,
                    la.head().map(|h| h.enqueued),
                    ca.head().map(|h| h.enqueued),
                );
                assert_eq!(
                    a,
                    r.update(&p, t, &lb, &cb),
                    "dualpi2: timer differs ({cfg:?})"
                );
            }
        }
        assert_eq!(
            (
                d.p_prime(),
                d.prevq(),
                d.counts(),
                d.next_update(),
                d.wrr_position()
            ),
            (
                r.p_prime,
                r.prevq,
                (r.lq_count, r.cq_count),
                r.next_update,
                r.rr
            ),
            "dualpi2: state differs from the model ({cfg:?})"
        );
        assert!(la == lb && ca == cb, "dualpi2: queues differ ({cfg:?})");
        if let Err(e) = check_dualpi2(&d, &p) {
            panic!("dualpi2: {e} ({cfg:?})");
        }
    }
});
