//! RBCC interface configuration and its validated profile.

use crate::rate::{FixedRate, NodeId, FRAC_BITS};
use core::time::Duration;
use netcond_core::{gcd, Rate, TickRate};

/// How acknowledgement traffic enters the allocation of the interface it leaves by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum AckModel {
    /// An ACK flow is outside load of `ack/data` times its returned rate on the
    /// interface it leaves by, and is never bottlenecked there. With `n` forward
    /// flows and one reverse flow on one full-duplex link of capacity `C` this
    /// gives `x = C / (n (1 + k))` per forward flow and `y = n x` for the reverse
    /// flow (`k = ack/data`): with 40-byte ACKs, Toomey's Scenario 7 table. The
    /// report's Scenario 7 section states neither its ACK size nor its ACK
    /// accounting; this model is inferred from that table, which it reproduces
    /// exactly.
    #[default]
    OutsideLoad,
    /// Strict coupled max-min: a flow uses `k` times its rate on every interface
    /// its ACKs leave by, and can be bottlenecked there; the interface lowers the
    /// ACK's return rate like a data packet's rate field. Scenario 7 then gives
    /// `C / (2 + k)` = 31578.95 bit/s and `C / (3 + k)` = 21145.37 bit/s, which
    /// do not match Toomey's Scenario 7 table.
    Coupled,
}

/// The human-unit configuration of one output interface's RBCC allocator.
///
/// # Example
///
/// ```
/// use core::time::Duration;
/// use netcond_core::Rate;
/// use rbcc_rate::{AckModel, NodeId, RbccConfig, RbccProfile};
///
/// let cfg = RbccConfig::new(NodeId(1), Rate::from_mbps(10), 40, 1500)
///     .with_ack_model(AckModel::Coupled)
///     .with_idle_timeout(Duration::from_secs(2));
/// assert_eq!(cfg.ack_bytes, 40);
/// assert!(RbccProfile::new(&cfg).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct RbccConfig {
    /// The id this interface stamps into the bottleneck field (not zero).
    pub node: NodeId,
    /// The interface's capacity `C`.
    pub capacity: Rate,
    /// Bytes of acknowledgement per data packet (40 for Toomey's Scenario 7:
    /// inferred from its rate table; the report's Scenario 7 section does not
    /// state it).
    pub ack_bytes: u32,
    /// Bytes of a data packet (1500 in Toomey's RBCC report).
    pub data_bytes: u32,
    /// How ACK load is counted.
    pub ack_model: AckModel,
    /// A flow or ACK entry not seen for this long (in whole ticks of `tick`,
    /// rounded down, at least one) is removed by
    /// [`expire`](crate::RbccInterface::expire). `Duration::MAX`, or any
    /// duration of `u64::MAX` ticks or more, never expires.
    pub idle_timeout: Duration,
    /// The tick clock of the `Instant`s passed in.
    pub tick: TickRate,
}

impl RbccConfig {
    /// An interface for Toomey's Scenario 7: `capacity`, 40-byte ACKs per 1500-byte data
    /// packet, [`AckModel::OutsideLoad`], a 10 s idle timeout, nanosecond ticks. The report
    /// gives the 1500-byte packets; the ACK size and model are inferred from its
    /// optimum-rate table, which they reproduce exactly.
    #[must_use]
    pub const fn toomey_scenario7(node: NodeId, capacity: Rate) -> RbccConfig {
        RbccConfig::new(node, capacity, 40, 1500)
    }

    /// An interface `node` of `capacity`, with `ack_bytes` of acknowledgement per
    /// `data_bytes` data packet, [`AckModel::OutsideLoad`], a 10 s idle timeout and
    /// nanosecond ticks (the `with_` methods change those).
    #[must_use]
    pub const fn new(node: NodeId, capacity: Rate, ack_bytes: u32, data_bytes: u32) -> RbccConfig {
        RbccConfig {
            node,
            capacity,
            ack_bytes,
            data_bytes,
            ack_model: AckModel::OutsideLoad,
            idle_timeout: Duration::from_secs(10),
            tick: TickRate::NANOS,
        }
    }

    /// This configuration with `node` set to `node`.
    #[must_use]
    pub const fn with_node(self, node: NodeId) -> RbccConfig {
        RbccConfig { node, ..self }
    }

    /// This configuration with `capacity` set to `capacity`.
    #[must_use]
    pub const fn with_capacity(self, capacity: Rate) -> RbccConfig {
        RbccConfig { capacity, ..self }
    }

    /// This configuration with `ack_bytes` set to `ack_bytes`.
    #[must_use]
    pub const fn with_ack_bytes(self, ack_bytes: u32) -> RbccConfig {
        RbccConfig { ack_bytes, ..self }
    }

    /// This configuration with `data_bytes` set to `data_bytes`.
    #[must_use]
    pub const fn with_data_bytes(self, data_bytes: u32) -> RbccConfig {
        RbccConfig { data_bytes, ..self }
    }

    /// This configuration with `ack_model` set to `ack_model`.
    #[must_use]
    pub const fn with_ack_model(self, ack_model: AckModel) -> RbccConfig {
        RbccConfig { ack_model, ..self }
    }

