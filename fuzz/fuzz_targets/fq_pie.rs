//! FQ-PIE over 8 flows (Linux's `sch_fq_pie` rules), any valid configuration
//! (an invalid one must be refused, never panic), against
//! `aqm_delay::reference::FqPieRef` (its enqueue, dequeue and timer over
//! index rings with a `LinuxPie` per flow): arrivals to any flow, dequeues,
//! polls, backward clock steps and jumps (the clock moving less than 2^62
//! ticks in all), with the same random draws; every verdict, every dequeued
//! packet, every flow's PIE and DRR variables equal, and
//! `invariants::check_fq_pie` after every step.
#![no_main]

use std::collections::VecDeque;

use aqm_delay::invariants::check_fq_pie;
use aqm_delay::reference::{FlowFifos, FqPieRef};
use aqm_delay::{FqPie, FqPieConfig, FqPieProfile, Head, PieConfig};
use arbitrary::Arbitrary;
use core::time::Duration;
use libfuzzer_sys::fuzz_target;
use netcond_core::{Instant, SplitMix64, TickRate};

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
    Poll {
        dt: u32,
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
    ecn: bool,
    bytemode: bool,
    micros: bool,
    target_us: u32,
    t_update_us: u32,
    burst_ms: u16,
    alpha: u8,
    beta: u8,
    mtu: u16,
    quantum: u16,
    limit: u16,
    ecn_prob: u8,
    seed: u64,
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

fuzz_target!(|input: Input| {
    let pie = PieConfig::linux()
        .with_ecn(input.ecn)
        .with_bytemode(input.bytemode)
        .with_tick(if input.micros {
            TickRate::MICROS
        } else {
            TickRate::NANOS
        })
        .with_target(Duration::from_micros(u64::from(
            input.target_us % 1_000_000,
        )))
        .with_t_update(Duration::from_micros(u64::from(
            input.t_update_us % 1_000_000,
        )))
        .with_max_burst(Duration::from_millis(u64::from(input.burst_ms)))
        .with_alpha_beta(u32::from(input.alpha), u32::from(input.beta))
        .with_mtu(u32::from(input.mtu));
    let cfg = FqPieConfig::linux()
        .with_pie(pie)
        .with_quantum(u32::from(input.quantum))
        .with_limit(u32::from(input.limit))
        .with_ecn_prob(u32::from(input.ecn_prob));
    let Ok(p) = FqPieProfile::new(&cfg) else {
        return;
    };
    let mut now = input.start;
    let mut fq: FqPie<N> = FqPie::new(&p, Instant::from_ticks(now));
    let mut r: FqPieRef<N> = FqPieRef::new(&p, Instant::from_ticks(now));
    let (mut ra, mut rb) = (SplitMix64::new(input.seed), SplitMix64::new(input.seed));
    let (mut sa, mut sb) = (Store::new(), Store::new());
    for op in input.ops.iter().take(4096) {
        let at = match *op {
            Op::Arrive { dt, .. } | Op::Dequeue { dt } | Op::Poll { dt } => {
                now = now.wrapping_add(u64::from(dt));
                now
            }
            Op::Back { dt } => now.wrapping_sub(u64::from(dt)),
            Op::Jump { dt } => {
                now = now.wrapping_add(dt % (1 << 40));
                now
            }
        };
        let t = Instant::from_ticks(at);
        match *op {
            Op::Arrive { len, ecn, flow, .. } => {
                let f = usize::from(flow) % N;
                let h = Head::new(t, u32::from(len), ecn);
                let a = fq.enqueue(&p, t, f, h, &mut ra);
                let b = r.enqueue(&p, t, f, h, &mut rb);
                assert_eq!(a, b, "fq_pie: verdict differs from the model ({cfg:?})");
                if a.sends() {
                    sa.push(f, h);
                    sb.push(f, h);
                }
            }
            Op::Dequeue { .. } | Op::Back { .. } => {
                let a = fq.schedule(&p, t).map(|f| {
                    let h = sa.pop(f).expect("the scheduled flow holds a packet");
                    fq.on_dequeue(&p, t, f, h);
                    (f, h)
                });
                let b = r.dequeue(&p, t, &mut sb);
                assert_eq!(a, b, "fq_pie: dequeue differs from the model ({cfg:?})");
            }
            Op::Poll { .. } | Op::Jump { .. } => {
                assert_eq!(fq.poll(&p, t), r.timer(&p, t), "fq_pie: timer ({cfg:?})");
            }
        }
        for f in 0..N {
            let (x, y) = (fq.pie(f), &r.pies[f]);
            assert_eq!(
                (
                    x.prob(),
                    x.accu_prob(),
                    x.qdelay(),
                    x.qdelay_old(),
                    x.burst_time()
                ),
                (y.prob, y.accu_prob, y.qdelay, y.qdelay_old, y.burst_time),
                "fq_pie: flow {f}'s PIE differs ({cfg:?})"
            );
            assert_eq!(
                fq.flow(f),
                (r.qlen[f], r.backlog[f], r.deficit[f]),
                "fq_pie: flow {f}'s queue differs ({cfg:?})"
            );
        }
        if let Err(e) = check_fq_pie(&fq, &p) {
            panic!("fq_pie: {e} ({cfg:?})");
        }
    }
});
