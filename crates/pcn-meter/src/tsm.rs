//! Three-state PCN marking (3sM): the SR-meter / ET-marker and the AR-meter /
//! AS-marker of draft-babiarz-pcn-explicit-marking-01 (draft-babiarz-pcn-explicit-marking-01) and of
//! draft-babiarz-pcn-3sm-01.

use crate::mark::PcnMark;
use crate::node::PcnMeter;
use crate::units::{below, cold_path, select, Units, Wide, MAX_UNITS};
use netcond_core::{gcd, Instant, Rate, TickRate};

// ---------------------------------------------------------------------------
// ET-marker (token bucket with tail marking and marking-frequency reduction)
// ---------------------------------------------------------------------------

/// How the ET-marker decides that a packet is excess.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum EtMarking {
    /// Tail marking (draft-babiarz-pcn-explicit-marking-01 section 1.2; 3sm-01 section 3.1.2): mark ET when
    /// `fill < packet.size`, then `fill = min(size, fill + s)`.
    TailMarking,
    /// Packet-size-independent marking with proportional reduction (3sm-01
    /// appendix A.1.5): mark ET when `fill < MTU`, then
    /// `fill = min(size, fill + s * packet.size / MTU)`.
    SizeIndependent {
        /// The MTU in bytes.
        mtu: u32,
    },
}

/// Configuration of a 3sM SR-meter / ET-marker, in the draft's units.
///
/// Built from a named profile of its source and adjusted with the `with_*`
/// setters; the fields stay readable.
///
/// ```
/// use netcond_core::{Rate, TickRate};
/// use pcn_meter::{EtMarkerConfig, EtMarkerProfile, EtMarking};
///
/// // draft-babiarz-pcn-explicit-marking-01 section 1.2: SR 1 Mbit/s, a 10 kB
/// // bucket, s = 1064 B; here on a microsecond clock.
/// let c = EtMarkerConfig::draft_explicit_marking_01(Rate::from_kbps(1000), 10_000, 1064)
///     .with_tick(TickRate::MICROS);
/// assert!(c.already_et_adds_s);
/// assert_eq!(c.marking, EtMarking::TailMarking);
/// assert!(EtMarkerProfile::new(&c).is_ok());
///
/// // The same bucket with 3sm-01's size-independent marking (MTU 1500 B).
/// let c = c.with_marking(EtMarking::SizeIndependent { mtu: 1500 });
/// assert!(EtMarkerProfile::new(&c).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct EtMarkerConfig {
    /// SR, the supportable rate: the token rate TB.rate.
    pub sr: Rate,
    /// TB.size in bytes; the bucket starts full.
    pub bucket_size: u64,
    /// `s`, the marking-frequency reduction, in bytes: after each ET mark the
    /// bucket gains `s` tokens (or `s * size / MTU`), so that under overload about
    /// one packet is marked per `s` + packet size bytes of excess traffic.
    pub s: u64,
    /// draft-babiarz-pcn-explicit-marking-01 section 1.2: "If an ET-marked packet arrives, the TB's fill state
    /// is also incremented by s" (proportionally, `s * size / MTU`, with
    /// [`EtMarking::SizeIndependent`], as in 3sm-01 appendix A.1.5). Off, an
    /// arriving ET packet only lets time refill the bucket.
    pub already_et_adds_s: bool,
    /// The marking test.
    pub marking: EtMarking,
    /// The clock of the `Instant`s passed in.
    pub tick: TickRate,
}

impl EtMarkerConfig {
    /// The ET-marker of draft-babiarz-pcn-explicit-marking-01 section 1.2: tail marking, already-ET packets
    /// add `s`, nanosecond clock.
    #[must_use]
    pub const fn draft_explicit_marking_01(sr: Rate, bucket_size: u64, s: u64) -> EtMarkerConfig {
        EtMarkerConfig {
            sr,
            bucket_size,
            s,
            already_et_adds_s: true,
            marking: EtMarking::TailMarking,
            tick: TickRate::NANOS,
        }
    }

    /// The ET-marker of 3sm-01 section 3.1.2: tail marking; an already-ET packet
    /// does not add `s`.
    #[must_use]
    pub const fn draft_3sm01(sr: Rate, bucket_size: u64, s: u64) -> EtMarkerConfig {
        EtMarkerConfig {
            sr,
            bucket_size,
            s,
            already_et_adds_s: false,
            marking: EtMarking::TailMarking,
            tick: TickRate::NANOS,
        }
    }

    /// The ET-marker of 3sm-01 appendix A.1.5: packet-size-independent marking
    /// with proportional reduction, already-ET packets adding `s * size / MTU`.
    #[must_use]
    pub const fn draft_3sm01_size_independent(
        sr: Rate,
        bucket_size: u64,
        s: u64,
        mtu: u32,
    ) -> EtMarkerConfig {
        EtMarkerConfig {
            sr,
            bucket_size,
            s,
            already_et_adds_s: true,
            marking: EtMarking::SizeIndependent { mtu },
            tick: TickRate::NANOS,
        }
    }

    /// The same configuration with `already_et_adds_s` set.
    #[must_use]
    pub const fn with_already_et_adds_s(mut self, already_et_adds_s: bool) -> EtMarkerConfig {
        self.already_et_adds_s = already_et_adds_s;
        self
    }

    /// The same configuration with this marking test.
    #[must_use]
    pub const fn with_marking(mut self, marking: EtMarking) -> EtMarkerConfig {
        self.marking = marking;
        self
    }

