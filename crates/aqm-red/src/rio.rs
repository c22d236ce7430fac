//! Three drop precedences: RIO-C, RIO-D and WRED (RFC 2597 section 4; RIO of
//! Clark and Fang, extended to three colors as in RFC 2963 appendix A.1).

use core::time::Duration;

use fixed::types::U32F32;
use netcond_core::{Color, Instant, RandomSource, TickRate};

use crate::average::ewma;
use crate::curve::Curve;
use crate::queue_settings::{QueueSettings, QueueUnit};
use crate::red::{check_curve, region_p, Common, FastLine};
use crate::spreading::Spreading;
use crate::ONE;
use crate::{Decision, Packet, RedError};

/// How the three colors' averages are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum RioMode {
    /// RIO-C (coupled, Clark and Fang's RIO): a color's average counts the
    /// queued packets of its own and every better color (green: green only;
    /// yellow: green + yellow; red: all). An arrival of color `c` updates the
    /// averages of `c` and of every worse color, as RIO updates avg_total on
    /// every arrival and avg_in only on in-profile arrivals.
    #[default]
    Coupled,
    /// RIO-D (decoupled): each color's average counts only its own packets and
    /// is updated on its own arrivals.
    Decoupled,
    /// WRED: one average of the whole queue, updated on every arrival; only
    /// the thresholds differ per color.
    Wred,
}

/// [`RioMode`] as kept in a profile's first line ([`FastLine::rio_mode`]).
const COUPLED: u8 = RioMode::Coupled as u8;
/// See [`COUPLED`].
const WRED: u8 = RioMode::Wred as u8;

/// One color's RED thresholds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Precedence {
    /// min_th in queue units.
    pub min_th: u32,
    /// max_th in queue units.
    pub max_th: u32,
    /// max_p in `[0, 1]`.
    pub max_p: U32F32,
}

impl Precedence {
    /// One color's `min_th`, `max_th` and `max_p`.
    #[must_use]
    pub const fn new(min_th: u32, max_th: u32, max_p: U32F32) -> Precedence {
        Precedence {
            min_th,
            max_th,
            max_p,
        }
    }
}

/// A three-color RED configuration.
///
/// Built with [`new`](Self::new) or [`rfc2963`](Self::rfc2963), the
/// settings RIO shares with RED given as one [`QueueSettings`] with
/// [`with_queue`](Self::with_queue), and the clock with
/// [`with_tick`](Self::with_tick) (or by setting the public fields of a built
/// value, the shared ones under [`queue`](Self::queue)); new fields may be
/// added.
///
/// ```
/// use aqm_red::{Precedence, QueueSettings, RedConfig, RioConfig, RioMode, RioProfile};
///
/// // WRED over a 300-packet buffer: green 150/300, yellow 100/300, red 50/300.
/// let p = RedConfig::prob;
/// let cfg = RioConfig::new(
///     RioMode::Wred,
///     p(0.002),
///     [
///         Precedence::new(150, 300, p(0.02)),
///         Precedence::new(100, 300, p(0.05)),
///         Precedence::new(50, 300, p(0.1)),
///     ],
///     300,
/// )
/// .with_queue(QueueSettings::new(p(0.002), 300).with_ecn(true));
/// assert!(RioProfile::new(&cfg).is_ok());
/// assert!(RioProfile::new(&RioConfig::rfc2963(1000)).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[non_exhaustive]
pub struct RioConfig {
    /// RIO-C, RIO-D or WRED.
    pub mode: RioMode,
    /// Thresholds indexed by [`Color::index`]: green, yellow, red.
    pub colors: [Precedence; 3],
    /// The settings RIO shares with RED: w_q (shared by the averages), the
    /// buffer (all colors together), the unit, gentle RED for every color,
    /// byte mode, ECN, `s` and the spreading within each color.
    pub queue: QueueSettings,
    /// The tick clock of the `Instant`s passed in; `queue.typical_tx` is
    /// converted to it once, when the profile is built.
    pub tick: TickRate,
}

