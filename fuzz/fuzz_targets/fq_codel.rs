//! FQ-CoDel (RFC 8290) over 8 flows with either CoDel law, single or batch
//! overflow drops, any valid configuration, against
//! `aqm_delay::reference::FqCodelRef` (Linux's `fq_codel_dequeue` and
//! `fq_codel_drop` loops): arrivals to any flow, dequeues and backward clock
//! steps; every overflow victim, every sent and dropped packet, every flow's
//! CoDel variables equal, and `invariants::check_fq_codel` after every step.
#![no_main]

use std::collections::VecDeque;

use aqm_delay::invariants::check_fq_codel;
use aqm_delay::reference::{FlowFifos, FqCodelRef};
use aqm_delay::{
    CodelConfig, Enqueued, FqCodel, FqCodelConfig, FqCodelProfile, Head, OverflowDrop, Verdict,
};
use arbitrary::Arbitrary;
use core::time::Duration;
use libfuzzer_sys::fuzz_target;
use netcond_core::Instant;

const N: usize = 8;

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Op {
    Arrive {
        dt: u32,
        len: u16,
        ecn: bool,
        flow: u8,
    },
    Dequeue {
        dt: u32,
    },
    Back {
        dt: u32,
    },
}

#[derive(Arbitrary, Debug)]
struct Input {
    law: u8,
    ecn: bool,
    target_us: u16,
    interval_ms: u16,
    quantum: u16,
    limit: u16,
    batch: Option<u8>,
    start: u64,
    ops: Vec<Op>,
}

#[derive(Clone, PartialEq, Eq, Debug)]
struct Store {
    flows: [VecDeque<Head>; N],
    bytes: [u64; N],
}

impl Store {
    fn new() -> Store {
        Store {
            flows: core::array::from_fn(|_| VecDeque::new()),
            bytes: [0; N],
        }
    }
    fn push(&mut self, f: usize, h: Head) {
        self.bytes[f] += u64::from(h.len);
        self.flows[f].push_back(h);
    }
}

impl FlowFifos for Store {
    fn pop(&mut self, f: usize) -> Option<Head> {
        let h = self.flows[f % N].pop_front()?;
        self.bytes[f % N] -= u64::from(h.len);
        Some(h)
    }
    fn is_empty(&self, f: usize) -> bool {
        self.flows[f % N].is_empty()
    }
    fn flow_bytes(&self, f: usize) -> u64 {
        self.bytes[f % N]
    }
    fn total_bytes(&self) -> u64 {
        self.bytes.iter().sum()
    }
}

fn vars(c: &aqm_delay::Codel) -> (u32, u32, bool, u64) {
    (c.count(), c.lastcount(), c.dropping(), c.drop_next())
}

fuzz_target!(|input: Input| {
    let codel = match input.law % 3 {
        0 => CodelConfig::rfc8289(),
        1 => CodelConfig::linux(),
        _ => CodelConfig::ns3(),
    }
    .with_ecn(input.ecn)
    .with_target(Duration::from_micros(u64::from(input.target_us)))
    .with_interval(Duration::from_millis(u64::from(input.interval_ms % 2_000)));
    let cfg = FqCodelConfig::rfc8290()
        .with_codel(codel)
        .with_quantum(u32::from(input.quantum))
        .with_limit(u32::from(input.limit % 512))
        .with_overflow(match input.batch {
            Some(n) => OverflowDrop::Batch {
                max_packets: u32::from(n),
            },
            None => OverflowDrop::Single,
        });
    let Ok(p) = FqCodelProfile::new(&cfg) else {
        return;
    };
    let mut now = input.start;
    let mut fq: FqCodel<N> = FqCodel::new(&p, Instant::from_ticks(now));
    let mut r: FqCodelRef<N> = FqCodelRef::new(&p, Instant::from_ticks(now));
    let (mut sa, mut sb) = (Store::new(), Store::new());
    let (mut da, mut db) = (Vec::new(), Vec::new());
    for op in input.ops.iter().take(4096) {
        match *op {
            Op::Arrive { dt, len, ecn, flow } => {
                now = now.wrapping_add(u64::from(dt));
                let t = Instant::from_ticks(now);
                let f = usize::from(flow) % N;
                let h = Head::new(t, u32::from(len), ecn);
                sa.push(f, h);
                sb.push(f, h);
                let a = fq.enqueue(&p, t, f, h.len, |v| sa.pop(v).map(|h| h.len));
                let b = r.enqueue(&p, f, &mut sb);
                let a = match a {
                    Enqueued::Queued => None,
                    Enqueued::Overflow {
                        victim, packets, ..
                    } => Some((victim, packets)),
                };
                assert_eq!(a, b, "fq_codel: overflow differs from the model ({cfg:?})");
            }
            Op::Dequeue { dt } | Op::Back { dt } => {
                let at = if matches!(op, Op::Back { .. }) {
                    now.wrapping_sub(u64::from(dt))
                } else {
                    now = now.wrapping_add(u64::from(dt));
                    now
                };
                let t = Instant::from_ticks(at);
                da.clear();
                db.clear();
                let a = loop {
                    let Some(f) = fq.schedule(&p, t) else {
                        break None;
                    };
                    let h = sa.pop(f).expect("the scheduled flow holds a packet");
                    match fq.on_dequeue(&p, t, f, h) {
                        Verdict::Drop => da.push((f, h)),
                        Verdict::Deliver => break Some((f, h, false)),
                        Verdict::Mark => break Some((f, h, true)),
                    }
                };
                let b = r.dequeue(&p, t, &mut sb, |f, h| db.push((f, h)));
                assert_eq!((a, &da), (b, &db), "fq_codel: dequeue differs ({cfg:?})");
            }
        }
        assert!(sa == sb, "fq_codel: queues differ from the model ({cfg:?})");
        for f in 0..N {
            assert_eq!(
                vars(fq.codel(f)),
                r.codel(f).vars(),
                "fq_codel: flow {f} ({cfg:?})"
            );
        }
        if let Err(e) = check_fq_codel(&fq, &p) {
            panic!("fq_codel: {e} ({cfg:?})");
        }
    }
});