    /// The same configuration on the clock `tick`.
    #[must_use]
    pub const fn with_tick(mut self, tick: TickRate) -> EtMarkerConfig {
        self.tick = tick;
        self
    }
}

netcond_core::config_error! {
    /// Why an ET-marker configuration was refused.
    pub enum EtMarkerError {
        /// The bucket does not fit the token counter.
        TooLarge => "TB.size times the clock resolution (times MTU / gcd(s * scale, MTU) with \
                     size-independent marking) must stay below 2^62 token units; use a coarser \
                     clock or a smaller bucket",
        /// MTU is zero.
        ZeroMtu => "MTU must be greater than zero (3sm-01 appendix A.1.5: the reduction is s * size / MTU)",
        /// The bucket cannot hold one MTU.
        MtuAboveBucket => "TB.size must be at least MTU with size-independent marking (3sm-01 \
                           appendix A.1.5: the test fill >= MTU must be reachable)",
        /// SR is zero.
        ZeroRate => "SR must be greater than zero (draft-babiarz-pcn-explicit-marking-01 section 1.2, as RFC 5670 section \
                     2.4: tokens are added at the configured rate; at zero none ever is)",
        /// TB.size is zero.
        ZeroBucket => "TB.size must be greater than zero (draft-babiarz-pcn-explicit-marking-01 section 1.2, as RFC 5670 \
                       section 2.4: a bucket of depth 0 holds no token)",
    }
}

/// The precomputed constants of an [`EtMarker`].
///
/// Tokens are units of `1 / (scale * k)` byte (see the crate docs): with tail
/// marking `k = 1`; with size-independent marking `k = MTU / gcd(s * scale, MTU)`,
/// so that the proportional reduction `s * size / MTU` is a whole number of units
/// per byte of packet and is applied exactly, with no rounding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
// C layout, `out` first: the output table at offset 0 makes its lookup one
// address addition, where a displacement needs one more.
#[repr(C)]
pub struct EtMarkerProfile {
    /// The state a packet leaves in, by `2 * ECN code + short`: short NM and
    /// ThM become ETM, everything else leaves as it arrived.
    out: OutTable,
    u: Units,
    /// Size-independent marking (else tail marking).
    size_independent: bool,
    /// Tail marking and lengths that fit (`Units::lens_fit`): the common
    /// case, tested first, alone.
    tail_fit: bool,
    /// Per arriving ECN code: units per byte of a packet's cost, `scale` for
    /// a metered packet (NM, ThM) and for ET with tail marking, 0 for not-PCN
    /// (never short, takes nothing) and for ET with size-independent marking
    /// (never compared with the fill: `need_by_mark` makes it short). The
    /// length is held first, if it must be (see `Units::held`).
    scale_by_mark: [u64; 4],
    /// Per arriving ECN code, tail marking: or-ed into the cost, 2^62 for ET,
    /// so that it costs above any fill (and still below 2^63) and takes the
    /// short path, which only adds `add_by_mark`; 0 for the others. Applied
    /// after the length is held, which then does not depend on the marking.
    cost_or: [u64; 4],
    /// Per arriving ECN code, tail marking: the units a packet on the short
    /// path adds, `s` for NM and ThM (marked), for ET `s` if an arriving ET
    /// packet adds it, 0 for not-PCN and for ET otherwise.
    add_by_mark: [u64; 4],
    /// Per arriving ECN code, size independent: the fill a packet needs not to
    /// be short: MTU in units for NM and ThM, 0 for not-PCN (never short),
    /// 2^62 for ET (above any fill, always short: it only adds `per_by_mark`).
    need_by_mark: [u64; 4],
    /// Per arriving ECN code, size independent: units added per byte on the
    /// short path (as `add_by_mark`, proportionally).
    per_by_mark: [u64; 4],
    /// Size independent: `ceil(cap / per)` bytes (0 for a zero `per`), the
    /// packet length at which the proportional addition reaches the capacity;
    /// the length is held there before the multiply.
    add_len: u64,
}

/// A marker's output by ECN code and decision, flat: `2 * code + marked`.
///
/// Flat rather than `[[PcnMark; 2]; 4]` so that the index is one address
/// computation (`marked + 2 * code`) and the table's place in the profile a
/// displacement of the load: indexed by rows, the compiler adds the
/// displacement separately when the table is not at the profile's start (in
/// the node, the second stage's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct OutTable([PcnMark; 8]);

/// The same table by rows, `[code][marked]`, for the RFC 5670 meters: there
/// LLVM folds a flat index `2 * code + (x >> 63)` into a double-precision
/// shift (`shrd`), several operations on AMD Zen, where rows give a `lea`.
pub(crate) type OutRows = [[PcnMark; 2]; 4];

impl OutTable {
    /// The table by rows.
    pub(crate) const fn rows(self) -> OutRows {
        let mut t = [[PcnMark::NotPcn; 2]; 4];
        let mut i = 0;
        while i < 4 {
            t[i] = [self.0[2 * i], self.0[2 * i + 1]];
            i += 1;
        }
        t
    }

    /// The state a packet arriving with ECN code `e` (at most 3) leaves in,
    /// marked (`m = 1`) or not (`m = 0`).
    #[inline(always)]
    pub(crate) fn at(&self, e: usize, m: usize) -> PcnMark {
        self.0[2 * e + m]
    }
}

