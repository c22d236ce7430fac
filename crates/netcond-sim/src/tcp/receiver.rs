//! The TCP receiver: cumulative ACKs, SACK blocks, ECN echo, optional delayed ACKs.

use std::collections::VecDeque;

use super::{Ack, Segment, TcpConfig, MAX_SACK_BLOCKS};

/// Counters kept by a [`TcpReceiver`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// Segments delivered in order to the application (goodput), each counted once.
    pub delivered: u64,
    /// Data segments received, duplicates included.
    pub received: u64,
    /// Segments received that had already been received.
    pub duplicates: u64,
    /// Segments that arrived with CE set.
    pub ce_received: u64,
    /// ACKs sent.
    pub acks_sent: u64,
}

/// A TCP receiver for one flow.
#[derive(Clone, Debug)]
pub struct TcpReceiver {
    cfg: TcpConfig,
    flow: u32,
    rcv_nxt: u64,
    /// `ooo[i]`: segment `rcv_nxt + 1 + i` has been received.
    ooo: VecDeque<bool>,
    ece: bool,
    ts_recent: u64,
    unacked: u32,
    delack_deadline: Option<u64>,
    stats: ReceiverStats,
}

impl TcpReceiver {
    /// A receiver for `flow`.
    #[must_use]
    pub fn new(cfg: TcpConfig, flow: u32) -> TcpReceiver {
        TcpReceiver {
            cfg,
            flow,
            rcv_nxt: 0,
            ooo: VecDeque::new(),
            ece: false,
            ts_recent: 0,
            unacked: 0,
            delack_deadline: None,
            stats: ReceiverStats::default(),
        }
    }

    /// Next in-order segment expected.
    #[must_use]
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// Counters.
    #[must_use]
    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }

    /// Payload bytes delivered in order (goodput bytes).
    #[must_use]
    pub fn goodput_bytes(&self) -> u64 {
        self.stats.delivered * u64::from(self.cfg.mss)
    }

    /// When [`TcpReceiver::on_timer`] must be called (the delayed-ACK timer).
    #[must_use]
    pub fn deadline(&self) -> Option<u64> {
        self.delack_deadline
    }

    fn has_ooo(&self) -> bool {
        self.ooo.iter().any(|&b| b)
    }

    fn make_ack(&mut self, recent: Option<u64>) -> Ack {
        let mut ack = Ack {
            flow: self.flow,
            ack: self.rcv_nxt,
            sack: [(0, 0); MAX_SACK_BLOCKS],
            nsack: 0,
            ece: self.ece,
            tsecr: self.ts_recent,
        };
        if self.cfg.sack {
            let max = usize::from(self.cfg.sack_blocks).clamp(1, MAX_SACK_BLOCKS);
            // Runs of received segments above rcv_nxt, highest first.
            let base = self.rcv_nxt + 1;
            let mut runs: [(u64, u64); 64] = [(0, 0); 64];
            let mut n = 0;
            let mut i = self.ooo.len();
            while i > 0 && n < runs.len() {
                i -= 1;
                if self.ooo[i] {
                    let end = i;
                    while i > 0 && self.ooo[i - 1] {
                        i -= 1;
                    }
                    runs[n] = (base + i as u64, base + end as u64 + 1);
                    n += 1;
                }
            }
            // RFC 2018 section 4: the first block holds the segment that
            // triggered this ACK; the others follow, most recent (highest) first.
            let first = recent.and_then(|r| runs[..n].iter().position(|&(s, e)| s <= r && r < e));
            let mut k = 0;
            if let Some(f) = first {
                ack.sack[0] = runs[f];
                k = 1;
            }
            for (j, &r) in runs[..n].iter().enumerate() {
                if k >= max {
                    break;
                }
                if Some(j) != first {
                    ack.sack[k] = r;
                    k += 1;
                }
            }
            ack.nsack = k as u8;
        }
        self.unacked = 0;
        self.delack_deadline = None;
        self.stats.acks_sent += 1;
        ack
    }

    /// Process an arriving data segment; returns the ACK to send now, if any.
    pub fn on_segment(&mut self, now: u64, seg: &Segment) -> Option<Ack> {
        self.stats.received += 1;
        let mut ce_changed = false;
        if self.cfg.scalable {
            // RFC 8257 section 3.2: ECE echoes this segment's CE; CWR is ignored.
            ce_changed = self.ece != seg.ce;
            self.ece = seg.ce;
        } else if seg.cwr {
            // RFC 3168 section 6.1.3: CWR stops the echo; a CE on the same
            // packet restarts it.
            self.ece = false;
        }
        if seg.ce {
            self.ece = true;
            self.stats.ce_received += 1;
        }
        let had_ooo = self.has_ooo();
        let immediate;
        let mut recent = None;
        if seg.seq == self.rcv_nxt {
            // RFC 7323 section 4.3: echo the segment that advanced the window; with
            // an ACK pending (delayed), the earliest unacknowledged one.
            if self.unacked == 0 {
                self.ts_recent = seg.ts;
            }
            self.rcv_nxt += 1;
            self.stats.delivered += 1;
            // ooo[0] now stands for the new rcv_nxt: deliver what was buffered.
            while let Some(got) = self.ooo.pop_front() {
                if !got {
                    break; // the front now stands for rcv_nxt + 1 again
                }
                self.rcv_nxt += 1;
                self.stats.delivered += 1;
            }
            // RFC 5681 section 4.2: ACK at once when a hole is (partly) filled.
            immediate = had_ooo;
        } else if seg.seq > self.rcv_nxt {
            let idx = (seg.seq - self.rcv_nxt - 1) as usize;
            if idx >= self.ooo.len() {
                self.ooo.resize(idx + 1, false);
            }
            if self.ooo[idx] {
                self.stats.duplicates += 1;
            } else {
                self.ooo[idx] = true;
            }
            recent = Some(seg.seq);
            immediate = true; // out of order: duplicate ACK at once
        } else {
            self.stats.duplicates += 1;
            immediate = true;
        }
        while self.ooo.back() == Some(&false) {
            self.ooo.pop_back();
        }
        match self.cfg.delayed_ack_ns {
            None => Some(self.make_ack(recent)),
            Some(d) => {
                self.unacked += 1;
                if immediate || self.unacked >= 2 || seg.ce || ce_changed {
                    Some(self.make_ack(recent))
                } else {
                    if self.delack_deadline.is_none() {
                        self.delack_deadline = Some(now.saturating_add(d));
                    }
                    None
                }
            }
        }
    }

    /// The delayed-ACK timer: returns the ACK if it expired at `now`.
    pub fn on_timer(&mut self, now: u64) -> Option<Ack> {
        match self.delack_deadline {
            Some(d) if now >= d => Some(self.make_ack(None)),
            _ => None,
        }
    }
}
