//! Stack depth by painting: the words below the stack pointer are filled with
//! a pattern, the code under test runs, and the lowest word that no longer
//! holds the pattern is the deepest the stack went. Also the sizes of every
//! profile and per-flow state on this target.

use crate::cases::{self, ep, Clock, Desc, AECN_N, RAS_N, RBCC_N};
use core::mem::size_of;
use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::SYST;
use cortex_m_semihosting::hprintln;
use netcond::base::{Color, Instant, Rate, SplitMix64, TickRate};
use netcond::pcn::{
    AsMarker, AsMarkerConfig, AsMarkerProfile, EtMarker, EtMarkerConfig, EtMarkerProfile,
    EtMarkerSim48, EtMarkerSim48Config, EtMarkerSim48Profile, ExcessMode, ExcessTrafficMeter,
    ExcessTrafficMeterConfig, ExcessTrafficMeterProfile, Node3sm, NodeProfile, NodeRfc5670,
    PcnMark, PcnMeter, ThresholdMeter, ThresholdMeterConfig, ThresholdMeterProfile,
};
use netcond::ras::{Ras, RasProfile, SrRasConfig, SrRasProfile, TrRasConfig, TrRasProfile};
use netcond::rbcc::{FixedRate, NodeId, RateHeader, RbccConfig, RbccInterface, RbccProfile};
use netcond::red::{
    AecnConfig, AecnProfile, AecnQueue, Ecn, FlowClass, Packet, Red, RedConfig, RedProfile, Rio,
    RioConfig, RioProfile, U32F32,
};
use netcond::trtcm::{
    PremiumPolicer, PremiumPolicerConfig, PremiumPolicerProfile, Rfc4115, Rfc4115Config,
    Rfc4115Profile, SrTcm, SrTcmConfig, SrTcmProfile, TrTcm, TrTcmConfig, TrTcmProfile,
};

/// The pattern painted below the stack pointer.
const PATTERN: u32 = 0xA5C3_5AC3;
/// How far below the stack pointer is painted.
const PAINT: usize = 16 * 1024;
/// The limit the per-packet entry points are held to.
pub const PER_PACKET_LIMIT: usize = 1024;

extern "C" {
    /// The end of `.bss` and `.uninit` (cortex-m-rt's linker script): the
    /// stack never legitimately grows below it.
    static __sheap: u32;
}

/// Runs `f` and returns the deepest stack it used, in bytes below the stack
/// pointer at the call (so the caller's frame and arguments are not counted),
/// and its result. `f` is inlined here, so the calls it makes are made from
/// this frame, whose stack pointer does not move after the prologue.
#[inline(never)]
pub(crate) fn stack_use<R>(f: impl FnOnce() -> R) -> (Measure, R) {
    let sp: usize;
    // The stack pointer after this function's prologue: it does not move
    // again until the epilogue (no dynamic allocation on the stack).
    // SAFETY: reads the stack pointer; no memory is touched.
    unsafe { core::arch::asm!("mov {}, sp", out(reg) sp, options(nomem, nostack)) };
    // Only the address of the linker symbol is taken.
    let floor = core::ptr::addr_of!(__sheap) as usize;
    let low = sp.saturating_sub(PAINT).max(floor + 64) & !3;
    let mut a = low;
    while a < sp {
        // SAFETY: [low, sp) is free stack between the end of the statics and
        // the stack pointer: nothing lives there, and no interrupt is enabled.
        unsafe { (a as *mut u32).write_volatile(PATTERN) };
        a += 4;
    }
    let start = SYST::get_current();
    let r = f();
    let end = SYST::get_current();
    // SysTick counts down from 2^24 - 1 at 1 MHz; the loops take far less
    // than a period.
    let us = start.wrapping_sub(end) & 0x00FF_FFFF;
    let mut a = low;
    // SAFETY: as above; reading the painted words back.
    while a < sp && unsafe { (a as *const u32).read_volatile() } == PATTERN {
        a += 4;
    }
    // If every painted word was overwritten, the depth is at least PAINT.
    let depth = if a == low { usize::MAX } else { sp - a };
    (Measure { depth, us }, r)
}

/// What one measurement found.
#[derive(Clone, Copy)]
pub struct Measure {
    /// The deepest stack use, bytes (`usize::MAX`: at least `PAINT`).
    pub depth: usize,
    /// The time `f` took on SysTick's 1 MHz reference clock, in microseconds.
    pub us: u32,
}