/// The output table of a marker that turns each state `s` into `to[s]`
/// when it marks (`to` indexed by ECN code).
pub(crate) const fn out_table(to: [PcnMark; 4]) -> OutTable {
    let mut t = [PcnMark::NotPcn; 8];
    let mut i = 0;
    while i < 4 {
        t[2 * i] = PcnMark::from_ecn(i as u8);
        t[2 * i + 1] = to[i];
        i += 1;
    }
    OutTable(t)
}

/// ET-marker (and excess meter): NM and ThM become ETM.
pub(crate) const OUT_ET: OutTable = out_table(by_code(
    PcnMark::NotPcn,
    PcnMark::Etm,
    PcnMark::Etm,
    PcnMark::Etm,
));

/// AS-marker (and threshold meter): NM becomes ThM, the rest stay.
pub(crate) const OUT_AS: OutTable = out_table(by_code(
    PcnMark::NotPcn,
    PcnMark::Thm,
    PcnMark::Thm,
    PcnMark::Etm,
));

/// Four marks indexed by ECN code, from those of not-PCN, NM, ThM and ETM.
const fn by_code(not_pcn: PcnMark, nm: PcnMark, thm: PcnMark, etm: PcnMark) -> [PcnMark; 4] {
    let mut t = [PcnMark::NotPcn; 4];
    t[PcnMark::NotPcn as usize] = not_pcn;
    t[NM] = nm;
    t[THM] = thm;
    t[ETM] = etm;
    t
}

/// The ECN codes (the index of the per-mark tables) of NM, ThM and ET.
const NM: usize = PcnMark::Nm as usize;
const THM: usize = PcnMark::Thm as usize;
const ETM: usize = PcnMark::Etm as usize;

/// A table of four `u64` indexed by ECN code, from the values of not-PCN, NM,
/// ThM and ETM.
pub(crate) const fn by_mark(not_pcn: u64, nm: u64, thm: u64, etm: u64) -> [u64; 4] {
    let mut t = [0; 4];
    t[PcnMark::NotPcn as usize] = not_pcn;
    t[NM] = nm;
    t[THM] = thm;
    t[ETM] = etm;
    t
}

impl EtMarkerProfile {
    /// Test support: the same profile with lengths always held (the general
    /// path), and whether this one skips the hold.
    #[cfg(test)]
    pub(crate) fn held_always(mut self) -> (Self, bool) {
        let fit = self.u.lens_fit;
        self.u.lens_fit = false;
        self.tail_fit = false;
        (self, fit)
    }

    /// Validates `c` and precomputes its constants.
    pub fn new(c: &EtMarkerConfig) -> Result<EtMarkerProfile, EtMarkerError> {
        if c.sr.bits_per_sec() == 0 {
            return Err(EtMarkerError::ZeroRate);
        }
        if c.bucket_size == 0 {
            return Err(EtMarkerError::ZeroBucket);
        }
        let base = Units::new(c.sr, c.bucket_size, c.tick, 1).ok_or(EtMarkerError::TooLarge)?;
        match c.marking {
            EtMarking::TailMarking => {
                let s = base
                    .bytes(c.s.min(c.bucket_size))
                    .ok_or(EtMarkerError::TooLarge)?;
                let et = if c.already_et_adds_s { s } else { 0 };
                Ok(EtMarkerProfile {
                    u: base,
                    size_independent: false,
                    tail_fit: base.lens_fit,
                    scale_by_mark: by_mark(0, base.scale, base.scale, base.scale),
                    cost_or: by_mark(0, 0, 0, MAX_UNITS),
                    add_by_mark: by_mark(0, s, s, et),
                    need_by_mark: [0; 4],
                    per_by_mark: [0; 4],
                    out: OUT_ET,
                    add_len: 0,
                })
            }
            EtMarking::SizeIndependent { mtu } => {
                if mtu == 0 {
                    return Err(EtMarkerError::ZeroMtu);
                }
                if u64::from(mtu) > c.bucket_size {
                    return Err(EtMarkerError::MtuAboveBucket);
                }
                // s * scale per MTU bytes of packet; refine by k so that it divides.
                // An s of TB.size * MTU or more fills the bucket on any non-empty
                // packet, so capping it there changes nothing and bounds the products.
                let s = c.s.min(c.bucket_size.saturating_mul(u64::from(mtu)));
                let s_units = (s as u128) * (base.scale as u128);
                let g = gcd((s_units % u128::from(mtu)) as u64, u64::from(mtu));
                let k = u64::from(mtu) / g.max(1);
                let u =
                    Units::new(c.sr, c.bucket_size, c.tick, k).ok_or(EtMarkerError::TooLarge)?;
                // Units per byte of packet: s * scale * k / MTU, exact by choice of k.
                let per = s_units * (k as u128) / u128::from(mtu);
                let per = if per > MAX_UNITS as u128 {
                    MAX_UNITS
                } else {
                    per as u64
                };
                let need = u.bytes(u64::from(mtu)).ok_or(EtMarkerError::TooLarge)?;
                let et = if c.already_et_adds_s { per } else { 0 };
                Ok(EtMarkerProfile {
                    u,
                    size_independent: true,
                    tail_fit: false,
                    scale_by_mark: by_mark(0, u.scale, u.scale, 0),
                    cost_or: [0; 4],
                    add_by_mark: [0; 4],
                    need_by_mark: by_mark(0, need, need, MAX_UNITS),
                    per_by_mark: by_mark(0, per, per, et),
                    out: OUT_ET,
                    add_len: if per == 0 { 0 } else { u.cap.div_ceil(per) },
                })
            }
        }
    }

