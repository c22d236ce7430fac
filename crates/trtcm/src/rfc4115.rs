//! RFC 4115: the modified trTCM with independent committed and excess buckets.

use netcond_core::branchless::mask;
use netcond_core::{BucketError, BucketProfile, Color, Instant, Rate, TickRate};

use crate::fast_path::{fast_costs, fast_refill, fill};
use crate::{color_of, probe, Bucket, Limits, Mode, Probe};

/// The parameters of an RFC 4115 marker, in the units of RFC 4115 section 2.
///
/// `Default` is the configuration of DPDK's meter tests: CIR 46,000,000 bytes/s,
/// EIR 69,000,000 bytes/s, CBS 2048 bytes, EBS 4096 bytes, nanosecond ticks.
///
/// # Example
///
/// ```
/// use netcond_core::Rate;
/// use trtcm::{Rfc4115Config, Rfc4115Profile, Rfc4115Ties};
///
/// // CIR 1 MB/s, EIR 500 kB/s (independent of CIR), CBS 3000 B, EBS 1500 B.
/// let cfg = Rfc4115Config::new(
///     Rate::from_bytes_per_sec(1_000_000),
///     Rate::from_bytes_per_sec(500_000),
///     3000,
///     1500,
/// );
/// assert!(Rfc4115Profile::with_ties(&cfg, Rfc4115Ties::Text).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Rfc4115Config {
    /// Committed Information Rate: the rate of bucket C.
    pub cir: Rate,
    /// Excess Information Rate: the rate of bucket E (independent of CIR).
    pub eir: Rate,
    /// Committed Burst Size in bytes: the size of bucket C.
    pub cbs: u64,
    /// Excess Burst Size in bytes: the size of bucket E.
    pub ebs: u64,
    /// The clock of the timestamps passed to the meter.
    pub tick: TickRate,
    /// Byte mode (the default) or packet mode ([`Mode`]): in packet mode the
    /// rates are packets per second and the bursts packets.
    #[cfg_attr(feature = "serde", serde(default))]
    pub mode: Mode,
}

impl Rfc4115Config {
    /// An RFC 4115 marker with rates `cir` and `eir` and bursts `cbs` and `ebs`
    /// bytes, on nanosecond ticks ([`with_tick`](Self::with_tick) for another clock).
    #[must_use]
    pub const fn new(cir: Rate, eir: Rate, cbs: u64, ebs: u64) -> Rfc4115Config {
        Rfc4115Config {
            cir,
            eir,
            cbs,
            ebs,
            tick: TickRate::NANOS,
            mode: Mode::Bytes,
        }
    }

    /// An RFC 4115 marker in packet mode ([`Mode::Packets`]): rates `cir_pps`
    /// and `eir_pps` packets per second, bursts `cbs` and `ebs` packets,
    /// nanosecond ticks.
    #[must_use]
    pub const fn packets(cir_pps: u64, eir_pps: u64, cbs: u64, ebs: u64) -> Rfc4115Config {
        Rfc4115Config {
            cir: Rate::from_bytes_per_sec(cir_pps),
            eir: Rate::from_bytes_per_sec(eir_pps),
            cbs,
            ebs,
            tick: TickRate::NANOS,
            mode: Mode::Packets,
        }
    }
}

config_builders!(Rfc4115Config {
    mode: Mode => with_mode,
    cir: Rate => with_cir,
    eir: Rate => with_eir,
    cbs: u64 => with_cbs,
    ebs: u64 => with_ebs,
    tick: TickRate => with_tick,
});

impl Default for Rfc4115Config {
    fn default() -> Self {
        Rfc4115Config {
            cir: Rate::from_bytes_per_sec(46_000_000),
            eir: Rate::from_bytes_per_sec(69_000_000),
            cbs: 2048,
            ebs: 4096,
            tick: TickRate::NANOS,
            mode: Mode::Bytes,
        }
    }
}

netcond_core::config_error! {
    /// Why an [`Rfc4115Config`] was refused.
    pub enum Rfc4115Error {
        /// CIR and EIR are both zero.
        ZeroRates => "at least one of CIR and EIR must be greater than zero (RFC 4115 section 2; \
                      otherwise every packet is red)",
        /// CBS and EBS are both zero.
        ZeroBursts => "at least one of CBS and EBS must be greater than zero (RFC 4115 section 2: \
                       each must exceed the largest packet)",
        /// A bucket does not fit the token counter.
        TooLarge => "CBS or EBS times the clock's resolution does not fit the 2^62-unit token \
                     counter (bytes * 8 * tick_hz / gcd(rate bits, 8 * tick_hz)); use a coarser \
                     clock or smaller bursts",
    }
}

