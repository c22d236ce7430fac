//! PIE: Linux's `sch_pie` and RFC 8033's pseudocode.

use super::*;

/// Linux's `sch_pie` with timestamps (`pie_drop_early`, `pie_qdisc_enqueue`,
/// `pie_process_dequeue`, `pie_calculate_probability`), transcribed with
/// 128-bit intermediates and explicit reductions modulo 2^64 where the C code
/// relies on `u64` and `s64` wrap-around.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinuxPie {
    /// The newest instant seen.
    pub last: Instant,
    /// When the timer fires next.
    pub next_update: Instant,
    /// `qdelay` (psched ticks).
    pub qdelay: u64,
    /// `qdelay_old`.
    pub qdelay_old: u64,
    /// `burst_time`.
    pub burst_time: u64,
    /// `dq_tstamp` (`u64::MAX` for `DTIME_INVALID`).
    pub dq_tstamp: u64,
    /// `prob`.
    pub prob: u64,
    /// `accu_prob`.
    pub accu_prob: u64,
}

pub(crate) const M64: u128 = 1 << 64;

/// `x mod 2^64` for any signed 128-bit value.
pub(crate) fn wrap(x: i128) -> u64 {
    x.rem_euclid(M64 as i128) as u64
}

/// A `u64` read as C's `s64`.
pub(crate) fn as_s64(x: u64) -> i128 {
    if x >= 1 << 63 {
        i128::from(x) - M64 as i128
    } else {
        i128::from(x)
    }
}

impl LinuxPie {
    /// `pie_vars_init` on zeroed memory; first update one T_UPDATE after `now`.
    #[must_use]
    pub fn new(p: &crate::PieProfile, now: Instant) -> LinuxPie {
        LinuxPie {
            last: now,
            next_update: Instant::from_ticks(wrap(
                i128::from(now.ticks()) + i128::from(p.t_update),
            )),
            qdelay: 0,
            qdelay_old: 0,
            burst_time: p.burst,
            dq_tstamp: u64::MAX,
            prob: 0,
            accu_prob: 0,
        }
    }

    fn clock(&mut self, now: Instant) {
        if now.ticks().wrapping_sub(self.last.ticks()) < 1 << 63 {
            self.last = now;
        }
    }

    /// `pie_qdisc_enqueue`'s decision.
    pub fn enqueue<R: netcond_core::RandomSource>(
        &mut self,
        p: &crate::PieProfile,
        now: Instant,
        pkt: Head,
        qlen: u32,
        backlog: u64,
        rng: &mut R,
    ) -> crate::Verdict {
        self.clock(now);
        let max = i128::from(crate::MAX_PROB);
        let v = if qlen >= p.limit {
            crate::Verdict::Drop
        } else {
            let early = self.drop_early(p, backlog, pkt.len, rng);
            if !early {
                crate::Verdict::Deliver
            } else if p.ecn && i128::from(self.prob) <= max / 10 && pkt.ecn_capable {
                crate::Verdict::Mark
            } else {
                crate::Verdict::Drop
            }
        };
        if v == crate::Verdict::Drop {
            self.accu_prob = 0;
        }
        v
    }

    /// `pie_drop_early(backlog, packet_size)`.
    pub fn drop_early<R: netcond_core::RandomSource>(
        &mut self,
        p: &crate::PieProfile,
        backlog: u64,
        len: u32,
        rng: &mut R,
    ) -> bool {
        let max = i128::from(crate::MAX_PROB);
        if self.burst_time > 0 {
            return false;
        }
        if 2 * i128::from(self.qdelay) < i128::from(p.target) - i128::from(p.target % 2)
            && i128::from(self.prob) < max / 5
        {
            return false;
        }
        if i128::from(backlog) < 2 * i128::from(p.mtu) {
            return false;
        }
        let local = if p.bytemode && len <= p.mtu {
            wrap(i128::from(len) * (i128::from(self.prob) / i128::from(p.mtu)))
        } else {
            self.prob
        };
        self.accu_prob = if local == 0 {
            0
        } else {
            wrap(i128::from(self.accu_prob) + i128::from(local))
        };
        if i128::from(self.accu_prob) < (max / 100) * 85 {
            return false;
        }
        if i128::from(self.accu_prob) >= (max / 2) * 17 {
            return true;
        }
        let hi = u64::from(rng.next_u32());
        let lo = u64::from(rng.next_u32());
        let rnd = hi * (1 << 32) + lo;
        if rnd / 256 < local {
            self.accu_prob = 0;
            return true;
        }
        false
    }

