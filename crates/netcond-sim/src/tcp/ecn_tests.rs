//! Unit tests of the ECN codepoints and the scalable (DCTCP, RFC 8257)
//! response: the state machines alone, driven in lock step.

use super::*;
use crate::engine::MS;

fn scalable() -> TcpConfig {
    TcpConfig {
        ecn: true,
        scalable: true,
        initial_cwnd: 10,
        max_window: 1460 * 1000,
        ..TcpConfig::default()
    }
}

/// One round trip: every segment in `out` reaches the receiver (CE-marked
/// when `mark` says so) and its ACK reaches the sender, in order. Calls
/// `check(sender, cwnd before the ACK, alpha after it)` after each ACK.
fn round(
    s: &mut TcpSender,
    r: &mut TcpReceiver,
    out: &mut Vec<Segment>,
    t: &mut u64,
    mark: &mut dyn FnMut(&Segment) -> bool,
    check: &mut dyn FnMut(&TcpSender, u64),
) {
    *t += 10 * MS;
    let batch = std::mem::take(out);
    for x in &batch {
        let mut x = *x;
        if mark(&x) {
            assert!(x.mark_ce());
        }
        if let Some(a) = r.on_segment(*t, &x) {
            let before = s.cwnd();
            s.on_ack(*t + 10 * MS, &a, out);
            check(s, before);
        }
    }
    *t += 10 * MS;
}

#[test]
fn scalable_segments_carry_ect1_retransmissions_included() {
    let mut out = Vec::new();
    let mut s = TcpSender::new(scalable(), 0);
    s.start(0, &mut out);
    assert!(out.iter().all(|x| x.ect && x.ect1 && !x.retransmit));
    out.clear();
    let d = s.deadline().unwrap();
    s.on_timer(d, &mut out);
    assert!(!out.is_empty() && out.iter().all(|x| x.retransmit && x.ect && x.ect1));
    // Classic ECN: ECT(0), and retransmissions are not ECT (RFC 3168 6.1.5).
    let classic = TcpConfig {
        scalable: false,
        ..scalable()
    };
    let mut out = Vec::new();
    let mut s = TcpSender::new(classic, 0);
    s.start(0, &mut out);
    assert!(out.iter().all(|x| x.ect && !x.ect1));
    out.clear();
    let d = s.deadline().unwrap();
    s.on_timer(d, &mut out);
    assert!(!out.is_empty() && out.iter().all(|x| x.retransmit && !x.ect && !x.ect1));
}

fn seg(seq: u64, ce: bool) -> Segment {
    Segment {
        flow: 0,
        seq,
        wire_len: 1500,
        retransmit: false,
        ect: true,
        ect1: true,
        ce,
        cwr: false,
        ts: 0,
    }
}

#[test]
fn scalable_receiver_echoes_each_segment_without_latching() {
    let mut r = TcpReceiver::new(scalable(), 0);
    assert!(!r.on_segment(0, &seg(0, false)).unwrap().ece);
    assert!(r.on_segment(0, &seg(1, true)).unwrap().ece);
    // No CWR has come, and yet the echo stops with the marks.
    assert!(!r.on_segment(0, &seg(2, false)).unwrap().ece);
    assert!(r.on_segment(0, &seg(3, true)).unwrap().ece);
    assert!(r.on_segment(0, &seg(4, true)).unwrap().ece);
    assert_eq!(r.stats().ce_received, 3);
}

#[test]
fn scalable_receiver_with_delayed_acks_acks_when_the_ce_state_changes() {
    let cfg = TcpConfig {
        delayed_ack_ns: Some(40 * MS),
        ..scalable()
    };
    let mut r = TcpReceiver::new(cfg, 0);
    assert!(r.on_segment(0, &seg(0, false)).is_none());
    let a = r.on_segment(1, &seg(1, true)).unwrap();
    assert!(a.ece && a.ack == 2);
    // Back to unmarked: a state change, acknowledged at once without ECE.
    let a = r.on_segment(2, &seg(2, false)).unwrap();
    assert!(!a.ece && a.ack == 3);
    // Same state: delayed again, then every second segment.
    assert!(r.on_segment(3, &seg(3, false)).is_none());
    let a = r.on_segment(4, &seg(4, false)).unwrap();
    assert!(!a.ece && a.ack == 5);
}