    /// The capacity (TB.size) in units.
    #[must_use]
    pub const fn capacity_units(&self) -> u64 {
        self.u.cap
    }

    /// Units per byte.
    #[must_use]
    pub const fn units_per_byte(&self) -> u64 {
        self.u.scale
    }
}

/// Per-link state of a 3sM ET-marker: the bucket fill and the last update.
///
/// draft-babiarz-pcn-explicit-marking-01 section 1.2, 3sm-01 section 3.1.2 (tail marking) and appendix A.1.5
/// (size independent), on each PCN packet, after the refill
/// `fill = min(size, fill + SR * dt)`:
///
/// ```text
/// not ET on arrival:  if fill < need  { mark ET; fill = min(size, fill + add) }
///                     else            { fill = fill - packet.size }
/// ET on arrival:      if already_et_adds_s { fill = min(size, fill + add) }
/// need = packet.size (tail) or MTU (size independent)
/// add  = s           (tail) or s * packet.size / MTU (size independent)
/// ```
///
/// With size-independent marking a packet longer than the MTU may take more
/// than the fill; the fill then stops at zero (the draft assumes no packet
/// exceeds the MTU).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EtMarker {
    fill: u64,
    last: Instant,
}

impl EtMarker {
    /// A marker with a full bucket at `now`.
    #[must_use]
    pub const fn new(p: &EtMarkerProfile, now: Instant) -> EtMarker {
        EtMarker {
            fill: p.u.cap,
            last: now,
        }
    }

    /// The fill in units of the profile.
    #[must_use]
    pub const fn fill_units(&self) -> u64 {
        self.fill
    }

    /// The last update time.
    #[must_use]
    pub const fn last_update(&self) -> Instant {
        self.last
    }

    /// Meters one packet; returns its new state (ETM if marked here, the
    /// arriving state otherwise).
    ///
    /// Branch-free on the traffic: whether a packet is marked follows the
    /// traffic, so the new fill is a select, not a branch that would
    /// mispredict. Only the fill's own chain (an add, the cap, a compare or
    /// subtract, a select) is loop-carried; everything else depends on the
    /// packet and the time only.
    #[inline(always)]
    pub fn mark(&mut self, p: &EtMarkerProfile, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        let mut last = self.last;
        let dt = p.u.elapsed(&mut last, now);
        self.mark_elapsed(p, last, dt, len, mark)
    }

    /// [`mark`](Self::mark) with the elapsed time already computed:
    /// `dt = elapsed(&mut last, now)` from this meter's last update.
    #[inline(always)]
    fn mark_elapsed(
        &mut self,
        p: &EtMarkerProfile,
        last: Instant,
        dt: u64,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        self.last = last;
        let e = usize::from(mark.ecn());
        // fill <= cap < 2^62 and gain < 2 cap: no overflow; exact refill.
        let fill = p.u.cap_at(self.fill + p.u.gain_to_cap(dt));
        // Mutation check 3: the refill forgotten.
        #[cfg(test)]
        let fill = if crate::mutants::on(3) {
            self.fill
        } else {
            fill
        };
        // Not-PCN: cost 0 and never short, so the fill is only refilled.
        let short = if p.tail_fit {
            // The common case first, with one test of the profile: tail
            // marking, lengths that fit, so not held (see `Units::held`).
            self.tail(p, fill, u64::from(len) * p.scale_by_mark[e], e)
        } else if p.size_independent {
            let cost = p.u.held(len) * p.scale_by_mark[e];
            let len = u64::from(len);
            // mtu <= cap (checked at construction): fill < mtu is the test.
            // fill <= cap < 2^62 and need <= 2^62: below() is exact.
            let short = usize::from(fill < p.need_by_mark[e]);
            // s * size / MTU: exact below the capacity, at least the capacity
            // at add_len bytes and beyond (and then below cap + per < 2^63),
            // where min(fill + add, cap) is cap either way.
            let add = len.min(p.add_len) * p.per_by_mark[e];
            // Cost exact up to TB.size bytes, above cap beyond; a packet longer
            // than the fill (only possible beyond the MTU) leaves it at zero.
            self.fill = select(short != 0, p.u.cap_at(fill + add), p.u.sat_sub(fill, cost));
            short
        } else {
            self.tail(p, fill, p.u.held(len) * p.scale_by_mark[e], e)
        };
        p.out.at(e, short)
    }

    /// Tail marking after the refill to `fill`: a packet of `cost` units
    /// (held or not, see `Units::held`) arriving with ECN code `e`. Returns
    /// 1 if short (marked, or ET on arrival), else 0.
    #[inline(always)]
    fn tail(&mut self, p: &EtMarkerProfile, fill: u64, cost: u64, e: usize) -> usize {
        // fill <= cap < 2^62 and cost < 2^63 (at most cap + scale held,
        // 2^62 not; or-ed with 2^62): the sign of the difference is the
        // test, and when not short the difference is the new fill.
        let d = fill.wrapping_sub(cost | p.cost_or[e]);
        // add <= s <= cap: the sum is below 2^63.
        let plus = p.u.cap_at(fill + p.add_by_mark[e]);
        self.fill = select((d as i64) < 0, plus, d);
        (d >> 63) as usize
    }
}

