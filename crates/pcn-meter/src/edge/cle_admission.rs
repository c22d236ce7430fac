//! The 3sM draft's CLE-based admission option: per measurement interval,
//! block at the admission-stop threshold, resume below the admission-continue
//! threshold.

use super::{Admission, Cle, EdgeError, Interval};
use crate::mark::PcnMark;
use crate::units::{duration_ticks, reached};
use core::time::Duration;
use fixed::types::U1F31;
use netcond_core::{Instant, TickRate};

/// Configuration of the 3sM draft's CLE-based admission option.
///
/// ```
/// use core::time::Duration;
/// use netcond_core::TickRate;
/// use pcn_meter::{per_mille, CleAdmissionConfig, CleAdmissionProfile};
///
/// // 100 ms intervals; block at a CLE of 10 %, resume below 5 %; microsecond clock.
/// let c = CleAdmissionConfig::new(Duration::from_millis(100), per_mille(100), per_mille(50))
///     .with_tick(TickRate::MICROS);
/// assert!(CleAdmissionProfile::new(&c).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct CleAdmissionConfig {
    /// The measurement interval, in whole ticks of `tick` (rounded down; at
    /// least one tick, at most 2^62).
    pub interval: Duration,
    /// Admission-stop threshold: an admitting aggregate blocks when the CLE of
    /// an interval is at or above it.
    pub stop: U1F31,
    /// Admission-continue threshold: a blocked aggregate resumes when the CLE of
    /// an interval is below it.
    pub resume: U1F31,
    /// The clock of the `Instant`s passed in.
    pub tick: TickRate,
}

impl CleAdmissionConfig {
    /// Intervals of `interval`, the admission-stop and admission-continue
    /// thresholds, nanosecond clock.
    #[must_use]
    pub const fn new(interval: Duration, stop: U1F31, resume: U1F31) -> CleAdmissionConfig {
        CleAdmissionConfig {
            interval,
            stop,
            resume,
            tick: TickRate::NANOS,
        }
    }

    /// The same configuration on the clock `tick`.
    #[must_use]
    pub const fn with_tick(mut self, tick: TickRate) -> CleAdmissionConfig {
        self.tick = tick;
        self
    }
}

/// The precomputed constants of a [`CleAdmission`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CleAdmissionProfile {
    interval: u64,
    stop: U1F31,
    resume: U1F31,
}

impl CleAdmissionProfile {
    /// Validates `c`.
    pub fn new(c: &CleAdmissionConfig) -> Result<CleAdmissionProfile, EdgeError> {
        if c.stop > U1F31::ONE || c.resume > U1F31::ONE {
            return Err(EdgeError::FractionAboveOne);
        }
        if c.resume > c.stop {
            return Err(EdgeError::ContinueAboveStop);
        }
        Ok(CleAdmissionProfile {
            interval: duration_ticks(c.tick, c.interval)?,
            stop: c.stop,
            resume: c.resume,
        })
    }
}

/// The outcome of one measurement interval of a [`CleAdmission`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CleDecision {
    /// Start of the interval.
    pub start: Instant,
    /// End of the interval (exclusive).
    pub end: Instant,
    /// The interval's CLE: AS- or ET-marked bytes over all PCN bytes.
    pub cle: Cle,
    /// The admission state from now on.
    pub admission: Admission,
    /// True if `admission` changed at this interval.
    pub changed: bool,
}

/// The 3sM draft's CLE-based admission option for one aggregate, with
/// hysteresis: per interval, CLE = (AS + ET bytes) / (all PCN bytes); an
/// admitting aggregate blocks when CLE >= admission-stop; a blocked one resumes
/// when CLE < admission-continue. With both thresholds equal this is RFC 6661's
/// CLE-limit rule.
///
/// Calling late: a packet at or after the end of the interval closes it; its
/// decision is kept for the next [`poll`](Self::poll) (only the latest one
/// if several close unpolled). Intervals in which nothing at all was called are
/// not reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CleAdmission {
    iv: Interval,
    marked: u64,
    total: u64,
    admission: Admission,
    pending: Option<CleDecision>,
}

impl CleAdmission {
    /// An admitting aggregate whose first interval starts at `now`.
    #[must_use]
    pub fn new(p: &CleAdmissionProfile, now: Instant) -> CleAdmission {
        CleAdmission {
            iv: Interval::first(now, p.interval),
            marked: 0,
            total: 0,
            admission: Admission::Admit,
            pending: None,
        }
    }

