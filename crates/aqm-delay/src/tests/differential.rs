//! The step-wise state machines against the loop-form reference models over
//! long random streams: every packet's fate and every CoDel variable after
//! every operation.

use super::{codel_dequeue, fq_dequeue, Op, Queue, Store, Stream};
use crate::reference::{FqCodelRef, RefCodel};
use crate::{
    Codel, CodelConfig, CodelProfile, ControlLaw, FqCodel, FqCodelConfig, FqCodelProfile,
    OverflowDrop,
};
use netcond_core::{Instant, SplitMix64, TickRate};

const OPS: u32 = if cfg!(miri) { 300 } else { 60_000 };
const SEEDS: u64 = if cfg!(miri) { 1 } else { 12 };
/// Whether the streams are long enough for the checks that they reach the
/// states under test (dropping, overflow, high probabilities): not under
/// Miri, whose short streams check the agreement with the models only.
const FULL: bool = !cfg!(miri);

fn configs() -> Vec<(&'static str, CodelConfig)> {
    let cycles = TickRate::from_hz(2_400_000_000).unwrap();
    vec![
        ("exact", CodelConfig::rfc8289()),
        ("exact-ecn", CodelConfig::rfc8289().with_ecn(true)),
        (
            "exact-us",
            CodelConfig::rfc8289()
                .with_tick(TickRate::MICROS)
                .with_ecn(true),
        ),
        ("linux", CodelConfig::linux()),
        ("linux-ecn", CodelConfig::linux().with_ecn(true)),
        (
            "linux-cycles",
            CodelConfig::linux().with_tick(cycles).with_ecn(true),
        ),
        ("ns3", CodelConfig::ns3()),
        ("ns3-ecn", CodelConfig::ns3().with_ecn(true)),
    ]
}

/// Ticks per ms for a configuration's clock.
fn ms_ticks(cfg: &CodelConfig) -> u64 {
    cfg.tick.hz() / 1000
}

fn vars(c: &Codel) -> (u32, u32, bool, u64) {
    (c.count(), c.lastcount(), c.dropping(), c.drop_next())
}

fn run_codel(name: &str, cfg: CodelConfig, seed: u64, start: u64) -> Result<(u64, u64), String> {
    let p = CodelProfile::new(&cfg).unwrap();
    let gap = ms_ticks(&cfg) / 2;
    let mut s = Stream::new(seed, start, gap);
    let mut c = Codel::new(&p, Instant::from_ticks(start));
    let mut r = RefCodel::new(&p, Instant::from_ticks(start));
    let (mut qa, mut qb) = (Queue::default(), Queue::default());
    let (mut da, mut db) = (Vec::new(), Vec::new());
    let (mut signals, mut sent) = (0u64, 0u64);
    for i in 0..OPS {
        let (now, op) = s.next(1);
        match op {
            Op::Arrive { len, ecn, .. } => {
                // Cap the queue at 400 packets (tail drop), as a router would.
                if qa.items.len() < 400 {
                    let h = crate::Head::new(now, len, ecn);
                    qa.push(h);
                    qb.push(h);
                }
            }
            Op::Depart => {
                da.clear();
                db.clear();
                let a = codel_dequeue(&mut c, &p, now, &mut qa, &mut da);
                let b = r.dequeue(&p, now, &mut qb, |h| db.push(h));
                if a != b || da != db {
                    return Err(format!(
                        "{name} seed {seed} op {i}: {a:?} {da:?} vs {b:?} {db:?}"
                    ));
                }
                signals += da.len() as u64 + u64::from(a.is_some_and(|x| x.1));
                sent += u64::from(a.is_some());
            }
        }
        if vars(&c) != r.vars() {
            return Err(format!(
                "{name} seed {seed} op {i}: state {:?} vs {:?}",
                vars(&c),
                r.vars()
            ));
        }
        crate::invariants::check_codel(&c, &p)
            .map_err(|e| format!("{name} seed {seed} op {i}: {e}"))?;
    }
    Ok((signals, sent))
}

