//! The queue settings every RED-family configuration shares ([`QueueSettings`],
//! [`QueueUnit`]), and the `with_*` methods on the configurations that hold them.

use core::time::Duration;

use fixed::types::U32F32;

use crate::spreading::Spreading;

/// What the queue length, the thresholds and the buffer limit count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum QueueUnit {
    /// Packets: a packet fits while `queue_len < limit`.
    #[default]
    Packets,
    /// Bytes: a packet fits while `queue_len + len <= limit` (RFC 2309 section 3, note).
    Bytes,
}

/// The queue settings every RED-family configuration shares, whatever its
/// curves: the EWMA weight, the buffer, the unit, gentle RED, byte mode, ECN,
/// the idle-time decay and the spreading of drops. [`RedConfig`](crate::RedConfig) and
/// [`RioConfig`](crate::RioConfig) hold one as their `queue` field.
///
/// Built with [`new`](Self::new) and the `with_*` methods (or by setting the
/// public fields of a built value), and given to a configuration with its
/// `with_queue` ([`RedConfig::with_queue`](crate::RedConfig::with_queue),
/// [`RioConfig::with_queue`](crate::RioConfig::with_queue)): the one way to
/// set them. New fields may be added.
///
/// ```
/// use aqm_red::{QueueSettings, QueueUnit, RedConfig, RedProfile, Spreading};
///
/// // w_q 1/512 over a 100 kB buffer counted in bytes, ECN marking up to
/// // 60 kB, DPDK's law with one draw per drop.
/// let queue = QueueSettings::new(RedConfig::prob(1.0 / 512.0), 100_000)
///     .with_unit(QueueUnit::Bytes)
///     .with_ecn(true)
///     .with_ecn_drop_th(Some(60_000))
///     .with_spreading(Spreading::AccumulatedDpdk);
/// let cfg = RedConfig::packets(20_000, 60_000, RedConfig::prob(0.1), queue.w_q, queue.limit)
///     .with_queue(queue);
/// assert_eq!(cfg.queue.unit, QueueUnit::Bytes);
/// assert!(RedProfile::new(&cfg).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[non_exhaustive]
pub struct QueueSettings {
    /// w_q, in `(0, 1]`; any value, not only powers of two.
    pub w_q: U32F32,
    /// The buffer size in queue units (all colors together in RIO): arrivals
    /// that do not fit are [`Decision::DropForced`](crate::Decision::DropForced).
    pub limit: u32,
    /// Packets or bytes.
    pub unit: QueueUnit,
    /// Gentle RED: p_b rises linearly from max_p at max_th to 1 at 2 max_th
    /// (for every color in RIO).
    pub gentle: bool,
    /// Byte mode with this maximum packet size M in bytes: p_b is scaled by
    /// `min(len, M) / M` (FJ93 section 4). RFC 7567 section 4.4 recommends
    /// against it; it is here for reproductions.
    pub byte_mode: Option<u32>,
    /// ECN (RFC 3168 section 5): mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
    /// With ECN: at or above this average (queue units), drop ECN-capable
    /// packets too (RFC 3168 section 7 recommends dropping above an upper
    /// threshold; `Some(max_th)` does that). `None`: mark wherever RED would drop.
    pub ecn_drop_th: Option<u32>,
    /// FJ93's `s`: the typical transmission time of a packet. After an idle
    /// period of `t` the average is multiplied by `(1 - w_q)^(t/s)`. The
    /// profile converts it once to whole ticks of the configuration's `tick`
    /// (rounded down) and refuses zero ticks.
    pub typical_tx: Duration,
    /// How drops are spread over the packets since the last one (within each
    /// color in RIO).
    pub spreading: Spreading,
}

impl QueueSettings {
    /// `w_q` over a buffer of `limit` packets: not gentle, no byte mode, no
    /// ECN, FJ93 spreading ([`Spreading::Accumulated`]), and `s` = 1200 us
    /// (1500 bytes at 10 Mbit/s; set [`typical_tx`](Self::typical_tx) for the
    /// real link, e.g. with [`RedConfig::typical_tx`](crate::RedConfig::typical_tx)).
    #[must_use]
    pub const fn new(w_q: U32F32, limit: u32) -> QueueSettings {
        QueueSettings {
            w_q,
            limit,
            unit: QueueUnit::Packets,
            gentle: false,
            byte_mode: None,
            ecn: false,
            ecn_drop_th: None,
            typical_tx: Duration::from_micros(1200),
            spreading: Spreading::Accumulated,
        }
    }