impl From<BucketError> for Rfc4115Error {
    fn from(_: BucketError) -> Self {
        Rfc4115Error::TooLarge
    }
}

/// How RFC 4115 treats a packet whose size equals the tokens in a bucket.
///
/// The RFC's text (section 3) says "if `Tc(t) - B > 0`, the packet is green",
/// which rejects a tie, while its figure 1 says `B <= Tc(t-)`, which accepts it.
/// [`Figure1`](Rfc4115Ties::Figure1) is the default, as in DPDK's
/// `trtcm_rfc4115` and RFC 2697/2698's `>= 0`; [`Text`](Rfc4115Ties::Text) is
/// available for comparison. The two differ only on exact ties.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Rfc4115Ties {
    /// Figure 1: a packet conforms to a bucket when `B <= T` (the default).
    #[default]
    Figure1,
    /// Section 3 text: a packet conforms to a bucket when `T - B > 0`.
    Text,
}

/// The validated, precomputed constants of an RFC 4115 marker, shared by any
/// number of flows.
///
/// Laid out so that a packet on the fast path reads one 64-byte cache line of
/// it (both buckets' rate, unit and capacity, the time clamp, the path and tie
/// flags and the mode flags: 60 bytes); the general path's limits follow in the second line.
/// Aligned to 64 bytes (128 in all).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(C, align(64))]
pub struct Rfc4115Profile {
    // First cache line: everything the fast path reads.
    c: BucketProfile,
    e: BucketProfile,
    /// The fast path's one clamp of elapsed time, for both buckets.
    dt_max: u64,
    /// Whether byte lengths take the fast path: the fast path is exact for
    /// these constants and the profile is in byte mode.
    fast: bool,
    /// Whether the `..._packet` methods take the fast path (exact constants).
    fast_pkt: bool,
    /// Packet mode: every packet costs one unit whatever its length.
    packets: bool,
    /// `strict != 0`: the text's tie rule.
    text: bool,
    // Second line: the general path's clamps and the tie rule as a number.
    c_lim: Limits,
    e_lim: Limits,
    /// 0 for `B <= T` (figure 1), 1 for `B < T` (text): a packet conforms when
    /// `cost + strict <= tokens`.
    strict: u64,
}

const _: () = assert!(core::mem::offset_of!(Rfc4115Profile, text) < 64);
const _: () = assert!(core::mem::offset_of!(Rfc4115Profile, c_lim) == 64);
const _: () = assert!(core::mem::align_of::<Rfc4115Profile>() == 64);

impl Rfc4115Profile {
    /// Validates `cfg` and precomputes the buckets, with figure 1's tie rule.
    pub fn new(cfg: &Rfc4115Config) -> Result<Rfc4115Profile, Rfc4115Error> {
        Rfc4115Profile::with_ties(cfg, Rfc4115Ties::Figure1)
    }

    /// Like [`new`](Self::new) with the tie rule `ties`.
    pub fn with_ties(
        cfg: &Rfc4115Config,
        ties: Rfc4115Ties,
    ) -> Result<Rfc4115Profile, Rfc4115Error> {
        if cfg.cir.is_zero() && cfg.eir.is_zero() {
            return Err(Rfc4115Error::ZeroRates);
        }
        if cfg.cbs == 0 && cfg.ebs == 0 {
            return Err(Rfc4115Error::ZeroBursts);
        }
        let c = crate::bucket(cfg.cir, cfg.cbs, cfg.tick)?;
        let e = crate::bucket(cfg.eir, cfg.ebs, cfg.tick)?;
        let strict = match ties {
            Rfc4115Ties::Figure1 => 0,
            Rfc4115Ties::Text => 1,
        };
        let c = Bucket::new(c, c.full(), cfg.cbs);
        let e = Bucket::new(e, e.full(), cfg.ebs);
        // After `fill_ticks` ticks a bucket is full whatever it held (or, at a zero
        // rate, never gains anything), so clamping elapsed time to the larger of
        // the two changes no refill (see the fast path's comments in lib.rs).
        let dt_max = c.fill_ticks.max(e.fill_ticks);
        let fast = [&c, &e]
            .iter()
            .all(|b| fast_costs(&b.b, strict) && fast_refill(&b.b, dt_max, b.full()));
        let packets = cfg.mode.is_packets();
        Ok(Rfc4115Profile {
            c: c.b,
            e: e.b,
            dt_max,
            fast: fast && !packets,
            fast_pkt: fast,
            packets,
            text: strict != 0,
            c_lim: c.limits(),
            e_lim: e.limits(),
            strict,
        })
    }