    /// `pie_process_dequeue` with timestamps.
    pub fn dequeue(&mut self, p: &crate::PieProfile, now: Instant, head: Head, backlog: u64) {
        self.clock(now);
        let now = p.psched(self.last);
        self.qdelay = wrap(i128::from(now) - i128::from(p.psched(head.enqueued)));
        let mut dtime: u64 = 0;
        if self.dq_tstamp != u64::MAX {
            dtime = wrap(i128::from(now) - i128::from(self.dq_tstamp)) % (1 << 32);
        }
        self.dq_tstamp = now;
        if backlog == 0 {
            self.qdelay = 0;
        }
        if dtime == 0 {
            return;
        }
        if self.burst_time > 0 {
            if self.burst_time > dtime {
                self.burst_time -= dtime;
            } else {
                self.burst_time = 0;
            }
        }
    }

    /// The timer: `pie_calculate_probability` when due, re-armed from now.
    pub fn timer(&mut self, p: &crate::PieProfile, now: Instant, backlog: u64) -> bool {
        self.clock(now);
        let ahead = self.next_update.ticks().wrapping_sub(self.last.ticks());
        if ahead > 0 && ahead <= p.t_update {
            return false;
        }
        self.calculate_probability(p, backlog);
        self.next_update =
            Instant::from_ticks(wrap(i128::from(self.last.ticks()) + i128::from(p.t_update)));
        true
    }

    /// `pie_calculate_probability(backlog)`.
    pub fn calculate_probability(&mut self, p: &crate::PieProfile, backlog: u64) {
        let max = i128::from(crate::MAX_PROB);
        let qdelay = self.qdelay;
        let qdelay_old = self.qdelay_old;
        let mut update_prob = !(qdelay == 0 && backlog != 0);
        let (mut alpha, mut beta) = (i128::from(p.alpha), i128::from(p.beta));
        if i128::from(self.prob) < max / 10 {
            alpha /= 2;
            beta /= 2;
            let mut power = 100;
            while i128::from(self.prob) < max / power && power <= 1_000_000 {
                alpha /= 4;
                beta /= 4;
                power *= 10;
            }
        }
        // u64 products and sums, then read as s64.
        let sum = wrap(
            alpha * i128::from(wrap(i128::from(qdelay) - i128::from(p.target)))
                + beta * i128::from(wrap(i128::from(qdelay) - i128::from(qdelay_old))),
        );
        let mut delta = as_s64(sum);
        let old = self.prob;
        if delta > max / 50 && i128::from(self.prob) >= max / 10 {
            delta = (max / 100) * 2;
        }
        if u128::from(qdelay) * 64 > 250_000_000 + 63 {
            delta = as_s64(wrap(delta + max / 50));
        }
        self.prob = wrap(i128::from(self.prob) + delta);
        if delta > 0 {
            if self.prob < old {
                self.prob = crate::MAX_PROB;
                update_prob = false;
            }
        } else if self.prob > old {
            self.prob = 0;
        }
        if qdelay == 0 && qdelay_old == 0 && update_prob {
            self.prob -= self.prob / 64;
        }
        if p.bound_prob && i128::from(self.prob) > max {
            self.prob = crate::MAX_PROB;
        }
        if 2 * i128::from(qdelay) < i128::from(p.target) - i128::from(p.target % 2)
            && 2 * i128::from(self.qdelay_old) < i128::from(p.target) - i128::from(p.target % 2)
            && self.prob == 0
        {
            self.burst_time = p.burst;
            self.dq_tstamp = u64::MAX;
            self.accu_prob = 0;
        }
        self.qdelay_old = qdelay;
    }

