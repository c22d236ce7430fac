//! Counters: per stage and decision, per output DSCP/ECN, and per interval for `--csv`.

use crate::chain::Stage;
use std::io::Write;

/// The decision names of a stage, in the order of its counter index.
pub fn categories(s: &Stage) -> &'static [&'static str] {
    match s {
        Stage::TrTcm { .. } | Stage::SrTcm { .. } | Stage::Rfc4115 { .. } | Stage::Dscp(_) => {
            &["green", "yellow", "red"]
        }
        Stage::DropRed | Stage::DropYellow => &["passed", "dropped"],
        Stage::PcnIngress { .. } => &["encoded"],
        Stage::PcnNode { .. } => &["not-pcn", "nm", "thm", "etm"],
        Stage::Rfc6660 => &["unchanged", "written"],
        Stage::Red { .. } => &["enqueued", "ce-marked", "early-drop", "forced-drop"],
        Stage::TrRas { .. } | Stage::SrRas { .. } => &["queued", "tail-drop"],
        Stage::Tbf { .. } => &["queued", "over-limit", "too-big"],
        Stage::Codel { .. }
        | Stage::FqCodel { .. }
        | Stage::Pie { .. }
        | Stage::FqPie { .. }
        | Stage::DualPi2 { .. } => &["enqueued", "ce-marked", "dropped", "over-limit"],
    }
}

/// Packets and bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Count {
    /// Packets.
    pub packets: u64,
    /// Bytes (IP length).
    pub bytes: u64,
}

impl Count {
    #[inline(always)]
    fn add(&mut self, len: u32) {
        self.packets += 1;
        self.bytes += u64::from(len);
    }
}

/// Every counter of a run.
pub struct Stats {
    /// Per stage, per category.
    pub stage: Vec<Vec<Count>>,
    /// Offset of each stage's first category in the flat interval vector.
    base: Vec<usize>,
    /// Forwarded IP packets by output TOS byte.
    pub by_tos: Vec<Count>,
    /// Dropped IP packets.
    pub dropped: Count,
    /// Forwarded IP packets.
    pub forwarded: Count,
    /// IP packets in.
    pub input: Count,
    /// Frames that are not IP (passed untouched; bytes are frame bytes).
    pub non_ip: Count,
    /// First and last arrival time, ns.
    pub first: Option<u64>,
    /// Last arrival.
    pub last: u64,
    /// Last departure.
    pub last_out: u64,
    /// Whether the chain has a queue stage.
    pub has_queues: bool,
    csv: Option<Csv>,
}

struct Csv {
    out: Box<dyn Write>,
    interval: u64,
    /// Start of the current interval.
    start: Option<u64>,
    /// Flat per-category counts, then forwarded, then dropped.
    cur: Vec<Count>,
}

impl Stats {
    /// Counters for a chain.
    pub fn new(chain: &[Stage]) -> Stats {
        let mut base = Vec::new();
        let mut n = 0;
        for s in chain {
            base.push(n);
            n += categories(s).len();
        }
        Stats {
            stage: chain
                .iter()
                .map(|s| vec![Count::default(); categories(s).len()])
                .collect(),
            base,
            by_tos: vec![Count::default(); 256],
            dropped: Count::default(),
            forwarded: Count::default(),
            input: Count::default(),
            non_ip: Count::default(),
            first: None,
            last: 0,
            last_out: 0,
            has_queues: chain.iter().any(Stage::is_queue),
            csv: None,
        }
    }

    /// Writes a per-interval time series to `out`, with this header.
    pub fn set_csv(
        &mut self,
        chain: &[Stage],
        mut out: Box<dyn Write>,
        interval_ns: u64,
    ) -> std::io::Result<()> {
        let mut h = String::from("time_s");
        for (i, s) in chain.iter().enumerate() {
            for c in categories(s) {
                h.push_str(&format!(
                    ",{}{}.{c}.packets,{}{}.{c}.bytes",
                    i + 1,
                    s.name(),
                    i + 1,
                    s.name()
                ));
            }
        }
        h.push_str(",forwarded.packets,forwarded.bytes,dropped.packets,dropped.bytes");
        writeln!(out, "{h}")?;
        let n = self
            .base
            .last()
            .map_or(0, |b| b + self.stage.last().map_or(0, Vec::len));
        self.csv = Some(Csv {
            out,
            interval: interval_ns.max(1),
            start: None,
            cur: vec![Count::default(); n + 2],
        });
        Ok(())
    }

    #[inline(always)]
    fn csv_at(&mut self, t: u64) -> Option<&mut Vec<Count>> {
        let first = self.first.unwrap_or(t);
        let c = self.csv.as_mut()?;
        let start = *c.start.get_or_insert(first);
        if t >= start + c.interval {
            let _ = c.flush_until(t, first);
        }
        Some(&mut c.cur)
    }

    /// An IP packet arrives.
    #[inline(always)]
    pub fn arrival(&mut self, t: u64, len: u32) {
        if self.first.is_none() {
            self.first = Some(t);
        }
        self.last = t;
        self.input.add(len);
    }

    /// A frame that is not IP.
    pub fn non_ip(&mut self, bytes: u64) {
        self.non_ip.packets += 1;
        self.non_ip.bytes += bytes;
    }

    /// Stage `stage` decided `cat` for a packet of `len` bytes at `t`.
    #[inline(always)]
    pub fn count(&mut self, stage: usize, cat: usize, len: u32, t: u64) {
        self.stage[stage][cat].add(len);
        if self.csv.is_some() {
            let k = self.base[stage] + cat;
            if let Some(c) = self.csv_at(t) {
                c[k].add(len);
            }
        }
    }

    /// An IP packet leaves the chain at `t` with TOS byte `tos`.
    #[inline(always)]
    pub fn leave(&mut self, t: u64, len: u32, tos: u8, dropped: bool) {
        if dropped {
            self.dropped.add(len);
        } else {
            self.forwarded.add(len);
            self.by_tos[usize::from(tos)].add(len);
        }
        self.last_out = self.last_out.max(t);
        if self.csv.is_some() {
            if let Some(c) = self.csv_at(t) {
                let n = c.len();
                c[n - 2 + usize::from(dropped)].add(len);
            }
        }
    }

    /// Writes the last interval and flushes the CSV output.
    pub fn finish_csv(&mut self) -> std::io::Result<()> {
        let first = self.first.unwrap_or(0);
        if let Some(c) = self.csv.as_mut() {
            if c.start.is_some() {
                c.row(first)?;
            }
            c.out.flush()?;
        }
        Ok(())
    }

    /// Seconds from the first to the last arrival.
    pub fn duration_ns(&self) -> u64 {
        self.last.saturating_sub(self.first.unwrap_or(self.last))
    }
}

impl Csv {
    fn row(&mut self, first: u64) -> std::io::Result<()> {
        let start = self.start.unwrap_or(first);
        let mut line = format!("{:.6}", (start - first) as f64 / 1e9);
        for c in &self.cur {
            line.push_str(&format!(",{},{}", c.packets, c.bytes));
        }
        writeln!(self.out, "{line}")?;
        for c in &mut self.cur {
            *c = Count::default();
        }
        Ok(())
    }

    fn flush_until(&mut self, t: u64, first: u64) -> std::io::Result<()> {
        while let Some(s) = self.start {
            if t < s + self.interval {
                break;
            }
            self.row(first)?;
            self.start = Some(s + self.interval);
        }
        Ok(())
    }
}
