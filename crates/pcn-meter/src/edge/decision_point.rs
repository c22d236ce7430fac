//! The RFC 6661 / RFC 6662 Decision Point: admit or block, and the amount of
//! traffic to terminate, from each egress report.

use super::{per_mille, Admission, EdgeBehaviour, EdgeError, Report};
use fixed::types::{U16F16, U1F31};
use netcond_core::branchless::saturate_u64;
use netcond_core::Instant;

/// Configuration of an RFC 6661 / 6662 Decision Point for its aggregates.
///
/// ```
/// use fixed::types::U16F16;
/// use pcn_meter::{per_mille, DecisionConfig, DecisionProfile, EdgeBehaviour};
///
/// // RFC 6662 with U = 2 and a CLE-limit of 3 %, termination off.
/// let c = DecisionConfig::single_marking()
///     .with_behaviour(EdgeBehaviour::SingleMarking { u: U16F16::from_num(2) })
///     .with_cle_limit(per_mille(30))
///     .with_termination_enabled(false);
/// assert!(c.admission_enabled);
/// assert!(DecisionProfile::new(&c).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct DecisionConfig {
    /// CL or SM (SM carries U).
    pub behaviour: EdgeBehaviour,
    /// CLE-limit: admit while CLE < CLE-limit (section 3.3.1).
    pub cle_limit: U1F31,
    /// PCN-based flow admission enabled.
    pub admission_enabled: bool,
    /// PCN-based flow termination enabled.
    pub termination_enabled: bool,
}

impl DecisionConfig {
    /// RFC 6662 section 5.1.1: CLE-limit "on the order of 5%", U = 1.5 (inside
    /// 1.2-2), both mechanisms enabled.
    #[must_use]
    pub const fn single_marking() -> DecisionConfig {
        DecisionConfig {
            behaviour: EdgeBehaviour::SingleMarking {
                u: U16F16::from_bits(3 << 15),
            },
            cle_limit: per_mille(50),
            admission_enabled: true,
            termination_enabled: true,
        }
    }

    /// RFC 6661 with this crate's default CLE-limit of 5% (RFC 6661 gives no
    /// value and notes admission is not very sensitive to it), both enabled.
    #[must_use]
    pub const fn controlled_load() -> DecisionConfig {
        DecisionConfig {
            behaviour: EdgeBehaviour::ControlledLoad,
            cle_limit: per_mille(50),
            admission_enabled: true,
            termination_enabled: true,
        }
    }

    /// The same configuration with the behaviour `behaviour` (CL, or SM with
    /// its U).
    #[must_use]
    pub const fn with_behaviour(mut self, behaviour: EdgeBehaviour) -> DecisionConfig {
        self.behaviour = behaviour;
        self
    }

    /// The same configuration with the CLE-limit `cle_limit`.
    #[must_use]
    pub const fn with_cle_limit(mut self, cle_limit: U1F31) -> DecisionConfig {
        self.cle_limit = cle_limit;
        self
    }

    /// The same configuration with PCN-based flow admission on or off.
    #[must_use]
    pub const fn with_admission_enabled(mut self, admission_enabled: bool) -> DecisionConfig {
        self.admission_enabled = admission_enabled;
        self
    }

    /// The same configuration with PCN-based flow termination on or off.
    #[must_use]
    pub const fn with_termination_enabled(mut self, termination_enabled: bool) -> DecisionConfig {
        self.termination_enabled = termination_enabled;
        self
    }
}

/// The precomputed constants of a [`DecisionPoint`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DecisionProfile {
    /// U as 16.16 bits for SM; `None` for CL.
    u: Option<u32>,
    cle_limit: U1F31,
    admission: bool,
    termination: bool,
}