impl PcnMeter for EtMarker {
    type Profile = EtMarkerProfile;
    #[inline]
    fn start(p: &EtMarkerProfile, now: Instant) -> Self {
        EtMarker::new(p, now)
    }
    #[inline(always)]
    fn mark(&mut self, p: &EtMarkerProfile, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        EtMarker::mark(self, p, now, len, mark)
    }
    #[inline(always)]
    fn mark_elapsed(
        &mut self,
        p: &EtMarkerProfile,
        _now: Instant,
        last: Instant,
        dt: u64,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        EtMarker::mark_elapsed(self, p, last, dt, len, mark)
    }
    #[inline]
    fn level(&self) -> i128 {
        self.fill as i128
    }
    #[inline]
    fn level_bounds(p: &Self::Profile) -> (i128, i128) {
        (0, p.u.cap as i128)
    }
    #[inline]
    fn last_update(&self) -> Instant {
        self.last
    }
}

// ---------------------------------------------------------------------------
// ET-marker as simulated (draft-babiarz-pcn-explicit-marking-01 section 4.8, Figure 9)
// ---------------------------------------------------------------------------

/// Configuration of the ET-marker as simulated in draft-babiarz-pcn-explicit-marking-01 section 4.8,
/// with the draft's parameter names.
///
/// ```
/// use netcond_core::{Rate, TickRate};
/// use pcn_meter::{EtMarkerSim48Config, EtMarkerSim48Profile};
///
/// // pcn_pt 1 Mbit/s, pcn_tb 10 kB, pcn_px 1064 B, on a microsecond clock.
/// let c = EtMarkerSim48Config::new(Rate::from_kbps(1000), 10_000, 1064)
///     .with_tick(TickRate::MICROS);
/// assert_eq!(c.pcn_px, 1064);
/// assert!(EtMarkerSim48Profile::new(&c).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct EtMarkerSim48Config {
    /// `pcn_pt`: the preemption threshold (SR) rate.
    pub pcn_pt: Rate,
    /// `pcn_tb`: the token bucket depth in bytes; the bucket starts full.
    pub pcn_tb: u64,
    /// `pcn_px`: tokens (bytes) added after each mark: one mark per about `x`
    /// bytes of excess traffic.
    pub pcn_px: u64,
    /// The clock of the `Instant`s passed in.
    pub tick: TickRate,
}

impl EtMarkerSim48Config {
    /// `pcn_pt`, `pcn_tb` and `pcn_px` on a nanosecond clock.
    #[must_use]
    pub const fn new(pcn_pt: Rate, pcn_tb: u64, pcn_px: u64) -> EtMarkerSim48Config {
        EtMarkerSim48Config {
            pcn_pt,
            pcn_tb,
            pcn_px,
            tick: TickRate::NANOS,
        }
    }

    /// The same configuration on the clock `tick`.
    #[must_use]
    pub const fn with_tick(mut self, tick: TickRate) -> EtMarkerSim48Config {
        self.tick = tick;
        self
    }
}

netcond_core::config_error! {
    /// Why a section 4.8 ET-marker configuration was refused.
    pub enum EtMarkerSim48Error {
        /// The bucket does not fit the token counter.
        TooLarge => "pcn_tb and pcn_px times the clock resolution must stay below 2^62 token \
                     units; use a coarser clock or a smaller bucket",
        /// pcn_pt is zero.
        ZeroRate => "pcn_pt must be greater than zero (draft-babiarz-pcn-explicit-marking-01 section 4.8, as RFC 5670 \
                     section 2.4: tokens are added at the preemption threshold rate)",
        /// pcn_tb is zero.
        ZeroBucket => "pcn_tb must be greater than zero (draft-babiarz-pcn-explicit-marking-01 section 4.8, as RFC 5670 \
                       section 2.4: a bucket of depth 0 holds no token)",
    }
}

/// The precomputed constants of an [`EtMarkerSim48`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EtMarkerSim48Profile {
    u: Units,
    px: u64,
}

impl EtMarkerSim48Profile {
    /// Validates `c` and precomputes its constants.
    pub fn new(c: &EtMarkerSim48Config) -> Result<EtMarkerSim48Profile, EtMarkerSim48Error> {
        if c.pcn_pt.bits_per_sec() == 0 {
            return Err(EtMarkerSim48Error::ZeroRate);
        }
        if c.pcn_tb == 0 {
            return Err(EtMarkerSim48Error::ZeroBucket);
        }
        let u = Units::new(c.pcn_pt, c.pcn_tb, c.tick, 1).ok_or(EtMarkerSim48Error::TooLarge)?;
        let px = u.bytes(c.pcn_px).ok_or(EtMarkerSim48Error::TooLarge)?;
        Ok(EtMarkerSim48Profile { u, px })
    }

    /// The capacity (`pcn_tb`) in units.
    #[must_use]
    pub const fn capacity_units(&self) -> u64 {
        self.u.cap
    }

    /// `pcn_px` in units.
    #[must_use]
    pub const fn px_units(&self) -> u64 {
        self.px
    }

    /// Units per byte.
    #[must_use]
    pub const fn units_per_byte(&self) -> u64 {
        self.u.scale
    }
}