    /// The tie rule in force.
    #[must_use]
    pub const fn ties(&self) -> Rfc4115Ties {
        if self.strict == 0 {
            Rfc4115Ties::Figure1
        } else {
            Rfc4115Ties::Text
        }
    }
}

impl Rfc4115Profile {
    /// Counts `tc` and `te` refilled by `dt` ticks, each bucket at its own
    /// rate ([`Rfc4115::move_to`]).
    fn refill_pair(&self, tc: u64, te: u64, dt: u64) -> [u64; 2] {
        [self.c.refill(tc, dt), self.e.refill(te, dt)]
    }
}

marker_profile!(
    Rfc4115Profile,
    /// Bucket E: EIR and EBS.
    second: e (e_lim) => excess, bucket_e
);

/// The per-flow state of an RFC 4115 marker: the token counts of C and E and the
/// time of the last update. 24 bytes, `Copy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Rfc4115 {
    tc: u64,
    te: u64,
    last: Instant,
}

marker_state!(
    Rfc4115,
    Rfc4115Profile,
    new: {
        /// A marker with both buckets full at `now` (RFC 4115 section 3: Tc(0) = CBS,
        /// Te(0) = EBS).
    },
    from_parts: {
        /// A marker with given token counts (clamped to the buckets) last updated at `last`.
    },
    move_to: {
        /// Moves this flow from profile `old` to profile `new` at `now` (DPDK's
        /// `rte_mtr_meter_profile_update`, for one flow). The tie rule is the new
        /// profile's from the next packet on.
    },
    /// Token count of E at the last update.
    second: te in e
);

impl Rfc4115 {
    /// The token count E would hold at `now` if no packet arrived, without changing
    /// anything.
    #[inline]
    #[must_use]
    pub fn te_at(&self, profile: &Rfc4115Profile, now: Instant) -> u64 {
        profile.e.refill(self.te, now.ticks_since(self.last))
    }

    /// RFC 4115 figure 1: `Tc = min(CBS, Tc + CIR t)`, `Te = min(EBS, Te + EIR t)`.
    /// Returns the probes of C and E for a packet of `len` bytes.
    #[inline(always)]
    fn update(&mut self, p: &Rfc4115Profile, now: Instant, len: u32) -> (u64, Probe, u64, Probe) {
        let len = p.units(len);
        let dt = self.last.advance_to(now);
        let (bc, be) = (p.bucket_c(), p.bucket_e());
        let (cost_c, cost_e) = (bc.cost(len), be.cost(len));
        let c = probe(&bc, self.tc, bc.gain(dt), cost_c, p.strict);
        let e = probe(&be, self.te, be.gain(dt), cost_e, p.strict);
        (cost_c, c, cost_e, e)
    }

    /// The fast path (see [`fast_costs`](crate::fast_path::fast_costs)), for the tie rule
    /// `STRICT` (the profile's `strict`): `dt` already clamped, no saturation, the
    /// length not clamped; `input` is the pre-color (`Green` when color-blind).
    /// Branches on the color as the RFC's rule reads (docs/performance.md has
    /// what this costs and saves against the branch-free form it replaced).
    #[inline(always)]
    fn fast<const STRICT: u64>(
        &mut self,
        p: &Rfc4115Profile,
        dt: u64,
        len: u32,
        input: Color,
    ) -> Color {
        let len = u64::from(len);
        let tc = fill(&p.c, self.tc, dt);
        let te = fill(&p.e, self.te, dt);
        let cost_c = len * p.c.scale();
        let cost_e = len * p.e.scale();
        if input == Color::Green && tc >= cost_c + STRICT {
            self.tc = tc - cost_c;
            self.te = te;
            return Color::Green;
        }
        self.tc = tc;
        if input != Color::Red && te >= cost_e + STRICT {
            self.te = te - cost_e;
            return Color::Yellow;
        }
        self.te = te;
        Color::Red
    }

