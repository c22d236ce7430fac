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

const OPS: u32 = if cfg!(miri) { 120 } else { 60_000 };
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
            // A quantum of one byte: DRR refills far below zero. The
            // reference refills one quantum at a time, thousands of rounds
            // per packet; under Miri 64 bytes still takes many rounds.
            FqCodelConfig::rfc8290()
                .with_limit(60)
                .with_quantum(if cfg!(miri) { 64 } else { 1 }),
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
                let a = pie.on_arrival(&p, now, h, qlen, q.bytes, &mut ra);
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
        for seed in 0..(SEEDS / 2).max(1) {
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

/// Counts of one RFC-law run: drops, marks, the largest probability, updates
/// whose exact result was fractional, and updates where the state machine's
/// decay rounded one unit further down than the exact value's floor.
#[derive(Default, Debug)]
struct RfcRun {
    drops: u64,
    marks: u64,
    max_prob: u64,
    fractional: u64,
    one_below: u64,
    updates: u64,
}

fn run_rfc_pie(name: &str, cfg: crate::PieConfig, seed: u64, start: u64) -> Result<RfcRun, String> {
    use crate::reference::{Fifo, RfcPie};
    use crate::{Pie, PieProfile};
    let p = PieProfile::new(&cfg).unwrap();
    let mut s = Stream::new(seed, start, cfg.tick.hz() / 2000).with_load(420, 150);
    let mut pie = Pie::new(&p, Instant::from_ticks(start));
    let mut r = RfcPie::new(&p, Instant::from_ticks(start));
    let (mut ra, mut rb) = (SplitMix64::new(seed), SplitMix64::new(seed));
    let mut q = Queue::default();
    let mut out = RfcRun::default();
    for i in 0..OPS {
        let (now, op) = s.next(1);
        let backlog = q.bytes;
        out.max_prob = out.max_prob.max(pie.prob());
        // Both start the step from the state machine's probability.
        r.drop_prob_ = pie.prob();
        let (a, b) = (
            pie.poll(&p, now, backlog),
            r.calculate_drop_prob(&p, now, backlog),
        );
        if a != b {
            return Err(format!("{name} seed {seed} op {i}: timer"));
        }
        if a {
            out.updates += 1;
            let (floor, fractional) = r.last_exact;
            out.fractional += u64::from(fractional);
            if pie.prob() + 1 == floor {
                out.one_below += 1;
            } else if pie.prob() != floor {
                return Err(format!(
                    "{name} seed {seed} op {i}: prob {} vs exact floor {floor}",
                    pie.prob()
                ));
            }
            // Only the decay (both samples 0) may round one further down.
            if pie.prob() != floor && (pie.qdelay() != 0 || pie.qdelay_old() != 0) {
                return Err(format!("{name} seed {seed} op {i}: off the floor"));
            }
            r.drop_prob_ = pie.prob();
        }
        match op {
            Op::Arrive { len, ecn, .. } => {
                let h = crate::Head::new(now, len, ecn);
                let qlen = q.items.len() as u32;
                let a = pie.on_arrival(&p, now, h, qlen, q.bytes, &mut ra);
                let b = r.enque(&p, now, h, qlen, q.bytes, &mut rb);
                if a != b {
                    return Err(format!("{name} seed {seed} op {i}: {a:?} vs {b:?}"));
                }
                if a.sends() {
                    q.push(h);
                } else {
                    out.drops += 1;
                }
                out.marks += u64::from(a == crate::Verdict::Mark);
            }
            Op::Depart => {
                if let Some(h) = q.pop() {
                    pie.on_dequeue(&p, now, h, q.bytes);
                    r.deque(&p, now, h, q.bytes);
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
            (pie.avg_dq_time(), pie.in_measurement(), pie.dq_count()),
        );
        let b = (
            r.drop_prob_,
            r.accu_prob_,
            r.current_qdelay,
            r.qdelay_old_,
            r.burst_allowance_,
            r.next_update,
            (r.avg_dq_time_, r.in_measurement_, r.dq_count_),
        );
        if a != b {
            return Err(format!("{name} seed {seed} op {i}: state {a:?} vs {b:?}"));
        }
        crate::invariants::check_pie(&pie, &p)
            .map_err(|e| format!("{name} seed {seed} op {i}: {e}"))?;
    }
    Ok(out)
}

#[test]
fn rfc8033_pie_matches_reference_model() {
    use crate::{PieConfig, PieEstimator};
    let cases = [
        ("rfc", PieConfig::rfc8033().with_limit(300)),
        (
            "rfc-ecn",
            PieConfig::rfc8033().with_ecn(true).with_limit(300),
        ),
        (
            "rfc-rate",
            PieConfig::rfc8033()
                .with_estimator(PieEstimator::DepartureRate)
                .with_ecn(true)
                .with_limit(300),
        ),
        (
            "rfc-plain-us",
            PieConfig::rfc8033()
                .with_derandomize(false)
                .with_tick(TickRate::MICROS)
                .with_limit(300),
        ),
        (
            "rfc-fast-cycles",
            PieConfig::rfc8033()
                .with_alpha_beta(32, 32)
                .with_target(core::time::Duration::from_millis(2))
                .with_estimator(PieEstimator::DepartureRate)
                .with_tick(TickRate::from_hz(2_400_000_000).unwrap())
                .with_limit(200),
        ),
    ];
    for (name, cfg) in cases {
        let mut total = RfcRun::default();
        for seed in 0..(SEEDS / 2).max(1) {
            let start = if seed % 3 == 2 {
                u64::MAX - cfg.tick.hz()
            } else {
                seed * 7_777
            };
            let o = run_rfc_pie(name, cfg, seed, start).unwrap();
            total.drops += o.drops;
            total.marks += o.marks;
            total.max_prob = total.max_prob.max(o.max_prob);
            total.fractional += o.fractional;
            total.one_below += o.one_below;
            total.updates += o.updates;
        }
        // The streams reach the early-drop region and high probabilities,
        // and the updates round (so the bound is exercised).
        assert!(!FULL || total.drops > 1000, "{name}: {total:?}");
        assert!(
            !FULL || total.max_prob > crate::MAX_PROB / 10,
            "{name}: {total:?}"
        );
        assert!(total.max_prob <= crate::MAX_PROB, "{name}: {total:?}");
        assert!(!FULL || total.fractional > 100, "{name}: {total:?}");
        assert!(!FULL || !cfg.ecn || total.marks > 100, "{name}: {total:?}");
        eprintln!("{name}: {total:?}");
    }
}

/// Counts of one DualPI2 run.
#[derive(Default, Debug)]
struct DualRun {
    l_marks: u64,
    c_marks: u64,
    l_drops: u64,
    c_drops: u64,
    full: u64,
    sent: u64,
    max_p: u64,
    saturated: u64,
}

fn run_dual(
    name: &str,
    cfg: crate::DualPi2Config,
    seed: u64,
    start: u64,
    load: (u32, u32),
) -> Result<DualRun, String> {
    use super::{dual_dequeue, DualFifoQ};
    use crate::reference::RfcDualPi2;
    use crate::{DualHead, DualPi2, DualPi2Profile, DualQueue, Ecn};
    let p = DualPi2Profile::new(&cfg).unwrap();
    let mut s = Stream::new(seed, start, cfg.tick.hz() / 4000).with_load(load.0, load.1);
    let mut d = DualPi2::new(&p, Instant::from_ticks(start));
    let mut r = RfcDualPi2::new(&p, Instant::from_ticks(start));
    let (mut ra, mut rb) = (SplitMix64::new(seed), SplitMix64::new(seed));
    let (mut la, mut ca) = (DualFifoQ::default(), DualFifoQ::default());
    let (mut lb, mut cb) = (DualFifoQ::default(), DualFifoQ::default());
    let mut out = DualRun::default();
    for i in 0..OPS {
        let (now, op) = s.next(4);
        let heads = |q: &DualFifoQ| q.items.front().map(|h| h.enqueued);
        let a = d.poll(&p, now, heads(&la), heads(&ca));
        if a != r.update(&p, now, &lb, &cb) {
            return Err(format!("{name} seed {seed} op {i}: timer"));
        }
        out.max_p = out.max_p.max(d.p_prime());
        out.saturated += u64::from(d.l4s_saturated(&p));
        match op {
            Op::Arrive { len, flow, .. } => {
                let ecn = Ecn::from_bits(flow as u8);
                let h = DualHead::new(now, len.max(1), ecn);
                let x = d.on_arrival(&p, now, ecn, h.len, la.bytes + ca.bytes);
                let y = r.enqueue(&p, now, &lb, &cb, ecn);
                if x != y {
                    return Err(format!("{name} seed {seed} op {i}: enqueue {x:?} vs {y:?}"));
                }
                match x {
                    Some(DualQueue::L4s) => {
                        la.push(h);
                        lb.push(h);
                    }
                    Some(DualQueue::Classic) => {
                        ca.push(h);
                        cb.push(h);
                    }
                    None => out.full += 1,
                }
            }
            Op::Depart => {
                let mut da = Vec::new();
                let mut db = Vec::new();
                let x = dual_dequeue(&mut d, &p, now, &mut la, &mut ca, &mut ra, &mut da);
                let y = r.dequeue(&p, now, &mut lb, &mut cb, &mut rb, |q, h| db.push((q, h)));
                if x != y || da != db {
                    return Err(format!(
                        "{name} seed {seed} op {i}: {x:?} {da:?} vs {y:?} {db:?}"
                    ));
                }
                for (q, _) in &da {
                    if *q == DualQueue::L4s {
                        out.l_drops += 1;
                    } else {
                        out.c_drops += 1;
                    }
                }
                if let Some((q, _, m)) = x {
                    out.sent += 1;
                    if m && q == DualQueue::L4s {
                        out.l_marks += 1;
                    } else if m {
                        out.c_marks += 1;
                    }
                }
            }
        }
        let a = (
            d.p_prime(),
            d.prevq(),
            d.counts(),
            d.next_update(),
            d.wrr_position(),
        );
        let b = (
            r.p_prime,
            r.prevq,
            (r.lq_count, r.cq_count),
            r.next_update,
            r.rr,
        );
        if a != b {
            return Err(format!("{name} seed {seed} op {i}: state {a:?} vs {b:?}"));
        }
        if la != lb || ca != cb {
            return Err(format!("{name} seed {seed} op {i}: queues differ"));
        }
        crate::invariants::check_dualpi2(&d, &p)
            .map_err(|e| format!("{name} seed {seed} op {i}: {e}"))?;
    }
    Ok(out)
}

#[test]
fn dualpi2_matches_reference_model() {
    use crate::{DualDecision, DualPi2Config, DualScheduler};
    use core::time::Duration;
    let small = |c: DualPi2Config| c.with_limit(400_000, 1500);
    let cases = [
        ("rfc-recur", small(DualPi2Config::rfc9332()), (450, 200)),
        (
            "rfc-random-two",
            small(DualPi2Config::rfc9332()).with_decision(DualDecision::Random { two_draws: true }),
            (380, 220),
        ),
        (
            "rfc-random-square-classic-curq",
            small(DualPi2Config::rfc9332())
                .with_decision(DualDecision::Random { two_draws: false })
                .with_curq_max(false),
            (380, 220),
        ),
        (
            "linux-step-wrr",
            small(DualPi2Config::linux_defaults())
                .with_scheduler(DualScheduler::WeightedRoundRobin { l4s: 9, classic: 1 }),
            (380, 220),
        ),
        (
            "overload-k3-us",
            DualPi2Config::rfc9332()
                .with_k16(24)
                .with_gains(900, 9_000)
                .with_tick(TickRate::MICROS)
                .with_limit(4_000_000, 1500),
            (700, 250),
        ),
        (
            "overload-random-cycles",
            DualPi2Config::rfc9332()
                .with_decision(DualDecision::Random { two_draws: true })
                .with_gains(900, 9_000)
                .with_k16(40)
                .with_scheduler(DualScheduler::TimeShifted {
                    tshift: Duration::from_millis(5),
                })
                .with_tick(TickRate::from_hz(2_400_000_000).unwrap())
                .with_limit(4_000_000, 1500),
            (700, 250),
        ),
    ];
    for (name, cfg, load) in cases {
        let mut t = DualRun::default();
        for seed in 0..(SEEDS / 2).max(1) {
            let start = if seed % 3 == 2 {
                u64::MAX - cfg.tick.hz()
            } else {
                seed * 7_777
            };
            let o = run_dual(name, cfg, seed, start, load).unwrap();
            t.l_marks += o.l_marks;
            t.c_marks += o.c_marks;
            t.l_drops += o.l_drops;
            t.c_drops += o.c_drops;
            t.full += o.full;
            t.sent += o.sent;
            t.max_p = t.max_p.max(o.max_p);
            t.saturated += o.saturated;
        }
        eprintln!("{name}: {t:?}");
        // Both queues signal; the Classic queue drops and marks; the
        // overload cases reach p_CL = 1, where the L4S queue drops too.
        assert!(
            !FULL || (t.l_marks > 1000 && t.c_drops > 100),
            "{name}: {t:?}"
        );
        if name.starts_with("overload") {
            assert!(
                !FULL || (t.saturated > 100 && t.l_drops > 100),
                "{name}: {t:?}"
            );
        } else {
            assert!(!FULL || t.c_marks > 100, "{name}: {t:?}");
        }
    }
}

fn run_fq_pie<const N: usize>(
    name: &str,
    cfg: crate::FqPieConfig,
    seed: u64,
) -> Result<(u64, u64, u64), String> {
    use crate::reference::{FlowFifos, FqPieRef};
    use crate::{FqPie, FqPieProfile, Verdict};
    let p = FqPieProfile::new(&cfg).unwrap();
    let mut s = Stream::new(seed, seed << 20, cfg.pie.tick.hz() / 4000).with_load(430, 150);
    let mut fq: FqPie<N> = FqPie::new(&p, Instant::ZERO);
    let mut r: FqPieRef<N> = FqPieRef::new(&p, Instant::ZERO);
    let (mut ra, mut rb) = (SplitMix64::new(seed), SplitMix64::new(seed));
    let (mut sa, mut sb) = (Store::<N>::new(), Store::<N>::new());
    let (mut drops, mut marks, mut sent) = (0u64, 0u64, 0u64);
    for i in 0..OPS {
        let (now, op) = s.next(N as u32 + 3);
        if fq.poll(&p, now) != r.timer(&p, now) {
            return Err(format!("{name} seed {seed} op {i}: timer"));
        }
        match op {
            Op::Arrive { len, ecn, flow } => {
                let h = crate::Head::new(now, len, ecn);
                let a = fq.enqueue(&p, now, flow, h, &mut ra);
                let b = r.enqueue(&p, now, flow, h, &mut rb);
                if a != b {
                    return Err(format!("{name} seed {seed} op {i}: {a:?} vs {b:?}"));
                }
                if a.sends() {
                    sa.push(flow, h);
                    sb.push(flow, h);
                } else {
                    drops += 1;
                }
                marks += u64::from(a == Verdict::Mark);
            }
            Op::Depart => {
                let a = fq.schedule(&p, now).map(|f| {
                    let h = sa.pop(f).expect("the scheduled flow holds a packet");
                    fq.on_dequeue(&p, now, f, h);
                    (f, h)
                });
                let b = r.dequeue(&p, now, &mut sb);
                if a != b {
                    return Err(format!("{name} seed {seed} op {i}: {a:?} vs {b:?}"));
                }
                sent += u64::from(a.is_some());
            }
        }
        for f in 0..N {
            let x = fq.pie(f);
            let y = &r.pies[f];
            let a = (
                x.prob(),
                x.accu_prob(),
                x.qdelay(),
                x.qdelay_old(),
                x.burst_time(),
            );
            let b = (y.prob, y.accu_prob, y.qdelay, y.qdelay_old, y.burst_time);
            let (qa, ba, da) = fq.flow(f);
            if a != b || (qa, ba, da) != (r.qlen[f], r.backlog[f], r.deficit[f]) {
                return Err(format!(
                    "{name} seed {seed} op {i}: flow {f}: {a:?} vs {b:?}"
                ));
            }
        }
        crate::invariants::check_fq_pie(&fq, &p)
            .map_err(|e| format!("{name} seed {seed} op {i}: {e}"))?;
    }
    Ok((drops, marks, sent))
}

#[test]
fn fq_pie_matches_reference_model() {
    use crate::{FqPieConfig, PieConfig};
    let cases = [
        ("linux", FqPieConfig::linux().with_limit(300)),
        (
            "ecn-small-quantum",
            FqPieConfig::linux()
                .with_pie(PieConfig::linux().with_ecn(true))
                .with_quantum(300)
                .with_limit(200),
        ),
        (
            "bytemode-us-ecn50",
            FqPieConfig::linux()
                .with_pie(
                    PieConfig::linux()
                        .with_ecn(true)
                        .with_bytemode(true)
                        .with_tick(TickRate::MICROS),
                )
                .with_ecn_prob(50)
                .with_limit(150),
        ),
    ];
    for (name, cfg) in cases {
        let (mut drops, mut marks, mut sent) = (0, 0, 0);
        for seed in 0..(SEEDS / 2).max(1) {
            let (d, m, s) = run_fq_pie::<8>(name, cfg, seed).unwrap();
            drops += d;
            marks += m;
            sent += s;
        }
        eprintln!("{name}: drops {drops} marks {marks} sent {sent}");
        assert!(!FULL || drops > 1000, "{name}: {drops} drops");
        assert!(
            !FULL || !cfg.pie.ecn || marks > 100,
            "{name}: {marks} marks"
        );
    }
}