crate::queue_settings::queue_settings!(RioConfig);

impl RioConfig {
    /// `mode` with `w_q`, the colors' thresholds (green, yellow, red) and the
    /// buffer `limit`, in packets: not gentle, no byte mode, no ECN, FJ93
    /// spreading ([`Spreading::Accumulated`]), `s` = 1200 us and nanosecond
    /// ticks, as [`RedConfig::packets`](crate::RedConfig::packets).
    #[must_use]
    pub const fn new(mode: RioMode, w_q: U32F32, colors: [Precedence; 3], limit: u32) -> RioConfig {
        RioConfig {
            mode,
            colors,
            queue: QueueSettings::new(w_q, limit),
            tick: TickRate::NANOS,
        }
    }

    /// Sets [`mode`](Self::mode).
    #[must_use]
    pub const fn with_mode(mut self, mode: RioMode) -> Self {
        self.mode = mode;
        self
    }

    /// RFC 2963 appendix A.1: RIO extended to three drop priorities, red
    /// 100/200 packets max_p 0.1, yellow 200/400 max_p 0.05, green 400/800
    /// max_p 0.02, w_q 0.002; RIO-C, packets, FJ93 spreading
    /// ([`Spreading::Accumulated`]), no ECN. The
    /// RFC does not give the buffer size: `limit` packets (at least 800). `s` is
    /// one 1500-byte packet on the 70 Mbit/s bottleneck (171,429 ns).
    #[must_use]
    pub const fn rfc2963(limit: u32) -> RioConfig {
        let mut cfg = RioConfig::new(
            RioMode::Coupled,
            U32F32::lit("0.002"),
            [
                Precedence::new(400, 800, U32F32::lit("0.02")),
                Precedence::new(200, 400, U32F32::lit("0.05")),
                Precedence::new(100, 200, U32F32::lit("0.1")),
            ],
            limit,
        );
        cfg.queue.typical_tx = Duration::from_nanos(171_429);
        cfg
    }
}

/// The precomputed constants of a three-color configuration.
///
/// Aligned to 64 bytes: line `i` holds the constants a packet of color `i`
/// (by [`Color::index`]) on the short path reads; the ones every color shares
/// (the EWMA's shift, the fixed-point bits, the fit test) are read from line
/// 0, so a green packet reads one line of the profile and any other two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct RioProfile {
    pub(crate) fast: [FastLine; 3],
    pub(crate) common: Common,
    pub(crate) curves: [Curve; 3],
    pub(crate) mode: RioMode,
}

impl RioProfile {
    /// Checks `cfg` (each color as RED, and RFC 2597 section 2's ordering:
    /// at every average, green's drop probability is at most yellow's, and
    /// yellow's at most red's) and precomputes the constants.
    pub fn new(cfg: &RioConfig) -> Result<RioProfile, RedError> {
        let common = Common::new(&cfg.queue, cfg.tick)?;
        let mut curves = [Curve::new(&common.avg, 0, 1, 0, false); 3];
        for (i, p) in cfg.colors.iter().enumerate() {
            curves[i] = check_curve(&common, p.min_th, p.max_th, p.max_p, cfg.queue.gentle)?;
        }
        if !ordered(&curves[0], &curves[1], cfg.queue.limit)
            || !ordered(&curves[1], &curves[2], cfg.queue.limit)
        {
            return Err(RedError::PrecedenceOrder);
        }
        let min_ths = cfg.colors.map(|p| p.min_th);
        crate::red::check_ecn_drop(
            cfg.queue.ecn,
            cfg.queue.ecn_drop_th,
            &min_ths,
            cfg.queue.limit,
        )?;
        Ok(RioProfile {
            fast: curves.map(|c| FastLine {
                rio_mode: cfg.mode as u8,
                ..FastLine::new(&common, &c)
            }),
            common,
            curves,
            mode: cfg.mode,
        })
    }

