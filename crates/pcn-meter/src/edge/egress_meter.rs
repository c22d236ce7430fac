//! RFC 6661 (CL) and RFC 6662 (SM) at the PCN-egress-node: NM, ThM and ETM
//! rates per measurement interval, the CLE, report suppression.

use super::{rate_of, Cle, EdgeError, Interval};
use crate::mark::PcnMark;
use crate::units::{duration_ticks, reached};
use core::time::Duration;
use fixed::types::{U16F16, U1F31};
use netcond_core::{Instant, TickRate};

/// Which PCN boundary-node behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum EdgeBehaviour {
    /// Controlled Load, RFC 6661: CLE = (ThM + ETM) / (NM + ThM + ETM);
    /// SAR = NM-rate + ThM-rate; termination triggered by a non-zero ETM-rate.
    ControlledLoad,
    /// Single Marking, RFC 6662: CLE = ETM / (NM + ETM) (ThM counted as ETM,
    /// RFC 6660 section 5.3); SAR = U x NM-rate; termination triggered by "block".
    SingleMarking {
        /// U, greater than one; RFC 6662 section 5.1.1: "between 1.2 and 2".
        u: U16F16,
    },
}

/// Optional report suppression (RFC 6661 / 6662 section 3.2.3).
///
/// ```
/// use core::time::Duration;
/// use pcn_meter::{per_mille, EgressMeterConfig, Suppression};
///
/// // Suppress reports of a CLE at or below 0 for up to 4 s.
/// let s = Suppression::new(per_mille(0), Duration::from_secs(4));
/// let c = EgressMeterConfig::controlled_load().with_suppression(Some(s));
/// assert_eq!(c.suppression, Some(s));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Suppression {
    /// CLE-reporting-threshold; the RFC default is 0. It must not exceed the
    /// decision point's CLE-limit (not checkable here: a deployment rule).
    pub cle_reporting_threshold: U1F31,
    /// T_maxsuppress; RECOMMENDED "on the order of 3 to 6 seconds".
    pub t_maxsuppress: Duration,
}

impl Suppression {
    /// CLE-reporting-threshold and T_maxsuppress.
    #[must_use]
    pub const fn new(cle_reporting_threshold: U1F31, t_maxsuppress: Duration) -> Suppression {
        Suppression {
            cle_reporting_threshold,
            t_maxsuppress,
        }
    }
}

/// Configuration of an RFC 6661 / 6662 PCN-egress-node measurement.
///
/// ```
/// use core::time::Duration;
/// use netcond_core::TickRate;
/// use pcn_meter::{EgressMeterConfig, EgressMeterProfile};
///
/// // RFC 6661 with T_meas 100 ms on a microsecond clock, ETM flows not recorded.
/// let c = EgressMeterConfig::controlled_load()
///     .with_t_meas(Duration::from_millis(100))
///     .with_record_etm_flows(false)
///     .with_tick(TickRate::MICROS);
/// assert!(EgressMeterProfile::new(&c).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct EgressMeterConfig {
    /// CL or SM.
    pub behaviour: EdgeBehaviour,
    /// T_meas; RECOMMENDED "on the order of 100 to 500 ms"
    /// (section 3.5.1; the MIB range of RFC 6662 section 5.1.2 is 50 to 1000 ms).
    /// The interval is this duration in whole ticks of `tick`, rounded down
    /// (1 ns on a 2.3 GHz clock is 2 ticks); the profile refuses a T_meas of
    /// less than one tick. Each report's rates are per the interval's length
    /// in ticks, not per the nanoseconds asked for.
    pub t_meas: Duration,
    /// Record the flows seen with ETM packets (RFC 6661 section 3.2.1 option;
    /// ignored for SM). At most `M` are kept per interval, the most recent.
    pub record_etm_flows: bool,
    /// Report suppression, if enabled.
    pub suppression: Option<Suppression>,
    /// The clock of the `Instant`s passed in.
    pub tick: TickRate,
}

impl EgressMeterConfig {
    /// RFC 6661 (CL) with this crate's defaults: T_meas 200 ms (inside the
    /// RECOMMENDED 100-500 ms), ETM flows recorded, no report suppression,
    /// nanosecond clock.
    #[must_use]
    pub const fn controlled_load() -> EgressMeterConfig {
        EgressMeterConfig {
            behaviour: EdgeBehaviour::ControlledLoad,
            t_meas: Duration::from_millis(200),
            record_etm_flows: true,
            suppression: None,
            tick: TickRate::NANOS,
        }
    }

