//! The packet streams of the host-computed checks, and the per-packet entry
//! points that they go through.
//!
//! This file is compiled twice: into the build script (for the build machine,
//! with `std`), which runs every stream and writes what each call returned to
//! `$OUT_DIR/expected.rs`; and into the firmware (for the target), which runs
//! the same streams and compares each value with the host's. Both builds use the
//! same crates from the same sources, so a difference is the target's
//! arithmetic (32-bit registers, 64-bit and 128-bit operations lowered to
//! library calls, no hardware divide on Cortex-M0) giving another answer.
//!
//! The streams are drawn from `SplitMix64` with fixed seeds, and include the
//! adversarial inputs of the host tests: timestamps at and near `u64::MAX`,
//! clocks stepping backwards and jumping by more than half the range (which
//! reads as backwards), lengths 0 and `u32::MAX` (4 GiB - 1).

use netcond::base::{Color, Instant, Rate, SplitMix64, TickRate};
use netcond::pcn::{
    AsMarker, AsMarkerConfig, AsMarkerProfile, EtMarker, EtMarkerConfig, EtMarkerProfile,
    EtMarkerSim48, EtMarkerSim48Config, EtMarkerSim48Profile, ExcessMode, ExcessTrafficMeter,
    ExcessTrafficMeterConfig, ExcessTrafficMeterProfile, Node3sm, NodeProfile, NodeRfc5670,
    PcnMark, PcnMeter, ThresholdMeter, ThresholdMeterConfig, ThresholdMeterProfile,
};
use netcond::ras::{Ras, RasProfile, SrRasConfig, SrRasProfile, TrRasConfig, TrRasProfile};
use netcond::rbcc::{
    AckHeader, FixedRate, FlowId, NodeId, RateHeader, RbccConfig, RbccInterface, RbccProfile,
};
use netcond::red::{
    AecnConfig, AecnDescriptor, AecnProfile, AecnQueue, Decision, Ecn, FlowClass, Packet,
    QueueUnit, Red, RedConfig, RedProfile, Rio, RioConfig, RioMode, RioProfile, U32F32,
};
use netcond::trtcm::{
    PolicerVerdict, PremiumPolicer, PremiumPolicerConfig, PremiumPolicerProfile, Rfc4115,
    Rfc4115Config, Rfc4115Profile, SrTcm, SrTcmConfig, SrTcmProfile, TrTcm, TrTcmConfig,
    TrTcmProfile,
};

#[path = "delay_cases.rs"]
pub mod delay;

/// Where a stream writes what each call returned.
pub trait Sink {
    /// One value.
    fn put(&mut self, v: u64);
}

// ---------------------------------------------------------------------------
// The per-packet entry points. Each is a symbol of its own in the firmware
// (`nm` finds it by name for the flash table) and the only way the checks and
// the stack measurements reach the library's per-packet code.
// ---------------------------------------------------------------------------

/// The capacity of the RAS shapers' queues.
pub const RAS_N: usize = 32;
/// The capacity of the AECN queue.
pub const AECN_N: usize = 64;
/// The capacity of the RBCC flow table.
pub const RBCC_N: usize = 16;

/// A queued packet of the AECN checks: class, ECN field, length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Desc {
    /// The flow class.
    pub class: FlowClass,
    /// The ECN field.
    pub ecn: Ecn,
    /// The length in bytes.
    pub len: u32,
}

impl AecnDescriptor for Desc {
    fn class(&self) -> FlowClass {
        self.class
    }
    fn ecn(&self) -> Ecn {
        self.ecn
    }
    fn set_ce(&mut self) {
        self.ecn = Ecn::Ce;
    }
}

/// The entry points, one `#[inline(never)]` function each.
pub mod ep {
    use super::*;