#[test]
fn dctcp_alpha_decays_by_one_sixteenth_per_unmarked_window() {
    let mut s = TcpSender::new(scalable(), 0);
    let mut r = TcpReceiver::new(scalable(), 0);
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert_eq!(s.dctcp_alpha(), DCTCP_ALPHA_ONE);
    let mut t = 0;
    let mut seen = Vec::new();
    for _ in 0..4 {
        round(
            &mut s,
            &mut r,
            &mut out,
            &mut t,
            &mut |_| false,
            &mut |_, _| {},
        );
        seen.push(s.dctcp_alpha());
    }
    // Linux: alpha -= alpha >> 4, one window (one round trip) at a time.
    assert_eq!(seen, [960, 900, 844, 792]);
    assert_eq!(s.stats().ecn_reductions, 0);
    assert_eq!(s.stats().delivered_ce, 0);
    assert_eq!(s.stats().delivered, s.snd_una());
}

#[test]
fn dctcp_full_marking_keeps_alpha_at_one_and_halves() {
    let mut s = TcpSender::new(scalable(), 0);
    let mut r = TcpReceiver::new(scalable(), 0);
    let mut out = Vec::new();
    s.start(0, &mut out);
    let mut t = 0;
    let mut cuts = 0u32;
    let mut last = 0;
    for _ in 0..30 {
        round(
            &mut s,
            &mut r,
            &mut out,
            &mut t,
            &mut |_| true,
            &mut |s, before| {
                if s.stats().ecn_reductions > last {
                    last = s.stats().ecn_reductions;
                    cuts += 1;
                    // alpha = 1: cwnd - cwnd / 2, at least 2 segments, from
                    // the window before this ACK plus at most the one
                    // increase (at most one segment) the same ACK gave.
                    let c = s.cwnd();
                    let lo = (before - before / 2).max(2 * 1460);
                    assert!((lo..=lo + 730).contains(&c), "{c} from {before}");
                    assert_eq!(s.ssthresh(), s.cwnd());
                }
            },
        );
        assert_eq!(s.dctcp_alpha(), DCTCP_ALPHA_ONE);
    }
    // One cut per round trip, not one per marked ACK.
    assert!((29..=31).contains(&cuts), "{cuts}");
    assert_eq!(s.stats().delivered_ce, s.stats().delivered);
    assert_eq!(s.stats().retransmits, 0);
}

#[test]
fn dctcp_alpha_tracks_the_marked_fraction_and_cuts_in_proportion() {
    let mut s = TcpSender::new(scalable(), 0);
    let mut r = TcpReceiver::new(scalable(), 0);
    let mut out = Vec::new();
    s.start(0, &mut out);
    let mut t = 0;
    let mut last = 0;
    let mss = 1460;
    for i in 0..300 {
        round(
            &mut s,
            &mut r,
            &mut out,
            &mut t,
            // A quarter of the segments marked.
            &mut |x| x.seq % 4 == 0,
            &mut |s, before| {
                if s.stats().ecn_reductions > last {
                    last = s.stats().ecn_reductions;
                    // cwnd * (1 - alpha / 2), from the window before this ACK
                    // plus at most the one increase the same ACK gave.
                    let a = u64::from(s.dctcp_alpha());
                    let lo = (before - before * a / 2048).max(2 * mss);
                    assert!(
                        (lo..=lo + mss).contains(&s.cwnd()),
                        "cwnd {} from {before} with alpha {a}",
                        s.cwnd()
                    );
                }
            },
        );
        if i >= 100 {
            // F = 1/4: alpha near 256 (the windows are not aligned with the
            // marks, so F per window varies around 1/4).
            let a = s.dctcp_alpha();
            assert!((160..=352).contains(&a), "round {i}: alpha {a}");
        }
    }
    let frac = s.stats().delivered_ce as f64 / s.stats().delivered as f64;
    assert!((frac - 0.25).abs() < 0.01, "{frac}");
    assert_eq!(s.stats().retransmits, 0);
    // A classic ECN sender under the same marks halves once per round trip:
    // its window stays far smaller than the scalable one's.
    let classic = TcpConfig {
        scalable: false,
        ..scalable()
    };
    let (mut c, mut cr) = (TcpSender::new(classic, 0), TcpReceiver::new(classic, 0));
    let mut out = Vec::new();
    c.start(0, &mut out);
    for _ in 0..300 {
        round(
            &mut c,
            &mut cr,
            &mut out,
            &mut t,
            &mut |x| x.seq % 4 == 0,
            &mut |_, _| {},
        );
    }
    assert!(c.cwnd() * 2 < s.cwnd(), "{} vs {}", c.cwnd(), s.cwnd());
}
