//! CoDel (RFC 8289) under both control laws and both Linux variants, any
//! valid configuration (an invalid one must be refused, never panic), against
//! `aqm_delay::reference::RefCodel` (RFC 8289's pseudocode, or Linux's /
//! ns-3's `codel_dequeue`, in loop form): arrivals, dequeue loops, idle
//! dequeues, backward clock steps and jumps (the clock moving less than 2^62
//! ticks in all); every sent and dropped packet and every
//! CoDel variable equal, and `invariants::check_codel` after every step.
#![no_main]

use std::collections::VecDeque;

use aqm_delay::invariants::check_codel;
use aqm_delay::reference::{Fifo, RefCodel};
use aqm_delay::{Codel, CodelConfig, CodelProfile, Head, Verdict};
use arbitrary::Arbitrary;
use core::time::Duration;
use libfuzzer_sys::fuzz_target;
use netcond_core::{Instant, TickRate};

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Op {
    Arrive { dt: u32, len: u16, ecn: bool },
    Dequeue { dt: u32 },
    Back { dt: u32 },
    Jump { dt: u64 },
}

#[derive(Arbitrary, Debug)]
struct Input {
    law: u8,
    ecn: bool,
    tick: u8,
    target_us: u32,
    interval_us: u32,
    mtu: u16,
    start: u64,
    ops: Vec<Op>,
}

#[derive(Default, Clone, PartialEq, Eq, Debug)]
struct Q {
    items: VecDeque<Head>,
    bytes: u64,
}

impl Q {
    fn push(&mut self, h: Head) {
        self.bytes += u64::from(h.len);
        self.items.push_back(h);
    }
}

impl Fifo for Q {
    fn pop(&mut self) -> Option<Head> {
        let h = self.items.pop_front()?;
        self.bytes -= u64::from(h.len);
        Some(h)
    }
    fn bytes(&self) -> u64 {
        self.bytes
    }
}

fn vars(c: &Codel) -> (u32, u32, bool, u64) {
    (c.count(), c.lastcount(), c.dropping(), c.drop_next())
}

fuzz_target!(|input: Input| {
    let base = match input.law % 3 {
        0 => CodelConfig::rfc8289(),
        1 => CodelConfig::linux(),
        _ => CodelConfig::ns3(),
    };
    let tick = match input.tick % 4 {
        0 => TickRate::NANOS,
        1 => TickRate::MICROS,
        2 => TickRate::from_hz(2_400_000_000).unwrap(),
        _ => TickRate::from_hz(1_000_003).unwrap(),
    };
    let cfg = base
        .with_ecn(input.ecn)
        .with_tick(tick)
        .with_target(Duration::from_micros(u64::from(input.target_us % 50_000)))
        .with_interval(Duration::from_micros(u64::from(
            input.interval_us % 2_000_000,
        )))
        .with_mtu(u32::from(input.mtu));
    let Ok(p) = CodelProfile::new(&cfg) else {
        return;
    };
    let mut now = input.start;
    let mut c = Codel::new(&p, Instant::from_ticks(now));
    let mut r = RefCodel::new(&p, Instant::from_ticks(now));
    let (mut qa, mut qb) = (Q::default(), Q::default());
    let (mut da, mut db) = (Vec::new(), Vec::new());
    for op in input.ops.iter().take(4096) {
        let at = match *op {
            Op::Arrive { dt, .. } | Op::Dequeue { dt } => {
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
        if let Op::Arrive { len, ecn, .. } = *op {
            if qa.items.len() < 1000 {
                let h = Head::new(Instant::from_ticks(at), u32::from(len), ecn);
                qa.push(h);
                qb.push(h);
            }
            continue;
        }
        let t = Instant::from_ticks(at);
        da.clear();
        db.clear();
        let a = loop {
            let Some(h) = qa.pop() else {
                c.on_queue_empty(&p, t);
                break None;
            };
            match c.on_dequeue(&p, t, h, qa.bytes) {
                Verdict::Drop => da.push(h),
                Verdict::Deliver => break Some((h, false)),
                Verdict::Mark => break Some((h, true)),
            }
        };
        let b = r.dequeue(&p, t, &mut qb, |h| db.push(h));
        assert_eq!(
            (a, &da),
            (b, &db),
            "codel: dequeue differs from the model ({cfg:?})"
        );
        assert_eq!(
            vars(&c),
            r.vars(),
            "codel: state differs from the model ({cfg:?})"
        );
        if let Err(e) = check_codel(&c, &p) {
            panic!("codel: {e} ({cfg:?})");
        }
    }
});