    /// RFC 2698 trTCM, color-blind.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_trtcm_color_blind(s: &mut TrTcm, p: &TrTcmProfile, now: Instant, len: u32) -> Color {
        s.color_blind(p, now, len)
    }
    /// RFC 2698 trTCM, color-aware.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_trtcm_color_aware(
        s: &mut TrTcm,
        p: &TrTcmProfile,
        now: Instant,
        len: u32,
        c: Color,
    ) -> Color {
        s.color_aware(p, now, len, c)
    }
    /// RFC 2697 srTCM, color-blind.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_srtcm_color_blind(s: &mut SrTcm, p: &SrTcmProfile, now: Instant, len: u32) -> Color {
        s.color_blind(p, now, len)
    }
    /// RFC 2697 srTCM, color-aware.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_srtcm_color_aware(
        s: &mut SrTcm,
        p: &SrTcmProfile,
        now: Instant,
        len: u32,
        c: Color,
    ) -> Color {
        s.color_aware(p, now, len, c)
    }
    /// RFC 4115 trTCM, color-blind.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_rfc4115_color_blind(
        s: &mut Rfc4115,
        p: &Rfc4115Profile,
        now: Instant,
        len: u32,
    ) -> Color {
        s.color_blind(p, now, len)
    }
    /// RFC 4115 trTCM, color-aware.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_rfc4115_color_aware(
        s: &mut Rfc4115,
        p: &Rfc4115Profile,
        now: Instant,
        len: u32,
        c: Color,
    ) -> Color {
        s.color_aware(p, now, len, c)
    }
    /// The EF premium policer.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_ef_policer_offer(
        s: &mut PremiumPolicer,
        p: &PremiumPolicerProfile,
        now: Instant,
        len: u32,
    ) -> PolicerVerdict {
        s.offer(p, now, len)
    }
    /// 3sM ET-marker (draft-babiarz-pcn-explicit-marking-01 section 1.2 / 3sm-01).
    #[inline(never)]
    #[no_mangle]
    pub fn fw_et_marker(
        s: &mut EtMarker,
        p: &EtMarkerProfile,
        now: Instant,
        len: u32,
        m: PcnMark,
    ) -> PcnMark {
        s.mark(p, now, len, m)
    }
    /// 3sM ET-marker as simulated in draft-babiarz-pcn-explicit-marking-01 section 4.8.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_et_marker_sim48(
        s: &mut EtMarkerSim48,
        p: &EtMarkerSim48Profile,
        now: Instant,
        len: u32,
        m: PcnMark,
    ) -> PcnMark {
        s.mark(p, now, len, m)
    }
    /// 3sM AS-marker.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_as_marker(
        s: &mut AsMarker,
        p: &AsMarkerProfile,
        now: Instant,
        len: u32,
        m: PcnMark,
    ) -> PcnMark {
        s.mark(p, now, len, m)
    }
    /// The 3sM node marker (ET then AS).
    #[inline(never)]
    #[no_mangle]
    pub fn fw_node_3sm(
        s: &mut Node3sm,
        p: &<Node3sm as netcond::base::State>::Profile,
        now: Instant,
        len: u32,
        m: PcnMark,
    ) -> PcnMark {
        s.mark(p, now, len, m)
    }
    /// The RFC 5670 / RFC 6660 node marker (excess then threshold).
    #[inline(never)]
    #[no_mangle]
    pub fn fw_node_rfc5670(
        s: &mut NodeRfc5670,
        p: &<NodeRfc5670 as netcond::base::State>::Profile,
        now: Instant,
        len: u32,
        m: PcnMark,
    ) -> PcnMark {
        s.mark(p, now, len, m)
    }
    /// RFC 5670 threshold meter.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_rfc5670_threshold(
        s: &mut ThresholdMeter,
        p: &ThresholdMeterProfile,
        now: Instant,
        len: u32,
        m: PcnMark,
    ) -> PcnMark {
        s.mark(p, now, len, m)
    }
    /// RFC 5670 excess-traffic meter.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_rfc5670_excess(
        s: &mut ExcessTrafficMeter,
        p: &ExcessTrafficMeterProfile,
        now: Instant,
        len: u32,
        m: PcnMark,
    ) -> PcnMark {
        s.mark(p, now, len, m)
    }
    /// RED's arrival decision.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_red_arrival(
        s: &mut Red,
        p: &RedProfile,
        now: Instant,
        queue_len: u32,
        pkt: Packet,
        rng: &mut SplitMix64,
    ) -> Decision {
        s.on_arrival(p, now, queue_len, pkt, rng)
    }
    /// RIO / WRED's arrival decision.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_rio_arrival(
        s: &mut Rio,
        p: &RioProfile,
        now: Instant,
        queue: [u32; 3],
        color: Color,
        pkt: Packet,
        rng: &mut SplitMix64,
    ) -> Decision {
        s.on_arrival(p, now, queue, color, pkt, rng)
    }
    /// AECN enqueue (decision, and a mark at the front of the queue).
    #[inline(never)]
    #[no_mangle]
    pub fn fw_aecn_enqueue(
        q: &mut AecnQueue<Desc, AECN_N>,
        p: &AecnProfile,
        now: Instant,
        d: Desc,
        rng: &mut SplitMix64,
    ) -> Result<Decision, netcond::red::Rejected<Desc>> {
        q.enqueue(p, now, d, rng)
    }
    /// AECN dequeue.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_aecn_dequeue(
        q: &mut AecnQueue<Desc, AECN_N>,
        p: &AecnProfile,
        now: Instant,
    ) -> Option<Desc> {
        q.dequeue(p, now)
    }
    /// RFC 2963 RAS enqueue.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_ras_enqueue(
        s: &mut Ras<u32, RAS_N>,
        p: &RasProfile,
        now: Instant,
        len: u32,
    ) -> Result<(), u32> {
        s.enqueue(p, now, len)
    }
    /// RFC 2963 RAS dequeue.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_ras_dequeue(s: &mut Ras<u32, RAS_N>, p: &RasProfile, now: Instant) -> Option<u32> {
        s.dequeue(p, now)
    }
    /// RBCC: a data packet's rate field stamped (and the table updated).
    #[inline(never)]
    #[no_mangle]
    pub fn fw_rbcc_stamp(
        s: &mut RbccInterface<RBCC_N>,
        p: &RbccProfile,
        now: Instant,
        flow: FlowId,
        hdr: &mut RateHeader,
    ) -> Result<(), FlowId> {
        s.on_data(p, now, flow, hdr)
    }
}

