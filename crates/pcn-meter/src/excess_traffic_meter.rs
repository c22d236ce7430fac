//! The RFC 5670 excess-traffic meter (section 2.4, appendix A.2; the classic
//! behaviour of appendix B.6 too), marking ETM per RFC 6660.

use crate::bucket::unit_accessors;
use crate::mark::PcnMark;
use crate::node::PcnMeter;
use crate::out_table::{by_mark, OutRows, OUT_ET};
use crate::rfc5670::Rfc5670Error;
use crate::units::{below, select, Units, Wide, MAX_UNITS};
use netcond_core::{Instant, Rate, TickRate};

/// Which "classic" excess-traffic meter tie rule to use when a packet's size
/// equals the fill exactly.
///
/// RFC 5670 section 2.4 removes the packet's tokens down to a minimum of zero
/// and marks if the bucket is then empty: a packet of exactly `F_etm` bytes
/// empties it and is marked (and a zero-length packet is marked when the bucket
/// is empty). Appendix B.6 describes the classic meter as marking "if the number
/// of tokens in the token bucket is smaller than the packet size": that packet
/// is not marked. Both remove the packet's tokens down to zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum ClassicTie {
    /// Section 2.4 (normative, the default): mark iff `F_etm <= size`.
    #[default]
    Section2_4,
    /// Appendix B.6 (informative): mark iff `F_etm < size`.
    AppendixB6,
}

/// The excess-traffic meter's behaviour (RFC 5670 section 2.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum ExcessMode {
    /// "Packet size independent marking" (the SHOULD of section 2.4, appendix
    /// A.2): if `F_etm < 0` mark and take no tokens, else take the packet's
    /// tokens; the bucket can go below zero by at most one packet.
    SizeIndependent,
    /// The "classic" behaviour with the chosen tie rule.
    Classic(ClassicTie),
}

/// Configuration of an RFC 5670 excess-traffic meter.
///
/// ```
/// use netcond_core::{Rate, TickRate};
/// use pcn_meter::{ClassicTie, ExcessMode, ExcessTrafficMeterConfig, ExcessTrafficMeterProfile};
///
/// // PCN-excess-rate 10 Mbit/s, BS_etm 15 kB, size-independent marking.
/// let c = ExcessTrafficMeterConfig::new(Rate::from_mbps(10), 15_000);
/// assert_eq!(c.mode, ExcessMode::SizeIndependent);
/// // The classic meter with appendix B.6's tie rule, on a microsecond clock.
/// let c = c
///     .with_mode(ExcessMode::Classic(ClassicTie::AppendixB6))
///     .with_tick(TickRate::MICROS);
/// assert!(ExcessTrafficMeterProfile::new(&c).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct ExcessTrafficMeterConfig {
    /// PCN-excess-rate (the PCN-supportable-rate with RFC 6661).
    pub excess_rate: Rate,
    /// BS_etm, the bucket depth, in bytes; the bucket starts full.
    pub bs_etm: u64,
    /// Size-independent (recommended) or classic.
    pub mode: ExcessMode,
    /// The clock of the `Instant`s passed in.
    pub tick: TickRate,
}

impl ExcessTrafficMeterConfig {
    /// PCN-excess-rate and BS_etm (bytes) with the packet-size-independent
    /// marking that section 2.4 recommends, on a nanosecond clock.
    #[must_use]
    pub const fn new(excess_rate: Rate, bs_etm: u64) -> ExcessTrafficMeterConfig {
        ExcessTrafficMeterConfig {
            excess_rate,
            bs_etm,
            mode: ExcessMode::SizeIndependent,
            tick: TickRate::NANOS,
        }
    }

    /// The same configuration with the behaviour `mode`.
    #[must_use]
    pub const fn with_mode(mut self, mode: ExcessMode) -> ExcessTrafficMeterConfig {
        self.mode = mode;
        self
    }

    /// The same configuration on the clock `tick`.
    #[must_use]
    pub const fn with_tick(mut self, tick: TickRate) -> ExcessTrafficMeterConfig {
        self.tick = tick;
        self
    }
}

