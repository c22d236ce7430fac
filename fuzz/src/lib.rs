//! Input decoding shared by the netcond fuzz targets.
//!
//! Every target decodes its input with [`arbitrary`] into a configuration and a
//! sequence of operations (time step, length, color or mark, operation), runs
//! the state machine, and checks the crate's own `invariants` functions (the
//! same ones its proptests call) after every step, plus a differential check
//! against the crate's exact `reference` model where there is one. A broken
//! invariant or a mismatch panics with a message naming the target, the step
//! and the rule, and libFuzzer saves the input.
//!
//! The decoders here only turn bytes into values of the crates' own types; they
//! hold no algorithm logic. The selectors are biased towards the values that
//! matter (zero, one, the RFC examples, `u32::MAX` lengths, `u64::MAX`
//! timestamps, backward steps) while still reaching every raw value.

use arbitrary::Arbitrary;
use netcond_core::{Color, Rate, TickRate};

/// Most operations a single input runs (keeps one execution short).
pub const MAX_OPS: usize = 2048;

/// The time between two operations, applied with wrapping arithmetic to a
/// `u64` tick count.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Same instant.
    Zero,
    /// A few ticks.
    Small(u8),
    /// Up to 65,535 ticks.
    Medium(u16),
    /// Up to 2^32 ticks.
    Large(u32),
    /// A small step backwards.
    Back(u16),
    /// Any `u64` (half of them step backwards in serial arithmetic).
    Any(u64),
    /// 2^62 ticks.
    Huge,
    /// `u64::MAX`: one tick backwards.
    MinusOne,
}

impl Step {
    /// The next tick count, wrapping: any step, including backwards ones.
    #[must_use]
    pub fn wild(self, now: u64) -> u64 {
        match self {
            Step::Zero => now,
            Step::Small(d) => now.wrapping_add(u64::from(d)),
            Step::Medium(d) => now.wrapping_add(u64::from(d)),
            Step::Large(d) => now.wrapping_add(u64::from(d)),
            Step::Back(d) => now.wrapping_sub(u64::from(d)),
            Step::Any(d) => now.wrapping_add(d),
            Step::Huge => now.wrapping_add(1 << 62),
            Step::MinusOne => now.wrapping_sub(1),
        }
    }

    /// The next tick count, never going back and saturating at `u64::MAX`
    /// (for properties that need a clock that only moves forward).
    #[must_use]
    pub fn forward(self, now: u64) -> u64 {
        let d = match self {
            Step::Zero | Step::Back(_) | Step::MinusOne => 0,
            Step::Small(d) => u64::from(d),
            Step::Medium(d) => u64::from(d),
            Step::Large(d) => u64::from(d),
            Step::Any(d) => d >> 24,
            Step::Huge => 1 << 40,
        };
        now.saturating_add(d)
    }

    /// The next tick count within `[0, 2^63)`: steps that would leave the range
    /// are folded back into it (a backward step stays a backward step). For
    /// reference models that compare timestamps as plain integers.
    #[must_use]
    pub fn bounded(self, now: u64) -> u64 {
        const MASK: u64 = (1 << 63) - 1;
        match self {
            Step::Back(d) => now.saturating_sub(u64::from(d)),
            Step::MinusOne => now.saturating_sub(1),
            s => s.wild(now) & MASK,
        }
    }
}

/// A packet length in bytes.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Len {
    /// An Ethernet-sized packet: 0 to 9,000 bytes.
    Typical(u16),
    /// A length near a burst boundary of the RFC examples (2047..2049,
    /// 4095..4097, 1499..1501).
    Edge(u8),
    /// Zero.
    Zero,
    /// `u32::MAX`.
    Max,
    /// Any `u32`.
    Any(u32),
}

impl Len {
    /// The length.
    #[must_use]
    pub fn get(self) -> u32 {
        match self {
            Len::Typical(v) => u32::from(v) % 9001,
            Len::Edge(v) => {
                let base = [2048u32, 4096, 1500, 64, 1][usize::from(v % 5)];
                (base + u32::from(v / 5 % 3)).saturating_sub(1)
            }
            Len::Zero => 0,
            Len::Max => u32::MAX,
            Len::Any(v) => v,
        }
    }
}