impl Measure {
    /// The larger depth and time of two measurements.
    fn max(self, other: Measure) -> Measure {
        Measure {
            depth: self.depth.max(other.depth),
            us: self.us.max(other.us),
        }
    }
}

/// Starts SysTick on its 1 MHz reference clock, free running, no interrupt.
/// Under QEMU with `-icount shift=5` virtual time advances 32 ns per
/// instruction executed, so a microsecond of it is 31.25 instructions.
pub fn start_clock(mut syst: SYST) {
    syst.set_clock_source(SystClkSource::External);
    syst.set_reload(0x00FF_FFFF);
    syst.clear_current();
    syst.enable_counter();
    while SYST::get_current() == 0 {}
}

/// One call's inputs, every one derived before the measurement so that
/// deriving them (divisions among others) is neither measured nor counted.
#[derive(Clone, Copy)]
pub(crate) struct In {
    pub(crate) now: Instant,
    pub(crate) len: u32,
    pub(crate) color: Color,
    pub(crate) mark: PcnMark,
    pub(crate) ecn: Ecn,
    pub(crate) class: FlowClass,
    /// A queue length for RED, 0..90.
    pub(crate) q: u32,
    /// Queue lengths by color for RIO.
    pub(crate) q3: [u32; 3],
    /// A flow id for RBCC, 0..24.
    pub(crate) flow: u32,
    /// A requested rate for RBCC.
    pub(crate) rate: FixedRate,
}

/// The adversarial inputs every measurement runs.
pub(crate) type Inputs = [In; CALLS];

pub(crate) fn inputs() -> Inputs {
    let mut clock = Clock::new(99, u64::MAX - 1_000_000_000, 2_000_000);
    let mut rng = SplitMix64::new(98);
    let first = In {
        now: Instant::ZERO,
        len: 0,
        color: Color::Green,
        mark: PcnMark::Nm,
        ecn: Ecn::NotEct,
        class: FlowClass::Robust,
        q: 0,
        q3: [0; 3],
        flow: 0,
        rate: FixedRate::UNLIMITED,
    };
    let mut v = [first; CALLS];
    for (i, x) in v.iter_mut().enumerate() {
        let now = clock.next();
        let len = cases::length(&mut rng);
        let r = rng.next_u64();
        let i = i as u32;
        *x = In {
            now,
            len,
            color: Color::ALL[(r % 3) as usize],
            mark: [PcnMark::NotPcn, PcnMark::Nm, PcnMark::Thm, PcnMark::Etm][(r % 4) as usize],
            ecn: Ecn::from_bits((r >> 8) as u8 & 3),
            class: FlowClass::ALL[((r >> 16) % 3) as usize],
            q: (i * 7) % 90,
            q3: [(i * 5) % 500, (i * 3) % 400, ((r >> 24) % 300) as u32],
            flow: ((r >> 32) % 24) as u32,
            rate: FixedRate::from_raw(r >> ((r >> 40) % 40)),
        };
    }
    v
}

/// Calls per entry point in each measurement.
const CALLS: usize = 300;

fn pcn_depth<M: PcnMeter>(
    p: &M::Profile,
    f: fn(&mut M, &M::Profile, Instant, u32, PcnMark) -> PcnMark,
) -> Measure {
    let mut m = M::start(p, Instant::ZERO);
    let input = inputs();
    stack_use(|| {
        for x in &input {
            core::hint::black_box(f(&mut m, p, x.now, x.len, x.mark));
        }
    })
    .0
}

macro_rules! tcm_depth {
    ($p:expr, $state:ty, $f:path) => {{
        let p = $p;
        let mut s = <$state>::new(&p, Instant::ZERO);
        let input = inputs();
        stack_use(|| {
            for x in &input {
                core::hint::black_box($f(&mut s, &p, x.now, x.len));
            }
        })
        .0
    }};
    ($p:expr, $state:ty, $f:path, aware) => {{
        let p = $p;
        let mut s = <$state>::new(&p, Instant::ZERO);
        let input = inputs();
        stack_use(|| {
            for x in &input {
                core::hint::black_box($f(&mut s, &p, x.now, x.len, x.color));
            }
        })
        .0
    }};
}