    /// This configuration with `idle_timeout` set to `idle_timeout`.
    #[must_use]
    pub const fn with_idle_timeout(self, idle_timeout: Duration) -> RbccConfig {
        RbccConfig {
            idle_timeout,
            ..self
        }
    }

    /// This configuration with `tick` set to `tick`.
    #[must_use]
    pub const fn with_tick(self, tick: TickRate) -> RbccConfig {
        RbccConfig { tick, ..self }
    }
}

netcond_core::config_error! {
    /// Why an [`RbccConfig`] was refused.
    pub enum RbccError {
        /// The node id must not be [`NodeId::NONE`].
        NoNodeId => "node id must not be zero: zero means no bottleneck (RBCC bottleneck field)",
        /// The capacity must be positive.
        ZeroCapacity => "interface capacity C must be greater than zero",
        /// The capacity must fit the Q48.16 rate representation.
        CapacityTooLarge => "interface capacity C must be below 2^47 bit/s (Q48.16 rate range)",
        /// The data packet size must be positive.
        ZeroDataBytes => "data packet size must be greater than zero",
        /// ACKs must be smaller than data packets.
        AckNotSmaller => "ACK size must be smaller than the data packet size (k = ack/data < 1: an ACK flow loads a link less than its data does)",
        /// The idle timeout must be positive.
        ZeroIdleTimeout => "idle timeout must be greater than zero",
    }
}

/// A validated [`RbccConfig`] with its fixed-point constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RbccProfile {
    pub(crate) node: NodeId,
    pub(crate) capacity: FixedRate,
    /// ACK/data ratio `k = num / den`, reduced.
    pub(crate) k_num: u64,
    pub(crate) k_den: u64,
    pub(crate) model: AckModel,
    pub(crate) idle_ticks: u64,
}

impl RbccProfile {
    /// Validates `cfg`.
    ///
    /// # Errors
    /// One [`RbccError`] variant per violated rule.
    pub fn new(cfg: &RbccConfig) -> Result<RbccProfile, RbccError> {
        if cfg.node == NodeId::NONE {
            return Err(RbccError::NoNodeId);
        }
        let c = cfg.capacity.bits_per_sec();
        if c == 0 {
            return Err(RbccError::ZeroCapacity);
        }
        if c >= 1 << (63 - FRAC_BITS) {
            return Err(RbccError::CapacityTooLarge);
        }
        if cfg.data_bytes == 0 {
            return Err(RbccError::ZeroDataBytes);
        }
        if cfg.ack_bytes >= cfg.data_bytes {
            return Err(RbccError::AckNotSmaller);
        }
        if cfg.idle_timeout.is_zero() {
            return Err(RbccError::ZeroIdleTimeout);
        }
        let (a, d) = (u64::from(cfg.ack_bytes), u64::from(cfg.data_bytes));
        let g = gcd(a, d);
        // Saturates at u64::MAX ticks, which `expire` reads as never.
        let idle_ticks = cfg.tick.ticks_from_duration(cfg.idle_timeout).max(1);
        Ok(RbccProfile {
            node: cfg.node,
            capacity: FixedRate::from_bps(c),
            k_num: a / g,
            k_den: d / g,
            model: cfg.ack_model,
            idle_ticks,
        })
    }

    /// The id stamped into the bottleneck field.
    #[must_use]
    pub const fn node(&self) -> NodeId {
        self.node
    }

    /// The capacity `C`.
    #[must_use]
    pub const fn capacity(&self) -> FixedRate {
        self.capacity
    }

    /// The ACK/data ratio `k` as a reduced fraction `(num, den)` (`(2, 75)` for
    /// 40/1500).
    #[must_use]
    pub const fn ack_ratio(&self) -> (u64, u64) {
        (self.k_num, self.k_den)
    }

    /// The ACK model.
    #[must_use]
    pub const fn ack_model(&self) -> AckModel {
        self.model
    }

    /// The idle timeout in ticks.
    #[must_use]
    pub const fn idle_ticks(&self) -> u64 {
        self.idle_ticks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rule_is_checked() {
        let ok = RbccConfig::toomey_scenario7(NodeId(2), Rate::from_kbps(64));
        let p = RbccProfile::new(&ok).unwrap();
        assert_eq!(p.ack_ratio(), (2, 75));
        assert_eq!(p.capacity().bps(), 64_000);
        assert_eq!(p.idle_ticks(), 10_000_000_000);
        let bad = |f: fn(&mut RbccConfig)| {
            let mut c = ok;
            f(&mut c);
            RbccProfile::new(&c).unwrap_err()
        };
        assert_eq!(bad(|c| c.node = NodeId::NONE), RbccError::NoNodeId);
        assert_eq!(bad(|c| c.capacity = Rate::ZERO), RbccError::ZeroCapacity);
        assert_eq!(
            bad(|c| c.capacity = Rate::from_bits_per_sec(1 << 47)),
            RbccError::CapacityTooLarge
        );
        assert_eq!(bad(|c| c.data_bytes = 0), RbccError::ZeroDataBytes);
        assert_eq!(bad(|c| c.ack_bytes = 1500), RbccError::AckNotSmaller);
        assert_eq!(
            bad(|c| c.idle_timeout = Duration::ZERO),
            RbccError::ZeroIdleTimeout
        );
        assert!(RbccError::AckNotSmaller.to_string().contains("ACK size"));
    }
}