/// Per-link state of the ET-marker exactly as simulated in draft-babiarz-pcn-explicit-marking-01 section
/// 4.8 (Figure 9), which differs from section 1.2: the packet is always taken
/// from the bucket first and the bucket may go negative.
///
/// ```text
/// tokens = min(tokens + dt * pcn_pt, pcn_tb)
/// tokens = tokens - packet.size
/// if tokens <= 0 { mark ET (ECN = 11); tokens = tokens + pcn_px }
/// ```
///
/// As in the figure every PCN packet is metered, already-ET ones included
/// (the draft's single-node runs had none). After `+ pcn_px` the fill may
/// exceed `pcn_tb` until the next refill caps it, as in the figure. The token
/// count is an `i128` charged each packet's exact cost, as the figure's
/// unbounded count: exact for any sequence of fewer than 2^33 packets (and
/// any longer one that does not take it below -2^127 units; see
/// [`FLOOR`](crate::FLOOR)), where it would be held.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EtMarkerSim48 {
    tokens: Wide,
    last: Instant,
}

impl EtMarkerSim48 {
    /// A marker with a full bucket at `now` (`tokenCountP = pcn_tb`).
    #[must_use]
    pub const fn new(p: &EtMarkerSim48Profile, now: Instant) -> EtMarkerSim48 {
        EtMarkerSim48 {
            tokens: Wide::new(p.u.cap as i128),
            last: now,
        }
    }

    /// The token count in units (may be negative).
    #[must_use]
    pub const fn tokens_units(&self) -> i128 {
        self.tokens.get()
    }

    /// Meters one packet; returns its new state.
    #[inline(always)]
    pub fn mark(
        &mut self,
        p: &EtMarkerSim48Profile,
        now: Instant,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        let mut last = self.last;
        let dt = p.u.elapsed(&mut last, now);
        self.mark_elapsed(p, last, dt, len, mark)
    }

    /// [`mark`](Self::mark) with the elapsed time already computed:
    /// `dt = elapsed(&mut last, now)` from this meter's last update.
    #[inline(always)]
    fn mark_elapsed(
        &mut self,
        p: &EtMarkerSim48Profile,
        last: Instant,
        dt: u64,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        self.last = last;
        if p.u.lens_fit {
            if let Some(fill) = self.tokens.narrow() {
                // The common case: every cost at most 2^62 and a level that
                // fits an i64; the same arithmetic in 64 bits while nothing
                // overflows (else the wide path below, from the same state).
                // cap < 2^62 and fill >= -2^63: the room fits a u64.
                let cap = p.u.cap as i64;
                let t = if fill >= cap {
                    cap
                } else {
                    let room = cap.wrapping_sub(fill) as u64;
                    let gain = dt.saturating_mul(p.u.inc);
                    if gain >= room {
                        cap
                    } else {
                        fill + gain as i64
                    }
                };
                if !mark.is_pcn() {
                    self.tokens = Wide::new(t as i128);
                    return mark;
                }
                // cost <= 2^62 (lens_fit) and px < 2^62.
                let cost = u64::from(len) * p.u.scale;
                if let Some(t) = t.checked_sub(cost as i64) {
                    if t <= 0 {
                        // Mutation check 4: pcn_px not added after a mark.
                        #[cfg(test)]
                        let t = if crate::mutants::on(4) {
                            t - p.px as i64
                        } else {
                            t
                        };
                        if let Some(v) = t.checked_add(p.px as i64) {
                            self.tokens = Wide::new(v as i128);
                            return PcnMark::Etm;
                        }
                    } else {
                        self.tokens = Wide::new(t as i128);
                        return mark;
                    }
                }
            }
        }
        let t = p.u.refill_wide(self.tokens.get(), dt);
        if !mark.is_pcn() {
            self.tokens = Wide::new(t);
            return mark;
        }
        // The exact cost (below 2^94); held at FLOOR only after more than
        // 2^33 packets with no tokens added (see `FLOOR`).
        let t = t.saturating_sub(p.u.cost_wide(len) as i128);
        if t <= 0 {
            // t <= 0 and px < 2^62: no overflow.
            self.tokens = Wide::new(t + p.px as i128);
            PcnMark::Etm
        } else {
            self.tokens = Wide::new(t);
            mark
        }
    }
}

impl PcnMeter for EtMarkerSim48 {
    type Profile = EtMarkerSim48Profile;
    #[inline]
    fn start(p: &EtMarkerSim48Profile, now: Instant) -> Self {
        EtMarkerSim48::new(p, now)
    }
    #[inline(always)]
    fn mark(&mut self, p: &EtMarkerSim48Profile, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        EtMarkerSim48::mark(self, p, now, len, mark)
    }
    #[inline(always)]
    fn mark_elapsed(
        &mut self,
        p: &EtMarkerSim48Profile,
        _now: Instant,
        last: Instant,
        dt: u64,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        EtMarkerSim48::mark_elapsed(self, p, last, dt, len, mark)
    }
    #[inline]
    fn level(&self) -> i128 {
        self.tokens.get()
    }
    #[inline]
    fn level_bounds(p: &Self::Profile) -> (i128, i128) {
        (crate::FLOOR, p.u.cap.max(p.px) as i128)
    }
    #[inline]
    fn last_update(&self) -> Instant {
        self.last
    }
}

// ---------------------------------------------------------------------------
// AS-marker (token bucket with threshold marking)
// ---------------------------------------------------------------------------

/// Which published form of the AS-marker to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum AsForm {
    /// draft-babiarz-pcn-explicit-marking-01 section 1.2 (the form its admission-control runs used): mark AS
    /// if `fill < packet.size` (bucket untouched); else `fill -= packet.size` and
    /// mark AS if then `fill < threshold`.
    DraftExplicitMarking01,
    /// draft-babiarz-pcn-3sm-01 section 3.2.2: mark AS if `fill < threshold`
    /// (tested before taking the packet); then `fill = max(0, fill - packet.size)`.
    Draft3sm01,
}

