//! The bulk TCP sender.

use std::collections::VecDeque;

use super::{Ack, Segment, TcpConfig};

const SACKED: u8 = 1;
/// Presumed lost (RFC 6675 IsLost, fast retransmit, NewReno partial ACK, or RTO).
const LOST: u8 = 2;
/// Retransmitted since it was last presumed lost.
const RETX: u8 = 4;
/// Retransmitted at least once (Karn's rule: no RTT sample).
const EVER_RETX: u8 = 8;

#[derive(Clone, Copy, Debug)]
struct Slot {
    sent_at: u64,
    flags: u8,
}

/// Counters kept by a [`TcpSender`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Data segments transmitted, retransmissions included.
    pub segments_sent: u64,
    /// Retransmitted segments.
    pub retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Loss recovery episodes entered on duplicate ACKs / SACK.
    pub fast_recoveries: u64,
    /// Window reductions caused by ECN-Echo.
    pub ecn_reductions: u64,
    /// Scalable senders only: segments newly delivered (cumulatively or
    /// selectively acknowledged for the first time).
    pub delivered: u64,
    /// Scalable senders only: of those, segments whose ACK carried ECN-Echo.
    pub delivered_ce: u64,
}

/// DCTCP's `alpha` is kept in units of 1/1024 (as Linux's `tcp_dctcp`).
pub const DCTCP_ALPHA_ONE: u32 = 1024;
/// DCTCP's gain g = 1/2^4 (RFC 8257 section 3.3 and section 4.2's suggested 1/16).
const DCTCP_SHIFT_G: u32 = 4;

/// An always-backlogged TCP sender (see the module docs for the algorithms).
#[derive(Clone, Debug)]
pub struct TcpSender {
    cfg: TcpConfig,
    flow: u32,
    /// Segments still to send (`u64::MAX`: unlimited).
    limit: u64,
    una: u64,
    nxt: u64,
    /// Per-segment state for `[una, nxt)`.
    board: VecDeque<Slot>,
    /// Some slot may carry SACKED, LOST or RETX (otherwise `pipe` is `nxt - una`).
    flagged: bool,
    cwnd: u64,
    ssthresh: u64,
    in_recovery: bool,
    recovery_point: u64,
    dupacks: u32,
    /// NewReno: duplicate ACKs since the last partial ACK (each lets a segment out).
    nosack_credit: u64,
    srtt: u64,
    rttvar: u64,
    has_rtt: bool,
    rto: u64,
    backoffs: u32,
    rto_deadline: Option<u64>,
    ecn_recover: u64,
    send_cwr: bool,
    /// DCTCP (scalable): the moving average of the marked fraction, in 1/1024.
    alpha: u32,
    /// DCTCP: segments delivered, and those with ECE, in the current window.
    win_delivered: u64,
    win_ce: u64,
    /// DCTCP: the window ends when `una` passes this.
    win_end: u64,
    started: bool,
    stats: SenderStats,
}

impl TcpSender {
    /// A sender for `flow` with an unlimited backlog.
    #[must_use]
    pub fn new(cfg: TcpConfig, flow: u32) -> TcpSender {
        let mss = u64::from(cfg.mss.max(1));
        TcpSender {
            cfg,
            flow,
            limit: u64::MAX,
            una: 0,
            nxt: 0,
            // Grows with the segments in flight; a large window is not reserved.
            board: VecDeque::with_capacity((cfg.window_segments() as usize + 1).min(64)),
            flagged: false,
            cwnd: mss * u64::from(cfg.initial_cwnd.max(1)),
            ssthresh: cfg.initial_ssthresh,
            in_recovery: false,
            recovery_point: 0,
            dupacks: 0,
            nosack_credit: 0,
            srtt: 0,
            rttvar: 0,
            has_rtt: false,
            rto: cfg.initial_rto_ns.clamp(cfg.min_rto_ns, cfg.max_rto_ns),
            backoffs: 0,
            rto_deadline: None,
            ecn_recover: 0,
            send_cwr: false,
            alpha: DCTCP_ALPHA_ONE,
            win_delivered: 0,
            win_ce: 0,
            win_end: 0,
            started: false,
            stats: SenderStats::default(),
        }
    }