    /// Moves the clock to `now` (serial), as every call does.
    pub fn advance(&mut self, now: Instant) {
        self.clock(now);
    }
}

/// RFC 8033's pseudocode (Appendix B's `enque`, `drop_early`, `deque` and
/// `calculate_drop_prob`, with sections 4.1, 4.2, 4.4, 5.1, 5.2, 5.4 and 5.5),
/// written out statement by statement in exact integer arithmetic: times in
/// the caller's ticks, probabilities as fractions of `MAX_PROB`.
///
/// The update's exact result is generally not a whole number of units; the
/// model keeps its floor in `drop_prob_` and reports in `last_exact` whether
/// the exact value had a fractional part. A differential test copies the
/// state machine's probability into `drop_prob_` before each step (the
/// state machine may round the decay one unit further down, a bound the test
/// checks), so that both start every step from the same state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RfcPie {
    /// The newest instant seen.
    pub last: Instant,
    /// When the next `calculate_drop_prob` is due.
    pub next_update: Instant,
    /// `burst_allowance_` (ticks).
    pub burst_allowance_: u64,
    /// `drop_prob_` (units of `1 / MAX_PROB`).
    pub drop_prob_: u64,
    /// `accu_prob_`.
    pub accu_prob_: u64,
    /// `qdelay_old_` (ticks).
    pub qdelay_old_: u64,
    /// `current_qdelay` (ticks).
    pub current_qdelay: u64,
    /// `in_measurement_`.
    pub in_measurement_: bool,
    /// `dq_count_` (bytes).
    pub dq_count_: u64,
    /// `measurement_start_`.
    pub measurement_start_: u64,
    /// `avg_dq_time_` (ticks).
    pub avg_dq_time_: u64,
    /// The floor of the last update's exact result, and whether that result
    /// had a fractional part.
    pub last_exact: (u64, bool),
}

impl RfcPie {
    /// The RFC's initial state (every variable reset to 0, the burst
    /// allowance to MAX_BURST); first update one T_UPDATE after `now`.
    #[must_use]
    pub fn new(p: &crate::PieProfile, now: Instant) -> RfcPie {
        RfcPie {
            last: now,
            next_update: Instant::from_ticks(wrap(
                i128::from(now.ticks()) + i128::from(p.t_update),
            )),
            burst_allowance_: p.burst_ticks,
            drop_prob_: 0,
            accu_prob_: 0,
            qdelay_old_: 0,
            current_qdelay: 0,
            in_measurement_: false,
            dq_count_: 0,
            measurement_start_: 0,
            avg_dq_time_: 0,
            last_exact: (0, false),
        }
    }

    fn clock(&mut self, now: Instant) {
        if now.ticks().wrapping_sub(self.last.ticks()) < 1 << 63 {
            self.last = now;
        }
    }

    /// `x < num / den` for the probability `x` in units of `1 / MAX_PROB`.
    fn below(x: u64, num: u128, den: u128) -> bool {
        u128::from(x) * den < num * u128::from(crate::MAX_PROB)
    }

    /// `drop_early()`: true for DROP.
    fn drop_early<R: netcond_core::RandomSource>(
        &mut self,
        p: &crate::PieProfile,
        byte_length: u64,
        rng: &mut R,
    ) -> bool {
        // if ((qdelay_old_ < QDELAY_REF/2 && drop_prob_ < 0.2)
        //     || (queue_.byte_length() <= 2 * MEAN_PKTSIZE)) return ENQUE;
        if (2 * u128::from(self.qdelay_old_) < u128::from(p.target_ticks)
            && Self::below(self.drop_prob_, 2, 10))
            || u128::from(byte_length) <= 2 * u128::from(p.mtu)
        {
            return false;
        }
        if p.derandomize {
            // if (drop_prob_ == 0) accu_prob_ = 0;
            if self.drop_prob_ == 0 {
                self.accu_prob_ = 0;
            }
            // accu_prob_ += drop_prob_;
            self.accu_prob_ = self.accu_prob_.saturating_add(self.drop_prob_);
            // if (accu_prob_ < 0.85) return ENQUE;
            if Self::below(self.accu_prob_, 85, 100) {
                return false;
            }
            // if (accu_prob_ >= 8.5) return DROP;
            if !Self::below(self.accu_prob_, 85, 10) {
                return true;
            }
        }
        // double u = random();
        let hi = u128::from(rng.next_u32());
        let lo = u128::from(rng.next_u32());
        let u_num = (hi << 32) | lo; // u = u_num / 2^64
                                     // if (u < drop_prob_) { accu_prob_ = 0; return DROP; }
        if u_num * u128::from(crate::MAX_PROB) < u128::from(self.drop_prob_) << 64 {
            self.accu_prob_ = 0;
            return true;
        }
        false
    }