/// The precomputed constants of an [`ExcessTrafficMeter`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
// C layout, `out` first: the output table at offset 0 makes its lookup one
// address addition, where a displacement needs one more.
#[repr(C)]
pub struct ExcessTrafficMeterProfile {
    /// The state a packet leaves in, by ECN code and marked: NM and ThM
    /// become ETM, the rest stay.
    out: OutRows,
    u: Units,
    mode: ExcessMode,
    /// Per arriving ECN code: units per byte of a packet's cost, `scale` for
    /// NM and ThM, 0 for not-PCN and ETM: not metered, they cost nothing.
    scale_by_mark: [u64; 4],
    /// The length a packet is held at before the multiply: classic, `len_over`
    /// (exact up to BS_etm, above the capacity beyond); size independent,
    /// `ceil(2^62 / scale)`, read only on the path where every `u32` length
    /// costs at most 2^62 units (`lens_fit`), so it never changes a cost
    /// (profiles whose lengths do not fit take the 128-bit path, which charges
    /// every packet its exact cost).
    len_lim: u64,
    /// Classic: 1 with the section 2.4 tie (marked when `F <= size`), 0 with
    /// appendix B.6's (`F < size`).
    tie: u64,
    /// Size independent: 2^62, the most units a packet costs on the
    /// `lens_fit` path (never reached there: a no-op bound for the `i64`).
    cost_max: u64,
    /// Size independent with every length fitting: `inc` held at the
    /// largest room, `cap + 2^62`.
    inc_room: u64,
    /// Size independent with every length fitting: ticks that take the
    /// bucket from -2^62 to full, `ceil((cap + 2^62) / inc_room)` (0 for a
    /// zero rate).
    room_ticks: u64,
}

impl ExcessTrafficMeterProfile {
    /// Validates `c` and precomputes its constants.
    pub fn new(c: &ExcessTrafficMeterConfig) -> Result<ExcessTrafficMeterProfile, Rfc5670Error> {
        if c.excess_rate.bits_per_sec() == 0 {
            return Err(Rfc5670Error::ZeroRate);
        }
        if c.bs_etm == 0 {
            return Err(Rfc5670Error::ZeroBucket);
        }
        let u = Units::new(c.excess_rate, c.bs_etm, c.tick, 1).ok_or(Rfc5670Error::TooLarge)?;
        // With every length fitting, the room of the signed bucket is at
        // most cap + 2^62 < 2^63.
        let room = u.cap + MAX_UNITS;
        let inc_room = u.inc.min(room);
        let (lim, tie) = match c.mode {
            // Read only where every length fits (`lens_fit`: u32::MAX *
            // scale <= 2^62), so no length reaches the hold; it keeps the
            // product below 2^63 by construction.
            ExcessMode::SizeIndependent => (MAX_UNITS.div_ceil(u.scale), 0),
            ExcessMode::Classic(ClassicTie::Section2_4) => (u.len_over, 1),
            ExcessMode::Classic(ClassicTie::AppendixB6) => (u.len_over, 0),
        };
        Ok(ExcessTrafficMeterProfile {
            u,
            mode: c.mode,
            scale_by_mark: by_mark(0, u.scale, u.scale, 0),
            len_lim: lim,
            tie,
            cost_max: MAX_UNITS,
            inc_room,
            room_ticks: if inc_room == 0 {
                0
            } else {
                room.div_ceil(inc_room)
            },
            out: OUT_ET.rows(),
        })
    }
}

unit_accessors!(ExcessTrafficMeterProfile, "BS_etm");

/// Per-link state of the RFC 5670 excess-traffic meter.
///
/// Packets that are ETM on arrival are not metered (section 2.4's first
/// SHOULD NOT; dropping is the caller's business and a dropped packet should
/// simply not be passed in). Size independent (appendix A.2):
///
/// ```text
/// F_etm = min(BS_etm, F_etm + dt * PCN-excess-rate)
/// if packet is not ETM: if F_etm < 0 { mark ETM } else { F_etm -= packet_size }
/// ```
///
/// Classic (section 2.4): `F_etm = max(0, F_etm - packet_size)`, marked as
/// chosen by [`ClassicTie`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ExcessTrafficMeter {
    fill: Wide,
    last: Instant,
}

impl ExcessTrafficMeter {
    /// A meter with a full bucket at `now`.
    #[must_use]
    pub const fn new(p: &ExcessTrafficMeterProfile, now: Instant) -> ExcessTrafficMeter {
        ExcessTrafficMeter {
            fill: Wide::new(p.u.cap as i128),
            last: now,
        }
    }

    /// F_etm in units (negative only in size-independent mode, and then at
    /// least minus one packet's cost, above -2^94).
    #[must_use]
    pub const fn fill_units(&self) -> i128 {
        self.fill.get()
    }