// ---------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------

/// A clock for the streams: forward steps of up to `span` ticks, with now and
/// then a step back, a jump past half the range (which reads as backwards), a
/// jump to `u64::MAX` or just below it (the next forward step wraps past zero).
pub struct Clock {
    rng: SplitMix64,
    t: u64,
    span: u64,
}

impl Clock {
    /// A clock starting at `start`.
    pub fn new(seed: u64, start: u64, span: u64) -> Clock {
        Clock {
            rng: SplitMix64::new(seed),
            t: start,
            span,
        }
    }
    /// The next timestamp.
    pub fn next(&mut self) -> Instant {
        let r = self.rng.next_u64();
        self.t = match r % 97 {
            0 => self.t.wrapping_sub((r >> 20) % (4 * self.span + 1)),
            1 => self.t.wrapping_add(1 << 63).wrapping_add(r >> 50),
            2 => u64::MAX,
            3 => u64::MAX - (r >> 40) % (8 * self.span + 1),
            4 => self.t,
            _ => self.t.wrapping_add((r >> 16) % (self.span + 1)),
        };
        Instant::from_ticks(self.t)
    }
}

/// Packet lengths: mostly 40 to 1540 bytes, with 0, 1, 9000 and `u32::MAX`.
pub fn length(rng: &mut SplitMix64) -> u32 {
    let r = rng.next_u64();
    match r % 53 {
        0 => 0,
        1 => u32::MAX,
        2 => 9000,
        3 => 1,
        4 => u32::MAX - 1,
        _ => 40 + ((r >> 32) % 1501) as u32,
    }
}