    /// RFC 6662 (SM) with this crate's defaults: U = 1.5 (inside the suggested
    /// 1.2-2), T_meas 200 ms, no report suppression, nanosecond clock.
    #[must_use]
    pub const fn single_marking() -> EgressMeterConfig {
        EgressMeterConfig {
            behaviour: EdgeBehaviour::SingleMarking {
                u: U16F16::from_bits(3 << 15),
            },
            t_meas: Duration::from_millis(200),
            record_etm_flows: false,
            suppression: None,
            tick: TickRate::NANOS,
        }
    }

    /// The same configuration with the behaviour `behaviour` (CL, or SM with
    /// its U).
    #[must_use]
    pub const fn with_behaviour(mut self, behaviour: EdgeBehaviour) -> EgressMeterConfig {
        self.behaviour = behaviour;
        self
    }

    /// The same configuration with a T_meas of `t_meas`.
    #[must_use]
    pub const fn with_t_meas(mut self, t_meas: Duration) -> EgressMeterConfig {
        self.t_meas = t_meas;
        self
    }

    /// The same configuration with `record_etm_flows` set.
    #[must_use]
    pub const fn with_record_etm_flows(mut self, record_etm_flows: bool) -> EgressMeterConfig {
        self.record_etm_flows = record_etm_flows;
        self
    }

    /// The same configuration with report suppression `suppression`.
    #[must_use]
    pub const fn with_suppression(mut self, suppression: Option<Suppression>) -> EgressMeterConfig {
        self.suppression = suppression;
        self
    }

    /// The same configuration on the clock `tick`.
    #[must_use]
    pub const fn with_tick(mut self, tick: TickRate) -> EgressMeterConfig {
        self.tick = tick;
        self
    }
}

/// The precomputed constants of an [`EgressMeter`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EgressMeterProfile {
    sm: bool,
    t_meas: u64,
    hz: u64,
    record: bool,
    suppress: Option<(U1F31, u64)>,
}

impl EgressMeterProfile {
    /// Validates `c`.
    pub fn new(c: &EgressMeterConfig) -> Result<EgressMeterProfile, EdgeError> {
        let sm = match c.behaviour {
            EdgeBehaviour::ControlledLoad => false,
            EdgeBehaviour::SingleMarking { u } => {
                if u <= U16F16::ONE {
                    return Err(EdgeError::UNotAboveOne);
                }
                true
            }
        };
        let suppress = match c.suppression {
            None => None,
            Some(s) => {
                if s.cle_reporting_threshold > U1F31::ONE {
                    return Err(EdgeError::FractionAboveOne);
                }
                let t = duration_ticks(c.tick, s.t_maxsuppress)?;
                Some((s.cle_reporting_threshold, t))
            }
        };
        Ok(EgressMeterProfile {
            sm,
            t_meas: duration_ticks(c.tick, c.t_meas)?,
            hz: c.tick.hz(),
            record: c.record_etm_flows && !sm,
            suppress,
        })
    }
}

/// One measurement report of an [`EgressMeter`] (RFC 6661 / 6662 section 3.2).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Report<F, const M: usize> {
    /// Start of the measurement interval.
    pub start: Instant,
    /// End of the measurement interval (exclusive).
    pub end: Instant,
    /// NM bytes in the interval.
    pub nm_bytes: u64,
    /// ThM bytes in the interval (always 0 with SM: counted as ETM).
    pub thm_bytes: u64,
    /// ETM bytes in the interval.
    pub etm_bytes: u64,
    /// NM-rate in octets per second: `nm_bytes` x the clock's ticks per second
    /// / the interval's ticks, rounded down. The rates saturate at
    /// `u64::MAX`, which only an interval shorter than one second can reach
    /// (more than u64::MAX x its length in seconds bytes).
    pub nm_rate: u64,
    /// ThM-rate in octets per second (rounded down, saturating as `nm_rate`).
    pub thm_rate: u64,
    /// ETM-rate in octets per second (rounded down, saturating as `nm_rate`).
    pub etm_rate: u64,
    /// The congestion level estimate of the interval.
    pub cle: Cle,
    /// The flows seen with ETM packets (CL option), most recent last.
    pub etm_flows: heapless::Vec<F, M>,
}

