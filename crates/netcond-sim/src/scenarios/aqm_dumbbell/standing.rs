//! The standing queue as RFC 8289 defines CoDel's TARGET on it: the
//! smallest sojourn time within each INTERVAL.
//!
//! CoDel (RFC 8289 sections 3 and 4.3) acts once the sojourn time has
//! stayed above TARGET for a whole INTERVAL, that is once the minimum
//! sojourn over an INTERVAL exceeds TARGET. Here the measured period is cut
//! into consecutive windows of [`WINDOW`] (CoDel's INTERVAL, 100 ms), from
//! the end of the warm-up; a trailing part shorter than a window is left
//! out. A window's standing queue is the smallest queueing delay of the
//! packets of the set measured that started transmission in it, and 0 when
//! the queue emptied in it: when the bottleneck was idle at some instant of
//! the window. The link goes idle when a dequeue finds no packet waiting and
//! stays idle until the next packet starts (with a zero sojourn), so a
//! window that overlaps such a stretch counts 0.
//!
//! A window in which no packet of the set started and the link was never
//! idle is left out: in a single FIFO a flow's packets may wait behind
//! others for longer than a window. A class's or a flow's own queue can
//! also run empty while the link sends other packets; neither is counted as
//! 0, so the minima of a class or a flow err high, never low.

use std::collections::BTreeSet;

use super::queues::Sent;
use super::DumbbellOutcome;
use crate::engine::{Time, MS};
use crate::report::Table;

/// The window: RFC 8289's INTERVAL.
pub const WINDOW: Time = 100 * MS;

/// The median and 90th percentile of per-window minima.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StandingStats {
    /// Minima taken (windows counted; over every flow for the per-flow
    /// statistic).
    pub windows: usize,
    /// Median of the minima, ms (nearest rank).
    pub p50: f64,
    /// 90th percentile of the minima, ms (nearest rank).
    pub p90: f64,
}

impl StandingStats {
    /// The statistics of `minima` (ns; sorted here).
    #[must_use]
    pub fn of(mut minima: Vec<u64>) -> StandingStats {
        minima.sort_unstable();
        let n = minima.len();
        if n == 0 {
            return StandingStats::default();
        }
        let rank = |p: f64| minima[((p * n as f64).ceil() as usize).clamp(1, n) - 1] as f64 / 1e6;
        StandingStats {
            windows: n,
            p50: rank(0.50),
            p90: rank(0.90),
        }
    }
}

/// Each whole [`WINDOW`] of `[start, end)`'s smallest sojourn (ns) over the
/// packets of `sent` (in order of `at`) that `pick` selects: 0 for a window
/// in which the link was idle (from an `idle` instant to the next packet
/// sent), `None` for a window with neither an idle instant nor a selected
/// packet.
#[must_use]
pub fn window_minima(
    start: Time,
    end: Time,
    sent: &[Sent],
    idle: &[Time],
    pick: impl Fn(&Sent) -> bool,
) -> Vec<Option<u64>> {
    let n = (end.saturating_sub(start) / WINDOW) as usize;
    if n == 0 {
        return Vec::new();
    }
    let stop = start + n as Time * WINDOW;
    // The window of an instant within [start, stop).
    let index = |t: Time| ((t.clamp(start, stop) - start) / WINDOW) as usize;
    let mut min: Vec<Option<u64>> = vec![None; n];
    for s in sent.iter().filter(|s| pick(s)) {
        if s.at >= start && s.at < stop {
            let k = index(s.at);
            min[k] = Some(min[k].map_or(s.sojourn, |m| m.min(s.sojourn)));
        }
    }
    for &t in idle {
        // Idle from `t` until the next packet starts (or the end).
        let next = sent[sent.partition_point(|s| s.at < t)..]
            .first()
            .map_or(stop, |s| s.at);
        if next < start || t >= stop {
            continue;
        }
        let last = if next >= stop { n - 1 } else { index(next) };
        for m in &mut min[index(t)..=last] {
            *m = Some(0);
        }
    }
    min
}

/// The standing queue of `sent`'s packets of every class, of the Classic
/// senders' and of the scalable senders', and per flow: every flow that sent
/// a packet, each over its own packets (the view of a per-flow AQM), the
/// counted minima of all flows together.
#[must_use]
pub fn standing(
    start: Time,
    end: Time,
    sent: &[Sent],
    idle: &[Time],
) -> ([StandingStats; 3], StandingStats) {
    let of = |pick: &dyn Fn(&Sent) -> bool| {
        StandingStats::of(
            window_minima(start, end, sent, idle, pick)
                .into_iter()
                .flatten()
                .collect(),
        )
    };
    let classes = [of(&|_| true), of(&|s| s.class == 0), of(&|s| s.class == 1)];
    let flows: BTreeSet<u32> = sent.iter().map(|s| s.flow).collect();
    let per_flow = flows
        .iter()
        .flat_map(|&f| window_minima(start, end, sent, idle, |s| s.flow == f))
        .flatten()
        .collect();
    (classes, StandingStats::of(per_flow))
}

