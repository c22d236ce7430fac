//! Three-state PCN marking (3sM): the SR-meter / ET-marker and the AR-meter /
//! AS-marker of seed 000 (draft-babiarz-pcn-explicit-marking-01) and of
//! draft-babiarz-pcn-3sm-01.

use crate::mark::PcnMark;
use crate::node::PcnMeter;
use crate::units::{sub_floor, Units, MAX_UNITS};
use netcond_core::{gcd, Instant, Rate, TickRate};

// ---------------------------------------------------------------------------
// ET-marker (token bucket with tail marking and marking-frequency reduction)
// ---------------------------------------------------------------------------

/// How the ET-marker decides that a packet is excess.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EtMarking {
    /// Tail marking (seed 000 section 1.2; 3sm-01 section 3.1.2): mark ET when
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

/// Configuration of a 3sM SR-meter / ET-marker, in the seed's units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EtMarkerConfig {
    /// SR, the supportable rate: the token rate TB.rate.
    pub sr: Rate,
    /// TB.size in bytes; the bucket starts full.
    pub bucket_size: u64,
    /// `s`, the marking-frequency reduction, in bytes: after each ET mark the
    /// bucket gains `s` tokens (or `s * size / MTU`), so that under overload about
    /// one packet is marked per `s` + packet size bytes of excess traffic.
    pub s: u64,
    /// Seed 000 section 1.2: "If an ET-marked packet arrives, the TB's fill state
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
    /// The ET-marker of seed 000 section 1.2: tail marking, already-ET packets
    /// add `s`, nanosecond clock.
    #[must_use]
    pub const fn seed000(sr: Rate, bucket_size: u64, s: u64) -> EtMarkerConfig {
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
    }
}

/// The precomputed constants of an [`EtMarker`].
///
/// Tokens are units of `1 / (scale * k)` byte (see the crate docs): with tail
/// marking `k = 1`; with size-independent marking `k = MTU / gcd(s * scale, MTU)`,
/// so that the proportional reduction `s * size / MTU` is a whole number of units
/// per byte of packet and is applied exactly, with no rounding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EtMarkerProfile {
    u: Units,
    /// Size-independent marking (else tail marking).
    size_independent: bool,
    /// MTU in units (size independent): a packet is marked when `fill < mtu`.
    mtu: u64,
    /// Units added per byte of a marked packet (size independent).
    add_per_byte: u64,
    /// Units added per marked packet (tail marking): `s`.
    add_fixed: u64,
    /// An arriving ET packet adds the same amount.
    et_adds: bool,
}