fn color(r: u64) -> Color {
    Color::ALL[(r % 3) as usize]
}

fn pcn_mark(r: u64) -> PcnMark {
    [PcnMark::NotPcn, PcnMark::Nm, PcnMark::Thm, PcnMark::Etm][(r % 4) as usize]
}

fn ecn(r: u64) -> Ecn {
    [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce][(r % 4) as usize]
}

/// The number of packets of each stream.
pub const PACKETS: usize = 400;

// ---------------------------------------------------------------------------
// Three-color markers and the EF policer
// ---------------------------------------------------------------------------

macro_rules! tcm_stream {
    ($name:ident, $blind:path, $aware:path, $state:ty, $profile:expr) => {
        /// Alternately color-blind and color-aware, over the adversarial clock.
        pub fn $name(out: &mut dyn Sink) {
            for (seed, start) in [(1u64, 0u64), (2, u64::MAX - 5_000_000_000)] {
                let Ok(p) = $profile else {
                    out.put(u64::MAX);
                    return;
                };
                let mut clock = Clock::new(seed, start, 1_500_000);
                let mut rng = SplitMix64::new(seed ^ 0x5EED);
                let mut s = <$state>::new(&p, Instant::from_ticks(start));
                for i in 0..PACKETS / 2 {
                    let now = clock.next();
                    let len = length(&mut rng);
                    let c = if i.is_multiple_of(2) {
                        $blind(&mut s, &p, now, len)
                    } else {
                        $aware(&mut s, &p, now, len, color(rng.next_u64()))
                    };
                    out.put(c.index() as u64);
                }
            }
        }
    };
}

tcm_stream!(
    srtcm_stream,
    ep::fw_srtcm_color_blind,
    ep::fw_srtcm_color_aware,
    SrTcm,
    SrTcmProfile::new(&SrTcmConfig::new(
        Rate::from_bytes_per_sec(1_000_000),
        3000,
        6000
    ))
);

tcm_stream!(
    trtcm_stream,
    ep::fw_trtcm_color_blind,
    ep::fw_trtcm_color_aware,
    TrTcm,
    TrTcmProfile::new(&TrTcmConfig::new(
        Rate::from_bytes_per_sec(700_000),
        Rate::from_bytes_per_sec(1_100_000),
        3000,
        6000
    ))
);

tcm_stream!(
    rfc4115_stream,
    ep::fw_rfc4115_color_blind,
    ep::fw_rfc4115_color_aware,
    Rfc4115,
    Rfc4115Profile::new(&Rfc4115Config::new(
        Rate::from_bytes_per_sec(600_000),
        Rate::from_bytes_per_sec(400_000),
        3000,
        6000
    ))
);

/// The EF policer with the premium TCP test's default profile; every third packet one
/// packet's worth leaves the premium buffer.
pub fn ef_stream(out: &mut dyn Sink) {
    let Ok(p) = PremiumPolicerProfile::new(&PremiumPolicerConfig::default()) else {
        out.put(u64::MAX);
        return;
    };
    let mut clock = Clock::new(3, 0, 60_000_000);
    let mut rng = SplitMix64::new(33);
    let mut s = PremiumPolicer::new(&p, Instant::ZERO);
    for i in 0..PACKETS {
        let now = clock.next();
        let len = length(&mut rng);
        let v = ep::fw_ef_policer_offer(&mut s, &p, now, len);
        out.put(v.index() as u64);
        if i % 3 == 2 {
            s.dequeued(length(&mut rng));
        }
        out.put(s.backlog());
    }
}

// ---------------------------------------------------------------------------
// PCN
// ---------------------------------------------------------------------------