/// An information rate.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateSel {
    /// Zero (most profiles refuse it: that path is fuzzed too).
    Zero,
    /// 1 to 65,536 bit/s.
    Bits(u16),
    /// Whole bytes per second.
    Bytes(u32),
    /// Whole Mbit/s.
    Mbps(u16),
    /// A rate from the RFCs and the source documents.
    Preset(u8),
    /// Any bit rate.
    Any(u64),
}

impl RateSel {
    /// The rate.
    #[must_use]
    pub fn get(self) -> Rate {
        match self {
            RateSel::Zero => Rate::ZERO,
            RateSel::Bits(v) => Rate::from_bits_per_sec(u64::from(v) + 1),
            RateSel::Bytes(v) => Rate::from_bytes_per_sec(u64::from(v)),
            RateSel::Mbps(v) => Rate::from_mbps(u64::from(v)),
            RateSel::Preset(v) => Rate::from_bits_per_sec(
                [
                    368_000_000, // 46,000,000 B/s (DPDK test_meter CIR)
                    552_000_000, // 69,000,000 B/s (DPDK test_meter PIR)
                    163_840,     // the premium TCP test's committed rate
                    64_000,      // Toomey's Scenario 7 bottleneck
                    10_000_000,
                    80_000, // G.711 at 20 ms: 10,000 B/s
                    1,
                    100_000_000_000,
                ][usize::from(v % 8)],
            ),
            RateSel::Any(v) => Rate::from_bits_per_sec(v),
        }
    }
}

/// A burst or buffer size in bytes.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Burst {
    /// Zero.
    Zero,
    /// 1 to 256 bytes.
    Small(u8),
    /// Up to 65,535 bytes.
    Typical(u16),
    /// A size from the RFCs and the source documents (2048, 4096, 1500, 11,000, 13,000, ...).
    Preset(u8),
    /// Any `u32`.
    Large(u32),
    /// Any `u64`.
    Any(u64),
}

impl Burst {
    /// The size in bytes.
    #[must_use]
    pub fn get(self) -> u64 {
        match self {
            Burst::Zero => 0,
            Burst::Small(v) => u64::from(v) + 1,
            Burst::Typical(v) => u64::from(v),
            Burst::Preset(v) => {
                [2048u64, 4096, 1500, 11_000, 13_000, 20_000, 60_000, 1][usize::from(v % 8)]
            }
            Burst::Large(v) => u64::from(v),
            Burst::Any(v) => v,
        }
    }
}

/// The tick clock.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum TickSel {
    /// Nanoseconds.
    Nanos,
    /// Microseconds.
    Micros,
    /// Milliseconds.
    Millis,
    /// A 2.3 GHz cycle counter.
    Cycles,
    /// 1 Hz.
    Hz1,
    /// Any nonzero frequency.
    Any(u64),
}

impl TickSel {
    /// The clock.
    #[must_use]
    pub fn get(self) -> TickRate {
        let hz = match self {
            TickSel::Nanos => 1_000_000_000,
            TickSel::Micros => 1_000_000,
            TickSel::Millis => 1_000,
            TickSel::Cycles => 2_300_000_000,
            TickSel::Hz1 => 1,
            TickSel::Any(v) => v.max(1),
        };
        TickRate::from_hz(hz).unwrap_or(TickRate::NANOS)
    }
}

/// The input color of a three-color marker call: color-blind or color-aware
/// with a pre-color.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorIn {
    /// Color-blind.
    Blind,
    /// Color-aware, pre-colored green.
    Green,
    /// Color-aware, pre-colored yellow.
    Yellow,
    /// Color-aware, pre-colored red.
    Red,
}

impl ColorIn {
    /// `None` for color-blind, else the pre-color.
    #[must_use]
    pub fn get(self) -> Option<Color> {
        match self {
            ColorIn::Blind => None,
            ColorIn::Green => Some(Color::Green),
            ColorIn::Yellow => Some(Color::Yellow),
            ColorIn::Red => Some(Color::Red),
        }
    }
}

/// The RFC 6660 marking of an arriving packet.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkIn {
    /// Not PCN.
    NotPcn,
    /// Not marked.
    Nm,
    /// Threshold-marked (AS).
    Thm,
    /// Excess-traffic-marked (ET).
    Etm,
}

