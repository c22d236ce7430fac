//! The configuration of a RAS (RFC 2963 sections 2.2 and 2.4): rates,
//! thresholds, buffer, K, and the errors its validation reports. The
//! validated form is the profile ([`crate::profile`]).

use core::time::Duration;

use netcond_core::{Rate, TickRate};

/// The default EAR averaging constant K: 100 ms.
pub const DEFAULT_K: Duration = Duration::from_millis(100);

/// The largest rate scale `S` (rate units are `2^-S` bytes per tick).
pub const MAX_SCALE: u32 = 47;

/// The line rate is represented below `2^LINE_BITS` rate units.
pub const LINE_BITS: u32 = 40;

/// The longest time, in ticks, that a full buffer may take to drain at CIR:
/// 2^61 (73 years of nanoseconds). A queued packet never waits longer than
/// that, so its arrival and every release instant of the schedule stay within
/// a quarter of the 64-bit tick range of each other and compare correctly as
/// serial times.
pub const MAX_DRAIN_TICKS: u64 = 1 << 61;

netcond_core::config_error! {
    /// Why a rate adaptive shaper configuration was refused. One variant per rule.
    pub enum RasError {
        /// CIR is zero.
        ZeroCir => "CIR must be greater than zero (RFC 2963 section 2.3: the buffer is emptied at least at CIR)",
        /// CIR exceeds MIR.
        CirAboveMir => "CIR must not exceed MIR (RFC 2963 section 2.2: CIR <= MIR <= line rate)",
        /// MIR exceeds the line rate.
        MirAboveLineRate => "MIR must not exceed the line rate (RFC 2963 sections 2.2 and 2.4: MIR <= line rate)",
        /// CIR exceeds PIR.
        CirAbovePir => "CIR must not exceed PIR (RFC 2963 section 2.4: CIR <= PIR <= MIR <= line rate)",
        /// PIR exceeds MIR.
        PirAboveMir => "PIR must not exceed MIR (RFC 2963 section 2.4: CIR <= PIR <= MIR <= line rate)",
        /// CIR_th exceeds MIR_th (srRAS).
        CirThAboveMirTh => "CIR_th must not exceed MIR_th (RFC 2963 section 2.2: CIR_th <= MIR_th <= buffer size)",
        /// CIR_th exceeds PIR_th (trRAS).
        CirThAbovePirTh => "CIR_th must not exceed PIR_th (RFC 2963 section 2.4: CIR_th <= PIR_th <= MIR_th <= buffer size)",
        /// PIR_th exceeds MIR_th (trRAS).
        PirThAboveMirTh => "PIR_th must not exceed MIR_th (RFC 2963 section 2.4: CIR_th <= PIR_th <= MIR_th <= buffer size)",
        /// MIR_th exceeds the buffer size.
        MirThAboveBuffer => "MIR_th must not exceed the buffer size of the shaper (RFC 2963 sections 2.2 and 2.4)",
        /// The buffer holds no byte.
        ZeroBuffer => "the buffer size must be greater than zero bytes (the shaper is a FIFO queue, RFC 2963 section 2.1)",
        /// K is shorter than one tick.
        ZeroK => "the EAR constant K must be at least one tick of the clock (RFC 2963 section 2.3)",
        /// K is 2^40 ticks or longer.
        KTooLong => "the EAR constant K must be below 2^40 ticks of the clock (fixed-point range)",
        /// The line rate does not fit the fixed-point rate units.
        LineRateTooHigh => "the line rate must be below 2^40 bytes per clock tick (fixed-point range)",
        /// The maximum packet size is zero.
        ZeroMaxPacket => "the maximum packet size must be greater than zero bytes",
        /// The buffer cannot hold one maximum-size packet.
        BufferBelowMaxPacket => "the buffer must hold at least one maximum-size packet (RFC 2963 \
                                 section 2.1: the shaper queues packets in a FIFO; a longer packet \
                                 could never be queued)",
        /// A full buffer would take longer than [`MAX_DRAIN_TICKS`] to drain at CIR.
        DrainTooSlow => "a full buffer must drain at CIR within 2^61 clock ticks (release instants \
                         are compared over half the 64-bit tick range); raise CIR or shrink the buffer",
    }
}

/// The `with_*` methods srRAS and trRAS configurations share, written once:
/// MIR, the thresholds (of type `$th`), the largest packet, K and the clock.
macro_rules! ras_config_builders {
    ($cfg:ident, $th:ident, $th_doc:literal) => {
        impl $cfg {
            /// MIR (by default the line rate).
            #[must_use]
            pub const fn with_mir(mut self, mir: Rate) -> $cfg {
                self.mir = Some(mir);
                self
            }

            #[doc = $th_doc]
            #[must_use]
            pub const fn with_thresholds(mut self, thresholds: $th) -> $cfg {
                self.thresholds = Some(thresholds);
                self
            }

            /// The largest packet the buffer must hold (by default
            /// [`DEFAULT_MAX_PACKET`]).
            #[must_use]
            pub const fn with_max_packet_bytes(mut self, bytes: u32) -> $cfg {
                self.max_packet_bytes = bytes;
                self
            }

            /// The EAR constant K (by default [`DEFAULT_K`]).
            #[must_use]
            pub const fn with_k(mut self, k: Duration) -> $cfg {
                self.k = k;
                self
            }

            /// The clock of the `Instant`s passed in (by default nanoseconds).
            #[must_use]
            pub const fn with_tick(mut self, tick: TickRate) -> $cfg {
                self.tick = tick;
                self
            }
        }
    };
}