    /// `enque(packet)`: the verdict for an arriving packet, with `qlen` and
    /// `byte_length` the packets and bytes queued before it.
    pub fn enque<R: netcond_core::RandomSource>(
        &mut self,
        p: &crate::PieProfile,
        now: Instant,
        pkt: Head,
        qlen: u32,
        byte_length: u64,
        rng: &mut R,
    ) -> crate::Verdict {
        self.clock(now);
        let v;
        // if (queue_.is_full()) { drop(packet); accu_prob_ = 0; }
        if qlen >= p.limit {
            v = crate::Verdict::Drop;
            self.accu_prob_ = 0;
        // else if (burst_allowance_ == 0 && drop_early() == DROP)
        } else if self.burst_allowance_ == 0 && self.drop_early(p, byte_length, rng) {
            // if (ecn && packet.ecn() && drop_prob_ < mark_ecnth) mark
            if p.ecn && pkt.ecn_capable && Self::below(self.drop_prob_, 1, 10) {
                v = crate::Verdict::Mark;
            } else {
                v = crate::Verdict::Drop;
                self.accu_prob_ = 0;
            }
        } else {
            v = crate::Verdict::Deliver;
        }
        // if (drop_prob_ == 0 && current_qdelay < QDELAY_REF/2
        //     && qdelay_old_ < QDELAY_REF/2) burst_allowance_ = MAX_BURST;
        if self.drop_prob_ == 0
            && 2 * u128::from(self.current_qdelay) < u128::from(p.target_ticks)
            && 2 * u128::from(self.qdelay_old_) < u128::from(p.target_ticks)
        {
            self.burst_allowance_ = p.burst_ticks;
        }
        v
    }

    /// `deque(packet)`, `byte_length` the bytes left after it.
    pub fn deque(&mut self, p: &crate::PieProfile, now: Instant, head: Head, byte_length: u64) {
        self.clock(now);
        let now = self.last.ticks();
        if p.estimator == crate::PieEstimator::Timestamp {
            self.current_qdelay = if byte_length == 0 {
                0
            } else {
                self.last.ticks_since(head.enqueued)
            };
            return;
        }
        if self.in_measurement_ {
            self.dq_count_ = self.dq_count_.saturating_add(u64::from(head.len));
            if self.dq_count_ >= crate::DQ_THRESHOLD {
                let dq_time = wrap(i128::from(now) - i128::from(self.measurement_start_));
                if self.avg_dq_time_ == 0 {
                    self.avg_dq_time_ = dq_time;
                } else {
                    // weight = DQ_THRESHOLD / 2^16;
                    // avg = dq_time * weight + avg * (1 - weight)
                    let w_num = u128::from(crate::DQ_THRESHOLD);
                    let w_den = 1u128 << 16;
                    let exact_num = u128::from(dq_time) * w_num
                        + u128::from(self.avg_dq_time_) * (w_den - w_num);
                    self.avg_dq_time_ = (exact_num / w_den) as u64;
                }
                self.in_measurement_ = false;
            }
        }
        if byte_length >= crate::DQ_THRESHOLD && !self.in_measurement_ {
            self.in_measurement_ = true;
            self.measurement_start_ = now;
            self.dq_count_ = 0;
        }
    }