impl MarkIn {
    /// The marking.
    #[must_use]
    pub fn get(self) -> pcn_meter::PcnMark {
        use pcn_meter::PcnMark;
        match self {
            MarkIn::NotPcn => PcnMark::NotPcn,
            MarkIn::Nm => PcnMark::Nm,
            MarkIn::Thm => PcnMark::Thm,
            MarkIn::Etm => PcnMark::Etm,
        }
    }
}

/// A fraction in `[0, 1]` (sometimes a little above, to fuzz the
/// configuration checks) as the raw bits of a 32-fraction-bit fixed-point value.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frac {
    /// Zero.
    Zero,
    /// One.
    One,
    /// `k / 1000`, k in 0..=1000 (values above 1000 give slightly more than 1).
    PerMille(u16),
    /// Any value in `[0, 1]`, in 2^-32 steps.
    Bits(u32),
    /// Any raw 64-bit value of a U32F32 (mostly above one).
    Raw(u64),
}

impl Frac {
    /// As the bits of a `U32F32` (32 fraction bits).
    #[must_use]
    pub fn u32f32_bits(self) -> u64 {
        match self {
            Frac::Zero => 0,
            Frac::One => 1 << 32,
            Frac::PerMille(k) => (u64::from(k % 1100) << 32) / 1000,
            Frac::Bits(v) => u64::from(v),
            Frac::Raw(v) => v,
        }
    }

    /// As the bits of a `U1F31` (31 fraction bits, saturating at its maximum).
    #[must_use]
    pub fn u1f31_bits(self) -> u32 {
        u32::try_from(self.u32f32_bits() >> 1).unwrap_or(u32::MAX)
    }
}

/// Takes at most [`MAX_OPS`] operations.
#[must_use]
pub fn bounded<T>(ops: &[T]) -> &[T] {
    &ops[..ops.len().min(MAX_OPS)]
}

/// The shared driver of the PCN meter targets.
pub mod pcn {
    use super::{bounded, Len, MarkIn, Step};
    use arbitrary::Arbitrary;
    use netcond_core::Instant;
    use pcn_meter::invariants::{meter_step, not_pcn_is_not_metered};
    use pcn_meter::reference::{
        RefAsMarker, RefEtMarker, RefEtMarkerSim48, RefExcessTrafficMeter, RefThresholdMeter,
    };
    use pcn_meter::{PcnMark, PcnMeter};

    /// One packet: time step, length, marking on arrival.
    #[derive(Arbitrary, Debug, Clone, Copy)]
    pub struct Op {
        /// Time since the previous packet.
        pub step: Step,
        /// Length in bytes.
        pub len: Len,
        /// Marking on arrival.
        pub mark: MarkIn,
    }

    /// A reference model as the driver sees it.
    pub trait Model {
        /// One packet.
        fn step(&mut self, now: Instant, len: u32, mark: PcnMark) -> PcnMark;
        /// True if a fast meter's level (`per_byte` units per byte) equals the model's.
        fn same(&self, level: i128, per_byte: u64) -> bool;
    }

    macro_rules! model {
        ($t:ty) => {
            impl Model for $t {
                fn step(&mut self, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
                    self.mark(now, len, mark)
                }
                fn same(&self, level: i128, per_byte: u64) -> bool {
                    self.fill_matches(level, per_byte)
                }
            }
        };
    }
    model!(RefEtMarker);
    model!(RefEtMarkerSim48);
    model!(RefAsMarker);
    model!(RefThresholdMeter);
    model!(RefExcessTrafficMeter);

