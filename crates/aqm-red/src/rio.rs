//! Three drop precedences: RIO-C, RIO-D and WRED (RFC 2597 section 4; RIO of
//! Clark and Fang, extended to three colors as in RFC 2963 appendix A.1).

use fixed::types::U32F32;
use netcond_core::{Color, Instant, RandomSource};

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
/// Built with [`new`](Self::new) or [`rfc2963`](Self::rfc2963) and the
/// `with_*` methods (or by setting the public fields of a built value, the
/// shared ones under [`queue`](Self::queue)); new fields may be added.
///
/// ```
/// use aqm_red::{Precedence, RedConfig, RioConfig, RioMode, RioProfile};
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
/// .with_ecn(true);
/// assert!(RioProfile::new(&cfg).is_ok());
/// assert!(RioProfile::new(&RioConfig::rfc2963(1000)).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
}

crate::queue_settings::queue_settings!(RioConfig);

impl RioConfig {
    /// `mode` with `w_q`, the colors' thresholds (green, yellow, red) and the
    /// buffer `limit`, in packets: not gentle, no byte mode, no ECN, FJ93
    /// spreading ([`Spreading::Accumulated`]), and `s` = 1200 us in
    /// nanosecond ticks, as [`RedConfig::packets`](crate::RedConfig::packets).
    #[must_use]
    pub const fn new(mode: RioMode, w_q: U32F32, colors: [Precedence; 3], limit: u32) -> RioConfig {
        RioConfig {
            mode,
            colors,
            queue: QueueSettings::new(w_q, limit),
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
    /// one 1500-byte packet on the 70 Mbit/s bottleneck in nanoseconds (171,429).
    #[must_use]
    pub const fn rfc2963(limit: u32) -> RioConfig {
        RioConfig::new(
            RioMode::Coupled,
            U32F32::lit("0.002"),
            [
                Precedence::new(400, 800, U32F32::lit("0.02")),
                Precedence::new(200, 400, U32F32::lit("0.05")),
                Precedence::new(100, 200, U32F32::lit("0.1")),
            ],
            limit,
        )
        .with_idle_tx_ticks(171_429)
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
        let common = Common::new(&cfg.queue)?;
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
        let a = &self.common.avg;
        let bits = avg.to_bits() >> (32 - a.frac);
        let fx = if bits > a.limit_fx as u64 {
            a.limit_fx
        } else {
            bits as u32
        };
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
        let c = &profile.common;
        let ci = color.index();
        // The sums in 64 bits, where they cannot overflow: on the short path
        // (total below the limit) they equal the saturating sums of the long
        // path, and so does the test (0 wraps to 2^64 - 1, above `fit_short`).
        let s0 = queue[0] as u64;
        let s1 = s0 + queue[1] as u64;
        let total = s1 + queue[2] as u64;
        // Every color's line holds the same `fit_short`, `frac` and `shift`:
        // green's, at a fixed place, serves every packet.
        let f = &profile.fast[0];
        if total.wrapping_sub(1) >= f.fit_short as u64 {
            return self.arrive_long(profile, now, queue, color, pkt, rng);
        }
        // 0 < total < limit: every sum is below the limit, and no queue needs
        // clamping (nor overflows its shift by `frac`).
        let (s0, s1, total) = (s0 as u32, s1 as u32, total as u32);
        let u = f.frac;
        let (k, avg) = match f.rio_mode {
            COUPLED => {
                // Each color steps only the averages that count it (red
                // one, yellow two, green three).
                let n2 = f.step(self.avg[2], total << u);
                self.avg[2] = n2;
                match color {
                    Color::Green => {
                        self.avg[0] = f.step(self.avg[0], s0 << u);
                        self.avg[1] = f.step(self.avg[1], s1 << u);
                        (0, self.avg[0])
                    }
                    Color::Yellow => {
                        self.avg[1] = f.step(self.avg[1], s1 << u);
                        (1, self.avg[1])
                    }
                    Color::Red => (2, n2),
                }
            }
            WRED => {
                self.avg[0] = f.step(self.avg[0], total << u);
                (ci, self.avg[0])
            }
            _ => {
                self.avg[ci] = f.step(self.avg[ci], queue[ci] << u);
                (ci, self.avg[ci])
            }
        };
        c.decide_fast(
            &profile.fast[k],
            &profile.curves[k],
            avg,
            &mut self.count[k],
            pkt,
            rng,
        )
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
        if c.overflows(total, pkt.len) && !(cfg!(test) && crate::mutants::on(2)) {
            return Decision::DropForced;
        }
        let a = match profile.mode {
            RioMode::Wred => self.avg[0],
            _ => self.avg[ci],
        };
        c.decide_fast(
            &profile.fast[ci],
            &profile.curves[ci],
            a,
            &mut self.count[ci],
            pkt,
            rng,
        )
    }

    /// Tells the queue it became empty at `now`.
    #[inline]
    pub fn on_queue_empty(&mut self, now: Instant) {
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
impl Rio {
    /// [`on_arrival`](Self::on_arrival) by the general path alone (the
    /// multiply form of the EWMA, branches on the mode and the color, and
    /// `Common::decide`), which the short paths must reproduce exactly.
    pub(crate) fn on_arrival_general<R: RandomSource + ?Sized>(
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
        if c.overflows(total, pkt.len) && !(cfg!(test) && crate::mutants::on(2)) {
            return Decision::DropForced;
        }
        let a = match profile.mode {
            RioMode::Wred => self.avg[0],
            _ => self.avg[ci],
        };
        c.decide(&profile.curves[ci], a, &mut self.count[ci], pkt, rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netcond_core::SplitMix64;

    fn cfg(mode: RioMode) -> RioConfig {
        let mut c = RioConfig::rfc2963(1000);
        c.mode = mode;
        c
    }

    #[test]
    fn rfc2963_profile_is_accepted_and_has_its_numbers() {
        let p = RioProfile::new(&cfg(RioMode::Coupled)).unwrap();
        let at = |c: Color, x: u32| p.p_b(c, U32F32::from_num(x));
        // Midpoints: red 150 -> 0.05, yellow 300 -> 0.025, green 600 -> 0.01.
        let close = |v: U32F32, e: f64| (v.to_num::<f64>() - e).abs() < 1e-9;
        assert!(close(at(Color::Red, 150), 0.05));
        assert!(close(at(Color::Yellow, 300), 0.025));
        assert!(close(at(Color::Green, 600), 0.01));
        assert_eq!(at(Color::Red, 99), 0);
        assert_eq!(at(Color::Red, 200), 1);
        assert_eq!(at(Color::Yellow, 199), 0);
        assert_eq!(at(Color::Yellow, 400), 1);
        assert_eq!(at(Color::Green, 399), 0);
        assert_eq!(at(Color::Green, 800), 1);
        assert_eq!(p.limit(), 1000);
        // Gentle is ordered too.
        let mut g = cfg(RioMode::Wred);
        g.queue.gentle = true;
        assert!(RioProfile::new(&g).is_ok());
    }

    #[test]
    fn misordered_precedences_are_refused() {
        let mut c = cfg(RioMode::Wred);
        // Green max_p above yellow's where both are active.
        c.colors[0] = Precedence {
            min_th: 200,
            max_th: 400,
            max_p: U32F32::from_num(0.1),
        };
        assert_eq!(RioProfile::new(&c), Err(RedError::PrecedenceOrder));
        // Equal curves are fine (two levels of loss, RFC 2597 section 2).
        let mut c = cfg(RioMode::Wred);
        c.colors[0] = c.colors[1];
        assert!(RioProfile::new(&c).is_ok());
        // Each color is checked as RED.
        let mut c = cfg(RioMode::Wred);
        c.colors[2].min_th = 200;
        assert_eq!(RioProfile::new(&c), Err(RedError::ThresholdOrder));
        let mut c = cfg(RioMode::Wred);
        c.queue.limit = 700;
        assert_eq!(RioProfile::new(&c), Err(RedError::ThresholdAboveLimit));
    }

    /// Drives a queue whose per-color occupancy is held constant and counts
    /// decisions per color.
    fn run(mode: RioMode, queue: [u32; 3], n: u32, seed: u64) -> (Rio, [[u32; 4]; 3]) {
        let p = RioProfile::new(&cfg(mode)).unwrap();
        let mut rio = Rio::new(&p, Instant::ZERO);
        let mut rng = SplitMix64::new(seed);
        let mut counts = [[0u32; 4]; 3];
        for i in 0..n {
            let color = Color::from_index((i % 3) as usize);
            let d = rio.on_arrival(
                &p,
                Instant::from_ticks(i as u64 * 100),
                queue,
                color,
                Packet::not_ect(1500),
                &mut rng,
            );
            counts[color.index()][d.index()] += 1;
        }
        (rio, counts)
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "60,000 arrivals to converge: arithmetic, not memory safety; runs natively"
    )]
    fn coupled_averages_converge_to_cumulative_queues() {
        let (rio, counts) = run(RioMode::Coupled, [300, 100, 50], 60_000, 1);
        let p = RioProfile::new(&cfg(RioMode::Coupled)).unwrap();
        assert_eq!(rio.avg(&p, Color::Green), 300);
        assert_eq!(rio.avg(&p, Color::Yellow), 400);
        assert_eq!(rio.avg(&p, Color::Red), 450);
        // Green below its min_th (400): never dropped; yellow and red at/above max_th: all dropped
        // once converged.
        assert_eq!(counts[0][Decision::Enqueue.index()], 20_000);
        assert!(counts[1][Decision::DropForced.index()] > 15_000);
        assert!(counts[2][Decision::DropForced.index()] > 15_000);
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "60,000 arrivals to converge: arithmetic, not memory safety; runs natively"
    )]
    fn decoupled_averages_are_per_color() {
        let (rio, counts) = run(RioMode::Decoupled, [300, 100, 50], 60_000, 2);
        let p = RioProfile::new(&cfg(RioMode::Decoupled)).unwrap();
        assert_eq!(rio.avg(&p, Color::Green), 300);
        assert_eq!(rio.avg(&p, Color::Yellow), 100);
        assert_eq!(rio.avg(&p, Color::Red), 50);
        // Everything below its min_th.
        for c in counts {
            assert_eq!(c[Decision::Enqueue.index()], 20_000);
        }
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "60,000 arrivals to converge: arithmetic, not memory safety; runs natively"
    )]
    fn wred_shares_one_average() {
        let (rio, counts) = run(RioMode::Wred, [100, 100, 100], 60_000, 3);
        let p = RioProfile::new(&cfg(RioMode::Wred)).unwrap();
        for c in Color::ALL {
            assert_eq!(rio.avg(&p, c), 300);
        }
        // At 300: green below 400 (no drops), yellow p_b 0.025, red forced.
        assert_eq!(counts[0][Decision::Enqueue.index()], 20_000);
        let y = counts[1][Decision::DropEarly.index()];
        assert!(y > 300 && y < 1_500, "{y}");
        assert!(counts[2][Decision::DropForced.index()] > 19_000);
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "statistics over 300,000 arrivals: arithmetic, not memory safety; runs natively"
    )]
    fn rio_drop_fractions_follow_the_rfc2963_curves() {
        // WRED at an average of 150: only red is early-dropped, at p_b = 0.05:
        // FJ93 spreading gives 2 p_b / (1 + p_b) = 0.0952.
        let n = 300_000u32;
        let (_, counts) = run(RioMode::Wred, [50, 50, 50], n, 4);
        let red = counts[2][Decision::DropEarly.index()] as f64 / f64::from(n / 3);
        assert!((red - 0.1 / 1.05).abs() < 0.006, "{red}");
        assert_eq!(counts[1][Decision::Enqueue.index()], n / 3);
        assert_eq!(counts[0][Decision::Enqueue.index()], n / 3);
    }

    #[test]
    fn overflow_and_idle() {
        let p = RioProfile::new(&cfg(RioMode::Coupled)).unwrap();
        let mut rio = Rio::new(&p, Instant::ZERO);
        let mut r = SplitMix64::new(5);
        assert_eq!(
            rio.on_arrival(
                &p,
                Instant::ZERO,
                [1000, 0, 0],
                Color::Green,
                Packet::not_ect(1),
                &mut r
            ),
            Decision::DropForced
        );
        assert!(rio.avg_bits()[2] > 0);
        rio.on_queue_empty(Instant::from_ticks(1_000_000_000_000));
        let before = rio.avg_bits();
        rio.on_arrival(
            &p,
            Instant::from_ticks(2_000_000_000_000),
            [0; 3],
            Color::Red,
            Packet::not_ect(1),
            &mut r,
        );
        // 1000 s idle at s = 171 us: everything decays to zero.
        assert!(before.iter().any(|&a| a > 0));
        assert_eq!(rio.avg_bits(), [0; 3]);
        assert_eq!(core::mem::size_of::<Rio>(), 32);
    }

    /// Drives two copies of a three-color queue with the same arrivals, one by
    /// `on_arrival` (short paths included) and one by the general path alone,
    /// and checks that decisions, states and random streams stay identical.
    fn paths_agree(cfg: &RioConfig, seed: u64, steps: u32) {
        let p = RioProfile::new(cfg).unwrap();
        let (mut a, mut b) = (Rio::new(&p, Instant::ZERO), Rio::new(&p, Instant::ZERO));
        let (mut ra, mut rb) = (SplitMix64::new(seed), SplitMix64::new(seed));
        let mut r = SplitMix64::new(seed ^ 0xAAAA);
        let limit = p.limit();
        let mut q = i64::from(r.below(limit));
        let mut now = 0u64;
        for i in 0..steps {
            now += u64::from(r.below(2000));
            if r.below(128) == 0 {
                a.on_queue_empty(Instant::from_ticks(now));
                b.on_queue_empty(Instant::from_ticks(now));
                now += u64::from(r.below(100_000));
            }
            q = match r.below(64) {
                0 => i64::from(r.below(limit.saturating_add(3))),
                1 => 0,
                _ => (q + i64::from(r.below(7)) - 3).clamp(0, i64::from(limit) + 2),
            };
            let q = q as u32;
            // Any split of q, and now and then colors that overflow a u32.
            let g = r.below(q + 1);
            let y = r.below(q - g + 1);
            let split = if r.below(256) == 0 {
                [u32::MAX, g, y]
            } else {
                [g, y, q - g - y]
            };
            let color = Color::from_index(r.below(3) as usize);
            let pkt = Packet::new(r.below(3000), crate::Ecn::from_bits(r.below(4) as u8));
            let t = Instant::from_ticks(now);
            let da = a.on_arrival(&p, t, split, color, pkt, &mut ra);
            let db = b.on_arrival_general(&p, t, split, color, pkt, &mut rb);
            assert_eq!((da, a, ra), (db, b, rb), "step {i} of {cfg:?}");
        }
    }

    fn small(mode: RioMode, n: u32, spreading: Spreading) -> RioConfig {
        let mut c = cfg(mode);
        c.queue.limit = 60;
        c.queue.w_q = U32F32::from_bits(1 << (32 - n));
        c.colors = [
            Precedence {
                min_th: 20,
                max_th: 40,
                max_p: U32F32::from_num(0.05),
            },
            Precedence {
                min_th: 15,
                max_th: 40,
                max_p: U32F32::from_num(0.1),
            },
            Precedence {
                min_th: 10,
                max_th: 30,
                max_p: U32F32::from_num(0.2),
            },
        ];
        c.queue.spreading = spreading;
        c
    }

    #[test]
    fn short_paths_equal_the_general_path() {
        // Under Miri, which interprets every instruction, a short walk on
        // every fourth configuration: that still runs every mode with every
        // spreading, every weight, and each configuration of the general
        // path only.
        let steps = if cfg!(miri) { 32 } else { 30_000 };
        let run = |c: &RioConfig, seed: u64| {
            if !cfg!(miri) || seed % 4 == 0 {
                paths_agree(c, seed, steps);
            }
        };
        let spreadings = [
            Spreading::Accumulated,
            Spreading::AccumulatedDpdk,
            Spreading::Uniform,
            Spreading::UniformCountFirst,
            Spreading::Dpdk,
            Spreading::Geometric,
            Spreading::Wait,
        ];
        let mut k = 0;
        for mode in [RioMode::Coupled, RioMode::Decoupled, RioMode::Wred] {
            for n in [0, 3, 7] {
                for s in spreadings {
                    for (gentle, ecn) in [(false, false), (true, true)] {
                        let mut c = small(mode, n, s);
                        c.queue.gentle = gentle;
                        c.queue.ecn = ecn;
                        c.queue.ecn_drop_th = if ecn { Some(35) } else { None };
                        run(&c, k);
                        k += 1;
                    }
                }
            }
            // Not a power of two, bytes, byte mode: the general path only.
            let mut c = small(mode, 4, Spreading::Accumulated);
            c.queue.w_q = U32F32::from_num(0.07);
            run(&c, k);
            c.queue.w_q = U32F32::from_bits(1 << 28);
            c.queue.byte_mode = Some(1000);
            run(&c, k + 1);
            c.queue.byte_mode = None;
            c.queue.unit = QueueUnit::Bytes;
            run(&c, k + 2);
            k += 3;
        }
    }

    /// The benchmark's stream (see `red::tests`): colors 6:1:1, the queue
    /// split green q/2, yellow q/4, red the rest. Under Miri, which
    /// interprets every instruction, one step every 2 packets instead of 1024
    /// (the colors run on through the same 1024).
    #[test]
    fn short_paths_equal_the_general_path_on_the_bench_stream() {
        let per_step = if cfg!(miri) { 2 } else { 1024 };
        for mode in [RioMode::Coupled, RioMode::Wred, RioMode::Decoupled] {
            let mut c = RioConfig::rfc2963(256);
            c.mode = mode;
            c.queue.w_q = U32F32::from_bits(1 << 23);
            c.queue.idle_tx_ticks = 1200;
            c.colors = [
                Precedence {
                    min_th: 64,
                    max_th: 128,
                    max_p: U32F32::from_num(0.05),
                },
                Precedence {
                    min_th: 48,
                    max_th: 128,
                    max_p: U32F32::from_num(0.1),
                },
                Precedence {
                    min_th: 32,
                    max_th: 128,
                    max_p: U32F32::from_num(0.1),
                },
            ];
            let p = RioProfile::new(&c).unwrap();
            let mut cr = SplitMix64::new(2);
            let colors: Vec<Color> = (0..1024)
                .map(|_| match cr.below(8) {
                    0 => Color::Red,
                    1 => Color::Yellow,
                    _ => Color::Green,
                })
                .collect();
            let mut next_color = colors.iter().copied().cycle();
            let (mut a, mut b) = (Rio::new(&p, Instant::ZERO), Rio::new(&p, Instant::ZERO));
            let (mut ra, mut rb) = (SplitMix64::new(1), SplitMix64::new(1));
            let (mut q, mut up, mut now) = (20u32, true, 0u64);
            let mut drops = 0u32;
            for _ in 0..240 {
                let split = [q / 2, q / 4, q - q / 2 - q / 4];
                for color in next_color.by_ref().take(per_step) {
                    now += 100;
                    let t = Instant::from_ticks(now);
                    let pkt = Packet::not_ect(1500);
                    let da = a.on_arrival(&p, t, split, color, pkt, &mut ra);
                    let db = b.on_arrival_general(&p, t, split, color, pkt, &mut rb);
                    assert_eq!((da, a, ra), (db, b, rb));
                    drops += u32::from(da.is_drop());
                }
                crate::triangle_step(&mut q, &mut up);
            }
            // RIO-D's per-color averages stay low on this stream. Under Miri
            // the stream is too short for the averages to rise far: no bound.
            let least = match (cfg!(miri), mode) {
                (true, _) => None,
                (false, RioMode::Decoupled) => Some(50),
                (false, _) => Some(5_000),
            };
            if let Some(least) = least {
                assert!(drops > least, "{mode:?}: {drops}");
            }
        }
    }
}