    /// The mode.
    #[must_use]
    pub const fn mode(&self) -> RioMode {
        self.mode
    }

    /// p_b of `color` at an average of `avg` queue units (1 in the forced region).
    #[must_use]
    pub fn p_b(&self, color: Color, avg: U32F32) -> U32F32 {
        let fx = self.common.avg.fx_of_units(avg);
        U32F32::from_bits(region_p(&self.curves[color.index()], fx))
    }

    /// The buffer limit in queue units.
    #[must_use]
    pub const fn limit(&self) -> u32 {
        self.common.avg.limit
    }
}

/// The exact p_b of a curve at integer average `x` (queue units), as a
/// fraction in 2^-32 units; `left` gives the limit from below.
fn exact_p(c: &Curve, x: u64, left: bool) -> (u128, u128) {
    let (min, max) = (c.min_th as u64, c.max_th as u64);
    let top = if c.gentle { 2 * max } else { max };
    let inside = |lo: u64, hi: u64| {
        if left {
            lo < x && x <= hi
        } else {
            lo <= x && x < hi
        }
    };
    if if left { x <= min } else { x < min } {
        (0, 1)
    } else if inside(min, max) {
        (c.max_p as u128 * (x - min) as u128, (max - min) as u128)
    } else if inside(max, top) {
        let d = max as u128;
        (
            c.max_p as u128 * d + (ONE - c.max_p) as u128 * (x - max) as u128,
            d,
        )
    } else {
        (ONE as u128, 1)
    }
}

/// True when `better`'s p_b never exceeds `worse`'s (configuration time).
/// Both are piecewise linear with breakpoints at the thresholds, so checking
/// the value and the left limit at every breakpoint and at the ends suffices.
fn ordered(better: &Curve, worse: &Curve, limit: u32) -> bool {
    let mut pts = [0u64; 8];
    let mut n = 0;
    for c in [better, worse] {
        pts[n] = c.min_th as u64;
        pts[n + 1] = c.max_th as u64;
        pts[n + 2] = if c.gentle {
            2 * c.max_th as u64
        } else {
            c.max_th as u64
        };
        n += 3;
    }
    pts[6] = 0;
    pts[7] = limit as u64;
    pts.iter().all(|&x| {
        [false, true].iter().all(|&left| {
            let (a, b) = exact_p(better, x, left);
            let (c, d) = exact_p(worse, x, left);
            a * d <= c * b
        })
    })
}

/// The per-queue three-color state: three averages, three counts, the idle
/// start (32 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Rio {
    avg: [u32; 3],
    count: [u32; 3],
    q_time: Instant,
}

impl Rio {
    /// An empty queue whose time-keeping starts at `now`: averages 0, counts
    /// reset, idle since `now` (later timestamps are serial times relative to
    /// `now`, as for [`Red::new`](crate::Red::new)).
    #[must_use]
    pub const fn new(_profile: &RioProfile, now: Instant) -> Rio {
        Rio {
            avg: [0; 3],
            count: [0; 3],
            q_time: now,
        }
    }