fn pcn_run<M: PcnMeter>(
    out: &mut dyn Sink,
    p: &M::Profile,
    seed: u64,
    mark: fn(&mut M, &M::Profile, Instant, u32, PcnMark) -> PcnMark,
) {
    // 1 Mbit/s meters offered about 1.25 Mbit/s of 40..1540-byte packets.
    let mut clock = Clock::new(seed, 0, 10_000_000);
    let mut rng = SplitMix64::new(seed.wrapping_mul(7));
    let mut m = M::start(p, Instant::ZERO);
    for _ in 0..PACKETS {
        let now = clock.next();
        let len = length(&mut rng);
        let r = rng.next_u64();
        // Three in four arrive not-marked.
        let input = if r.is_multiple_of(4) {
            pcn_mark(r >> 8)
        } else {
            PcnMark::Nm
        };
        out.put(u64::from(mark(&mut m, p, now, len, input).ecn()));
    }
}

const SR: Rate = Rate::from_kbps(1000);

fn et_profile() -> Option<EtMarkerProfile> {
    EtMarkerProfile::new(&EtMarkerConfig::draft_explicit_marking_01(SR, 10_000, 1064)).ok()
}
fn as_profile() -> Option<AsMarkerProfile> {
    AsMarkerProfile::new(&AsMarkerConfig::draft_explicit_marking_01(
        Rate::from_kbps(800),
        10_000,
        5_000,
    ))
    .ok()
}
fn thm_profile() -> Option<ThresholdMeterProfile> {
    ThresholdMeterProfile::new(
        &ThresholdMeterConfig::new(Rate::from_kbps(800), 10_000, 5_000).with_tick(TickRate::NANOS),
    )
    .ok()
}
fn etm_profile(mode: ExcessMode) -> Option<ExcessTrafficMeterProfile> {
    ExcessTrafficMeterProfile::new(
        &ExcessTrafficMeterConfig::new(SR, 10_000)
            .with_mode(mode)
            .with_tick(TickRate::NANOS),
    )
    .ok()
}

/// The 3sM markers: ET-marker (draft-babiarz-pcn-explicit-marking-01, 3sm-01
/// size-independent), the
/// section 4.8 ET-marker, both AS-marker forms, and the node marker.
pub fn pcn_3sm_stream(out: &mut dyn Sink) {
    let (Some(et), Some(asp)) = (et_profile(), as_profile()) else {
        out.put(u64::MAX);
        return;
    };
    pcn_run::<EtMarker>(out, &et, 10, ep::fw_et_marker);
    match EtMarkerProfile::new(&EtMarkerConfig::draft_3sm01_size_independent(
        SR, 10_000, 1064, 1500,
    )) {
        Ok(p) => pcn_run::<EtMarker>(out, &p, 11, ep::fw_et_marker),
        Err(_) => out.put(u64::MAX),
    }
    match EtMarkerSim48Profile::new(
        &EtMarkerSim48Config::new(SR, 10_000, 1064).with_tick(TickRate::NANOS),
    ) {
        Ok(p) => pcn_run::<EtMarkerSim48>(out, &p, 12, ep::fw_et_marker_sim48),
        Err(_) => out.put(u64::MAX),
    }
    pcn_run::<AsMarker>(out, &asp, 13, ep::fw_as_marker);
    match AsMarkerProfile::new(&AsMarkerConfig::draft_3sm01(
        Rate::from_kbps(800),
        10_000,
        5_000,
    )) {
        Ok(p) => pcn_run::<AsMarker>(out, &p, 14, ep::fw_as_marker),
        Err(_) => out.put(u64::MAX),
    }
    let node = NodeProfile {
        excess: et,
        threshold: asp,
    };
    pcn_run::<Node3sm>(out, &node, 15, ep::fw_node_3sm);
}

/// The RFC 5670 meters: threshold, excess (size independent, classic), and
/// the RFC 6660 node.
pub fn pcn_rfc5670_stream(out: &mut dyn Sink) {
    let (Some(thm), Some(etm)) = (thm_profile(), etm_profile(ExcessMode::SizeIndependent)) else {
        out.put(u64::MAX);
        return;
    };
    pcn_run::<ThresholdMeter>(out, &thm, 20, ep::fw_rfc5670_threshold);
    pcn_run::<ExcessTrafficMeter>(out, &etm, 21, ep::fw_rfc5670_excess);
    match etm_profile(ExcessMode::Classic(Default::default())) {
        Some(p) => pcn_run::<ExcessTrafficMeter>(out, &p, 22, ep::fw_rfc5670_excess),
        None => out.put(u64::MAX),
    }
    let node = NodeProfile {
        excess: etm,
        threshold: thm,
    };
    pcn_run::<NodeRfc5670>(out, &node, 23, ep::fw_node_rfc5670);
}