    /// The current admission state.
    #[must_use]
    pub const fn admission(&self) -> Admission {
        self.admission
    }

    fn close(&mut self, p: &CleAdmissionProfile, now: Instant) {
        let cle = Cle::new(self.marked, self.total);
        let before = self.admission;
        self.admission = match before {
            Admission::Admit if !cle.is_below(p.stop) => Admission::Block,
            Admission::Block if cle.is_below(p.resume) => Admission::Admit,
            s => s,
        };
        self.pending = Some(CleDecision {
            start: self.iv.start,
            end: self.iv.end,
            cle,
            admission: self.admission,
            changed: self.admission != before,
        });
        self.marked = 0;
        self.total = 0;
        self.iv.roll(now, p.interval);
    }

    /// One packet of the aggregate at the egress.
    pub fn on_packet(&mut self, p: &CleAdmissionProfile, now: Instant, len: u32, mark: PcnMark) {
        if reached(now, self.iv.end) {
            self.close(p, now);
        }
        if mark.is_pcn() {
            let l = u64::from(len);
            self.total = self.total.saturating_add(l);
            if mark != PcnMark::Nm {
                self.marked = self.marked.saturating_add(l);
            }
        }
    }

    /// Closes the interval if it has ended and returns its decision.
    pub fn poll(&mut self, p: &CleAdmissionProfile, now: Instant) -> Option<CleDecision> {
        if self.pending.is_none() && reached(now, self.iv.end) {
            self.close(p, now);
        }
        self.pending.take()
    }

    /// When [`poll`](Self::poll) next has something to do.
    #[must_use]
    pub fn next_wakeup(&self) -> Instant {
        match self.pending {
            Some(d) => d.end,
            None => self.iv.end,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::*;

    const MS: u64 = 1_000_000;

    fn at(t: u64) -> Instant {
        Instant::from_ticks(t)
    }

    #[test]
    fn cle_admission_hysteresis() {
        let p = CleAdmissionProfile::new(&CleAdmissionConfig {
            interval: Duration::from_nanos(100 * MS),
            stop: per_mille(100),
            resume: per_mille(20),
            tick: TickRate::NANOS,
        })
        .unwrap();
        let mut a = CleAdmission::new(&p, at(0));
        // Marked share per interval, in percent, and the expected state.
        let plan = [
            (5, Admission::Admit, false),
            (10, Admission::Block, true),
            (5, Admission::Block, false),
            (2, Admission::Block, false),
            (1, Admission::Admit, true),
            (9, Admission::Admit, false),
        ];
        for (i, &(pct, adm, changed)) in plan.iter().enumerate() {
            let t0 = i as u64 * 100 * MS;
            for j in 0..100u64 {
                let mark = if j < pct { PcnMark::Thm } else { PcnMark::Nm };
                a.on_packet(&p, at(t0 + j * MS), 100, mark);
                a.on_packet(&p, at(t0 + j * MS), 100, PcnMark::NotPcn);
            }
            assert_eq!(a.poll(&p, at(t0 + 100 * MS - 1)), None);
            assert_eq!(a.next_wakeup(), at(t0 + 100 * MS));
            let d = a.poll(&p, at(t0 + 100 * MS)).unwrap();
            assert_eq!(
                (d.cle, d.admission, d.changed),
                (Cle::new(pct * 100, 10_000), adm, changed),
                "{i}"
            );
            assert_eq!((d.start, d.end), (at(t0), at(t0 + 100 * MS)));
        }
        let bad = |stop, resume, iv| {
            CleAdmissionProfile::new(&CleAdmissionConfig {
                interval: Duration::from_nanos(iv),
                stop,
                resume,
                tick: TickRate::NANOS,
            })
        };
        assert_eq!(
            bad(per_mille(10), per_mille(20), 1),
            Err(EdgeError::ContinueAboveStop)
        );
        assert_eq!(
            bad(U1F31::MAX, per_mille(20), 1),
            Err(EdgeError::FractionAboveOne)
        );
        assert_eq!(
            bad(per_mille(10), per_mille(10), 0),
            Err(EdgeError::ZeroDuration)
        );
    }
}