    /// Runs `ops` through a fresh meter, checking `meter_step` and
    /// `not_pcn_is_not_metered` at every packet.
    ///
    /// With `wild` false, timestamps stay in `[0, 2^63)` (the reference models
    /// compare plain tick counts) and every packet's marking and bucket level
    /// are compared with the model made by `model`. With `wild` true, any
    /// timestamp is used (`u64::MAX`, wrap-around, any backward step) and only
    /// the invariants are checked.
    pub fn run<M: PcnMeter, R: Model>(
        name: &str,
        p: &M::Profile,
        per_byte: u64,
        start: u64,
        wild: bool,
        ops: &[Op],
        model: impl FnOnce(Instant) -> R,
    ) {
        let mut now = if wild { start } else { start >> 1 };
        let mut m = M::start(p, Instant::from_ticks(now));
        let mut r = model(Instant::from_ticks(now));
        for (i, op) in bounded(ops).iter().enumerate() {
            now = if wild {
                op.step.wild(now)
            } else {
                op.step.bounded(now)
            };
            let (t, len, mark) = (Instant::from_ticks(now), op.len.get(), op.mark.get());
            let out = match meter_step(p, &mut m, t, len, mark) {
                Ok(out) => out,
                Err(e) => panic!("{name}: packet {i} at {now} len {len} {mark:?}: {e}"),
            };
            if let Err(e) = not_pcn_is_not_metered(p, &m, t, len) {
                panic!("{name}: after packet {i} at {now} len {len}: {e}");
            }
            if !wild {
                let want = r.step(t, len, mark);
                assert!(
                    out == want && r.same(m.level(), per_byte),
                    "{name}: packet {i} at {now} len {len} {mark:?}: fast {out:?} (level {}), \
                     reference {want:?}",
                    m.level()
                );
            }
        }
    }
}

/// Decoding for the RED-family targets (`aqm_red::invariants`).
pub mod aqm {
    use super::{bounded, Frac, Len, Step};
    use aqm_red::invariants::Op as RedOp;
    use aqm_red::{QueueUnit, Spreading, U32F32};
    use arbitrary::Arbitrary;

    /// A queue length or threshold in queue units.
    #[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Units {
        /// 0 to 255.
        Small(u8),
        /// 0 to 65,535.
        Medium(u16),
        /// A value from the source documents (10, 30, 50, 100, 200, 400, 800, 1000).
        Preset(u8),
        /// Any `u32`.
        Any(u32),
    }

    impl Units {
        /// The value.
        #[must_use]
        pub fn get(self) -> u32 {
            match self {
                Units::Small(v) => u32::from(v),
                Units::Medium(v) => u32::from(v),
                Units::Preset(v) => [10, 30, 50, 100, 200, 400, 800, 1000][usize::from(v % 8)],
                Units::Any(v) => v,
            }
        }
    }

    /// One operation on a RED-family queue (see `aqm_red::invariants::Op`).
    #[derive(Arbitrary, Debug, Clone, Copy)]
    pub enum Op {
        /// A packet arrives.
        Arrive {
            /// Time since the previous operation.
            step: Step,
            /// The queue length it sees (RED, RIO).
            queue: Units,
            /// Its length.
            len: Len,
            /// ECN bits (low two bits).
            ecn: u8,
            /// Color (RIO) or class (AECN).
            color: u8,
        },
        /// The queue empties (RED, RIO) or one packet leaves (AECN).
        Depart(Step),
        /// The clock steps back.
        ClockBack(u64),
    }

    /// The invariant functions' operations. Time steps are relative (the
    /// invariants keep the clock, wrapping), so a step is the difference that
    /// [`Step::wild`] would make from zero.
    #[must_use]
    pub fn ops(ops: &[Op]) -> Vec<RedOp> {
        bounded(ops)
            .iter()
            .map(|op| match *op {
                Op::Arrive {
                    step,
                    queue,
                    len,
                    ecn,
                    color,
                } => RedOp::Arrive {
                    dt: step.wild(0),
                    queue_len: queue.get(),
                    len: len.get(),
                    ecn,
                    color,
                },
                Op::Depart(step) => RedOp::Depart { dt: step.wild(0) },
                Op::ClockBack(back) => RedOp::ClockBack { back },
            })
            .collect()
    }

    /// A `U32F32` from a [`Frac`].
    #[must_use]
    pub fn fx(f: Frac) -> U32F32 {
        U32F32::from_bits(f.u32f32_bits())
    }

    /// The drop spreading.
    #[must_use]
    pub fn spreading(v: u8) -> Spreading {
        match v % 7 {
            0 => Spreading::Uniform,
            1 => Spreading::UniformCountFirst,
            2 => Spreading::Dpdk,
            3 => Spreading::Geometric,
            4 => Spreading::Accumulated,
            5 => Spreading::AccumulatedDpdk,
            _ => Spreading::Wait,
        }
    }

    /// Packets or bytes.
    #[must_use]
    pub fn unit(bytes: bool) -> QueueUnit {
        if bytes {
            QueueUnit::Bytes
        } else {
            QueueUnit::Packets
        }
    }

    /// FJ93's `s` in nanosecond ticks (zero is refused by the profiles: fuzzed
    /// too).
    #[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
    pub enum TxTicks {
        /// Zero.
        Zero,
        /// 1 to 256 ticks.
        Small(u8),
        /// 1.2 ms in nanoseconds (1500 B at 10 Mbit/s).
        Typical,
        /// Any `u64`.
        Any(u64),
    }

    impl TxTicks {
        /// The value.
        #[must_use]
        pub fn get(self) -> u64 {
            match self {
                TxTicks::Zero => 0,
                TxTicks::Small(v) => u64::from(v) + 1,
                TxTicks::Typical => 1_200_000,
                TxTicks::Any(v) => v,
            }
        }

        /// The value as a `Duration` of nanoseconds, which the configurations'
        /// default nanosecond clock turns back into [`get`](Self::get) ticks.
        #[must_use]
        pub fn duration(self) -> core::time::Duration {
            core::time::Duration::from_nanos(self.get())
        }
    }
}