    /// Colors a packet of `len` bytes arriving at `now`, color-blind (RFC 4115
    /// section 3, figure 1): green if `B <= Tc` (Tc -= B), else yellow if
    /// `B <= Te` (Te -= B), else red (nothing decremented).
    #[inline]
    pub fn color_blind(&mut self, profile: &Rfc4115Profile, now: Instant, len: u32) -> Color {
        if profile.fast && !profile.text {
            let dt = self.last.advance_to_capped(now, profile.dt_max);
            self.fast::<0>(profile, dt, len, Color::Green)
        } else {
            self.blind_other(profile, now, len)
        }
    }

    /// The text's tie rule on the fast path, out of line, or the general path.
    #[inline(never)]
    fn blind_other(&mut self, profile: &Rfc4115Profile, now: Instant, len: u32) -> Color {
        if profile.fast {
            let dt = self.last.advance_to_capped(now, profile.dt_max);
            let color = self.fast::<1>(profile, dt, len, Color::Green);
            return color;
        }
        let (cost_c, c, cost_e, e) = self.update(profile, now, len);
        let green = c.fits;
        let yellow = !green & e.fits;
        self.tc = c.tokens - (cost_c & green);
        self.te = e.tokens - (cost_e & yellow);
        color_of(green, green | yellow)
    }

    /// Colors one packet arriving at `now`, color-blind, charging one unit: the
    /// way to meter with a packet-mode profile ([`Mode::Packets`]), on the same
    /// fast path as [`color_blind`](Self::color_blind). With a byte-mode profile
    /// it charges one byte.
    #[inline]
    pub fn color_blind_packet(&mut self, profile: &Rfc4115Profile, now: Instant) -> Color {
        if profile.fast_pkt && !profile.text {
            let dt = self.last.advance_to_capped(now, profile.dt_max);
            self.fast::<0>(profile, dt, 1, Color::Green)
        } else {
            self.blind_other(profile, now, 1)
        }
    }

    /// Colors one packet pre-colored `input`, color-aware, charging one unit
    /// (see [`color_blind_packet`](Self::color_blind_packet)).
    #[inline]
    pub fn color_aware_packet(
        &mut self,
        profile: &Rfc4115Profile,
        now: Instant,
        input: Color,
    ) -> Color {
        if profile.fast_pkt && !profile.text {
            let dt = self.last.advance_to_capped(now, profile.dt_max);
            self.fast::<0>(profile, dt, 1, input)
        } else {
            self.aware_other(profile, now, 1, input)
        }
    }

    /// Colors a packet pre-colored `input`, color-aware (RFC 4115 section 3): a
    /// green packet is tested against C then E, a yellow one against E only, a red
    /// one is tested against nothing and stays red.
    #[inline]
    pub fn color_aware(
        &mut self,
        profile: &Rfc4115Profile,
        now: Instant,
        len: u32,
        input: Color,
    ) -> Color {
        if profile.fast && !profile.text {
            let dt = self.last.advance_to_capped(now, profile.dt_max);
            self.fast::<0>(profile, dt, len, input)
        } else {
            self.aware_other(profile, now, len, input)
        }
    }

    /// The text's tie rule on the fast path, out of line, or the general path.
    #[inline(never)]
    fn aware_other(
        &mut self,
        profile: &Rfc4115Profile,
        now: Instant,
        len: u32,
        input: Color,
    ) -> Color {
        if profile.fast {
            let dt = self.last.advance_to_capped(now, profile.dt_max);
            let color = self.fast::<1>(profile, dt, len, input);
            return color;
        }
        let (cost_c, c, cost_e, e) = self.update(profile, now, len);
        let green = mask(input == Color::Green) & c.fits;
        let yellow = !green & mask(input != Color::Red) & e.fits;
        self.tc = c.tokens - (cost_c & green);
        self.te = e.tokens - (cost_e & yellow);
        color_of(green, green | yellow)
    }
}

meter_alias!(
    Rfc4115Meter = Rfc4115,
    Rfc4115Config,
    Rfc4115Profile,
    Rfc4115Error
);

#[cfg(test)]
mod tests {
    use super::*;
    use Color::{Green as G, Red as R, Yellow as Y};

    dpdk_tests!(Rfc4115, Rfc4115Config, Rfc4115Profile);

