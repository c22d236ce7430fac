//! Stack depth, profile and state sizes of the delay-based AQMs' and the
//! token bucket filter's entry points (`cases::delay`), measured as
//! `stack.rs` measures the others and printed with them.

use crate::cases::delay::{ep, FQ_N};
use crate::stack::{config_depth, inputs, stack_use, Measure};
use core::hint::black_box;
use core::mem::size_of;
use core::time::Duration;
use netcond::base::{Instant, Rate, SplitMix64};
use netcond::delay::{
    Codel, CodelConfig, CodelProfile, DualHead, DualPi2, DualPi2Config, DualPi2Profile, Ecn,
    FqCodel, FqCodelConfig, FqCodelProfile, FqPie, FqPieConfig, FqPieProfile, Head, Pie, PieConfig,
    PieProfile,
};
use netcond::ras::{Tbf, TbfConfig, TbfProfile};

fn codel_cfg() -> CodelConfig {
    CodelConfig::linux().with_ecn(true)
}
fn fq_codel_cfg() -> FqCodelConfig {
    FqCodelConfig::linux().with_limit(1024)
}
fn pie_cfg() -> PieConfig {
    PieConfig::linux().with_ecn(true)
}
fn fq_pie_cfg() -> FqPieConfig {
    FqPieConfig::linux().with_limit(1024)
}
fn dualpi2_cfg() -> DualPi2Config {
    DualPi2Config::rfc9332()
}
fn tbf_cfg() -> TbfConfig {
    TbfConfig::with_latency(Rate::from_mbps(8), 3000, Duration::from_millis(10))
        .with_peak(Rate::from_mbps(16), 1600)
}

/// Every input of a call: the adversarial clock and lengths of `stack.rs`,
/// a head enqueued up to 20 ms earlier, a backlog, a flow and an ECN field.
struct D {
    now: Instant,
    head: Head,
    backlog: u64,
    flow: usize,
    ecn: Ecn,
}

fn delay_inputs() -> impl Iterator<Item = D> {
    inputs().into_iter().map(|x| {
        let age = u64::from(x.q3[0]) * 40_000;
        D {
            now: x.now,
            head: Head::new(
                Instant::from_ticks(x.now.ticks().wrapping_sub(age)),
                x.len,
                x.flow & 1 == 1,
            ),
            backlog: u64::from(x.q) * 1500,
            flow: x.flow as usize,
            ecn: Ecn::from_bits(x.flow as u8),
        }
    })
}

/// The stack and time of `CALLS` calls, one per input, on a state first
/// brought to a loaded condition by `$setup` (run on every input, outside the
/// measurement).
macro_rules! measure {
    ($state:expr, |$s:ident, $d:ident| $call:expr) => {
        measure!($state, |_s, _d| (), |$s, $d| $call)
    };
    ($state:expr, |$s0:ident, $d0:ident| $setup:expr, |$s:ident, $d:ident| $call:expr) => {{
        let mut $s0 = $state;
        let input: heapless::Vec<D, 300> = delay_inputs().collect();
        for $d0 in &input {
            black_box($setup);
        }
        let mut $s = $s0;
        stack_use(|| {
            for $d in &input {
                black_box($call);
            }
        })
        .0
    }};
}