/// How each flow's standing queue comes about: over every window in which a
/// flow sent a packet, the share of those whose smallest sojourn was that of
/// a packet that arrived to an empty queue of its own ([`Sent::alone`]: its
/// flow's queue in FQ-CoDel and FQ-PIE); and the per-flow standing queue over
/// the other packets only, those that queued behind packets of their own
/// queue (idle instants not counted: they would count 0).
#[must_use]
pub fn per_flow_alone(start: Time, end: Time, sent: &[Sent]) -> (f64, StandingStats) {
    let n = (end.saturating_sub(start) / WINDOW) as usize;
    let stop = start + n as Time * WINDOW;
    let flows: BTreeSet<u32> = sent.iter().map(|s| s.flow).collect();
    let (mut windows, mut alone) = (0usize, 0usize);
    for &f in &flows {
        let mut min: Vec<Option<(u64, bool)>> = vec![None; n];
        for s in sent
            .iter()
            .filter(|s| s.flow == f && s.at >= start && s.at < stop)
        {
            let m = &mut min[((s.at - start) / WINDOW) as usize];
            if m.map_or(true, |(x, _)| s.sojourn < x) {
                *m = Some((s.sojourn, s.alone));
            }
        }
        windows += min.iter().flatten().count();
        alone += min.iter().flatten().filter(|(_, a)| *a).count();
    }
    let queued = flows
        .iter()
        .flat_map(|&f| window_minima(start, end, sent, &[], |s| s.flow == f && !s.alone))
        .flatten()
        .collect();
    let share = if windows == 0 {
        0.0
    } else {
        alone as f64 / windows as f64
    };
    (share, StandingStats::of(queued))
}