impl DecisionProfile {
    /// Validates `c`.
    pub fn new(c: &DecisionConfig) -> Result<DecisionProfile, EdgeError> {
        if c.cle_limit > U1F31::ONE {
            return Err(EdgeError::FractionAboveOne);
        }
        let u = match c.behaviour {
            EdgeBehaviour::ControlledLoad => None,
            EdgeBehaviour::SingleMarking { u } => {
                if u <= U16F16::ONE {
                    return Err(EdgeError::UNotAboveOne);
                }
                Some(u.to_bits())
            }
        };
        Ok(DecisionProfile {
            u,
            cle_limit: c.cle_limit,
            admission: c.admission_enabled,
            termination: c.termination_enabled,
        })
    }

    /// The sustainable aggregate rate of a report: NM-rate + ThM-rate (CL,
    /// RFC 6661 section 3.3.2) or U x NM-rate rounded down (SM, RFC 6662).
    #[must_use]
    pub fn sar<F, const M: usize>(&self, r: &Report<F, M>) -> u64 {
        match self.u {
            None => r.nm_rate.saturating_add(r.thm_rate),
            Some(u) => saturate_u64((r.nm_rate as u128 * u as u128) >> 16),
        }
    }
}

/// What the decision point asks of the ingress for termination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Termination {
    /// Nothing to do.
    None,
    /// Ask the PCN-ingress-node for the PCN-sent-rate; the next report decides.
    RequestSentRate,
    /// Terminate [`amount_to_terminate`]`(PCN-sent-rate, sar)` octets per second
    /// of flows (those in the report's ETM flow list first, CL).
    Terminate {
        /// The sustainable aggregate rate of the latest report.
        sar: u64,
    },
}

/// The decision for one report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Decision {
    /// The PCN-admission-state (always `Admit` with admission disabled).
    pub admission: Admission,
    /// The termination step.
    pub termination: Termination,
}

/// RFC 6661 / 6662 section 3.3.2, step 2: `PCN-sent-rate - SAR`, or zero when
/// that is not positive.
#[must_use]
pub const fn amount_to_terminate(pcn_sent_rate: u64, sar: u64) -> u64 {
    pcn_sent_rate.saturating_sub(sar)
}

/// The Decision Point's state for one aggregate (RFC 6661 / 6662 section 3.3).
///
/// Admission (3.3.1): "admit" if CLE < CLE-limit, else "block". Termination
/// (3.3.2): a report with a non-zero ETM-rate (CL) or a "block" state (SM)
/// requests the PCN-sent-rate; if the next report has a non-zero ETM-rate, the
/// amount to terminate is PCN-sent-rate - SAR from that report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DecisionPoint {
    awaiting: bool,
}

impl DecisionPoint {
    /// A decision point that awaits nothing, at `now` (it keeps no time: the
    /// profile and the instant are taken for the crates' one way to start a
    /// state, `State::new(&profile, now)`).
    #[must_use]
    pub const fn new(_profile: &DecisionProfile, _now: Instant) -> DecisionPoint {
        DecisionPoint { awaiting: false }
    }

    /// True while a PCN-sent-rate was requested and the next report is awaited.
    #[must_use]
    pub const fn awaiting_report(&self) -> bool {
        self.awaiting
    }