    /// Sets [`w_q`](Self::w_q).
    #[must_use]
    pub const fn with_w_q(mut self, w_q: U32F32) -> Self {
        self.w_q = w_q;
        self
    }

    /// Sets [`limit`](Self::limit).
    #[must_use]
    pub const fn with_limit(mut self, limit: u32) -> Self {
        self.limit = limit;
        self
    }

    /// Sets [`unit`](Self::unit).
    #[must_use]
    pub const fn with_unit(mut self, unit: QueueUnit) -> Self {
        self.unit = unit;
        self
    }

    /// Sets [`gentle`](Self::gentle).
    #[must_use]
    pub const fn with_gentle(mut self, gentle: bool) -> Self {
        self.gentle = gentle;
        self
    }

    /// Sets [`byte_mode`](Self::byte_mode).
    #[must_use]
    pub const fn with_byte_mode(mut self, max_len: Option<u32>) -> Self {
        self.byte_mode = max_len;
        self
    }

    /// Sets [`ecn`](Self::ecn).
    #[must_use]
    pub const fn with_ecn(mut self, ecn: bool) -> Self {
        self.ecn = ecn;
        self
    }

    /// Sets [`ecn_drop_th`](Self::ecn_drop_th).
    #[must_use]
    pub const fn with_ecn_drop_th(mut self, th: Option<u32>) -> Self {
        self.ecn_drop_th = th;
        self
    }

    /// Sets [`typical_tx`](Self::typical_tx).
    #[must_use]
    pub const fn with_typical_tx(mut self, typical_tx: Duration) -> Self {
        self.typical_tx = typical_tx;
        self
    }

    /// Sets [`spreading`](Self::spreading).
    #[must_use]
    pub const fn with_spreading(mut self, spreading: Spreading) -> Self {
        self.spreading = spreading;
        self
    }
}

/// The `with_*` methods of the configurations that hold a [`QueueSettings`]
/// in a `queue` field and a `tick`: [`with_queue`](crate::RedConfig::with_queue)
/// and `with_tick`, and the per-setting forwarders kept (deprecated) for
/// existing callers.
macro_rules! queue_settings {
    ($cfg:ident) => {
        impl $cfg {
            /// Sets [`queue`](Self::queue), every shared setting at once: the
            /// one way to set them.
            #[must_use]
            pub const fn with_queue(mut self, queue: QueueSettings) -> Self {
                self.queue = queue;
                self
            }

            /// Sets [`tick`](Self::tick), the clock of the `Instant`s the
            /// state will be given.
            #[must_use]
            pub const fn with_tick(mut self, tick: netcond_core::TickRate) -> Self {
                self.tick = tick;
                self
            }

            /// Sets [`QueueSettings::unit`].
            #[deprecated(note = "set it on a `QueueSettings` and pass that to `with_queue`")]
            #[must_use]
            pub const fn with_unit(mut self, unit: QueueUnit) -> Self {
                self.queue.unit = unit;
                self
            }

            /// Sets [`QueueSettings::gentle`].
            #[deprecated(note = "set it on a `QueueSettings` and pass that to `with_queue`")]
            #[must_use]
            pub const fn with_gentle(mut self, gentle: bool) -> Self {
                self.queue.gentle = gentle;
                self
            }

            /// Sets [`QueueSettings::byte_mode`].
            #[deprecated(note = "set it on a `QueueSettings` and pass that to `with_queue`")]
            #[must_use]
            pub const fn with_byte_mode(mut self, max_len: Option<u32>) -> Self {
                self.queue.byte_mode = max_len;
                self
            }

            /// Sets [`QueueSettings::ecn`].
            #[deprecated(note = "set it on a `QueueSettings` and pass that to `with_queue`")]
            #[must_use]
            pub const fn with_ecn(mut self, ecn: bool) -> Self {
                self.queue.ecn = ecn;
                self
            }

            /// Sets [`QueueSettings::ecn_drop_th`].
            #[deprecated(note = "set it on a `QueueSettings` and pass that to `with_queue`")]
            #[must_use]
            pub const fn with_ecn_drop_th(mut self, th: Option<u32>) -> Self {
                self.queue.ecn_drop_th = th;
                self
            }

            /// Sets [`QueueSettings::spreading`].
            #[deprecated(note = "set it on a `QueueSettings` and pass that to `with_queue`")]
            #[must_use]
            pub const fn with_spreading(mut self, spreading: Spreading) -> Self {
                self.queue.spreading = spreading;
                self
            }
        }
    };
}
pub(crate) use queue_settings;