/// Each run's [`per_flow_alone`] split, one row per discipline.
pub(super) fn alone_table(outs: &[DumbbellOutcome]) -> Table {
    let rows = outs
        .iter()
        .map(|o| {
            let (share, q) = &o.per_flow_alone;
            vec![
                o.discipline.clone(),
                o.standing_per_flow.windows.to_string(),
                format!("{:.1}", share * 100.0),
                format!("{:.3}", o.standing_per_flow.p50),
                q.windows.to_string(),
                format!("{:.3}", q.p50),
                format!("{:.3}", q.p90),
            ]
        })
        .collect();
    Table {
        name: "standing_alone".into(),
        title: "per-flow standing queue, split: of the flow-windows, the share whose smallest sojourn was a packet that arrived to an empty queue of its own (its flow's in FQ-CoDel and FQ-PIE, its class's in DualPI2, the one FIFO otherwise), and the per-flow standing queue over the packets that queued behind their own queue's only".into(),
        header: [
            "discipline",
            "flow-windows",
            "minimum alone %",
            "per-flow p50 ms",
            "queued flow-windows",
            "queued p50 ms",
            "queued p90 ms",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(at_ms: u64, sojourn_ms: f64, flow: u32, class: u8) -> Sent {
        Sent {
            at: at_ms * MS,
            sojourn: (sojourn_ms * 1e6) as u64,
            flow,
            class,
            alone: false,
        }
    }

    #[test]
    fn per_flow_minima_split_by_packets_alone() {
        let alone = |at_ms, sojourn_ms, flow| Sent {
            alone: true,
            ..sent(at_ms, sojourn_ms, flow, 0)
        };
        // Windows [0, 100) and [100, 200) ms. Flow 0: its smallest in the
        // first is a packet alone (0.5 ms), in the second one that queued
        // (3 ms). Flow 1: one window, smallest queued (8 ms; the packet
        // alone waited 9 ms behind other flows' packets).
        let s = [
            alone(10, 0.5, 0),
            sent(20, 4.0, 0, 0),
            sent(30, 8.0, 1, 0),
            alone(40, 9.0, 1),
            sent(110, 3.0, 0, 0),
            alone(120, 5.0, 0),
        ];
        let (share, queued) = per_flow_alone(0, 200 * MS, &s);
        // One of three flow-windows has its minimum from a packet alone.
        assert!((share - 1.0 / 3.0).abs() < 1e-12);
        // The queued packets' minima: 4, 3 (flow 0) and 8 (flow 1).
        assert_eq!(queued.windows, 3);
        assert!((queued.p50 - 4.0).abs() < 1e-9);
        assert!((queued.p90 - 8.0).abs() < 1e-9);
        assert_eq!(per_flow_alone(0, 50 * MS, &s).0, 0.0);
    }

    fn ms(v: &[Option<u64>]) -> Vec<Option<f64>> {
        v.iter().map(|m| m.map(|x| x as f64 / 1e6)).collect()
    }

    #[test]
    fn each_window_keeps_its_smallest_sojourn() {
        // Windows from 1000 ms: [1000, 1100), [1100, 1200), [1200, 1300);
        // 1350 ms ends inside a fourth window, which is left out.
        let s = [
            sent(999, 0.5, 0, 0),
            sent(1000, 7.0, 0, 0),
            sent(1050, 6.0, 0, 0),
            sent(1099, 9.0, 0, 0),
            sent(1100, 12.0, 0, 0),
            sent(1199, 11.5, 0, 0),
            sent(1250, 8.0, 0, 0),
            sent(1320, 1.0, 0, 0),
        ];
        // min(7, 6, 9) = 6; min(12, 11.5) = 11.5; 8 (the 999 and 1320 ms
        // packets are outside every whole window).
        assert_eq!(
            ms(&window_minima(1000 * MS, 1350 * MS, &s, &[], |_| true)),
            [Some(6.0), Some(11.5), Some(8.0)]
        );
    }

    #[test]
    fn a_window_in_which_the_link_idles_counts_zero() {
        let s = [
            sent(0, 5.0, 0, 0),
            sent(150, 4.0, 0, 0),
            // The link goes idle at 160 ms; the next packet starts at 330 ms
            // with a zero sojourn, so windows 1, 2 and 3 were idle at some
            // instant, window 2 without any packet.
            sent(330, 0.0, 0, 0),
            sent(340, 3.0, 0, 0),
            sent(450, 2.0, 0, 0),
            sent(550, 6.0, 0, 0),
            // Idle from 590 ms to the end: window 5 counts 0 too.
        ];
        assert_eq!(
            ms(&window_minima(
                0,
                700 * MS,
                &s,
                &[160 * MS, 590 * MS],
                |_| true
            )),
            [
                Some(5.0),
                Some(0.0),
                Some(0.0),
                Some(0.0),
                Some(2.0),
                Some(0.0),
                Some(0.0)
            ]
        );
        // An idle stretch that ends before the measured period does not count.
        assert_eq!(
            ms(&window_minima(200 * MS, 300 * MS, &s, &[100 * MS], |_| {
                true
            })),
            [None]
        );
        // Shorter than one window: nothing.
        assert!(window_minima(0, 99 * MS, &s, &[10 * MS], |_| true).is_empty());
    }

    #[test]
    fn a_window_without_a_packet_of_the_set_is_left_out() {
        // Flow 1 sends only in window 0; the link never idles.
        let s = [
            sent(10, 9.0, 0, 0),
            sent(20, 30.0, 1, 0),
            sent(120, 8.0, 0, 0),
        ];
        let w = window_minima(0, 200 * MS, &s, &[], |s| s.flow == 1);
        assert_eq!(ms(&w), [Some(30.0), None]);
    }

    #[test]
    fn percentiles_are_nearest_rank_over_the_minima() {
        // Minima 1..=10 ms: the median is the 5th (5 ms), the 90th
        // percentile the 9th (9 ms).
        let st = StandingStats::of((1..=10u64).rev().map(|v| v * MS).collect());
        assert_eq!((st.windows, st.p50, st.p90), (10, 5.0, 9.0));
        // Three minima: ranks ceil(1.5) = 2 and ceil(2.7) = 3.
        let st = StandingStats::of(vec![2 * MS, 0, MS]);
        assert_eq!((st.p50, st.p90), (1.0, 2.0));
        assert_eq!(StandingStats::of(Vec::new()), StandingStats::default());
    }

    #[test]
    fn classes_and_flows_each_see_only_their_own_packets() {
        // Two windows. Flow 0 (Classic): 10 then 2 ms; flow 1 (Classic): 4
        // ms in window 0 only; flow 2 (scalable): 1 then 3 ms.
        let s = [
            sent(10, 10.0, 0, 0),
            sent(20, 4.0, 1, 0),
            sent(30, 1.0, 2, 1),
            sent(110, 2.0, 0, 0),
            sent(120, 3.0, 2, 1),
        ];
        let (c, f) = standing(0, 200 * MS, &s, &[]);
        // All packets: minima 1, 2 -> p50 1, p90 2. Classic: min(10, 4) =
        // 4, then 2 -> sorted [2, 4]: p50 2, p90 4. Scalable: 1, 3.
        assert_eq!((c[0].windows, c[0].p50, c[0].p90), (2, 1.0, 2.0));
        assert_eq!((c[1].windows, c[1].p50, c[1].p90), (2, 2.0, 4.0));
        assert_eq!((c[2].p50, c[2].p90), (1.0, 3.0));
        // Per flow: flow 0 [10, 2], flow 1 [4] (no packet in window 1),
        // flow 2 [1, 3]: sorted [1, 2, 3, 4, 10]: the median is the 3rd
        // (3 ms), the 90th percentile the ceil(4.5) = 5th (10 ms).
        assert_eq!((f.windows, f.p50, f.p90), (5, 3.0, 10.0));
    }
}