/// The per-packet entry points' measurements (all `None` if a profile could
/// not be built, which the known answers report).
pub fn per_packet() -> heapless::Vec<(&'static str, Measure), 16> {
    let mut v = heapless::Vec::new();
    let (Ok(cp), Ok(fp), Ok(pp), Ok(qp), Ok(dp), Ok(tp)) = (
        CodelProfile::new(&codel_cfg()),
        FqCodelProfile::new(&fq_codel_cfg()),
        PieProfile::new(&pie_cfg()),
        FqPieProfile::new(&fq_pie_cfg()),
        DualPi2Profile::new(&dualpi2_cfg()),
        TbfProfile::new(&tbf_cfg()),
    ) else {
        return v;
    };
    let t0 = Instant::ZERO;
    let mut rng = SplitMix64::new(7);
    let rows = [
        (
            "fw_codel_dequeue",
            measure!(Codel::new(&cp, t0), |s, d| ep::fw_codel_dequeue(
                &mut s, &cp, d.now, d.head, d.backlog
            )),
        ),
        (
            "fw_fq_codel_enqueue",
            measure!(FqCodel::<FQ_N>::new(&fp, t0), |s, d| {
                ep::fw_fq_codel_enqueue(&mut s, &fp, d.now, d.flow, d.head.len, &mut |_| Some(1000))
            }),
        ),
        (
            "fw_fq_codel_dequeue",
            measure!(
                FqCodel::<FQ_N>::new(&fp, t0),
                |s, d| s.enqueue(&fp, d.now, d.flow, d.head.len, |_| None),
                |s, d| ep::fw_fq_codel_dequeue(&mut s, &fp, d.now, &mut |_| Some(d.head))
            ),
        ),
        (
            "fw_pie_enqueue",
            measure!(Pie::new(&pp, t0), |s, d| ep::fw_pie_enqueue(
                &mut s,
                &pp,
                d.now,
                d.head,
                (d.backlog / 1500) as u32,
                d.backlog,
                &mut rng
            )),
        ),
        (
            "fw_pie_dequeue",
            measure!(Pie::new(&pp, t0), |s, d| ep::fw_pie_dequeue(
                &mut s, &pp, d.now, d.head, d.backlog
            )),
        ),
        (
            "fw_pie_poll",
            measure!(Pie::new(&pp, t0), |s, d| ep::fw_pie_poll(
                &mut s, &pp, d.now, d.backlog
            )),
        ),
        (
            "fw_fq_pie_enqueue",
            measure!(FqPie::<FQ_N>::new(&qp, t0), |s, d| ep::fw_fq_pie_enqueue(
                &mut s, &qp, d.now, d.flow, d.head, &mut rng
            )),
        ),
        (
            "fw_fq_pie_dequeue",
            measure!(
                FqPie::<FQ_N>::new(&qp, t0),
                |s, d| s.enqueue(&qp, d.now, d.flow, d.head, &mut SplitMix64::new(1)),
                |s, d| ep::fw_fq_pie_dequeue(&mut s, &qp, d.now, &mut |_| Some(d.head))
            ),
        ),
        (
            "fw_dualpi2_enqueue",
            measure!(DualPi2::new(&dp, t0), |s, d| ep::fw_dualpi2_enqueue(
                &mut s, &dp, d.now, d.ecn, d.head.len, d.backlog
            )),
        ),
        (
            "fw_dualpi2_dequeue",
            measure!(DualPi2::new(&dp, t0), |s, d| {
                let heads = (Some(d.head.enqueued), Some(d.now));
                let h = DualHead::new(d.head.enqueued, d.head.len, d.ecn);
                let mut take = |_| Some((h, d.flow as u32));
                ep::fw_dualpi2_dequeue(&mut s, &dp, d.now, heads, &mut take, &mut rng)
            }),
        ),
        (
            "fw_dualpi2_poll",
            measure!(DualPi2::new(&dp, t0), |s, d| ep::fw_dualpi2_poll(
                &mut s,
                &dp,
                d.now,
                Some(d.head.enqueued),
                Some(d.now)
            )),
        ),
        (
            "fw_tbf_enqueue",
            measure!(Tbf::new(&tp, t0), |s, d| ep::fw_tbf_enqueue(
                &mut s, &tp, d.now, d.head.len
            )),
        ),
        (
            "fw_tbf_dequeue",
            measure!(
                Tbf::new(&tp, t0),
                |s, d| s.enqueue(&tp, d.now, d.head.len),
                |s, d| ep::fw_tbf_dequeue(&mut s, &tp, d.now, d.head.len)
            ),
        ),
    ];
    for r in rows {
        let _ = v.push(r);
    }
    v
}

/// Building each profile: stack depth in bytes.
pub fn config() -> [(&'static str, usize); 6] {
    [
        (
            "CodelProfile::new",
            config_depth(CodelProfile::new, codel_cfg()),
        ),
        (
            "FqCodelProfile::new",
            config_depth(FqCodelProfile::new, fq_codel_cfg()),
        ),
        ("PieProfile::new", config_depth(PieProfile::new, pie_cfg())),
        (
            "FqPieProfile::new",
            config_depth(FqPieProfile::new, fq_pie_cfg()),
        ),
        (
            "DualPi2Profile::new",
            config_depth(DualPi2Profile::new, dualpi2_cfg()),
        ),
        ("TbfProfile::new", config_depth(TbfProfile::new, tbf_cfg())),
    ]
}

/// Profile and state sizes, by the entry point the table lists them with.
pub fn sizes() -> [(&'static str, usize, usize); 6] {
    [
        (
            "fw_codel_dequeue",
            size_of::<CodelProfile>(),
            size_of::<Codel>(),
        ),
        (
            "fw_fq_codel_enqueue",
            size_of::<FqCodelProfile>(),
            size_of::<FqCodel<FQ_N>>(),
        ),
        ("fw_pie_enqueue", size_of::<PieProfile>(), size_of::<Pie>()),
        (
            "fw_fq_pie_enqueue",
            size_of::<FqPieProfile>(),
            size_of::<FqPie<FQ_N>>(),
        ),
        (
            "fw_dualpi2_enqueue",
            size_of::<DualPi2Profile>(),
            size_of::<DualPi2>(),
        ),
        ("fw_tbf_enqueue", size_of::<TbfProfile>(), size_of::<Tbf>()),
    ]
}