    /// The decision for a packet of `color` arriving at `now`, with `queue`
    /// the queued amount of each color (indexed by [`Color::index`], in the
    /// profile's unit, the arriving packet not included).
    ///
    /// The averages are updated as the mode says (all decayed over the idle
    /// time when the whole queue is empty); a packet that does not fit the
    /// buffer is [`Decision::DropForced`]; otherwise the color's curve and
    /// average decide as RED does, with a count per color.
    #[inline]
    pub fn on_arrival<R: RandomSource + ?Sized>(
        &mut self,
        profile: &RioProfile,
        now: Instant,
        queue: [u32; 3],
        color: Color,
        pkt: Packet,
        rng: &mut R,
    ) -> Decision {
        // The sums in 64 bits, where they cannot overflow: on the short path
        // (total below the limit) they equal the saturating sums of the long
        // path, and so does the test (0 wraps to 2^64 - 1, above `fit_short`).
        let s0 = queue[0] as u64;
        let s1 = s0 + queue[1] as u64;
        let total = s1 + queue[2] as u64;
        // Every color's line holds the same `fit_short`, `q_mul`, `shift` and
        // `rio_mode`: green's, at a fixed place, serves every packet.
        let f = &profile.fast[0];
        if total.wrapping_sub(1) >= f.fit_short as u64 {
            // Out of line, the state passed and returned by value, so that a
            // caller's loop keeps it in registers on the short path.
            let (st, d) = Self::arrive_long_by_value(*self, profile, now, queue, color, pkt, rng);
            *self = st;
            return d;
        }
        // 0 < total < limit: every sum is below the limit, and no queue needs
        // clamping (nor overflows its multiply by `q_mul`).
        let (s0, s1, total) = (s0 as u32, s1 as u32, total as u32);
        let mode = f.rio_mode;
        let [a0, a1, a2] = self.avg;
        // One arm per color, so that the averages, the count and the
        // color's line are at constant places. RIO-C steps the averages that
        // count the packet (red one, yellow two, green three); WRED its one
        // average; RIO-D the color's own. Each arm writes the three averages
        // back whole (values, not places chosen by the mode), so that a
        // caller's loop can keep them in registers.
        match color {
            Color::Green => {
                let (a0, a1, a2) = if mode == COUPLED {
                    (
                        f.step(a0, f.q_fx(s0)),
                        f.step(a1, f.q_fx(s1)),
                        f.step(a2, f.q_fx(total)),
                    )
                } else {
                    // WRED's one average follows the total; RIO-D's green
                    // average the green queue.
                    let q = if mode == WRED { total } else { s0 };
                    (f.step(a0, f.q_fx(q)), a1, a2)
                };
                self.avg = [a0, a1, a2];
                self.decide_color::<0, R>(profile, a0, pkt, rng)
            }
            Color::Yellow => {
                let (a0, a1, a2, a) = if mode == COUPLED {
                    let a = f.step(a1, f.q_fx(s1));
                    (a0, a, f.step(a2, f.q_fx(total)), a)
                } else if mode == WRED {
                    let a = f.step(a0, f.q_fx(total));
                    (a, a1, a2, a)
                } else {
                    let a = f.step(a1, f.q_fx(queue[1]));
                    (a0, a, a2, a)
                };
                self.avg = [a0, a1, a2];
                self.decide_color::<1, R>(profile, a, pkt, rng)
            }
            Color::Red => {
                let (a0, a2, a) = if mode == WRED {
                    let a = f.step(a0, f.q_fx(total));
                    (a, a2, a)
                } else {
                    // RIO-C's red average counts the whole queue, RIO-D's
                    // the red queue.
                    let q = if mode == COUPLED { total } else { queue[2] };
                    let a = f.step(a2, f.q_fx(q));
                    (a0, a, a)
                };
                self.avg = [a0, a1, a2];
                self.decide_color::<2, R>(profile, a, pkt, rng)
            }
        }
    }

    /// The decision for a packet of the color of index `K` whose deciding
    /// average is `avg`, on the short paths of `Common::decide_fast`.
    #[inline(always)]
    fn decide_color<const K: usize, R: RandomSource + ?Sized>(
        &mut self,
        profile: &RioProfile,
        avg: u32,
        pkt: Packet,
        rng: &mut R,
    ) -> Decision {
        profile.common.decide_fast::<true, R>(
            &profile.fast[K],
            &profile.curves[K],
            avg,
            &mut self.count[K],
            pkt,
            rng,
        )
    }