    /// Send only `segments` segments in total (a finite transfer), then stop.
    #[must_use]
    pub fn with_limit(mut self, segments: u64) -> TcpSender {
        self.limit = segments;
        self
    }

    fn mss(&self) -> u64 {
        u64::from(self.cfg.mss.max(1))
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }

    /// Congestion window, bytes.
    #[must_use]
    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }

    /// Slow-start threshold, bytes.
    #[must_use]
    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    /// Current retransmission timeout, ns.
    #[must_use]
    pub fn rto(&self) -> u64 {
        self.rto
    }

    /// Smoothed RTT, ns (`None` before the first sample).
    #[must_use]
    pub fn srtt(&self) -> Option<u64> {
        self.has_rtt.then_some(self.srtt)
    }

    /// Oldest unacknowledged segment.
    #[must_use]
    pub fn snd_una(&self) -> u64 {
        self.una
    }

    /// Next new segment to send (one past the highest sent).
    #[must_use]
    pub fn snd_nxt(&self) -> u64 {
        self.nxt
    }

    /// DCTCP's `alpha` (scalable senders) in units of 1/[`DCTCP_ALPHA_ONE`]:
    /// the moving average of the fraction of delivered segments whose ACKs
    /// echoed CE, one sample per window of data.
    #[must_use]
    pub fn dctcp_alpha(&self) -> u32 {
        self.alpha
    }

    /// In SACK / NewReno loss recovery.
    #[must_use]
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// Counters.
    #[must_use]
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }

    /// Whether the whole limited transfer has been acknowledged.
    #[must_use]
    pub fn finished(&self) -> bool {
        self.una >= self.limit
    }

    /// When [`TcpSender::on_timer`] must be called next (the retransmission timer).
    #[must_use]
    pub fn deadline(&self) -> Option<u64> {
        self.rto_deadline
    }

    /// Start the transfer: sends the initial window.
    pub fn start(&mut self, now: u64, out: &mut Vec<Segment>) {
        if !self.started {
            self.started = true;
            self.transmit(now, out);
        }
    }

    /// RFC 6675 section 4 `pipe`: segments presumed in the network.
    fn pipe(&self) -> u64 {
        if !self.flagged {
            return (self.nxt - self.una).saturating_sub(self.nosack_credit);
        }
        let mut pipe: u64 = 0;
        for s in &self.board {
            if s.flags & SACKED == 0 {
                if s.flags & LOST == 0 {
                    pipe += 1;
                }
                if s.flags & RETX != 0 {
                    pipe += 1;
                }
            }
        }
        // NewReno: each duplicate ACK in recovery stands for a segment that left.
        pipe.saturating_sub(self.nosack_credit)
    }

    fn flight_bytes(&self) -> u64 {
        (self.nxt - self.una) * self.mss()
    }

    fn reduce_window(&mut self) {
        // RFC 5681 (4) / RFC 6675 step 4.2 / RFC 3168 section 6.1.2.
        self.ssthresh = (self.flight_bytes() / 2).max(2 * self.mss());
        self.cwnd = self.ssthresh;
    }

    /// RFC 8257 section 3.3: `cwnd = ssthresh = cwnd * (1 - alpha / 2)`, at
    /// least 2 SMSS (Linux `dctcp_ssthresh`: `cwnd - cwnd * alpha / 2048`).
    fn reduce_window_scalable(&mut self) {
        let cut = self.cwnd * u64::from(self.alpha) / (2 * u64::from(DCTCP_ALPHA_ONE));
        self.ssthresh = (self.cwnd - cut).max(2 * self.mss());
        self.cwnd = self.ssthresh;
    }

    /// DCTCP's bookkeeping for one ACK that newly delivered `delivered`
    /// segments: counts them (and, with ECE, as marked); when the
    /// cumulative ACK passes the window's end, folds the window's marked
    /// fraction into `alpha` (`alpha = (1 - g) alpha + g F`, Linux's integer
    /// steps) and starts the next window.
    fn dctcp_account(&mut self, delivered: u64, ece: bool) {
        self.stats.delivered += delivered;
        self.win_delivered += delivered;
        if ece {
            self.stats.delivered_ce += delivered;
            self.win_ce += delivered;
        }
        // RFC 8257 section 3.3 step 3: the observation window ends once
        // SND.UNA > DCTCP.WindowEnd (WindowEnd = SND.NXT when it started).
        if self.una <= self.win_end {
            return;
        }
        // Linux: alpha -= min_not_zero(alpha, alpha >> g).
        let a = self.alpha;
        let mut a = a - if a >> DCTCP_SHIFT_G == 0 {
            a
        } else {
            a >> DCTCP_SHIFT_G
        };
        if self.win_ce > 0 {
            let inc = (self.win_ce << (10 - DCTCP_SHIFT_G)) / self.win_delivered.max(1);
            a = (u64::from(a) + inc).min(u64::from(DCTCP_ALPHA_ONE)) as u32;
        }
        self.alpha = a;
        self.win_delivered = 0;
        self.win_ce = 0;
        self.win_end = self.nxt;
    }

    fn arm_timer(&mut self, now: u64) {
        self.rto_deadline = Some(now.saturating_add(self.rto));
    }

    /// Push one segment (`seq`) onto `out` and update the board.
    fn emit(&mut self, now: u64, seq: u64, retransmit: bool, out: &mut Vec<Segment>) {
        // RFC 3168 section 6.1.5: retransmissions are not ECT; a scalable
        // sender marks them ECT(1) too (RFC 8311 section 4.3).
        let ect = self.cfg.ecn && (!retransmit || self.cfg.scalable);
        let cwr = ect && self.send_cwr;
        if cwr {
            self.send_cwr = false;
        }
        out.push(Segment {
            flow: self.flow,
            seq,
            wire_len: self.cfg.wire_bytes(),
            retransmit,
            ect,
            ect1: ect && self.cfg.scalable,
            ce: false,
            cwr,
            ts: now,
        });
        self.stats.segments_sent += 1;
        if retransmit {
            self.stats.retransmits += 1;
        }
        if self.rto_deadline.is_none() {
            self.arm_timer(now);
        }
    }

    /// Send as much as `cwnd`, the receiver window and the backlog allow.
    fn transmit(&mut self, now: u64, out: &mut Vec<Segment>) {
        let mss = self.mss();
        let wnd = self.cfg.window_segments();
        // `pipe` is computed once and then grows by one per segment sent.
        let mut pipe = self.pipe();
        let mut from = 0;
        loop {
            if self.cwnd < (pipe + 1) * mss {
                break;
            }
            if self.flagged {
                // RFC 6675 NextSeg rule 1: the first segment presumed lost and not
                // yet retransmitted.
                let hole = (from..self.board.len())
                    .find(|&i| self.board[i].flags & (LOST | RETX | SACKED) == LOST);
                if let Some(i) = hole {
                    from = i + 1;
                    let s = &mut self.board[i];
                    s.flags |= RETX | EVER_RETX;
                    s.sent_at = now;
                    let seq = self.una + i as u64;
                    self.emit(now, seq, true, out);
                    pipe += 1;
                    continue;
                }
                from = self.board.len();
            }
            // Rule 2: new data within the receiver window.
            if self.nxt < self.limit && self.nxt - self.una < wnd {
                self.board.push_back(Slot {
                    sent_at: now,
                    flags: 0,
                });
                let seq = self.nxt;
                self.nxt += 1;
                self.emit(now, seq, false, out);
                pipe += 1;
                continue;
            }
            // Rule 3 (no new data allowed): in recovery, the first segment neither
            // SACKed nor retransmitted that has SACKed data above it.
            if self.in_recovery && self.cfg.sack {
                let top = self.board.iter().rposition(|s| s.flags & SACKED != 0);
                let cand = self
                    .board
                    .iter()
                    .position(|s| s.flags & (SACKED | RETX) == 0);
                if let (Some(top), Some(i)) = (top, cand) {
                    if i < top {
                        let s = &mut self.board[i];
                        s.flags |= RETX | EVER_RETX;
                        s.sent_at = now;
                        self.flagged = true;
                        let seq = self.una + i as u64;
                        self.emit(now, seq, true, out);
                        pipe += 1;
                        continue;
                    }
                }
            }
            break;
        }
    }

    /// Retransmit the first unacknowledged segment now (fast retransmit, NewReno
    /// partial ACK), whatever `pipe` is.
    fn retransmit_head(&mut self, now: u64, out: &mut Vec<Segment>) {
        let Some(s) = self.board.front_mut() else {
            return;
        };
        if s.flags & SACKED != 0 {
            return;
        }
        s.flags |= LOST | RETX | EVER_RETX;
        s.sent_at = now;
        self.flagged = true;
        let seq = self.una;
        self.emit(now, seq, true, out);
    }

    /// RFC 6675 IsLost for every segment: lost when `dupthresh` segments above it are SACKed.
    fn mark_lost_by_sack(&mut self) {
        let thresh = self.cfg.dupthresh.max(1);
        let mut above = 0u32;
        for s in self.board.iter_mut().rev() {
            if s.flags & SACKED != 0 {
                above += 1;
            } else if above >= thresh {
                s.flags |= LOST;
            }
        }
    }

    fn rtt_sample(&mut self, r: u64) {
        // RFC 6298 section 2.
        if self.has_rtt {
            let d = self.srtt.abs_diff(r);
            self.rttvar = (3 * self.rttvar + d) / 4;
            self.srtt = (7 * self.srtt + r) / 8;
        } else {
            self.srtt = r;
            self.rttvar = r / 2;
            self.has_rtt = true;
        }
        let rto = self
            .srtt
            .saturating_add(self.cfg.clock_granularity_ns.max(4 * self.rttvar));
        self.rto = rto.clamp(self.cfg.min_rto_ns, self.cfg.max_rto_ns);
    }

    /// Process an acknowledgement and push the segments it releases onto `out`.
    pub fn on_ack(&mut self, now: u64, ack: &Ack, out: &mut Vec<Segment>) {
        if ack.ack > self.nxt || ack.ack < self.una {
            // Acknowledges unsent data, or an old ACK reordered: ignore.
            return;
        }
        let mss = self.mss();
        // SACK scoreboard (RFC 6675 section 5 step "update the scoreboard").
        let mut new_sacked = 0u32;
        if self.cfg.sack {
            for &(s, e) in ack.sack_blocks() {
                let s = s.max(ack.ack);
                let e = e.min(self.nxt);
                let mut q = s;
                while q < e {
                    let slot = &mut self.board[(q - self.una) as usize];
                    if slot.flags & SACKED == 0 {
                        slot.flags |= SACKED;
                        new_sacked += 1;
                        self.flagged = true;
                    }
                    q += 1;
                }
            }
        }
        let cum = ack.ack > self.una;
        let mut newly_delivered = u64::from(new_sacked);
        if cum {
            let acked = ack.ack - self.una;
            if self.cfg.scalable {
                newly_delivered += self
                    .board
                    .iter()
                    .take(acked as usize)
                    .filter(|s| s.flags & SACKED == 0)
                    .count() as u64;
            }
            if self.cfg.timestamps {
                // RFC 7323 section 4.1: every ACK advancing the window gives a sample.
                self.rtt_sample(now.saturating_sub(ack.tsecr));
            } else {
                // Karn's rule: sample only from a segment never retransmitted.
                let last = self.board[(acked - 1) as usize];
                if last.flags & EVER_RETX == 0 {
                    self.rtt_sample(now.saturating_sub(last.sent_at));
                }
            }
            self.board.drain(..acked as usize);
            self.una = ack.ack;
            if self.flagged {
                self.flagged = self
                    .board
                    .iter()
                    .any(|s| s.flags & (SACKED | LOST | RETX) != 0);
            }
            self.backoffs = 0;
            self.dupacks = 0;
            if self.in_recovery {
                if self.una >= self.recovery_point {
                    // RFC 6675 / RFC 6582: recovery ends, cwnd = ssthresh.
                    self.in_recovery = false;
                    self.nosack_credit = 0;
                    self.cwnd = self.ssthresh;
                } else if !self.cfg.sack {
                    // NewReno partial ACK (RFC 6582 section 3.2 step 3): retransmit
                    // the first unacknowledged segment at once.
                    self.nosack_credit = 0;
                    self.retransmit_head(now, out);
                }
            } else if self.cwnd < self.ssthresh {
                // RFC 5681 (2): slow start.
                self.cwnd += (acked * mss).min(mss);
            } else {
                // RFC 5681 (3): congestion avoidance.
                self.cwnd += (mss * mss / self.cwnd).max(1);
            }
            if self.una < self.nxt {
                self.arm_timer(now); // RFC 6298 (5.3)
            } else {
                self.rto_deadline = None; // RFC 6298 (5.2)
            }
        } else if self.una < self.nxt && (new_sacked > 0 || !self.cfg.sack) {
            // A duplicate ACK (RFC 6675: one carrying new SACK information).
            self.dupacks += 1;
            if !self.cfg.sack && self.in_recovery {
                self.nosack_credit += 1;
            }
        }
        if self.cfg.sack && new_sacked > 0 {
            self.mark_lost_by_sack();
        }
        // Enter loss recovery (RFC 6675 section 5 step 4, RFC 6582 step 2), at
        // most once per window: only when the cumulative ACK is past the previous
        // RecoveryPoint.
        if !self.in_recovery && self.una < self.nxt && self.una >= self.recovery_point {
            let head_lost = self.board.front().is_some_and(|s| s.flags & LOST != 0);
            if self.dupacks >= self.cfg.dupthresh.max(1) || (self.cfg.sack && head_lost) {
                self.in_recovery = true;
                self.recovery_point = self.nxt;
                self.ecn_recover = self.nxt;
                self.stats.fast_recoveries += 1;
                self.reduce_window();
                if !self.cfg.sack {
                    self.nosack_credit = u64::from(self.dupacks);
                }
                // RFC 6675 step 4.3 / RFC 6582 step 2: the fast retransmit of the
                // first unacknowledged segment does not wait for pipe < cwnd.
                self.retransmit_head(now, out);
            }
        }
        // ECN-Echo (RFC 3168 section 6.1.2): at most once per window of data (only
        // an ACK for data sent after the last reduction may reduce again), and not
        // again for a window already reduced by loss recovery.
        if self.cfg.ecn && self.cfg.scalable {
            self.dctcp_account(newly_delivered, ack.ece);
        }
        if self.cfg.ecn && ack.ece && !self.in_recovery && self.una > self.ecn_recover {
            self.stats.ecn_reductions += 1;
            if self.cfg.scalable {
                self.reduce_window_scalable();
            } else {
                self.reduce_window();
            }
            self.ecn_recover = self.nxt;
            self.send_cwr = true;
        }
        self.transmit(now, out);
    }

    /// Handle the retransmission timer. Does nothing if it has not expired at `now`.
    pub fn on_timer(&mut self, now: u64, out: &mut Vec<Segment>) {
        let Some(d) = self.rto_deadline else { return };
        if now < d {
            return;
        }
        self.rto_deadline = None;
        if self.una >= self.nxt {
            return;
        }
        self.stats.timeouts += 1;
        if self.backoffs == 0 {
            // RFC 5681 (4): only the first timeout of a series lowers ssthresh.
            self.ssthresh = (self.flight_bytes() / 2).max(2 * self.mss());
        }
        self.cwnd = self.mss(); // loss window, RFC 5681 section 3.1
        self.backoffs += 1;
        self.rto = self.rto.saturating_mul(2).min(self.cfg.max_rto_ns); // RFC 6298 (5.5)
        self.in_recovery = false;
        self.dupacks = 0;
        self.nosack_credit = 0;
        // Do not enter fast recovery again for this window (RFC 6582 section 3.2 step 4).
        self.recovery_point = self.nxt;
        self.ecn_recover = self.nxt;
        self.send_cwr = false;
        // RFC 6675 section 5.1: everything not SACKed is presumed lost.
        for s in &mut self.board {
            if s.flags & SACKED == 0 {
                s.flags = (s.flags | LOST) & !RETX;
            }
        }
        self.flagged = !self.board.is_empty();
        self.transmit(now, out);
        if self.rto_deadline.is_none() {
            self.arm_timer(now);
        }
    }
}