    /// Decides on one egress report.
    pub fn on_report<F, const M: usize>(
        &mut self,
        p: &DecisionProfile,
        r: &Report<F, M>,
    ) -> Decision {
        let state = if r.cle.is_below(p.cle_limit) {
            Admission::Admit
        } else {
            Admission::Block
        };
        let admission = if p.admission { state } else { Admission::Admit };
        let termination = if !p.termination {
            Termination::None
        } else if self.awaiting {
            self.awaiting = false;
            if r.etm_bytes > 0 {
                Termination::Terminate { sar: p.sar(r) }
            } else {
                Termination::None
            }
        } else {
            let trigger = match p.u {
                None => r.etm_bytes > 0,
                Some(_) => state == Admission::Block,
            };
            if trigger {
                self.awaiting = true;
                Termination::RequestSentRate
            } else {
                Termination::None
            }
        };
        Decision {
            admission,
            termination,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::*;
    use netcond_core::Instant;

    const S: u64 = 1_000_000_000;

    fn at(t: u64) -> Instant {
        Instant::from_ticks(t)
    }

    fn report(nm_rate: u64, thm_rate: u64, etm_rate: u64, cle: Cle) -> Report<u8, 1> {
        Report {
            start: at(0),
            end: at(S),
            nm_bytes: nm_rate,
            thm_bytes: thm_rate,
            etm_bytes: etm_rate,
            nm_rate,
            thm_rate,
            etm_rate,
            cle,
            etm_flows: heapless::Vec::new(),
        }
    }

    #[test]
    fn decision_point_cl() {
        let p = DecisionProfile::new(&DecisionConfig::controlled_load()).unwrap();
        let mut d = DecisionPoint::new(&p, Instant::ZERO);
        let quiet = report(1000, 0, 0, Cle::new(0, 1000));
        assert_eq!(
            d.on_report(&p, &quiet),
            Decision {
                admission: Admission::Admit,
                termination: Termination::None
            }
        );
        // ThM only, CLE 10 % >= 5 %: block, no termination.
        let thm = report(900, 100, 0, Cle::new(100, 1000));
        assert_eq!(d.on_report(&p, &thm).admission, Admission::Block);
        assert_eq!(d.on_report(&p, &thm).termination, Termination::None);
        // ETM: ask for the sent rate, then terminate sent - (NM + ThM).
        let etm = report(600, 300, 100, Cle::new(400, 1000));
        assert_eq!(
            d.on_report(&p, &etm).termination,
            Termination::RequestSentRate
        );
        assert!(d.awaiting_report());
        let dec = d.on_report(&p, &etm);
        assert_eq!(dec.termination, Termination::Terminate { sar: 900 });
        assert_eq!(amount_to_terminate(1200, 900), 300);
        assert_eq!(amount_to_terminate(800, 900), 0);
        // If the next report has no ETM, nothing is terminated.
        assert_eq!(
            d.on_report(&p, &etm).termination,
            Termination::RequestSentRate
        );
        assert_eq!(d.on_report(&p, &thm).termination, Termination::None);
        assert!(!d.awaiting_report());
        // Either mechanism can be switched off.
        let off = DecisionProfile::new(&DecisionConfig {
            admission_enabled: false,
            termination_enabled: false,
            ..DecisionConfig::controlled_load()
        })
        .unwrap();
        assert_eq!(
            DecisionPoint::new(&off, Instant::ZERO).on_report(&off, &etm),
            Decision {
                admission: Admission::Admit,
                termination: Termination::None
            }
        );
    }

    #[test]
    fn decision_point_sm() {
        let p = DecisionProfile::new(&DecisionConfig::single_marking()).unwrap();
        let mut d = DecisionPoint::new(&p, Instant::ZERO);
        // CLE 4 % < 5 %: admit, no termination even with ETM.
        let low = report(960, 0, 40, Cle::new(40, 1000));
        assert_eq!(
            d.on_report(&p, &low),
            Decision {
                admission: Admission::Admit,
                termination: Termination::None
            }
        );
        // CLE 30 %: block, request; next with ETM: terminate sent - 1.5 NM.
        let high = report(701, 0, 300, Cle::new(300, 1001));
        assert_eq!(
            d.on_report(&p, &high).termination,
            Termination::RequestSentRate
        );
        assert_eq!(
            d.on_report(&p, &high),
            Decision {
                admission: Admission::Block,
                termination: Termination::Terminate { sar: 1051 }
            }
        );
        let bad = |u| {
            DecisionProfile::new(&DecisionConfig {
                behaviour: EdgeBehaviour::SingleMarking { u },
                ..DecisionConfig::single_marking()
            })
        };
        assert_eq!(bad(U16F16::ONE), Err(EdgeError::UNotAboveOne));
        assert!(DecisionProfile::new(&DecisionConfig {
            cle_limit: U1F31::MAX,
            ..DecisionConfig::controlled_load()
        })
        .is_err());
        assert!(EgressMeterProfile::new(&EgressMeterConfig {
            t_meas: core::time::Duration::ZERO,
            ..EgressMeterConfig::controlled_load()
        })
        .is_err());
    }
}