    #[test]
    fn config_rules() {
        let ok = Rfc4115Config::default();
        let e = |c: Rfc4115Config| Rfc4115Profile::new(&c).unwrap_err();
        assert_eq!(
            e(Rfc4115Config {
                cir: Rate::ZERO,
                eir: Rate::ZERO,
                ..ok
            }),
            Rfc4115Error::ZeroRates
        );
        assert_eq!(
            e(Rfc4115Config {
                cbs: 0,
                ebs: 0,
                ..ok
            }),
            Rfc4115Error::ZeroBursts
        );
        assert_eq!(
            e(Rfc4115Config {
                cir: Rate::from_bits_per_sec(1),
                cbs: 1 << 30,
                tick: TickRate::from_hz(1 << 40).unwrap(),
                ..ok
            }),
            Rfc4115Error::TooLarge
        );
        // Independent rates: either may be zero, and EIR may be below CIR.
        for cfg in [
            Rfc4115Config {
                cir: Rate::ZERO,
                ..ok
            },
            Rfc4115Config {
                eir: Rate::ZERO,
                ..ok
            },
            Rfc4115Config {
                eir: Rate::from_bytes_per_sec(1),
                ..ok
            },
            Rfc4115Config { cbs: 0, ..ok },
        ] {
            assert!(Rfc4115Profile::new(&cfg).is_ok(), "{cfg:?}");
        }
        assert!(Rfc4115Error::ZeroRates.to_string().contains("RFC 4115"));
    }

    fn small(ties: Rfc4115Ties) -> Rfc4115Profile {
        // 1000 B/s and 500 B/s on a millisecond clock: token counts in bytes for C.
        Rfc4115Profile::with_ties(
            &Rfc4115Config {
                cir: Rate::from_bytes_per_sec(1000),
                eir: Rate::from_bytes_per_sec(2000),
                cbs: 100,
                ebs: 200,
                tick: TickRate::MILLIS,
                mode: crate::Mode::Bytes,
            },
            ties,
        )
        .unwrap()
    }

    #[test]
    fn independent_buckets() {
        let p = small(Rfc4115Ties::Figure1);
        let t = Instant::from_ticks(0);
        let mut m = Rfc4115::new(&p, t);
        // Green takes from C only: E untouched (unlike RFC 2698, where P pays too).
        assert_eq!(m.color_blind(&p, t, 60), G);
        assert_eq!((m.tc(), m.te()), (40, 200));
        // Yellow takes from E only.
        assert_eq!(m.color_blind(&p, t, 50), Y);
        assert_eq!((m.tc(), m.te()), (40, 150));
        // Red touches nothing.
        assert_eq!(m.color_blind(&p, t, 151), R);
        assert_eq!((m.tc(), m.te()), (40, 150));
        // Green even when E is empty: C alone decides.
        let mut m = Rfc4115::from_parts(&p, 100, 0, t);
        assert_eq!(m.color_blind(&p, t, 100), G);
    }

    #[test]
    fn ties_follow_figure_1_or_text() {
        let t = Instant::from_ticks(0);
        let fig = small(Rfc4115Ties::Figure1);
        let txt = small(Rfc4115Ties::Text);
        assert_eq!(fig.ties(), Rfc4115Ties::Figure1);
        assert_eq!(txt.ties(), Rfc4115Ties::Text);
        // B == Tc: green by the figure; by the text, it falls to E.
        assert_eq!(Rfc4115::new(&fig, t).color_blind(&fig, t, 100), G);
        assert_eq!(Rfc4115::new(&txt, t).color_blind(&txt, t, 100), Y);
        // B == Te after C refuses: yellow by the figure, red by the text.
        assert_eq!(Rfc4115::new(&fig, t).color_aware(&fig, t, 200, Y), Y);
        assert_eq!(Rfc4115::new(&txt, t).color_aware(&txt, t, 200, Y), R);
        // A zero-length packet on empty buckets.
        assert_eq!(
            Rfc4115::from_parts(&fig, 0, 0, t).color_blind(&fig, t, 0),
            G
        );
        assert_eq!(
            Rfc4115::from_parts(&txt, 0, 0, t).color_blind(&txt, t, 0),
            R
        );
    }

    #[test]
    fn size() {
        assert_eq!(core::mem::size_of::<Rfc4115>(), 24);
    }