// ---------------------------------------------------------------------------
// RED family
// ---------------------------------------------------------------------------

/// A queue length that wanders from empty to past the limit and back.
struct Walk {
    q: u32,
    top: u32,
}

impl Walk {
    fn step(&mut self, r: u64) -> u32 {
        let d = (r % 7) as u32;
        self.q = if r & (1 << 40) != 0 || self.q < 3 {
            (self.q + d).min(self.top)
        } else {
            self.q - d.min(self.q)
        };
        if r.is_multiple_of(89) {
            self.q = 0;
        }
        self.q
    }
}

fn red_run(out: &mut dyn Sink, cfg: &RedConfig, seed: u64) {
    let Ok(p) = RedProfile::new(cfg) else {
        out.put(u64::MAX);
        return;
    };
    let mut clock = Clock::new(seed, 0, 2_000_000);
    let mut rng = SplitMix64::new(seed + 100);
    let mut drops = SplitMix64::new(seed + 200);
    let mut red = Red::new(&p, Instant::ZERO);
    let mut walk = Walk {
        q: 0,
        top: cfg.queue.limit + 5,
    };
    for _ in 0..PACKETS {
        let now = clock.next();
        let r = rng.next_u64();
        let q = walk.step(r);
        let pkt = Packet::new(length(&mut rng), ecn(r >> 16));
        let d = ep::fw_red_arrival(&mut red, &p, now, q, pkt, &mut drops);
        if q == 0 && r.is_multiple_of(3) {
            red.on_queue_empty(&p, now);
        }
        out.put(d.index() as u64);
        out.put(u64::from(red.avg_bits()));
    }
}

/// RED: classic packet mode; gentle with ECN; byte-counted buffer in byte mode.
pub fn red_stream(out: &mut dyn Sink) {
    let base = RedConfig::packets(
        20,
        60,
        U32F32::from_bits(1 << 29), // 1/8
        U32F32::from_bits(1 << 26), // 1/64
        80,
    );
    red_run(out, &base, 30);
    let mut gentle = base;
    gentle.queue.gentle = true;
    gentle.queue.ecn = true;
    gentle.max_th = 40;
    red_run(out, &gentle, 31);
    let mut bytes = base;
    bytes.queue.unit = QueueUnit::Bytes;
    bytes.min_th = 20 * 1500;
    bytes.max_th = 60 * 1500;
    bytes.queue.limit = 80 * 1500;
    bytes.queue.byte_mode = Some(1500);
    red_run(out, &bytes, 32);
}

/// RIO-C (RFC 2963's three-color profile, limit 1000), RIO-D and WRED.
pub fn rio_stream(out: &mut dyn Sink) {
    for (k, mode) in [RioMode::Coupled, RioMode::Decoupled, RioMode::Wred]
        .into_iter()
        .enumerate()
    {
        let mut cfg = RioConfig::rfc2963(1000);
        cfg.mode = mode;
        cfg.queue.w_q = U32F32::from_bits(1 << 26);
        let Ok(p) = RioProfile::new(&cfg) else {
            out.put(u64::MAX);
            return;
        };
        let seed = 40 + k as u64;
        let mut clock = Clock::new(seed, 0, 200_000);
        let mut rng = SplitMix64::new(seed + 100);
        let mut drops = SplitMix64::new(seed + 200);
        let mut rio = Rio::new(&p, Instant::ZERO);
        let mut walks = [
            Walk { q: 380, top: 500 },
            Walk { q: 190, top: 400 },
            Walk { q: 90, top: 300 },
        ];
        for _ in 0..PACKETS {
            let now = clock.next();
            let r = rng.next_u64();
            let queue = [
                walks[0].step(r),
                walks[1].step(r >> 8),
                walks[2].step(r >> 16),
            ];
            let pkt = Packet::new(length(&mut rng), ecn(r >> 24));
            let d = ep::fw_rio_arrival(&mut rio, &p, now, queue, color(r >> 32), pkt, &mut drops);
            out.put(d.index() as u64);
            for a in rio.avg_bits() {
                out.put(u64::from(a));
            }
        }
    }
}