/// Configuration of a 3sM AR-meter / AS-marker.
///
/// ```
/// use netcond_core::{Rate, TickRate};
/// use pcn_meter::{AsForm, AsMarkerConfig, AsMarkerProfile};
///
/// // AR 800 kbit/s, a 20 kB bucket, a 10 kB threshold; 3sm-01's form on a
/// // microsecond clock.
/// let c = AsMarkerConfig::draft_3sm01(Rate::from_kbps(800), 20_000, 10_000)
///     .with_tick(TickRate::MICROS);
/// assert_eq!(c.form, AsForm::Draft3sm01);
/// assert!(AsMarkerProfile::new(&c).is_ok());
/// let c = c.with_form(AsForm::DraftExplicitMarking01);
/// assert!(AsMarkerProfile::new(&c).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct AsMarkerConfig {
    /// AR, the admissible rate: the token rate TB.rate.
    pub ar: Rate,
    /// TB.size in bytes; the bucket starts full.
    pub bucket_size: u64,
    /// TB.threshold in bytes.
    pub threshold: u64,
    /// Which form.
    pub form: AsForm,
    /// The clock of the `Instant`s passed in.
    pub tick: TickRate,
}

impl AsMarkerConfig {
    /// The AS-marker of draft-babiarz-pcn-explicit-marking-01 section 1.2 on a nanosecond clock.
    #[must_use]
    pub const fn draft_explicit_marking_01(
        ar: Rate,
        bucket_size: u64,
        threshold: u64,
    ) -> AsMarkerConfig {
        AsMarkerConfig {
            ar,
            bucket_size,
            threshold,
            form: AsForm::DraftExplicitMarking01,
            tick: TickRate::NANOS,
        }
    }

    /// The AS-marker of 3sm-01 section 3.2.2 on a nanosecond clock.
    #[must_use]
    pub const fn draft_3sm01(ar: Rate, bucket_size: u64, threshold: u64) -> AsMarkerConfig {
        AsMarkerConfig {
            ar,
            bucket_size,
            threshold,
            form: AsForm::Draft3sm01,
            tick: TickRate::NANOS,
        }
    }

    /// The same configuration in the form `form`.
    #[must_use]
    pub const fn with_form(mut self, form: AsForm) -> AsMarkerConfig {
        self.form = form;
        self
    }

    /// The same configuration on the clock `tick`.
    #[must_use]
    pub const fn with_tick(mut self, tick: TickRate) -> AsMarkerConfig {
        self.tick = tick;
        self
    }
}

netcond_core::config_error! {
    /// Why an AS-marker configuration was refused.
    pub enum AsMarkerError {
        /// The bucket does not fit the token counter.
        TooLarge => "TB.size times the clock resolution must stay below 2^62 token units; use a \
                     coarser clock or a smaller bucket",
        /// The threshold lies above the bucket.
        ThresholdAboveSize => "TB.threshold must not exceed TB.size (draft-babiarz-pcn-explicit-marking-01 section 1.2: an \
                               intermediate depth of the bucket)",
        /// AR is zero.
        ZeroRate => "AR must be greater than zero (draft-babiarz-pcn-explicit-marking-01 section 1.2, as RFC 5670 section \
                     2.3: tokens are added at the admissible rate; at zero none ever is)",
        /// TB.size is zero.
        ZeroBucket => "TB.size must be greater than zero (draft-babiarz-pcn-explicit-marking-01 section 1.2, as RFC 5670 \
                       section 2.3: a bucket of depth 0 holds no token, so every packet is marked)",
    }
}

/// The precomputed constants of an [`AsMarker`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
// C layout, `out` first: the output table at offset 0 makes its lookup one
// address addition, where a displacement needs one more.
#[repr(C)]
pub struct AsMarkerProfile {
    /// The state a packet leaves in, by ECN code and marked: a marked NM
    /// becomes ThM; everything else leaves as it arrived (ThM stays ThM, and
    /// ET and not-PCN are never marked).
    out: OutTable,
    u: Units,
    threshold: u64,
    form: AsForm,
    /// draft-babiarz-pcn-explicit-marking-01's form and lengths that fit (`Units::lens_fit`): the common
    /// case, tested first, alone.
    explicit_marking_fit: bool,
    /// Per arriving ECN code: units per byte of a packet's cost, `scale` for
    /// NM and ThM, 0 for not-PCN and ET: not metered, they cost nothing. The
    /// length is held first, if it must be (see `Units::held`).
    scale_by_mark: [u64; 4],
}

impl AsMarkerProfile {
    /// Test support: the same profile with lengths always held (the general
    /// path), and whether this one skips the hold.
    #[cfg(test)]
    pub(crate) fn held_always(mut self) -> (Self, bool) {
        let fit = self.u.lens_fit;
        self.u.lens_fit = false;
        self.explicit_marking_fit = false;
        (self, fit)
    }

    /// Validates `c` and precomputes its constants.
    pub fn new(c: &AsMarkerConfig) -> Result<AsMarkerProfile, AsMarkerError> {
        if c.ar.bits_per_sec() == 0 {
            return Err(AsMarkerError::ZeroRate);
        }
        if c.bucket_size == 0 {
            return Err(AsMarkerError::ZeroBucket);
        }
        if c.threshold > c.bucket_size {
            return Err(AsMarkerError::ThresholdAboveSize);
        }
        let u = Units::new(c.ar, c.bucket_size, c.tick, 1).ok_or(AsMarkerError::TooLarge)?;
        let threshold = u.bytes(c.threshold).ok_or(AsMarkerError::TooLarge)?;
        Ok(AsMarkerProfile {
            u,
            threshold,
            form: c.form,
            explicit_marking_fit: c.form == AsForm::DraftExplicitMarking01 && u.lens_fit,
            scale_by_mark: by_mark(0, u.scale, u.scale, 0),
            out: OUT_AS,
        })
    }