/// The two buffer thresholds of an srRAS, in bytes (RFC 2963 section 2.2).
///
/// ```
/// use netcond_core::Rate;
/// use ras_shaper::{RasError, SrRasConfig, SrRasProfile, SrThresholds};
///
/// let cfg = SrRasConfig::new(Rate::from_mbps(2), Rate::from_mbps(34), 64_000)
///     .with_thresholds(SrThresholds::new(16_000, 48_000));
/// assert_eq!(SrRasProfile::new(&cfg).unwrap().thresholds(), (16_000, 16_000, 48_000));
/// // CIR_th above MIR_th breaks section 2.2.
/// let bad = cfg.with_thresholds(SrThresholds::new(48_001, 48_000));
/// assert_eq!(SrRasProfile::new(&bad), Err(RasError::CirThAboveMirTh));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct SrThresholds {
    /// CIR_th: below it the shaping rate is max(EAR, CIR).
    pub cir_th: u64,
    /// MIR_th: from it on the shaping rate is MIR.
    pub mir_th: u64,
}

impl SrThresholds {
    /// CIR_th and MIR_th, in bytes.
    #[must_use]
    pub const fn new(cir_th: u64, mir_th: u64) -> SrThresholds {
        SrThresholds { cir_th, mir_th }
    }
}

/// The three buffer thresholds of a trRAS, in bytes (RFC 2963 section 2.4).
///
/// ```
/// use netcond_core::Rate;
/// use ras_shaper::{RasError, TrRasConfig, TrRasProfile, TrThresholds};
///
/// let cfg = TrRasConfig::new(Rate::from_mbps(2), Rate::from_mbps(4), Rate::from_mbps(34), 64_000)
///     .with_thresholds(TrThresholds::new(6_000, 24_000, 48_000));
/// assert_eq!(TrRasProfile::new(&cfg).unwrap().thresholds(), (6_000, 24_000, 48_000));
/// // PIR_th above MIR_th breaks section 2.4.
/// let bad = cfg.with_thresholds(TrThresholds::new(6_000, 48_001, 48_000));
/// assert_eq!(TrRasProfile::new(&bad), Err(RasError::PirThAboveMirTh));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct TrThresholds {
    /// CIR_th: below it the shaping rate is max(EAR, CIR).
    pub cir_th: u64,
    /// PIR_th: F reaches PIR here.
    pub pir_th: u64,
    /// MIR_th: from it on the shaping rate is MIR.
    pub mir_th: u64,
}

impl TrThresholds {
    /// CIR_th, PIR_th and MIR_th, in bytes.
    #[must_use]
    pub const fn new(cir_th: u64, pir_th: u64, mir_th: u64) -> TrThresholds {
        TrThresholds {
            cir_th,
            pir_th,
            mir_th,
        }
    }
}

/// Configuration of an srRAS or G-srRAS (RFC 2963 sections 2.2 and 3.2).
///
/// Built by [`new`](Self::new) from what has no default (CIR, line rate,
/// buffer size) and the `with_*` methods for the rest.
///
/// ```
/// use core::time::Duration;
/// use netcond_core::{Rate, TickRate};
/// use ras_shaper::{SrRasConfig, SrRasProfile, SrThresholds};
///
/// // CIR 2 Mbit/s, MIR 20 Mbit/s on a 34 Mbit/s line, a 64 KB buffer, K =
/// // 50 ms, timestamps in microseconds.
/// let cfg = SrRasConfig::new(Rate::from_mbps(2), Rate::from_mbps(34), 64_000)
///     .with_mir(Rate::from_mbps(20))
///     .with_thresholds(SrThresholds::new(16_000, 48_000))
///     .with_max_packet_bytes(9_000)
///     .with_k(Duration::from_millis(50))
///     .with_tick(TickRate::MICROS);
/// let p = SrRasProfile::new(&cfg).unwrap();
/// assert_eq!(p.tick_hz(), 1_000_000);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[non_exhaustive]
pub struct SrRasConfig {
    /// Committed Information Rate (MUST be configurable; usually the CIR of the
    /// downstream srTCM).
    pub cir: Rate,
    /// Maximum Information Rate; `None` means the line rate (the RFC's typical
    /// value).
    pub mir: Option<Rate>,
    /// The rate of the shaper's output link.
    pub line_rate: Rate,
    /// CIR_th and MIR_th; `None` means `CIR_th = buffer/4`, `MIR_th = 3 buffer/4`.
    pub thresholds: Option<SrThresholds>,
    /// The buffer size of the shaper in bytes.
    pub buffer_bytes: u64,
    /// The largest packet the shaper must queue, in bytes (the link MTU;
    /// [`DEFAULT_MAX_PACKET`] = 1500 from `new`): the buffer must hold one.
    pub max_packet_bytes: u32,
    /// The EAR constant K (section 2.3); [`DEFAULT_K`] is 100 ms.
    pub k: Duration,
    /// The clock of the `Instant`s passed in.
    pub tick: TickRate,
}