/// AECN (the router of Zheng and Kinicki's slides at base max_p 0.5, with a
/// faster average): arrivals
/// of the three classes, a dequeue every other step.
pub fn aecn_stream(out: &mut dyn Sink) {
    let mut cfg = AecnConfig::zheng_kinicki(U32F32::from_bits(1 << 31));
    cfg.w_q = U32F32::from_bits(1 << 28);
    let Ok(p) = AecnProfile::new(&cfg) else {
        out.put(u64::MAX);
        return;
    };
    let mut q = AecnQueue::<Desc, AECN_N>::new(&p, Instant::ZERO);
    let mut clock = Clock::new(50, 0, 150_000);
    let mut rng = SplitMix64::new(150);
    let mut drops = SplitMix64::new(250);
    for i in 0..PACKETS {
        let now = clock.next();
        let r = rng.next_u64();
        // Arrivals outpace departures for the first part, then drain.
        let arrivals = if i < PACKETS / 2 { 1 + (r % 3) } else { r % 2 };
        for a in 0..arrivals {
            let d = Desc {
                class: FlowClass::ALL[((r >> (8 + a)) % 3) as usize],
                ecn: ecn(r >> (16 + a)),
                len: length(&mut rng),
            };
            let v = match ep::fw_aecn_enqueue(&mut q, &p, now, d, &mut drops) {
                Ok(dec) => dec.index() as u64,
                Err(rej) => 8 + rej.decision.index() as u64 + 16 * u64::from(rej.packet.len),
            };
            out.put(v);
        }
        if i % 2 == 1 || q.len() == AECN_N {
            match ep::fw_aecn_dequeue(&mut q, &p, now) {
                Some(d) => out.put(
                    u64::from(d.ecn.bits())
                        | (d.class.index() as u64) << 8
                        | u64::from(d.len) << 16,
                ),
                None => out.put(u64::MAX),
            }
        }
        out.put(q.avg(&p).to_bits() >> 16);
    }
}

// ---------------------------------------------------------------------------
// RAS and RBCC
// ---------------------------------------------------------------------------

fn ras_run(out: &mut dyn Sink, p: &RasProfile, seed: u64, span: u64) {
    let mut clock = Clock::new(seed, 0, span);
    let mut rng = SplitMix64::new(seed + 1);
    let mut s: Ras<u32, RAS_N> = Ras::new(p, Instant::ZERO);
    for _ in 0..PACKETS {
        let now = clock.next();
        let r = rng.next_u64();
        if !r.is_multiple_of(4) {
            let len = length(&mut rng);
            match ep::fw_ras_enqueue(&mut s, p, now, len) {
                Ok(()) => out.put(1),
                Err(l) => out.put(2 + u64::from(l)),
            }
        }
        // Release whatever is due, at most a few per step.
        for _ in 0..4 {
            match ep::fw_ras_dequeue(&mut s, p, now) {
                Some(len) => out.put(u64::from(len)),
                None => break,
            }
        }
        out.put(s.next_release().map_or(u64::MAX, Instant::ticks));
        out.put(s.shaping_rate(p));
        out.put(s.bytes());
    }
}

