//! The square-root law of TCP congestion avoidance, set beside the
//! dumbbell's flows.
//!
//! Mathis, Semke, Mahdavi and Ott (1997, "The macroscopic behavior of the
//! TCP congestion avoidance algorithm", ACM CCR 27(3)) model a Reno flow
//! that loses a fraction `p` of its packets: its window saws between W/2 and
//! W, one loss per cycle, and its mean window is `C / sqrt(p)` segments with
//! `C = sqrt(3/2)` for periodic loss. Its rate is that window per round
//! trip.
//!
//! A single FIFO that holds a standing queue `q` adds `q` to every flow's
//! round trip, and if every flow sees the same loss fraction, every flow has
//! the same mean window `W`. The flows together fill the link, so
//! `W * sum_i 1 / (RTT_i + q) = link`, which fixes `W`, and the law then
//! fixes the loss fraction `p = C^2 / W^2` the queue must impose to hold `q`.

/// The law's constant for periodic loss, `sqrt(3/2)`.
pub const MATHIS_C: f64 = 1.224_744_871_391_589;

/// The mean window (segments) the law gives a flow that loses a fraction
/// `p` of its packets; `None` unless `0 < p <= 1`.
#[must_use]
pub fn window_for_loss(p: f64) -> Option<f64> {
    (p > 0.0 && p <= 1.0).then(|| MATHIS_C / p.sqrt())
}

/// The loss fraction the law ties to a mean window of `w` segments
/// (`C^2 / w^2`); `None` unless `w > 0`.
#[must_use]
pub fn loss_for_window(w: f64) -> Option<f64> {
    (w > 0.0 && w.is_finite()).then(|| MATHIS_C * MATHIS_C / (w * w))
}

/// Where flows sharing one FIFO with a standing queue settle by the law.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OperatingPoint {
    /// The standing queue, s.
    pub queue_s: f64,
    /// Every flow's mean window, segments.
    pub window: f64,
    /// The loss fraction that window needs (may exceed 1 when no loss rate
    /// can hold the queue that short: the law no longer applies there).
    pub loss: f64,
}

/// The equal mean window with which flows of base round-trip times `rtts_s`
/// (s) fill a link of `link_pps` packets per second while the queue adds
/// `queue_s` (s) to every round trip, and the loss fraction the law needs
/// for it. `None` without flows or with a non-positive round trip or rate.
#[must_use]
pub fn operating_point(rtts_s: &[f64], queue_s: f64, link_pps: f64) -> Option<OperatingPoint> {
    if rtts_s.is_empty() || link_pps <= 0.0 || !link_pps.is_finite() {
        return None;
    }
    let mut per_window = 0.0;
    for &r in rtts_s {
        let rtt = r + queue_s;
        if rtt <= 0.0 || !rtt.is_finite() {
            return None;
        }
        per_window += 1.0 / rtt;
    }
    let window = link_pps / per_window;
    Some(OperatingPoint {
        queue_s,
        window,
        loss: loss_for_window(window)?,
    })
}

/// Where flows settle by the law when a fair scheduler gives each the same
/// rate (FQ-CoDel's, FQ-PIE's): flow i's window is `link / N * (RTT_i + q)`
/// and its loss fraction `C^2 / W_i^2`. The point's window is the mean of
/// the flows' windows, its loss fraction the mean of theirs (the flows send
/// alike, so that is the drops over the arrivals of all of them). `None` as
/// for [`operating_point`].
#[must_use]
pub fn fair_share_point(rtts_s: &[f64], queue_s: f64, link_pps: f64) -> Option<OperatingPoint> {
    if rtts_s.is_empty() || link_pps <= 0.0 || !link_pps.is_finite() {
        return None;
    }
    let share = link_pps / rtts_s.len() as f64;
    let (mut window, mut loss) = (0.0, 0.0);
    for &r in rtts_s {
        let rtt = r + queue_s;
        if rtt <= 0.0 || !rtt.is_finite() {
            return None;
        }
        let w = share * rtt;
        window += w;
        loss += loss_for_window(w)?;
    }
    let n = rtts_s.len() as f64;
    Some(OperatingPoint {
        queue_s,
        window: window / n,
        loss: loss / n,
    })
}