impl SrRasConfig {
    /// CIR, line rate and buffer size; MIR, thresholds, K and tick at their defaults.
    #[must_use]
    pub const fn new(cir: Rate, line_rate: Rate, buffer_bytes: u64) -> SrRasConfig {
        SrRasConfig {
            cir,
            mir: None,
            line_rate,
            thresholds: None,
            buffer_bytes,
            max_packet_bytes: DEFAULT_MAX_PACKET,
            k: DEFAULT_K,
            tick: TickRate::NANOS,
        }
    }
}

ras_config_builders!(
    SrRasConfig,
    SrThresholds,
    "CIR_th and MIR_th (by default a quarter and three quarters of the buffer)."
);

/// Configuration of a trRAS or G-trRAS (RFC 2963 sections 2.4 and 3.4).
///
/// Built by [`new`](Self::new) from what has no default (CIR, PIR, line
/// rate, buffer size) and the `with_*` methods for the rest.
///
/// ```
/// use core::time::Duration;
/// use netcond_core::{Rate, TickRate};
/// use ras_shaper::{TrRasConfig, TrRasProfile, TrThresholds};
///
/// // The customer router of RFC 2963 appendix A: CIR 2 Mbit/s, PIR 4 Mbit/s
/// // on a 34 Mbit/s line; a 64 KB buffer.
/// let cfg = TrRasConfig::new(Rate::from_mbps(2), Rate::from_mbps(4), Rate::from_mbps(34), 64_000)
///     .with_mir(Rate::from_mbps(10))
///     .with_thresholds(TrThresholds::new(6_000, 24_000, 48_000))
///     .with_max_packet_bytes(1_500)
///     .with_k(Duration::from_millis(100))
///     .with_tick(TickRate::NANOS);
/// let p = TrRasProfile::new(&cfg).unwrap();
/// assert_eq!(p.thresholds(), (6_000, 24_000, 48_000));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[non_exhaustive]
pub struct TrRasConfig {
    /// Committed Information Rate (usually the CIR of the downstream trTCM).
    pub cir: Rate,
    /// Peak Information Rate (usually the PIR of the downstream trTCM).
    pub pir: Rate,
    /// Maximum Information Rate; `None` means the line rate.
    pub mir: Option<Rate>,
    /// The rate of the shaper's output link.
    pub line_rate: Rate,
    /// CIR_th, PIR_th and MIR_th; `None` means buffer/4, buffer/2, 3 buffer/4.
    pub thresholds: Option<TrThresholds>,
    /// The buffer size of the shaper in bytes.
    pub buffer_bytes: u64,
    /// The largest packet the shaper must queue, in bytes (the link MTU;
    /// [`DEFAULT_MAX_PACKET`] = 1500 from `new`): the buffer must hold one.
    pub max_packet_bytes: u32,
    /// The EAR constant K (section 2.3); [`DEFAULT_K`] is 100 ms.
    pub k: Duration,
    /// The clock of the `Instant`s passed in.
    pub tick: TickRate,
}

impl TrRasConfig {
    /// CIR, PIR, line rate and buffer size; MIR, thresholds, K and tick at their
    /// defaults.
    #[must_use]
    pub const fn new(cir: Rate, pir: Rate, line_rate: Rate, buffer_bytes: u64) -> TrRasConfig {
        TrRasConfig {
            cir,
            pir,
            mir: None,
            line_rate,
            thresholds: None,
            buffer_bytes,
            max_packet_bytes: DEFAULT_MAX_PACKET,
            k: DEFAULT_K,
            tick: TickRate::NANOS,
        }
    }
}

ras_config_builders!(
    TrRasConfig,
    TrThresholds,
    "CIR_th, PIR_th and MIR_th (by default a quarter, a half and three quarters of the buffer)."
);

/// Which shaper a profile configures. More kinds may be added: a `match`
/// outside this crate needs a wildcard arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum RasKind {
    /// Single rate (srRAS, G-srRAS): F has one rising piece.
    SingleRate,
    /// Two rates (trRAS, G-trRAS): F has two rising pieces.
    TwoRate,
}

/// The largest packet a shaper must queue when not configured: 1500 bytes
/// (the Ethernet MTU).
pub const DEFAULT_MAX_PACKET: u32 = 1500;