/// The shared driver of the RAS targets (`ras_shaper::invariants`).
pub mod ras {
    use super::{bounded, Len, Step};
    use arbitrary::Arbitrary;
    use netcond_core::Instant;
    use ras_shaper::invariants::{
        green_at_t2, mir_spacing, rate_bounds, release_in_order, shaper_consistent,
    };
    use ras_shaper::{GreenMeter, GreenRas, Ras, RasProfile};

    /// Queue capacity of the fuzzed shapers, in descriptors.
    pub const N: usize = 16;

    /// One operation on a shaper.
    #[derive(Arbitrary, Debug, Clone, Copy)]
    pub enum Op {
        /// Time moves by `step`, then a packet of `len` bytes is offered.
        Enqueue(Step, Len),
        /// Time moves by `step`.
        Wait(Step),
        /// Time moves to the head's release instant (if any).
        AtRelease,
    }

    /// After each operation every packet that is due is dequeued.
    ///
    /// With `wild` false the clock only moves forward and the release order
    /// (`release_in_order`) and, for green shapers, RFC 2963 section 3's
    /// "released at T2 means green" (`green_at_t2`) are checked too; with
    /// `wild` true any step is taken (backward, wrap-around) and only the
    /// state invariants and panic freedom are checked. With a forward clock,
    /// consecutive releases are also at least MIR apart (`mir_spacing`).
    fn now_after(op: &Op, now: u64, wild: bool, release: Option<Instant>) -> u64 {
        let step = |s: Step| if wild { s.wild(now) } else { s.forward(now) };
        match *op {
            Op::Enqueue(s, _) | Op::Wait(s) => step(s),
            Op::AtRelease => match release {
                Some(r) if wild => r.ticks(),
                Some(r) => now.max(r.ticks()),
                None => now,
            },
        }
    }

    fn check<T>(name: &str, i: usize, now: u64, r: Result<T, &'static str>) -> T {
        match r {
            Ok(v) => v,
            Err(e) => panic!("{name}: op {i} at {now}: {e}"),
        }
    }

    /// Drives a plain srRAS / trRAS (`Ras<u32, N>`).
    pub fn run_plain(name: &str, p: &RasProfile, wild: bool, start: u64, occ: u64, ops: &[Op]) {
        let mut now = start;
        let mut s: Ras<u32, N> = Ras::new(p, Instant::from_ticks(now));
        let mut last: Option<Instant> = None;
        let mut last_len: Option<u32> = None;
        for (i, op) in bounded(ops).iter().enumerate() {
            now = now_after(op, now, wild, s.next_release());
            let t = Instant::from_ticks(now);
            if let Op::Enqueue(_, len) = *op {
                let len = len.get();
                let room = s.len() < N
                    && s.bytes()
                        .checked_add(u64::from(len))
                        .is_some_and(|b| b <= p.buffer_bytes());
                let ok = s.enqueue(p, t, len).is_ok();
                assert_eq!(
                    ok, room,
                    "{name}: op {i} at {now}: tail drop with room, or no drop without"
                );
            }
            for _ in 0..=N {
                let Some(rel) = s.next_release() else { break };
                let Some(len) = s.dequeue(p, t) else { break };
                if !wild {
                    check(name, i, now, release_in_order(last, rel, t));
                    check(name, i, now, mir_spacing(p, last.zip(last_len), rel));
                }
                last = Some(rel);
                last_len = Some(len);
            }
            check(name, i, now, shaper_consistent(p, &s));
            check(name, i, now, rate_bounds(p, s.ear(), s.bytes()));
            check(name, i, now, rate_bounds(p, s.ear(), occ));
        }
    }