/// Packets per second of a link of `bps` carrying `packet`-byte packets.
#[must_use]
pub fn link_pps(bps: f64, packet: u64) -> f64 {
    bps / (packet.max(1) as f64 * 8.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn the_law_and_its_inverse() {
        // p = 1.5 %: W = sqrt(1.5 / 0.015) = sqrt(100) = 10.
        assert!(close(window_for_loss(0.015).unwrap(), 10.0, 1e-12));
        // W = 5: p = 1.5 / 25 = 0.06.
        assert!(close(loss_for_window(5.0).unwrap(), 0.06, 1e-15));
        // The constant squared is 3/2.
        assert!(close(MATHIS_C * MATHIS_C, 1.5, 1e-15));
        assert_eq!(window_for_loss(0.0), None);
        assert_eq!(window_for_loss(1.5), None);
        assert_eq!(loss_for_window(0.0), None);
        assert_eq!(loss_for_window(f64::INFINITY), None);
    }

    #[test]
    fn link_rate_in_packets() {
        // 10 Mbit/s of 1500-byte packets: 1e7 / 12000 = 833.33 per second.
        assert!(close(link_pps(10e6, 1500), 833.333_333, 1e-6));
    }

    #[test]
    fn one_flow_fills_the_link_with_rate_times_round_trip() {
        // RTT 95 ms + 5 ms of queue = 0.1 s, 100 packets/s: W = 10, and
        // p = 1.5 / 100 = 1.5 %.
        let op = operating_point(&[0.095], 0.005, 100.0).unwrap();
        assert!(close(op.window, 10.0, 1e-9));
        assert!(close(op.loss, 0.015, 1e-12));
        assert_eq!(op.queue_s, 0.005);
    }

    #[test]
    fn two_flows_share_one_window() {
        // RTTs 10 and 30 ms, 10 ms of queue: 1/0.02 + 1/0.04 = 50 + 25 = 75
        // windows per second; 300 packets/s gives W = 4, p = 1.5/16 = 9.375 %.
        let op = operating_point(&[0.010, 0.030], 0.010, 300.0).unwrap();
        assert!(close(op.window, 4.0, 1e-9));
        assert!(close(op.loss, 0.093_75, 1e-12));
    }

    #[test]
    fn the_dumbbells_nine_flows_at_5_and_11_ms() {
        // Base RTTs 10, 20, 50, 100 ms twice and one more 20 ms flow; 833.33
        // packets/s. At q = 5 ms: 2/0.015 + 3/0.025 + 2/0.055 + 2/0.105 =
        // 133.333 + 120 + 36.364 + 19.048 = 308.745; W = 833.333 / 308.745 =
        // 2.699; p = 1.5 / 2.699^2 = 20.6 %.
        let rtts = [0.01, 0.02, 0.05, 0.1, 0.01, 0.02, 0.05, 0.1, 0.02];
        let pps = link_pps(10e6, 1500);
        let op = operating_point(&rtts, 0.005, pps).unwrap();
        assert!(close(op.window, 2.699, 0.001), "{op:?}");
        assert!(close(op.loss, 0.2059, 0.0005), "{op:?}");
        // At q = 11 ms: 2/0.021 + 3/0.031 + 2/0.061 + 2/0.111 = 95.238 +
        // 96.774 + 32.787 + 18.018 = 242.817; W = 3.432; p = 12.7 %.
        let op = operating_point(&rtts, 0.011, pps).unwrap();
        assert!(close(op.window, 3.432, 0.001), "{op:?}");
        assert!(close(op.loss, 0.1273, 0.0005), "{op:?}");
        // A longer queue needs a larger window and less loss.
        let longer = operating_point(&rtts, 0.020, pps).unwrap();
        assert!(longer.window > op.window && longer.loss < op.loss);
    }

    #[test]
    fn a_fair_share_gives_each_flow_its_own_window() {
        // RTTs 10 and 30 ms, 10 ms of queue, 300 packets/s: 150 each, so
        // windows 150 x 0.02 = 3 and 150 x 0.04 = 6 (mean 4.5), loss
        // fractions 1.5/9 = 16.67 % and 1.5/36 = 4.17 % (mean 10.42 %).
        let op = fair_share_point(&[0.010, 0.030], 0.010, 300.0).unwrap();
        assert!(close(op.window, 4.5, 1e-9));
        assert!(close(op.loss, (1.5 / 9.0 + 1.5 / 36.0) / 2.0, 1e-12));
        // With one flow it is the equal-window point.
        assert_eq!(
            fair_share_point(&[0.095], 0.005, 100.0),
            operating_point(&[0.095], 0.005, 100.0)
        );
        assert_eq!(fair_share_point(&[], 0.005, 833.0), None);
        assert_eq!(fair_share_point(&[0.01], 0.005, 0.0), None);
        assert_eq!(fair_share_point(&[0.01], -0.01, 833.0), None);
    }

    #[test]
    fn no_point_without_flows_or_rate() {
        assert_eq!(operating_point(&[], 0.005, 833.0), None);
        assert_eq!(operating_point(&[0.01], 0.005, 0.0), None);
        assert_eq!(operating_point(&[0.0], 0.0, 833.0), None);
        assert_eq!(operating_point(&[0.01], -0.02, 833.0), None);
    }
}