    /// Meters one packet; returns its new state.
    #[inline(always)]
    pub fn mark(
        &mut self,
        p: &ExcessTrafficMeterProfile,
        now: Instant,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        let mut last = self.last;
        let dt = p.u.elapsed_select(&mut last, now);
        self.mark_elapsed(p, last, dt, len, mark)
    }

    /// [`mark`](Self::mark) with the elapsed time already computed:
    /// `dt = elapsed(&mut last, now)` from this meter's last update.
    #[inline(always)]
    fn mark_elapsed(
        &mut self,
        p: &ExcessTrafficMeterProfile,
        last: Instant,
        dt: u64,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        self.last = last;
        let e = usize::from(mark.ecn());
        let held = u64::from(len).min(p.len_lim);
        let marked = match p.mode {
            ExcessMode::SizeIndependent if p.u.lens_fit => {
                // Every length fits (`u32::MAX * scale <= 2^62`, nearly every
                // profile): the level stays in [-2^62, cap], an i64.
                let fill = self.fill.get() as i64;
                // -2^62 <= fill <= cap, so the room cap - fill is below 2^63.
                // The gain, dt held at room_ticks times inc_room, is exact
                // below the largest room and at least it beyond (as
                // Units::gain_to_cap, for a room of cap + 2^62), below 2^64.
                let room = (p.u.cap as i64 - fill) as u64;
                let gain = dt.min(p.room_ticks) * p.inc_room;
                // gain < room: fill + gain < cap, no overflow.
                let fill = if gain >= room {
                    p.u.cap as i64
                } else {
                    fill + gain as i64
                };
                // The cost, len * scale <= 2^62: exact (the hold at len_lim
                // and cost_max never apply here), and 0 for a packet that is
                // not metered.
                let cost = (held * p.scale_by_mark[e]).min(p.cost_max) as i64;
                // F < 0: marked, nothing taken. Else F - cost >= -2^62.
                let marked = (fill as u64 >> 63) as usize;
                self.fill = Wide::new((fill - select(fill < 0, p.u.empty as i64, cost)) as i128);
                marked
            }
            ExcessMode::SizeIndependent => {
                // A packet may cost more than 2^62 units (up to 2^94): the
                // level in i128, exactly. It never goes below minus one
                // packet's cost, as only a level that is not negative is
                // charged.
                let fill = p.u.refill_wide(self.fill.get(), dt);
                let cost = u128::from(len) * u128::from(p.scale_by_mark[e]);
                let marked = usize::from(fill < 0);
                if fill >= 0 {
                    self.fill = Wide::new(fill - cost as i128);
                } else {
                    self.fill = Wide::new(fill);
                }
                marked
            }
            ExcessMode::Classic(_) => {
                // The classic bucket never goes below zero: 0 <= fill <= cap.
                let fill = p.u.cap_at(self.fill.get() as u64 + p.u.gain_to_cap(dt));
                // Exact up to BS_etm bytes, above the fill beyond; 0 if not
                // metered. Section 2.4: F <= size, i.e. F < size + 1.
                let cost = held * p.scale_by_mark[e];
                self.fill = Wide::new(p.u.sat_sub(fill, cost) as i128);
                below(fill, cost + p.tie)
            }
        };
        // Not metered (not-PCN, ETM): unchanged, whatever `marked` says.
        p.out[e][marked]
    }
}

impl PcnMeter for ExcessTrafficMeter {
    #[inline(always)]
    fn mark(
        &mut self,
        p: &ExcessTrafficMeterProfile,
        now: Instant,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        ExcessTrafficMeter::mark(self, p, now, len, mark)
    }
    #[inline(always)]
    fn mark_elapsed(
        &mut self,
        p: &ExcessTrafficMeterProfile,
        _now: Instant,
        last: Instant,
        dt: u64,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        ExcessTrafficMeter::mark_elapsed(self, p, last, dt, len, mark)
    }
    #[inline]
    fn level(&self) -> i128 {
        self.fill.get()
    }
    #[inline]
    fn level_bounds(p: &Self::Profile) -> (i128, i128) {
        match p.mode {
            // At least minus the largest packet's cost (see `FLOOR`).
            ExcessMode::SizeIndependent => (
                -(i128::from(u32::MAX) * i128::from(p.u.scale)),
                p.u.cap as i128,
            ),
            ExcessMode::Classic(_) => (0, p.u.cap as i128),
        }
    }
    #[inline]
    fn last_update(&self) -> Instant {
        self.last
    }
}