impl EtMarkerProfile {
    /// Validates `c` and precomputes its constants.
    pub fn new(c: &EtMarkerConfig) -> Result<EtMarkerProfile, EtMarkerError> {
        let base = Units::new(c.sr, c.bucket_size, c.tick, 1).ok_or(EtMarkerError::TooLarge)?;
        match c.marking {
            EtMarking::TailMarking => {
                let s = base
                    .bytes(c.s.min(c.bucket_size))
                    .ok_or(EtMarkerError::TooLarge)?;
                Ok(EtMarkerProfile {
                    u: base,
                    size_independent: false,
                    mtu: 0,
                    add_per_byte: 0,
                    add_fixed: s,
                    et_adds: c.already_et_adds_s,
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
                Ok(EtMarkerProfile {
                    u,
                    size_independent: true,
                    mtu: need,
                    add_per_byte: per,
                    add_fixed: 0,
                    et_adds: c.already_et_adds_s,
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
/// Seed 000 section 1.2, 3sm-01 section 3.1.2 (tail marking) and appendix A.1.5
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
    #[inline(always)]
    pub fn mark(&mut self, p: &EtMarkerProfile, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        let dt = self.last.advance_to(now);
        let fill = p.u.refill(self.fill, dt);
        let cost = p.u.cost(len);
        // Written as selects: the outcome depends on the traffic, not on a
        // predictable branch.
        // `add` is at most 2^62 and `fill` below 2^62: the sum cannot overflow.
        let (need, add) = if p.size_independent {
            (
                p.mtu,
                p.u.cap_at(u64::from(len).saturating_mul(p.add_per_byte)),
            )
        } else {
            (cost, p.add_fixed)
        };
        let plus = p.u.cap_at(fill + add);
        let metered = matches!(mark, PcnMark::Nm | PcnMark::Thm);
        let short = fill < need;
        let marks = metered & short;
        let et_adds = p.et_adds & (mark == PcnMark::Etm);
        // Branch-free: whether a packet is marked depends on the traffic (under
        // overload a fraction of the packets is), so the new fill is chosen with
        // masks rather than with a branch that would mispredict.
        let take_plus = mask(marks | et_adds);
        let take_minus = mask(metered & !short);
        let keep = !(take_plus | take_minus);
        self.fill = (plus & take_plus) | (fill.saturating_sub(cost) & take_minus) | (fill & keep);
        // ETM is 0b11: or-ing it into any PCN code gives ETM.
        PcnMark::from_ecn(mark.ecn() | (u8::from(marks) * 3))
    }
}

/// All ones for `true`, zero for `false`.
#[inline(always)]
const fn mask(b: bool) -> u64 {
    0u64.wrapping_sub(b as u64)
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
    #[inline]
    fn level(&self) -> i64 {
        self.fill as i64
    }
    #[inline]
    fn level_bounds(p: &Self::Profile) -> (i64, i64) {
        (0, p.u.cap as i64)
    }
    #[inline]
    fn last_update(&self) -> Instant {
        self.last
    }
}

// ---------------------------------------------------------------------------
// ET-marker as simulated (seed 000 section 4.8, Figure 9)
// ---------------------------------------------------------------------------

/// Configuration of the ET-marker as simulated in seed 000 section 4.8,
/// with the seed's parameter names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
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

netcond_core::config_error! {
    /// Why a section 4.8 ET-marker configuration was refused.
    pub enum EtMarkerSim48Error {
        /// The bucket does not fit the token counter.
        TooLarge => "pcn_tb and pcn_px times the clock resolution must stay below 2^62 token \
                     units; use a coarser clock or a smaller bucket",
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

/// Per-link state of the ET-marker exactly as simulated in seed 000 section
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
/// (the seed's single-node runs had none). After `+ pcn_px` the fill may
/// exceed `pcn_tb` until the next refill caps it, as in the figure. The fill is
/// held at [`FLOOR`](crate::FLOOR) should `pcn_px` be smaller than the packets
/// under a long overload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EtMarkerSim48 {
    tokens: i64,
    last: Instant,
}

impl EtMarkerSim48 {
    /// A marker with a full bucket at `now` (`tokenCountP = pcn_tb`).
    #[must_use]
    pub const fn new(p: &EtMarkerSim48Profile, now: Instant) -> EtMarkerSim48 {
        EtMarkerSim48 {
            tokens: p.u.cap as i64,
            last: now,
        }
    }

    /// The token count in units (may be negative).
    #[must_use]
    pub const fn tokens_units(&self) -> i64 {
        self.tokens
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
        let dt = self.last.advance_to(now);
        let t = p.u.refill_signed(self.tokens, dt);
        if !mark.is_pcn() {
            self.tokens = t;
            return mark;
        }
        let t = sub_floor(t, p.u.cost(len));
        if t <= 0 {
            // t <= 0 and px <= 2^62: no overflow.
            self.tokens = t + p.px as i64;
            PcnMark::Etm
        } else {
            self.tokens = t;
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
    #[inline]
    fn level(&self) -> i64 {
        self.tokens
    }
    #[inline]
    fn level_bounds(p: &Self::Profile) -> (i64, i64) {
        (crate::FLOOR, p.u.cap.max(p.px) as i64)
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
pub enum AsForm {
    /// Seed 000 section 1.2 (the form its admission-control runs used): mark AS
    /// if `fill < packet.size` (bucket untouched); else `fill -= packet.size` and
    /// mark AS if then `fill < threshold`.
    Seed000,
    /// draft-babiarz-pcn-3sm-01 section 3.2.2: mark AS if `fill < threshold`
    /// (tested before taking the packet); then `fill = max(0, fill - packet.size)`.
    Draft3sm01,
}

/// Configuration of a 3sM AR-meter / AS-marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
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
    /// The AS-marker of seed 000 section 1.2 on a nanosecond clock.
    #[must_use]
    pub const fn seed000(ar: Rate, bucket_size: u64, threshold: u64) -> AsMarkerConfig {
        AsMarkerConfig {
            ar,
            bucket_size,
            threshold,
            form: AsForm::Seed000,
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
}

netcond_core::config_error! {
    /// Why an AS-marker configuration was refused.
    pub enum AsMarkerError {
        /// The bucket does not fit the token counter.
        TooLarge => "TB.size times the clock resolution must stay below 2^62 token units; use a \
                     coarser clock or a smaller bucket",
        /// The threshold lies above the bucket.
        ThresholdAboveSize => "TB.threshold must not exceed TB.size (seed 000 section 1.2: an \
                               intermediate depth of the bucket)",
    }
}

/// The precomputed constants of an [`AsMarker`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AsMarkerProfile {
    u: Units,
    threshold: u64,
    form: AsForm,
}

impl AsMarkerProfile {
    /// Validates `c` and precomputes its constants.
    pub fn new(c: &AsMarkerConfig) -> Result<AsMarkerProfile, AsMarkerError> {
        if c.threshold > c.bucket_size {
            return Err(AsMarkerError::ThresholdAboveSize);
        }
        let u = Units::new(c.ar, c.bucket_size, c.tick, 1).ok_or(AsMarkerError::TooLarge)?;
        let threshold = u.bytes(c.threshold).ok_or(AsMarkerError::TooLarge)?;
        Ok(AsMarkerProfile {
            u,
            threshold,
            form: c.form,
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
/// arrival are metered (seed 000 section 1.2); time refills the bucket for every
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
    #[inline(always)]
    pub fn mark(&mut self, p: &AsMarkerProfile, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        let dt = self.last.advance_to(now);
        let fill = p.u.refill(self.fill, dt);
        let cost = p.u.cost(len);
        let (marked, after) = match p.form {
            // fill < size (bucket untouched), or fill - size < threshold after
            // taking it: together, fill < size + threshold (no overflow: both
            // are below 2^62).
            AsForm::Seed000 => (
                fill < cost + p.threshold,
                if fill >= cost { fill - cost } else { fill },
            ),
            AsForm::Draft3sm01 => (fill < p.threshold, fill.saturating_sub(cost)),
        };
        // Only packets that are not ET on arrival are metered. Branch-free, as
        // in the ET-marker.
        let metered = matches!(mark, PcnMark::Nm | PcnMark::Thm);
        let m = mask(metered);
        self.fill = (after & m) | (fill & !m);
        // NM (0b10) becomes ThM (0b01) by flipping both bits; ThM stays.
        let flip = u8::from(metered & marked & (mark == PcnMark::Nm)) * 0b11;
        PcnMark::from_ecn(mark.ecn() ^ flip)
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
    #[inline]
    fn level(&self) -> i64 {
        self.fill as i64
    }
    #[inline]
    fn level_bounds(p: &Self::Profile) -> (i64, i64) {
        (0, p.u.cap as i64)
    }
    #[inline]
    fn last_update(&self) -> Instant {
        self.last
    }
}
