//! CoDel's dropping state over a run (RFC 8289 sections 3.3 and 5.5): each
//! episode from the dequeue that enters it to the one that leaves it, the
//! count it started with (1, or what the re-entry rule of section 5.5 kept),
//! the packets it dropped, and whether it ended because the queue ran empty.
//! The queue (module `queues`) records the episodes; [`table`] sums them.

use super::DumbbellOutcome;
use crate::engine::Time;
use crate::report::Table;

/// One stay in the dropping state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Episode {
    /// The dequeue instant that entered it, ns.
    pub start: Time,
    /// The instant that left it, ns (`None` while it lasts).
    pub end: Option<Time>,
    /// `count` right after entering (with the drop that entered it).
    pub entry_count: u32,
    /// Packets dropped in it, the entering drop included.
    pub drops: u32,
    /// It ended because the queue ran empty (else a head below TARGET).
    pub ended_empty: bool,
}

/// The episodes of a run, as the queue sees CoDel's state change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodelTrace {
    /// Every episode since the log's reset, in order.
    pub episodes: Vec<Episode>,
}

impl CodelTrace {
    /// Records one call's effect: CoDel was `was` dropping before it and is
    /// `now_dropping` after it, with `count`, at `t`; `dropped` if the call
    /// dropped a packet; `empty` if the call was the queue running empty.
    pub fn step(
        &mut self,
        t: Time,
        was: bool,
        now_dropping: bool,
        count: u32,
        dropped: bool,
        empty: bool,
    ) {
        if !was && now_dropping {
            self.episodes.push(Episode {
                start: t,
                entry_count: count,
                ..Episode::default()
            });
        }
        if let Some(e) = self.episodes.last_mut().filter(|e| e.end.is_none()) {
            if dropped {
                e.drops += 1;
            }
            if was && !now_dropping {
                e.end = Some(t);
                e.ended_empty = empty;
            }
        }
    }

    /// The sums of the episodes that ended by `end_of_run`, over a measured
    /// span of `span` ns (an episode still open is closed there).
    #[must_use]
    pub fn summary(&self, end_of_run: Time, span: u64) -> Summary {
        let n = self.episodes.len();
        let mut s = Summary {
            episodes: n,
            ..Summary::default()
        };
        if n == 0 {
            return s;
        }
        let mut durations: Vec<u64> = self
            .episodes
            .iter()
            .map(|e| e.end.unwrap_or(end_of_run).saturating_sub(e.start))
            .collect();
        let time: u64 = durations.iter().sum();
        durations.sort_unstable();
        let drops: u64 = self.episodes.iter().map(|e| u64::from(e.drops)).sum();
        s.per_second = n as f64 / (span as f64 / 1e9);
        s.median_ms = durations[n / 2] as f64 / 1e6;
        s.mean_ms = time as f64 / n as f64 / 1e6;
        s.time_share = time as f64 / span as f64;
        s.drops_per_episode = drops as f64 / n as f64;
        s.mean_entry_count = self
            .episodes
            .iter()
            .map(|e| f64::from(e.entry_count))
            .sum::<f64>()
            / n as f64;
        s.reentered = self.episodes.iter().filter(|e| e.entry_count > 1).count() as f64 / n as f64;
        s.ended_empty = self.episodes.iter().filter(|e| e.ended_empty).count() as f64 / n as f64;
        s.spacing_ms = if drops > 0 {
            time as f64 / drops as f64 / 1e6
        } else {
            0.0
        };
        s
    }
}

/// What [`CodelTrace::summary`] gives.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    /// Episodes.
    pub episodes: usize,
    /// Episodes per second of the measured span.
    pub per_second: f64,
    /// Median and mean length, ms.
    pub median_ms: f64,
    /// See `median_ms`.
    pub mean_ms: f64,
    /// The share of the measured span spent dropping.
    pub time_share: f64,
    /// Drops per episode.
    pub drops_per_episode: f64,
    /// The mean `count` on entering.
    pub mean_entry_count: f64,
    /// The share of episodes that kept a `count` above 1 on entering
    /// (section 5.5's re-entry).
    pub reentered: f64,
    /// The share that ended with the queue empty.
    pub ended_empty: f64,
    /// Time in the dropping state over drops in it, ms.
    pub spacing_ms: f64,
}