/// Every profile, built once (their building is measured separately).
struct Profiles {
    sr: SrTcmProfile,
    tr: TrTcmProfile,
    r4115: Rfc4115Profile,
    ef: PremiumPolicerProfile,
    et: EtMarkerProfile,
    et48: EtMarkerSim48Profile,
    asm: AsMarkerProfile,
    thm: ThresholdMeterProfile,
    etm: ExcessTrafficMeterProfile,
    red: RedProfile,
    rio: RioProfile,
    aecn: AecnProfile,
    srras: SrRasProfile,
    trras: TrRasProfile,
    rbcc: RbccProfile,
}

fn sr_cfg() -> SrTcmConfig {
    SrTcmConfig::default()
}
fn tr_cfg() -> TrTcmConfig {
    TrTcmConfig::new(
        Rate::from_bytes_per_sec(46_000_000),
        Rate::from_bytes_per_sec(69_000_000),
        2048,
        4096,
    )
}
fn r4115_cfg() -> Rfc4115Config {
    Rfc4115Config::new(
        Rate::from_bytes_per_sec(46_000_000),
        Rate::from_bytes_per_sec(69_000_000),
        2048,
        4096,
    )
}
fn et_cfg() -> EtMarkerConfig {
    EtMarkerConfig::draft_explicit_marking_01(Rate::from_kbps(1000), 10_000, 1064)
}
fn et48_cfg() -> EtMarkerSim48Config {
    EtMarkerSim48Config::new(Rate::from_kbps(1000), 10_000, 1064).with_tick(TickRate::NANOS)
}
fn as_cfg() -> AsMarkerConfig {
    AsMarkerConfig::draft_explicit_marking_01(Rate::from_kbps(800), 10_000, 5_000)
}
fn thm_cfg() -> ThresholdMeterConfig {
    ThresholdMeterConfig::new(Rate::from_kbps(800), 10_000, 5_000).with_tick(TickRate::NANOS)
}
fn etm_cfg() -> ExcessTrafficMeterConfig {
    ExcessTrafficMeterConfig::new(Rate::from_kbps(1000), 10_000)
        .with_mode(ExcessMode::SizeIndependent)
        .with_tick(TickRate::NANOS)
}
fn red_cfg() -> RedConfig {
    // max_p and w_q from f64 at configuration time, as an application would.
    RedConfig::packets(20, 60, RedConfig::prob(0.1), RedConfig::prob(0.002), 80)
}
fn rio_cfg() -> RioConfig {
    let mut c = RioConfig::rfc2963(1000);
    c.queue.w_q = U32F32::from_bits(1 << 26);
    c
}
fn aecn_cfg() -> AecnConfig {
    AecnConfig::zheng_kinicki(RedConfig::prob(0.5))
}
fn srras_cfg() -> SrRasConfig {
    SrRasConfig::new(Rate::from_mbps(2), Rate::from_mbps(34), 64_000)
}
fn trras_cfg() -> TrRasConfig {
    TrRasConfig::new(
        Rate::from_mbps(2),
        Rate::from_mbps(4),
        Rate::from_mbps(34),
        64_000,
    )
}
fn rbcc_cfg() -> RbccConfig {
    RbccConfig::toomey_scenario7(NodeId(23), Rate::from_mbps(10))
}

fn profiles() -> Option<Profiles> {
    Some(Profiles {
        sr: SrTcmProfile::new(&sr_cfg()).ok()?,
        tr: TrTcmProfile::new(&tr_cfg()).ok()?,
        r4115: Rfc4115Profile::new(&r4115_cfg()).ok()?,
        ef: PremiumPolicerProfile::new(&PremiumPolicerConfig::default()).ok()?,
        et: EtMarkerProfile::new(&et_cfg()).ok()?,
        et48: EtMarkerSim48Profile::new(&et48_cfg()).ok()?,
        asm: AsMarkerProfile::new(&as_cfg()).ok()?,
        thm: ThresholdMeterProfile::new(&thm_cfg()).ok()?,
        etm: ExcessTrafficMeterProfile::new(&etm_cfg()).ok()?,
        red: RedProfile::new(&red_cfg()).ok()?,
        rio: RioProfile::new(&rio_cfg()).ok()?,
        aecn: AecnProfile::new(&aecn_cfg()).ok()?,
        srras: SrRasProfile::new(&srras_cfg()).ok()?,
        trras: TrRasProfile::new(&trras_cfg()).ok()?,
        rbcc: RbccProfile::new(&rbcc_cfg()).ok()?,
    })
}