/// srRAS and trRAS (RFC 2963 sections 2.2, 2.4) fed about twice their CIR.
pub fn ras_stream(out: &mut dyn Sink) {
    let line = Rate::from_mbps(34);
    match SrRasProfile::new(&SrRasConfig::new(Rate::from_mbps(2), line, 64_000)) {
        Ok(p) => ras_run(out, &p, 60, 3_000_000),
        Err(_) => out.put(u64::MAX),
    }
    match TrRasProfile::new(&TrRasConfig::new(
        Rate::from_mbps(2),
        Rate::from_mbps(4),
        line,
        64_000,
    )) {
        Ok(p) => ras_run(out, &p, 61, 3_000_000),
        Err(_) => out.put(u64::MAX),
    }
}

/// RBCC: up to 24 flows through a 16-entry table (so that some are refused),
/// data packets stamped, ACKs returned and forwarded, idle flows expired.
pub fn rbcc_stream(out: &mut dyn Sink) {
    let Ok(p) = RbccProfile::new(&RbccConfig::toomey_scenario7(
        NodeId(23),
        Rate::from_mbps(10),
    )) else {
        out.put(u64::MAX);
        return;
    };
    let mut ifc: RbccInterface<RBCC_N> = RbccInterface::new(&p, Instant::ZERO);
    let mut clock = Clock::new(70, 0, 400_000_000);
    let mut rng = SplitMix64::new(170);
    for _ in 0..PACKETS {
        let now = clock.next();
        let r = rng.next_u64();
        let flow = (r % 24) as FlowId + 1;
        let requested = match (r >> 8) % 4 {
            0 => FixedRate::UNLIMITED,
            1 => FixedRate::from_bps(200_000 + (r >> 32) % 2_000_000),
            2 => FixedRate::from_bps(1_000_000),
            _ => FixedRate::from_raw(r >> 20),
        };
        let mut hdr = RateHeader::new(requested);
        match ep::fw_rbcc_stamp(&mut ifc, &p, now, flow, &mut hdr) {
            Ok(()) => {
                out.put(hdr.rate.raw());
                out.put(u64::from(hdr.bottleneck.0));
            }
            Err(f) => out.put(0xF000_0000 | u64::from(f)),
        }
        match (r >> 12) % 8 {
            0 => {
                // The ACK comes back naming another bottleneck at a lower rate.
                let ack = AckHeader {
                    rate: FixedRate::from_bps((r >> 40) % 3_000_000),
                    bottleneck: NodeId(7),
                };
                ifc.on_return(&p, now, flow, &ack);
            }
            1 => {
                let ack = hdr.ack();
                ifc.on_return(&p, now, flow, &ack);
            }
            2 => {
                let mut ack = AckHeader {
                    rate: FixedRate::from_bps((r >> 36) % 5_000_000),
                    bottleneck: NodeId::NONE,
                };
                let e = ifc.on_ack(&p, now, flow + 100, &mut ack);
                out.put(u64::from(e.is_err()) << 63 | ack.rate.raw());
            }
            3 => out.put(ifc.expire(&p, now) as u64),
            4 => out.put(u64::from(ifc.close(&p, flow))),
            _ => {}
        }
        out.put(ifc.advertised().raw());
        out.put(ifc.len() as u64);
    }
}

/// A stream: it writes what each call returned to the sink.
pub type Stream = fn(&mut dyn Sink);

/// Every stream, by family name, in the order the firmware prints them.
pub const STREAMS: &[(&str, Stream)] = &[
    ("srTCM", srtcm_stream),
    ("trTCM", trtcm_stream),
    ("RFC 4115", rfc4115_stream),
    ("EF policer", ef_stream),
    ("PCN 3sM", pcn_3sm_stream),
    ("RFC 5670", pcn_rfc5670_stream),
    ("RED", red_stream),
    ("RIO/WRED", rio_stream),
    ("AECN", aecn_stream),
    ("RAS", ras_stream),
    ("RBCC", rbcc_stream),
    ("CoDel", delay::codel_stream),
    ("FQ-CoDel", delay::fq_codel_stream),
    ("PIE", delay::pie_stream),
    ("FQ-PIE", delay::fq_pie_stream),
    ("DualPI2", delay::dualpi2_stream),
    ("TBF", delay::tbf_stream),
];