#[test]
fn codel_matches_reference_models() {
    for (name, cfg) in configs() {
        let mut signals = 0;
        for seed in 0..SEEDS {
            // Linux time wraps every 2^42 ns: start some runs just before.
            let start = match (cfg.control_law, seed % 3) {
                (ControlLaw::Linux, 0) => {
                    ((1u128 << 42) * u128::from(cfg.tick.hz()) / 1_000_000_000) as u64
                        - 5 * cfg.tick.hz()
                }
                (_, 1) => u64::MAX - 3 * cfg.tick.hz(),
                _ => seed * 1_000_003,
            };
            signals += run_codel(name, cfg, seed, start).unwrap().0;
        }
        // The streams exercise the dropping state.
        assert!(
            !FULL || signals > 100 * SEEDS,
            "{name}: {signals} congestion signals"
        );
    }
}

fn run_fq<const N: usize>(name: &str, cfg: FqCodelConfig, seed: u64) -> Result<u64, String> {
    let p = FqCodelProfile::new(&cfg).unwrap();
    let gap = ms_ticks(&cfg.codel) / 2;
    let mut s = Stream::new(seed, seed << 20, gap);
    let mut fq: FqCodel<N> = FqCodel::new(&p, Instant::ZERO);
    let mut r: FqCodelRef<N> = FqCodelRef::new(&p, Instant::ZERO);
    let (mut sa, mut sb) = (Store::<N>::new(), Store::<N>::new());
    let (mut da, mut db) = (Vec::new(), Vec::new());
    let mut overflows = 0u64;
    for i in 0..OPS {
        let (now, op) = s.next(N as u32 + 3);
        match op {
            Op::Arrive { len, ecn, flow } => {
                let h = crate::Head::new(now, len, ecn);
                sa.push(flow, h);
                sb.push(flow, h);
                let a = fq.enqueue(&p, now, flow, len, |f| {
                    use crate::reference::FlowFifos;
                    sa.pop(f).map(|h| h.len)
                });
                let b = r.enqueue(&p, flow, &mut sb);
                let a = match a {
                    crate::Enqueued::Queued => None,
                    crate::Enqueued::Overflow {
                        victim, packets, ..
                    } => Some((victim, packets)),
                };
                if a != b {
                    return Err(format!(
                        "{name} seed {seed} op {i}: overflow {a:?} vs {b:?}"
                    ));
                }
                overflows += u64::from(a.is_some());
            }
            Op::Depart => {
                da.clear();
                db.clear();
                let a = fq_dequeue(&mut fq, &p, now, &mut sa, &mut da);
                let b = r.dequeue(&p, now, &mut sb, |f, h| db.push((f, h)));
                if a != b || da != db {
                    return Err(format!(
                        "{name} seed {seed} op {i}: {a:?} {da:?} vs {b:?} {db:?}"
                    ));
                }
            }
        }
        if sa != sb {
            return Err(format!("{name} seed {seed} op {i}: queues differ"));
        }
        for f in 0..N {
            if vars(fq.codel(f)) != r.codel(f).vars() {
                return Err(format!("{name} seed {seed} op {i}: flow {f} state"));
            }
        }
        crate::invariants::check_fq_codel(&fq, &p)
            .map_err(|e| format!("{name} seed {seed} op {i}: {e}"))?;
    }
    Ok(overflows)
}

#[test]
fn fq_codel_matches_reference_model() {
    let cases = [
        (
            "rfc8290",
            FqCodelConfig::rfc8290().with_limit(120).with_quantum(600),
        ),
        ("linux", FqCodelConfig::linux().with_limit(120)),
        (
            "ns3-batch",
            FqCodelConfig::rfc8290()
                .with_codel(CodelConfig::ns3().with_ecn(true))
                .with_limit(200)
                .with_overflow(OverflowDrop::Batch { max_packets: 5 }),
        ),
        (
            "exact-single",
            FqCodelConfig::rfc8290().with_limit(60).with_quantum(1),
        ),
    ];
    for (name, cfg) in cases {
        let mut overflows = 0;
        for seed in 0..(SEEDS / 2).max(1) {
            overflows += run_fq::<8>(name, cfg, seed).unwrap();
        }
        assert!(!FULL || overflows > 0, "{name}: no overflow exercised");
    }
}