/// The stack depth of building a profile: `build` is called through an opaque
/// function pointer on an opaque configuration, so that it is neither inlined
/// into the measuring frame nor evaluated at compile time.
pub(crate) fn config_depth<C, T>(build: fn(&C) -> T, cfg: C) -> usize {
    let build = core::hint::black_box(build);
    let cfg = core::hint::black_box(cfg);
    stack_use(|| core::hint::black_box(build(&cfg))).0.depth
}

fn show(what: &str, name: &str, bytes: usize) {
    if bytes == usize::MAX {
        hprintln!("stack {} {}: more than {} bytes", what, name, PAINT);
    } else {
        hprintln!("stack {} {}: {} bytes", what, name, bytes);
    }
}

/// Measures and prints the stack depth of every per-packet entry point and of
/// building every profile; returns 1 if a per-packet entry point needed
/// `PER_PACKET_LIMIT` bytes or more (or the profiles could not be built).
pub fn report() -> u32 {
    let Some(p) = profiles() else {
        hprintln!("FAIL stack: a profile was refused");
        return 1;
    };
    let ras_pair = |rp: &RasProfile| {
        let mut s: Ras<u32, RAS_N> = Ras::new(rp, Instant::ZERO);
        let input = inputs();
        let (enq, _) = stack_use(|| {
            for x in &input {
                let _ = core::hint::black_box(ep::fw_ras_enqueue(&mut s, rp, x.now, x.len));
            }
        });
        let (deq, _) = stack_use(|| {
            for x in &input {
                core::hint::black_box(ep::fw_ras_dequeue(&mut s, rp, x.now));
            }
        });
        (enq, deq)
    };
    let (sr_enq, sr_deq) = ras_pair(&p.srras);
    let (tr_enq, tr_deq) = ras_pair(&p.trras);
    let red_depth = {
        let mut r = Red::new(&p.red, Instant::ZERO);
        let mut rng = SplitMix64::new(5);
        let input = inputs();
        stack_use(|| {
            for x in &input {
                let pkt = Packet::new(x.len, x.ecn);
                core::hint::black_box(ep::fw_red_arrival(
                    &mut r, &p.red, x.now, x.q, pkt, &mut rng,
                ));
            }
        })
        .0
    };
    let rio_depth = {
        let mut r = Rio::new(&p.rio, Instant::ZERO);
        let mut rng = SplitMix64::new(6);
        let input = inputs();
        stack_use(|| {
            for x in &input {
                let pkt = Packet::new(x.len, x.ecn);
                core::hint::black_box(ep::fw_rio_arrival(
                    &mut r, &p.rio, x.now, x.q3, x.color, pkt, &mut rng,
                ));
            }
        })
        .0
    };
    let (aecn_enq, aecn_deq) = {
        let mut q = AecnQueue::<Desc, AECN_N>::new(&p.aecn, Instant::ZERO);
        let mut rng = SplitMix64::new(7);
        let input = inputs();
        let (enq, _) = stack_use(|| {
            for x in &input {
                let d = Desc {
                    class: x.class,
                    ecn: x.ecn,
                    len: x.len,
                };
                let _ =
                    core::hint::black_box(ep::fw_aecn_enqueue(&mut q, &p.aecn, x.now, d, &mut rng));
            }
        });
        let input = inputs();
        let (deq, _) = stack_use(|| {
            for x in &input {
                core::hint::black_box(ep::fw_aecn_dequeue(&mut q, &p.aecn, x.now));
            }
        });
        (enq, deq)
    };
    let rbcc_depth = {
        let mut ifc: RbccInterface<RBCC_N> = RbccInterface::new(&p.rbcc, Instant::ZERO);
        let input = inputs();
        stack_use(|| {
            for x in &input {
                let mut h = RateHeader::new(x.rate);
                let _ = core::hint::black_box(ep::fw_rbcc_stamp(
                    &mut ifc, &p.rbcc, x.now, x.flow, &mut h,
                ));
            }
        })
        .0
    };
    let node3sm = NodeProfile {
        excess: p.et,
        threshold: p.asm,
    };
    let node5670 = NodeProfile {
        excess: p.etm,
        threshold: p.thm,
    };
    let per_packet: [(&str, Measure); 21] = [
        (
            "fw_trtcm_color_blind",
            tcm_depth!(p.tr, TrTcm, ep::fw_trtcm_color_blind),
        ),
        (
            "fw_trtcm_color_aware",
            tcm_depth!(p.tr, TrTcm, ep::fw_trtcm_color_aware, aware),
        ),
        (
            "fw_srtcm_color_blind",
            tcm_depth!(p.sr, SrTcm, ep::fw_srtcm_color_blind),
        ),
        (
            "fw_srtcm_color_aware",
            tcm_depth!(p.sr, SrTcm, ep::fw_srtcm_color_aware, aware),
        ),
        (
            "fw_rfc4115_color_blind",
            tcm_depth!(p.r4115, Rfc4115, ep::fw_rfc4115_color_blind),
        ),
        (
            "fw_rfc4115_color_aware",
            tcm_depth!(p.r4115, Rfc4115, ep::fw_rfc4115_color_aware, aware),
        ),
        (
            "fw_ef_policer_offer",
            tcm_depth!(p.ef, PremiumPolicer, ep::fw_ef_policer_offer),
        ),
        (
            "fw_et_marker",
            pcn_depth::<EtMarker>(&p.et, ep::fw_et_marker),
        ),
        (
            "fw_et_marker_sim48",
            pcn_depth::<EtMarkerSim48>(&p.et48, ep::fw_et_marker_sim48),
        ),
        (
            "fw_as_marker",
            pcn_depth::<AsMarker>(&p.asm, ep::fw_as_marker),
        ),
        (
            "fw_node_3sm",
            pcn_depth::<Node3sm>(&node3sm, ep::fw_node_3sm),
        ),
        (
            "fw_node_rfc5670",
            pcn_depth::<NodeRfc5670>(&node5670, ep::fw_node_rfc5670),
        ),
        (
            "fw_rfc5670_threshold",
            pcn_depth::<ThresholdMeter>(&p.thm, ep::fw_rfc5670_threshold),
        ),
        (
            "fw_rfc5670_excess",
            pcn_depth::<ExcessTrafficMeter>(&p.etm, ep::fw_rfc5670_excess),
        ),
        ("fw_red_arrival", red_depth),
        ("fw_rio_arrival", rio_depth),
        ("fw_aecn_enqueue", aecn_enq),
        ("fw_aecn_dequeue", aecn_deq),
        ("fw_ras_enqueue", sr_enq.max(tr_enq)),
        ("fw_ras_dequeue", sr_deq.max(tr_deq)),
        ("fw_rbcc_stamp", rbcc_depth),
    ];
    // The loop's own instructions: the same inputs, no call.
    let base = {
        let input = inputs();
        stack_use(|| {
            for x in &input {
                core::hint::black_box(x);
            }
        })
        .0
        .us
    };
    // Calibration: a loop of 2 x 10,000 instructions should take 640 us.
    let (cal, _) = stack_use(|| {
        let mut n: u32 = 10_000;
        // SAFETY: a register-only countdown loop.
        unsafe {
            core::arch::asm!("2:", "subs {0}, #1", "bne 2b", inout(reg) n, options(nomem, nostack));
        }
        n
    });
    hprintln!(
        "insns clock: 20000 instructions took {} us on SysTick (640 under QEMU -icount shift=5)",
        cal.us
    );
    let mut over = 0;
    for (name, m) in per_packet
        .into_iter()
        .chain(crate::stack_delay::per_packet())
    {
        show("per-packet", name, m.depth);
        if m.depth >= PER_PACKET_LIMIT {
            over += 1;
        }
        // Tenths of an instruction per call: (us - base) * 31.25 / CALLS.
        let tenths = u64::from(m.us.saturating_sub(base)) * 3125 / (10 * CALLS as u64);
        hprintln!("insns per-packet {}: {}.{}", name, tenths / 10, tenths % 10);
    }
    let config: [(&str, usize); 15] = [
        (
            "SrTcmProfile::new",
            config_depth(SrTcmProfile::new, sr_cfg()),
        ),
        (
            "TrTcmProfile::new",
            config_depth(TrTcmProfile::new, tr_cfg()),
        ),
        (
            "Rfc4115Profile::new",
            config_depth(Rfc4115Profile::new, r4115_cfg()),
        ),
        (
            "PremiumPolicerProfile::new",
            config_depth(PremiumPolicerProfile::new, PremiumPolicerConfig::default()),
        ),
        (
            "EtMarkerProfile::new",
            config_depth(EtMarkerProfile::new, et_cfg()),
        ),
        (
            "EtMarkerSim48Profile::new",
            config_depth(EtMarkerSim48Profile::new, et48_cfg()),
        ),
        (
            "AsMarkerProfile::new",
            config_depth(AsMarkerProfile::new, as_cfg()),
        ),
        (
            "ThresholdMeterProfile::new",
            config_depth(ThresholdMeterProfile::new, thm_cfg()),
        ),
        (
            "ExcessTrafficMeterProfile::new",
            config_depth(ExcessTrafficMeterProfile::new, etm_cfg()),
        ),
        ("RedProfile::new", config_depth(RedProfile::new, red_cfg())),
        ("RioProfile::new", config_depth(RioProfile::new, rio_cfg())),
        (
            "AecnProfile::new",
            config_depth(AecnProfile::new, aecn_cfg()),
        ),
        (
            "SrRasProfile::new",
            config_depth(SrRasProfile::new, srras_cfg()),
        ),
        (
            "TrRasProfile::new",
            config_depth(TrRasProfile::new, trras_cfg()),
        ),
        (
            "RbccProfile::new",
            config_depth(RbccProfile::new, rbcc_cfg()),
        ),
    ];
    for (name, d) in config.into_iter().chain(crate::stack_delay::config()) {
        show("configuration", name, d);
    }
    if over == 0 {
        hprintln!(
            "ok   stack: every per-packet entry point below {} bytes",
            PER_PACKET_LIMIT
        );
        0
    } else {
        hprintln!(
            "FAIL stack: {} per-packet entry points at {} bytes or more",
            over,
            PER_PACKET_LIMIT
        );
        1
    }
}