    /// [`arrive_long`](Self::arrive_long) on a copy of the state, handed back
    /// with the decision.
    #[cold]
    #[inline(never)]
    fn arrive_long_by_value<R: RandomSource + ?Sized>(
        mut st: Rio,
        profile: &RioProfile,
        now: Instant,
        queue: [u32; 3],
        color: Color,
        pkt: Packet,
        rng: &mut R,
    ) -> (Rio, Decision) {
        let d = st.arrive_long(profile, now, queue, color, pkt, rng);
        (st, d)
    }

    /// [`on_arrival`](Self::on_arrival) off the short path (see
    /// [`Red::on_arrival`](crate::Red::on_arrival)).
    #[inline(always)]
    fn arrive_long<R: RandomSource + ?Sized>(
        &mut self,
        profile: &RioProfile,
        now: Instant,
        queue: [u32; 3],
        color: Color,
        pkt: Packet,
        rng: &mut R,
    ) -> Decision {
        let c = &profile.common;
        let ci = color.index();
        let s0 = queue[0];
        let s1 = s0.saturating_add(queue[1]);
        let total = s1.saturating_add(queue[2]);
        let w = c.avg.w;
        if total == 0 {
            let idle = self.q_time.advance_to(now);
            if let Some(f) = c.avg.decay_factor(idle) {
                for a in &mut self.avg {
                    *a = crate::average::apply_factor(*a, f);
                }
            }
        } else {
            match profile.mode {
                RioMode::Wred => self.avg[0] = ewma(self.avg[0], c.avg.q_fx(total), w),
                RioMode::Decoupled => {
                    self.avg[ci] = ewma(self.avg[ci], c.avg.q_fx(queue[ci]), w);
                }
                RioMode::Coupled => {
                    // Levels c..=2 include color c.
                    if ci == 0 {
                        self.avg[0] = ewma(self.avg[0], c.avg.q_fx(s0), w);
                    }
                    if ci <= 1 {
                        self.avg[1] = ewma(self.avg[1], c.avg.q_fx(s1), w);
                    }
                    self.avg[2] = ewma(self.avg[2], c.avg.q_fx(total), w);
                }
            }
        }
        // Mutation check 2 (test builds): the buffer test forgotten.
        if c.overflows(total, pkt.len) {
            return Decision::DropForced;
        }
        let a = match profile.mode {
            RioMode::Wred => self.avg[0],
            _ => self.avg[ci],
        };
        c.decide_fast::<false, R>(
            &profile.fast[ci],
            &profile.curves[ci],
            a,
            &mut self.count[ci],
            pkt,
            rng,
        )
    }

    /// Tells the queue it became empty at `now`. The profile is taken as by
    /// every method that advances a state; the idle start does not depend on
    /// it.
    #[inline]
    pub fn on_queue_empty(&mut self, _profile: &RioProfile, now: Instant) {
        let _ = self.q_time.advance_to(now);
    }

    /// The average that decides for `color`, in queue units (in WRED mode the
    /// shared average).
    #[must_use]
    pub fn avg(&self, profile: &RioProfile, color: Color) -> U32F32 {
        let i = match profile.mode {
            RioMode::Wred => 0,
            _ => color.index(),
        };
        profile.common.avg.units_of(self.avg[i])
    }

    /// The raw averages (`avg * 2^F`), indexed by color (WRED uses index 0).
    #[must_use]
    pub const fn avg_bits(&self) -> [u32; 3] {
        self.avg
    }

    /// The counts, indexed by color.
    #[must_use]
    pub const fn counts(&self) -> [u32; 3] {
        self.count
    }
}

#[cfg(test)]
impl RioProfile {
    /// This profile with the short paths of every color switched off
    /// ([`FastLine::general_only`]): [`Rio::on_arrival`] with it runs the
    /// general path (`arrive_long`, with the multiply form of the EWMA and
    /// the out-of-line decision), which the short paths must reproduce
    /// exactly (decisions, state and draws).
    pub(crate) fn general_path_only(&self) -> RioProfile {
        RioProfile {
            fast: self.fast.map(FastLine::general_only),
            ..*self
        }
    }
}

#[cfg(test)]
mod tests;