fn run_pie(
    name: &str,
    cfg: crate::PieConfig,
    seed: u64,
    start: u64,
) -> Result<(u64, u64, u64), String> {
    use crate::reference::LinuxPie;
    use crate::{Pie, PieProfile};
    let p = PieProfile::new(&cfg).unwrap();
    let mut s = Stream::new(seed, start, cfg.tick.hz() / 2000).with_load(420, 150);
    let mut pie = Pie::new(&p, Instant::from_ticks(start));
    let mut r = LinuxPie::new(&p, Instant::from_ticks(start));
    let (mut ra, mut rb) = (SplitMix64::new(seed), SplitMix64::new(seed));
    let mut q = Queue::default();
    let (mut drops, mut marks, mut max_prob) = (0u64, 0u64, 0u64);
    for i in 0..OPS {
        let (now, op) = s.next(1);
        let backlog = q.bytes;
        max_prob = max_prob.max(pie.prob());
        if pie.poll(&p, now, backlog) != r.timer(&p, now, backlog) {
            return Err(format!("{name} seed {seed} op {i}: timer"));
        }
        match op {
            Op::Arrive { len, ecn, .. } => {
                let h = crate::Head::new(now, len, ecn);
                let qlen = q.items.len() as u32;
                let a = pie.on_enqueue(&p, now, h, qlen, q.bytes, &mut ra);
                let b = r.enqueue(&p, now, h, qlen, q.bytes, &mut rb);
                if a != b {
                    return Err(format!("{name} seed {seed} op {i}: {a:?} vs {b:?}"));
                }
                if a.sends() {
                    q.push(h);
                } else {
                    drops += 1;
                }
                marks += u64::from(a == crate::Verdict::Mark);
            }
            Op::Depart => {
                use crate::reference::Fifo;
                if let Some(h) = q.pop() {
                    pie.on_dequeue(&p, now, h, q.bytes);
                    r.dequeue(&p, now, h, q.bytes);
                }
            }
        }
        let a = (
            pie.prob(),
            pie.accu_prob(),
            pie.qdelay(),
            pie.qdelay_old(),
            pie.burst_time(),
            pie.next_update(),
        );
        let b = (
            r.prob,
            r.accu_prob,
            r.qdelay,
            r.qdelay_old,
            r.burst_time,
            r.next_update,
        );
        if a != b {
            return Err(format!("{name} seed {seed} op {i}: state {a:?} vs {b:?}"));
        }
        crate::invariants::check_pie(&pie, &p)
            .map_err(|e| format!("{name} seed {seed} op {i}: {e}"))?;
    }
    Ok((drops, marks, max_prob))
}

#[test]
fn pie_matches_reference_model() {
    use crate::PieConfig;
    let cases = [
        ("linux", PieConfig::linux().with_limit(300)),
        (
            "linux-ecn",
            PieConfig::linux().with_ecn(true).with_limit(300),
        ),
        (
            "bounded-ecn",
            PieConfig::linux()
                .with_ecn(true)
                .with_bound_prob(true)
                .with_limit(300),
        ),
        (
            "bytemode-us",
            PieConfig::linux()
                .with_bytemode(true)
                .with_tick(TickRate::MICROS)
                .with_limit(300),
        ),
        (
            "fast-cycles",
            PieConfig::linux()
                .with_alpha_beta(32, 32)
                .with_target(core::time::Duration::from_millis(2))
                .with_tick(TickRate::from_hz(2_400_000_000).unwrap())
                .with_limit(200),
        ),
    ];
    for (name, cfg) in cases {
        let (mut drops, mut marks, mut max_prob) = (0, 0, 0);
        for seed in 0..SEEDS / 2 {
            let start = if seed % 3 == 2 {
                u64::MAX - cfg.tick.hz()
            } else {
                seed * 7_777
            };
            let (d, m, p) = run_pie(name, cfg, seed, start).unwrap();
            drops += d;
            marks += m;
            max_prob = max_prob.max(p);
        }
        // The streams reach the early-drop region and high probabilities.
        assert!(!FULL || drops > 1000, "{name}: {drops} drops");
        assert!(
            !FULL || max_prob > crate::MAX_PROB / 10,
            "{name}: {max_prob}"
        );
        assert!(
            !cfg.bound_prob || max_prob <= crate::MAX_PROB,
            "{name}: {max_prob}"
        );
        assert!(!FULL || !cfg.ecn || marks > 100, "{name}: {marks} marks");
    }
}