/// Prints the size in bytes of every profile and per-flow state on this target.
pub fn sizes() {
    let rows: [(&str, usize, usize); 16] = [
        (
            "fw_trtcm_color_blind",
            size_of::<TrTcmProfile>(),
            size_of::<TrTcm>(),
        ),
        (
            "fw_srtcm_color_blind",
            size_of::<SrTcmProfile>(),
            size_of::<SrTcm>(),
        ),
        (
            "fw_rfc4115_color_blind",
            size_of::<Rfc4115Profile>(),
            size_of::<Rfc4115>(),
        ),
        (
            "fw_ef_policer_offer",
            size_of::<PremiumPolicerProfile>(),
            size_of::<PremiumPolicer>(),
        ),
        (
            "fw_et_marker",
            size_of::<EtMarkerProfile>(),
            size_of::<EtMarker>(),
        ),
        (
            "fw_et_marker_sim48",
            size_of::<EtMarkerSim48Profile>(),
            size_of::<EtMarkerSim48>(),
        ),
        (
            "fw_as_marker",
            size_of::<AsMarkerProfile>(),
            size_of::<AsMarker>(),
        ),
        (
            "fw_node_3sm",
            size_of::<<Node3sm as netcond::base::State>::Profile>(),
            size_of::<Node3sm>(),
        ),
        (
            "fw_node_rfc5670",
            size_of::<<NodeRfc5670 as netcond::base::State>::Profile>(),
            size_of::<NodeRfc5670>(),
        ),
        (
            "fw_rfc5670_threshold",
            size_of::<ThresholdMeterProfile>(),
            size_of::<ThresholdMeter>(),
        ),
        (
            "fw_rfc5670_excess",
            size_of::<ExcessTrafficMeterProfile>(),
            size_of::<ExcessTrafficMeter>(),
        ),
        ("fw_red_arrival", size_of::<RedProfile>(), size_of::<Red>()),
        ("fw_rio_arrival", size_of::<RioProfile>(), size_of::<Rio>()),
        (
            "fw_aecn_enqueue",
            size_of::<AecnProfile>(),
            size_of::<AecnQueue<Desc, AECN_N>>(),
        ),
        (
            "fw_ras_enqueue",
            size_of::<RasProfile>(),
            size_of::<Ras<u32, RAS_N>>(),
        ),
        (
            "fw_rbcc_stamp",
            size_of::<RbccProfile>(),
            size_of::<RbccInterface<RBCC_N>>(),
        ),
    ];
    for (name, profile, state) in rows.into_iter().chain(crate::stack_delay::sizes()) {
        hprintln!("size {} profile {} state {}", name, profile, state);
    }
    hprintln!(
        "size note: AECN state = RED state + a {}-descriptor queue of {}-byte descriptors; RAS state = a {}-packet queue of u32 lengths; RBCC state = a {}-flow table",
        AECN_N,
        size_of::<Desc>(),
        RAS_N,
        RBCC_N
    );
}