    /// The timer: `calculate_drop_prob()` when due, re-armed from now.
    pub fn calculate_drop_prob(
        &mut self,
        p: &crate::PieProfile,
        now: Instant,
        byte_length: u64,
    ) -> bool {
        self.clock(now);
        let ahead = self.next_update.ticks().wrapping_sub(self.last.ticks());
        if ahead > 0 && ahead <= p.t_update {
            return false;
        }
        let max = i128::from(crate::MAX_PROB);
        if p.estimator == crate::PieEstimator::DepartureRate {
            // current_qdelay = queue_.byte_length() * avg_dq_time_ / DQ_THRESHOLD
            let d = u128::from(byte_length) * u128::from(self.avg_dq_time_)
                / u128::from(crate::DQ_THRESHOLD);
            self.current_qdelay = u64::try_from(d).unwrap_or(u64::MAX);
        }
        // p = alpha * (current_qdelay - QDELAY_REF) + beta * (current_qdelay
        //     - qdelay_old_), as the fraction num / den of MAX_PROB units.
        let secs = |t: u64, r: u64| i128::from(t) - i128::from(r); // over hz
        let mut num = (i128::from(p.alpha16) * secs(self.current_qdelay, p.target_ticks)
            + i128::from(p.beta16) * secs(self.current_qdelay, self.qdelay_old_))
            * max;
        let mut den = 16 * i128::from(p.hz);
        // if (drop_prob_ < 0.000001) p /= 2048; else if ... (section 4.2)
        let x = self.drop_prob_;
        den *= if Self::below(x, 1, 1_000_000) {
            2048
        } else if Self::below(x, 1, 100_000) {
            512
        } else if Self::below(x, 1, 10_000) {
            128
        } else if Self::below(x, 1, 1_000) {
            32
        } else if Self::below(x, 1, 100) {
            8
        } else if Self::below(x, 1, 10) {
            2
        } else {
            1
        };
        // if (drop_prob_ >= 0.1 && p > 0.02) p = 0.02;   (section 5.5)
        // p > 0.02 <=> 50 num > den MAX_PROB, compared on the quotient.
        let (q, r) = (num.div_euclid(den), num.rem_euclid(den));
        let over = if q > max / 50 + 1 {
            true
        } else if q < max / 50 - 1 {
            false
        } else {
            50 * r > (max - 50 * q) * den
        };
        if !Self::below(x, 1, 10) && over {
            num = max;
            den = 50;
        }
        // drop_prob_ += p: whole + frac / den.
        let (q, r) = (num.div_euclid(den), num.rem_euclid(den));
        let mut whole = (i128::from(x) + q).clamp(-(1 << 62), 1 << 62);
        let mut frac = (r, den);
        // if (current_qdelay == 0 && qdelay_old_ == 0) drop_prob_ *= 0.98;
        if self.current_qdelay == 0 && self.qdelay_old_ == 0 {
            // 49 (whole + r / den) / 50 = a + (b den + 49 r) / (50 den)
            let (a, b) = ((49 * whole).div_euclid(50), (49 * whole).rem_euclid(50));
            let top = b * frac.1 + 49 * frac.0;
            whole = a + top.div_euclid(50 * frac.1);
            frac = (top.rem_euclid(50 * frac.1), 50 * frac.1);
        }
        // Bound drop probability to [0, 1].
        let (floor, fractional) = if whole < 0 {
            (0, false)
        } else if whole >= max {
            (crate::MAX_PROB, false)
        } else {
            (whole as u64, frac.0 != 0)
        };
        self.drop_prob_ = floor;
        self.last_exact = (floor, fractional);
        // qdelay_old_ = current_qdelay;
        self.qdelay_old_ = self.current_qdelay;
        // burst_allowance_ = max(0, burst_allowance_ - T_UPDATE);
        self.burst_allowance_ = self.burst_allowance_.saturating_sub(p.t_update);
        self.next_update =
            Instant::from_ticks(wrap(i128::from(self.last.ticks()) + i128::from(p.t_update)));
        true
    }
}