/// The PCN-egress-node measurement of one ingress-egress aggregate (RFC 6661 /
/// RFC 6662 section 3.2): bytes of NM, ThM and ETM packets per `T_meas`, the
/// rates and CLE at the end of each interval, and optionally the flows seen
/// with ETM (CL; up to `M`, keeping the most recent distinct ones).
///
/// Calling late: a packet at or after the end of the interval closes it; the
/// report waits for the next [`poll`](Self::poll). Intervals in which nothing
/// at all was called are not reported.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct EgressMeter<F, const M: usize> {
    iv: Interval,
    nm: u64,
    thm: u64,
    etm: u64,
    flows: heapless::Vec<F, M>,
    last_report: Instant,
    prev_above: bool,
    pending: Option<Report<F, M>>,
}

impl<F: Copy + Eq, const M: usize> EgressMeter<F, M> {
    /// A meter whose first interval starts at `now`.
    #[must_use]
    pub fn new(p: &EgressMeterProfile, now: Instant) -> Self {
        EgressMeter {
            iv: Interval::first(now, p.t_meas),
            nm: 0,
            thm: 0,
            etm: 0,
            flows: heapless::Vec::new(),
            last_report: now,
            prev_above: false,
            pending: None,
        }
    }

    fn close(&mut self, p: &EgressMeterProfile, now: Instant) {
        let all = self.nm.saturating_add(self.thm).saturating_add(self.etm);
        let cle = Cle::new(self.thm.saturating_add(self.etm), all);
        let send = match p.suppress {
            None => true,
            Some((thr, tmax)) => {
                let above = cle.is_above(thr);
                // Section 3.2.3 steps 2 and 3.
                let send =
                    above || self.prev_above || self.iv.end.ticks_since(self.last_report) >= tmax;
                self.prev_above = above;
                send
            }
        };
        if send {
            let d = self.iv.end.ticks_since(self.iv.start);
            self.last_report = self.iv.end;
            self.pending = Some(Report {
                start: self.iv.start,
                end: self.iv.end,
                nm_bytes: self.nm,
                thm_bytes: self.thm,
                etm_bytes: self.etm,
                nm_rate: rate_of(self.nm, d, p.hz),
                thm_rate: rate_of(self.thm, d, p.hz),
                etm_rate: rate_of(self.etm, d, p.hz),
                cle,
                etm_flows: self.flows.clone(),
            });
        }
        self.nm = 0;
        self.thm = 0;
        self.etm = 0;
        self.flows.clear();
        self.iv.roll(now, p.t_meas);
    }

    /// One packet of flow `flow` of this aggregate at the egress at `now`.
    pub fn on_packet(
        &mut self,
        p: &EgressMeterProfile,
        now: Instant,
        len: u32,
        mark: PcnMark,
        flow: F,
    ) {
        if reached(now, self.iv.end) {
            self.close(p, now);
        }
        let l = u64::from(len);
        match mark {
            PcnMark::NotPcn => {}
            PcnMark::Nm => self.nm = self.nm.saturating_add(l),
            // RFC 6660 section 5.3: with excess-traffic-marking only, ThM is ETM.
            PcnMark::Thm if p.sm => self.etm = self.etm.saturating_add(l),
            PcnMark::Thm => self.thm = self.thm.saturating_add(l),
            PcnMark::Etm => {
                self.etm = self.etm.saturating_add(l);
                if p.record && M > 0 && !self.flows.contains(&flow) {
                    if self.flows.is_full() {
                        self.flows.remove(0);
                    }
                    let _ = self.flows.push(flow);
                }
            }
        }
    }

    /// Closes the interval if it has ended and returns its report (unless
    /// suppressed). Call until it returns `None`.
    pub fn poll(&mut self, p: &EgressMeterProfile, now: Instant) -> Option<Report<F, M>> {
        if self.pending.is_none() && reached(now, self.iv.end) {
            self.close(p, now);
        }
        self.pending.take()
    }