    /// Drives a green shaper (`GreenRas<u32, N>`) with its downstream meter,
    /// which sees no other traffic.
    pub fn run_green<M: GreenMeter>(
        name: &str,
        p: &RasProfile,
        mp: &M::Profile,
        wild: bool,
        start: u64,
        occ: u64,
        ops: &[Op],
    ) {
        let mut now = start;
        let mut g: GreenRas<u32, N> = GreenRas::new(p, Instant::from_ticks(now));
        let mut m = M::start(mp, Instant::from_ticks(now));
        let mut last: Option<Instant> = None;
        let mut last_len: Option<u32> = None;
        for (i, op) in bounded(ops).iter().enumerate() {
            now = now_after(op, now, wild, g.next_release());
            let t = Instant::from_ticks(now);
            if let Op::Enqueue(_, len) = *op {
                let len = len.get();
                let s = g.ras();
                let room = s.len() < N
                    && s.bytes()
                        .checked_add(u64::from(len))
                        .is_some_and(|b| b <= p.buffer_bytes());
                let ok = g.enqueue(p, mp, &m, t, len).is_ok();
                assert_eq!(
                    ok, room,
                    "{name}: op {i} at {now}: tail drop with room, or no drop without"
                );
            }
            for _ in 0..=N {
                let Some(rel) = g.next_release() else { break };
                let at_t2 = g.head_at_t2();
                let Some((len, color)) = g.dequeue(p, mp, &mut m, t) else {
                    break;
                };
                if !wild {
                    check(name, i, now, release_in_order(last, rel, t));
                    check(name, i, now, mir_spacing(p, last.zip(last_len), rel));
                    check(name, i, now, green_at_t2(at_t2, color));
                }
                last = Some(rel);
                last_len = Some(len);
            }
            check(name, i, now, shaper_consistent(p, g.ras()));
            check(name, i, now, rate_bounds(p, g.ras().ear(), g.ras().bytes()));
            check(name, i, now, rate_bounds(p, g.ras().ear(), occ));
        }
    }
}

/// The 16-byte `trtcm::Compact` state run beside a 24-byte marker.
pub mod compact {
    use core::fmt::Debug;
    use core::hash::Hash;
    use netcond_core::{Color, Instant};
    use trtcm::{Compact, CompactProfile, TwoBucket};

    /// A `Compact<M>` on the same profile as a marker under test, if the
    /// profile fits 32-bit counts.
    pub struct Shadow<M: TwoBucket> {
        profile: CompactProfile<M::Profile>,
        state: Compact<M>,
    }

    impl<M: TwoBucket + Debug + Eq + Hash> Shadow<M> {
        /// A full state at `now`, or `None` if a bucket holds 2^32 units or more.
        pub fn new(profile: M::Profile, now: Instant) -> Option<Shadow<M>> {
            let profile = CompactProfile::new(profile).ok()?;
            let state = Compact::new(&profile, now);
            Some(Shadow { profile, state })
        }

        /// Colors the packet the marker just colored `got` (leaving it as
        /// `wide`) and panics unless the color and the state are the same.
        pub fn check(
            &mut self,
            target: &str,
            i: usize,
            (now, len, c): (Instant, u32, Option<Color>),
            got: Color,
            wide: &M,
        ) {
            let got16 = match c {
                None => self.state.color_blind(&self.profile, now, len),
                Some(c) => self.state.color_aware(&self.profile, now, len, c),
            };
            let narrow = self.state.to_state();
            assert!(
                got16 == got && narrow == *wide,
                "{target}: packet {i} at {} len {len} {c:?}: 16-byte state {got16} {narrow:?}, \
                 24-byte state {got} {wide:?}",
                now.ticks()
            );
        }
    }
}