/// The CoDel runs' episodes, one row per run.
pub(super) fn table(outs: &[DumbbellOutcome], end_of_run: Time, span: u64) -> Table {
    let rows = outs
        .iter()
        .filter(|o| o.discipline == "codel")
        .map(|o| {
            let s = o.totals.codel.summary(end_of_run, span);
            vec![
                o.discipline.clone(),
                s.episodes.to_string(),
                format!("{:.2}", s.per_second),
                format!("{:.1}", s.median_ms),
                format!("{:.1}", s.mean_ms),
                format!("{:.1}", s.time_share * 100.0),
                format!("{:.2}", s.drops_per_episode),
                format!("{:.2}", s.mean_entry_count),
                format!("{:.1}", s.reentered * 100.0),
                format!("{:.1}", s.ended_empty * 100.0),
                format!("{:.1}", s.spacing_ms),
            ]
        })
        .collect();
    Table {
        name: "codel_episodes".into(),
        title: "CoDel's dropping state (RFC 8289 s3.3, s5.5) over the measured span: episodes from entering to leaving it, their length, the share of time spent in it, drops per episode, the count on entering (above 1: kept by the re-entry rule), the share that ended with the queue empty (else a head below TARGET), and the time in the state per drop".into(),
        header: [
            "discipline",
            "episodes",
            "per second",
            "median ms",
            "mean ms",
            "time dropping %",
            "drops per episode",
            "mean entry count",
            "re-entered %",
            "ended empty %",
            "ms per drop",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn episodes_from_state_changes() {
        let mut c = CodelTrace::default();
        // Not dropping: nothing recorded.
        c.step(5, false, false, 0, false, false);
        assert!(c.episodes.is_empty());
        // Enters at 10 with count 1 (dropping the head), drops twice more,
        // leaves at 40 on a head below TARGET.
        c.step(10, false, true, 1, true, false);
        c.step(20, true, true, 2, true, false);
        c.step(30, true, true, 3, true, false);
        c.step(40, true, false, 3, false, false);
        // Re-enters at 60 keeping count 3, drops once, leaves at 100 when the
        // queue runs empty; still open at the end: a third entered at 190.
        c.step(60, false, true, 3, true, false);
        c.step(100, true, false, 3, false, true);
        c.step(190, false, true, 1, true, false);
        assert_eq!(c.episodes.len(), 3);
        assert_eq!(
            c.episodes[0],
            Episode {
                start: 10,
                end: Some(40),
                entry_count: 1,
                drops: 3,
                ended_empty: false
            }
        );
        assert_eq!(
            c.episodes[1],
            Episode {
                start: 60,
                end: Some(100),
                entry_count: 3,
                drops: 1,
                ended_empty: true
            }
        );
        let s = c.summary(200, 1000);
        assert_eq!(s.episodes, 3);
        // Lengths 30, 40 and 10 (closed at 200): 80 ns of 1000.
        assert!((s.time_share - 0.08).abs() < 1e-12);
        assert!((s.median_ms - 30e-6).abs() < 1e-12);
        assert!((s.drops_per_episode - 5.0 / 3.0).abs() < 1e-12);
        assert!((s.mean_entry_count - 5.0 / 3.0).abs() < 1e-12);
        assert!((s.reentered - 1.0 / 3.0).abs() < 1e-12);
        assert!((s.ended_empty - 1.0 / 3.0).abs() < 1e-12);
        assert!((s.spacing_ms - 80e-6 / 5.0).abs() < 1e-12);
        assert!((s.per_second - 3e6).abs() < 1e-3);
        assert_eq!(CodelTrace::default().summary(200, 1000).episodes, 0);
    }
}