    /// When [`poll`](Self::poll) next has something to do.
    #[must_use]
    pub fn next_wakeup(&self) -> Instant {
        match &self.pending {
            Some(r) => r.end,
            None => self.iv.end,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::*;
    use netcond_core::{RandomSource, SplitMix64};

    const MS: u64 = 1_000_000;
    const S: u64 = 1_000_000_000;

    fn at(t: u64) -> Instant {
        Instant::from_ticks(t)
    }

    fn cl_meter(t_meas_ns: u64, suppression: Option<Suppression>) -> EgressMeterProfile {
        EgressMeterProfile::new(&EgressMeterConfig {
            t_meas: Duration::from_nanos(t_meas_ns),
            suppression,
            ..EgressMeterConfig::controlled_load()
        })
        .unwrap()
    }

    #[test]
    fn egress_meter_rates_cle_and_flows() {
        let p = cl_meter(100 * MS, None);
        let mut m: EgressMeter<u32, 4> = EgressMeter::new(&p, at(0));
        for (t, len, mark, flow) in [
            (1, 1000, PcnMark::Nm, 1),
            (2, 1000, PcnMark::Nm, 2),
            (3, 1000, PcnMark::Nm, 3),
            (4, 500, PcnMark::Thm, 1),
            (5, 500, PcnMark::Etm, 7),
            (6, 200, PcnMark::Etm, 8),
            (7, 100, PcnMark::Etm, 7),
            (8, 999, PcnMark::NotPcn, 9),
        ] {
            m.on_packet(&p, at(t * MS), len, mark, flow);
        }
        assert_eq!(m.poll(&p, at(100 * MS - 1)), None);
        assert_eq!(m.next_wakeup(), at(100 * MS));
        let r = m.poll(&p, at(100 * MS)).unwrap();
        assert_eq!((r.nm_bytes, r.thm_bytes, r.etm_bytes), (3000, 500, 800));
        assert_eq!((r.nm_rate, r.thm_rate, r.etm_rate), (30_000, 5_000, 8_000));
        assert_eq!(r.cle, Cle::new(1300, 4300));
        assert_eq!(r.etm_flows.as_slice(), &[7, 8]);
        assert_eq!((r.start, r.end), (at(0), at(100 * MS)));
        assert_eq!(m.poll(&p, at(100 * MS)), None);
        assert_eq!(m.next_wakeup(), at(200 * MS));
        // SM: ThM counts as ETM (RFC 6660 s5.3), CLE = ETM / (NM + ETM), no flow list.
        let ps = EgressMeterProfile::new(&EgressMeterConfig::single_marking()).unwrap();
        let mut s: EgressMeter<u32, 4> = EgressMeter::new(&ps, at(0));
        s.on_packet(&ps, at(0), 3000, PcnMark::Nm, 1);
        s.on_packet(&ps, at(0), 500, PcnMark::Thm, 1);
        s.on_packet(&ps, at(0), 800, PcnMark::Etm, 2);
        let r = s.poll(&ps, at(200 * MS)).unwrap();
        assert_eq!((r.nm_bytes, r.thm_bytes, r.etm_bytes), (3000, 0, 1300));
        assert_eq!((r.nm_rate, r.etm_rate), (15_000, 6_500));
        assert_eq!(r.cle, Cle::new(1300, 4300));
        assert!(r.etm_flows.is_empty());
        // The flow list keeps the most recent distinct flows.
        let mut m: EgressMeter<u32, 2> = EgressMeter::new(&p, at(0));
        for f in [1, 2, 1, 3] {
            m.on_packet(&p, at(0), 100, PcnMark::Etm, f);
        }
        assert_eq!(m.poll(&p, at(S)).unwrap().etm_flows.as_slice(), &[2, 3]);
    }

    #[test]
    fn egress_meter_called_late() {
        let p = cl_meter(100 * MS, None);
        let mut m: EgressMeter<u8, 1> = EgressMeter::new(&p, at(0));
        m.on_packet(&p, at(50 * MS), 100, PcnMark::Nm, 0);
        // A packet in the next interval closes the first; its report waits.
        m.on_packet(&p, at(150 * MS), 200, PcnMark::Nm, 0);
        assert_eq!(m.next_wakeup(), at(100 * MS));
        let r = m.poll(&p, at(160 * MS)).unwrap();
        assert_eq!((r.nm_bytes, r.end), (100, at(100 * MS)));
        assert_eq!(m.poll(&p, at(160 * MS)), None);
        let r = m.poll(&p, at(200 * MS)).unwrap();
        assert_eq!((r.nm_bytes, r.start), (200, at(100 * MS)));
        // Polled 0.8 s late: one report, and the grid carries on at 1.0 s.
        let r = m.poll(&p, at(S)).unwrap();
        assert_eq!(
            (r.nm_bytes, r.start, r.end),
            (0, at(200 * MS), at(300 * MS))
        );
        assert_eq!(m.next_wakeup(), at(1_100 * MS));
    }

    #[test]
    fn egress_meter_report_suppression() {
        // RFC 6661 s3.2.3: report when CLE > threshold now or in the previous
        // interval, or T_maxsuppress has passed since the last report.
        let p = cl_meter(
            100 * MS,
            Some(Suppression {
                cle_reporting_threshold: U1F31::ZERO,
                t_maxsuppress: Duration::from_nanos(450 * MS),
            }),
        );
        let mut m: EgressMeter<u8, 1> = EgressMeter::new(&p, at(0));
        let mut sent = [false; 12];
        for (i, s) in sent.iter_mut().enumerate() {
            let t0 = i as u64 * 100 * MS;
            let mark = if i == 2 { PcnMark::Etm } else { PcnMark::Nm };
            m.on_packet(&p, at(t0), 100, mark, 0);
            *s = m.poll(&p, at(t0 + 100 * MS)).is_some();
        }
        // 0-1: silent (first report due 450 ms after start: interval ending at 500 ms);
        // 2: CLE > 0; 3: the previous was above; then every 500 ms (5 intervals).
        let expect = [
            false, false, true, true, false, false, false, false, true, false, false, false,
        ];
        assert_eq!(sent, expect);
    }

    #[test]
    fn egress_meter_counts_every_byte_once() {
        // Random stream, polled at each wakeup: the reports add up to the input,
        // intervals tile the time line, and late or not, nothing is counted twice.
        for careful in [true, false] {
            let p = cl_meter(7 * MS, None);
            let mut m: EgressMeter<u8, 4> = EgressMeter::new(&p, at(0));
            let mut r = SplitMix64::new(11);
            let (mut now, mut fed, mut reported) = (0u64, [0u64; 3], [0u64; 3]);
            let mut last_end = at(0);
            let mut take = |rep: Report<u8, 4>, reported: &mut [u64; 3]| {
                assert!(rep.start.ticks() >= last_end.ticks());
                assert_eq!(rep.end.ticks() - rep.start.ticks(), 7 * MS);
                last_end = rep.end;
                reported[0] += rep.nm_bytes;
                reported[1] += rep.thm_bytes;
                reported[2] += rep.etm_bytes;
                assert_eq!(
                    rep.cle,
                    Cle::new(
                        rep.thm_bytes + rep.etm_bytes,
                        rep.nm_bytes + rep.thm_bytes + rep.etm_bytes
                    )
                );
            };
            // Miri interprets every instruction: a shorter stream there.
            let n = if cfg!(miri) { 300 } else { 50_000 };
            for _ in 0..n {
                now += u64::from(r.below(200_000));
                if careful {
                    while m.next_wakeup().ticks() <= now {
                        let w = m.next_wakeup();
                        if let Some(rep) = m.poll(&p, w) {
                            take(rep, &mut reported);
                        }
                    }
                } else if r.below(50) == 0 {
                    while let Some(rep) = m.poll(&p, at(now)) {
                        take(rep, &mut reported);
                    }
                }
                let mark =
                    [PcnMark::Nm, PcnMark::Thm, PcnMark::Etm, PcnMark::NotPcn][r.below(4) as usize];
                let len = r.below(1500);
                if let Some(i) = [PcnMark::Nm, PcnMark::Thm, PcnMark::Etm]
                    .iter()
                    .position(|x| *x == mark)
                {
                    fed[i] += u64::from(len);
                }
                m.on_packet(&p, at(now), len, mark, r.below(10) as u8);
            }
            while let Some(rep) = m.poll(&p, at(now + S)) {
                take(rep, &mut reported);
            }
            if careful {
                assert_eq!(reported, fed);
            } else {
                // Unpolled intervals may be dropped (only the latest waits), never doubled.
                assert!(reported.iter().zip(fed.iter()).all(|(r, f)| r <= f));
            }
        }
    }
}