    #[test]
    fn which_path() {
        for ties in [Rfc4115Ties::Figure1, Rfc4115Ties::Text] {
            assert!(small(ties).on_fast_path());
            let p = |cfg: &Rfc4115Config| Rfc4115Profile::with_ties(cfg, ties).unwrap();
            // Zero rates and zero sizes stay on the fast path.
            let ok = Rfc4115Config::default();
            assert!(p(&Rfc4115Config {
                cir: Rate::ZERO,
                ..ok
            })
            .on_fast_path());
            assert!(p(&Rfc4115Config {
                eir: Rate::ZERO,
                ebs: 0,
                ..ok
            })
            .on_fast_path());
            // Lengths must be clamped: 1 byte/s on a 2^31 + 1 Hz clock.
            let slow = Rfc4115Config {
                eir: Rate::from_bytes_per_sec(1),
                tick: TickRate::from_hz((1 << 31) + 1).unwrap(),
                cbs: 1,
                ebs: 1,
                ..ok
            };
            assert!(!p(&slow).on_fast_path());
            // A full 1-byte bucket (8 units) plus one tick at 2^64 - 7 bit/s on a
            // 1 Hz clock overflows; at 2^64 - 9 bit/s it is exactly u64::MAX.
            let one = TickRate::from_hz(1).unwrap();
            let huge = |bits: u64| Rfc4115Config {
                cir: Rate::from_bits_per_sec(bits),
                eir: Rate::from_bits_per_sec(bits),
                tick: one,
                cbs: 1,
                ebs: 1,
                mode: crate::Mode::Bytes,
            };
            assert!(!p(&huge(u64::MAX - 6)).on_fast_path());
            let q = p(&huge(u64::MAX - 8));
            assert!(q.on_fast_path());
            let mut m = Rfc4115::new(&q, Instant::ZERO);
            // A 1-byte packet against a full 1-byte bucket is a tie.
            if ties == Rfc4115Ties::Figure1 {
                assert_eq!(m.color_blind(&q, Instant::from_ticks(1), 1), G);
                assert_eq!(m.color_blind(&q, Instant::from_ticks(1), 1), Y);
                assert_eq!((m.tc(), m.te()), (0, 0));
            } else {
                assert_eq!(m.color_blind(&q, Instant::from_ticks(1), 1), R);
                assert_eq!(m.color_blind(&q, Instant::from_ticks(1), 0), G);
                assert_eq!((m.tc(), m.te()), (8, 8));
            }
        }
    }

    /// The shared time clamp (the larger fill time) against each bucket's own,
    /// with a zero rate (a bucket that never refills) and a zero size.
    #[test]
    fn shared_time_clamp() {
        let z = Instant::ZERO;
        let ms = TickRate::MILLIS;
        for ties in [Rfc4115Ties::Figure1, Rfc4115Ties::Text] {
            for (cir, eir, cbs, ebs) in [
                (1000, 3000, 100, 1000),
                (0, 3000, 100, 1000),
                (1000, 3000, 0, 1000),
            ] {
                let cfg = Rfc4115Config {
                    cir: Rate::from_bytes_per_sec(cir),
                    eir: Rate::from_bytes_per_sec(eir),
                    cbs,
                    ebs,
                    tick: ms,
                    mode: crate::Mode::Bytes,
                };
                let p = Rfc4115Profile::with_ties(&cfg, ties).unwrap();
                assert!(p.on_fast_path());
                let g = p.general_path_only();
                let states = [
                    Rfc4115::from_parts(&p, 0, 0, z),
                    Rfc4115::from_parts(&p, 1, 1, z),
                    Rfc4115::from_parts(&p, 50, 500, z),
                    Rfc4115::from_parts(&p, 100, 0, z),
                    Rfc4115::new(&p, z),
                ];
                let ticks = [0, 1, 100, 334, p.dt_max, 1000, 1 << 40];
                let ops =
                    crate::both_paths::grid(&ticks, &[0, 1, 99, 100, 101, 1000, 1001, u32::MAX]);
                crate::both_paths::same_from::<Rfc4115>(&p, &g, &states, &ops);
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn fast_path_matches_general_path(
            cir in crate::both_paths::rate(),
            eir in crate::both_paths::rate(),
            zero in 0u8..3,
            cbs in crate::both_paths::burst(),
            ebs in crate::both_paths::burst(),
            text in proptest::prelude::any::<bool>(),
            tick in crate::both_paths::tick(),
            start in proptest::prelude::any::<u64>(),
            ops in crate::both_paths::ops(),
        ) {
            let cfg = Rfc4115Config {
                cir: if zero == 1 { Rate::ZERO } else { cir },
                eir: if zero == 2 { Rate::ZERO } else { eir },
                cbs,
                ebs,
                tick, mode: crate::Mode::Bytes,
            };
            let ties = if text { Rfc4115Ties::Text } else { Rfc4115Ties::Figure1 };
            if let Ok(p) = Rfc4115Profile::with_ties(&cfg, ties) {
                crate::both_paths::same::<Rfc4115>(&p, &p.general_path_only(), start, &ops)?;
            }
        }
    }
}