    /// The capacity (TB.size) in units.
    #[must_use]
    pub const fn capacity_units(&self) -> u64 {
        self.u.cap
    }

    /// Units per byte.
    #[must_use]
    pub const fn units_per_byte(&self) -> u64 {
        self.u.scale
    }
}

/// Per-link state of a 3sM AS-marker. Only PCN packets that are not ET on
/// arrival are metered (draft-babiarz-pcn-explicit-marking-01 section 1.2); time refills the bucket for every
/// call. A metered packet leaves as ThM (AS) if marked, else unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AsMarker {
    fill: u64,
    last: Instant,
}

impl AsMarker {
    /// A marker with a full bucket at `now`.
    #[must_use]
    pub const fn new(p: &AsMarkerProfile, now: Instant) -> AsMarker {
        AsMarker {
            fill: p.u.cap,
            last: now,
        }
    }

    /// The fill in units of the profile.
    #[must_use]
    pub const fn fill_units(&self) -> u64 {
        self.fill
    }

    /// Meters one packet; returns its new state.
    ///
    /// Branch-free on the traffic, like the ET-marker: the fill's chain is the
    /// refill, one subtraction and one select.
    #[inline(always)]
    pub fn mark(&mut self, p: &AsMarkerProfile, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        let mut last = self.last;
        let dt = p.u.elapsed(&mut last, now);
        self.mark_elapsed(p, last, dt, len, mark)
    }

    /// [`mark`](Self::mark) with the elapsed time already computed:
    /// `dt = elapsed(&mut last, now)` from this meter's last update.
    #[inline(always)]
    fn mark_elapsed(
        &mut self,
        p: &AsMarkerProfile,
        last: Instant,
        dt: u64,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        self.last = last;
        let e = usize::from(mark.ecn());
        // fill <= cap < 2^62 and gain < 2 cap: no overflow; exact refill.
        let fill = p.u.cap_at(self.fill + p.u.gain_to_cap(dt));
        // Mutation check 5: the refill forgotten.
        #[cfg(test)]
        let fill = if crate::mutants::on(5) {
            self.fill
        } else {
            fill
        };
        // The cost: exact up to TB.size bytes, above cap (so above the fill)
        // beyond, held or not (see `Units::held`); 0 for a packet that is not
        // metered, which then leaves the fill as it is. fill <= cap < 2^62,
        // cost < 2^63, threshold <= cap: fill - cost is exact as an i64.
        let (after, marked) = if p.explicit_marking_fit {
            // The common case first, with one test of the profile: draft-babiarz-pcn-explicit-marking-01,
            // lengths that fit, so not held (see `Units::held`).
            let cost = u64::from(len) * p.scale_by_mark[e];
            let d = fill.wrapping_sub(cost);
            // cost <= 2^62: the sum is below 2^63, below() exact.
            (
                select((d as i64) < 0, fill, d),
                below(fill, cost + p.threshold),
            )
        } else if p.u.lens_fit {
            // 3sm-01 (draft-babiarz-pcn-explicit-marking-01 with lengths that fit was the case above).
            let cost = u64::from(len) * p.scale_by_mark[e];
            (p.u.sat_sub(fill, cost), below(fill, p.threshold))
        } else {
            cold_path();
            let cost = u64::from(len).min(p.u.len_over) * p.scale_by_mark[e];
            match p.form {
                AsForm::DraftExplicitMarking01 => {
                    let d = fill.wrapping_sub(cost);
                    // A held length costs up to cap + scale: cost + threshold
                    // may exceed the fill by 2^63 or more, where below()
                    // fails. fill < size + threshold is d < threshold
                    // (d = fill - size, exact as an i64), compared.
                    (
                        select((d as i64) < 0, fill, d),
                        usize::from((d as i64) < p.threshold as i64),
                    )
                }
                // max(0, fill - size); marked if fill < threshold, tested before.
                AsForm::Draft3sm01 => (p.u.sat_sub(fill, cost), below(fill, p.threshold)),
            }
        };
        self.fill = after;
        p.out.at(e, marked)
    }
}

impl PcnMeter for AsMarker {
    type Profile = AsMarkerProfile;
    #[inline]
    fn start(p: &AsMarkerProfile, now: Instant) -> Self {
        AsMarker::new(p, now)
    }
    #[inline(always)]
    fn mark(&mut self, p: &AsMarkerProfile, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        AsMarker::mark(self, p, now, len, mark)
    }
    #[inline(always)]
    fn mark_elapsed(
        &mut self,
        p: &AsMarkerProfile,
        _now: Instant,
        last: Instant,
        dt: u64,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        AsMarker::mark_elapsed(self, p, last, dt, len, mark)
    }
    #[inline]
    fn level(&self) -> i128 {
        self.fill as i128
    }
    #[inline]
    fn level_bounds(p: &Self::Profile) -> (i128, i128) {
        (0, p.u.cap as i128)
    }
    #[inline]
    fn last_update(&self) -> Instant {
        self.last
    }
}
