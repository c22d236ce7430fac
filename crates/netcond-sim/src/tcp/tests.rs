//! Unit tests of the TCP model: the state machines alone, then flows over a
//! small lossy / ECN-marking pipe built on [`super::net`].

use super::net::{jain_index, Deq, DropTail, Network, Packet, Qdisc, QdiscStats};
use super::*;
use crate::engine::{Time, MS, SEC};

fn seg(seq: u64) -> Segment {
    Segment {
        flow: 0,
        seq,
        wire_len: 1500,
        retransmit: false,
        ect: true,
        ect1: false,
        ce: false,
        cwr: false,
        ts: 0,
    }
}

#[test]
fn initial_window_and_window_cap() {
    let cfg = TcpConfig {
        initial_cwnd: 4,
        ..TcpConfig::default()
    };
    let mut s = TcpSender::new(cfg, 7);
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert_eq!(out.len(), 4);
    assert!(out.iter().all(|x| x.flow == 7 && x.wire_len == 1500));
    assert_eq!(out.iter().map(|x| x.seq).collect::<Vec<_>>(), [0, 1, 2, 3]);
    assert_eq!(s.deadline(), Some(cfg.initial_rto_ns));
    // Grow far beyond the receiver window: never more than 44 segments out.
    let mut r = TcpReceiver::new(cfg, 7);
    let mut t = 0;
    for _ in 0..50 {
        t += 10 * MS;
        let batch = std::mem::take(&mut out);
        for x in &batch {
            let a = r.on_segment(t, x).unwrap();
            s.on_ack(t, &a, &mut out);
        }
        assert!(s.snd_nxt() - s.snd_una() <= cfg.window_segments());
    }
    assert_eq!(cfg.window_segments(), 44);
    assert_eq!(s.snd_nxt() - s.snd_una(), 44);
    assert_eq!(s.stats().retransmits, 0);
}

#[test]
fn receiver_sack_blocks_most_recent_first() {
    let cfg = TcpConfig::default();
    let mut r = TcpReceiver::new(cfg, 0);
    assert_eq!(r.on_segment(0, &seg(0)).unwrap().ack, 1);
    let a = r.on_segment(0, &seg(2)).unwrap();
    assert_eq!((a.ack, a.sack_blocks()), (1, &[(2, 3)][..]));
    r.on_segment(0, &seg(3)).unwrap();
    let a = r.on_segment(0, &seg(6)).unwrap();
    assert_eq!(a.sack_blocks(), &[(6, 7), (2, 4)]);
    // The block holding the newest arrival comes first even if it is not the highest.
    let a = r.on_segment(0, &seg(4)).unwrap();
    assert_eq!(a.sack_blocks(), &[(2, 5), (6, 7)]);
    // Filling the hole delivers everything up to the next hole.
    let a = r.on_segment(0, &seg(1)).unwrap();
    assert_eq!(a.ack, 5);
    assert_eq!(a.sack_blocks(), &[(6, 7)]);
    assert_eq!(r.stats().delivered, 5);
    // A duplicate counts once.
    r.on_segment(0, &seg(2)).unwrap();
    assert_eq!(r.stats().duplicates, 1);
    assert_eq!(r.goodput_bytes(), 5 * 1460);
}

#[test]
fn receiver_limits_sack_blocks() {
    let cfg = TcpConfig {
        sack_blocks: 2,
        ..TcpConfig::default()
    };
    let mut r = TcpReceiver::new(cfg, 0);
    for q in [1, 3, 5, 7] {
        r.on_segment(0, &seg(q));
    }
    let a = r.on_segment(0, &seg(9)).unwrap();
    assert_eq!(a.sack_blocks(), &[(9, 10), (7, 8)]);
}

#[test]
fn delayed_acks_every_second_segment_or_timeout() {
    let cfg = TcpConfig {
        delayed_ack_ns: Some(100 * MS),
        ..TcpConfig::default()
    };
    let mut r = TcpReceiver::new(cfg, 0);
    assert!(r.on_segment(0, &seg(0)).is_none());
    assert_eq!(r.deadline(), Some(100 * MS));
    assert_eq!(r.on_segment(MS, &seg(1)).unwrap().ack, 2);
    assert_eq!(r.deadline(), None);
    assert!(r.on_segment(2 * MS, &seg(2)).is_none());
    assert!(r.on_timer(50 * MS).is_none());
    assert_eq!(r.on_timer(102 * MS).unwrap().ack, 3);
    // Out of order: immediately.
    assert_eq!(r.on_segment(200 * MS, &seg(4)).unwrap().ack, 3);
    // Filling the hole: immediately.
    assert_eq!(r.on_segment(201 * MS, &seg(3)).unwrap().ack, 5);
}

#[test]
fn ece_echoed_until_cwr() {
    let cfg = TcpConfig {
        ecn: true,
        ..TcpConfig::default()
    };
    let mut r = TcpReceiver::new(cfg, 0);
    assert!(!r.on_segment(0, &seg(0)).unwrap().ece);
    let mut s1 = seg(1);
    s1.ce = true;
    assert!(r.on_segment(0, &s1).unwrap().ece);
    assert!(r.on_segment(0, &seg(2)).unwrap().ece);
    let mut s3 = seg(3);
    s3.cwr = true;
    assert!(!r.on_segment(0, &s3).unwrap().ece);
    let mut s4 = seg(4);
    s4.cwr = true;
    s4.ce = true;
    assert!(r.on_segment(0, &s4).unwrap().ece);
}

/// Lock-step harness without a network: every segment in flight is delivered (or
/// dropped by `drop`) after `rtt/2`, and ACKs return after `rtt/2`.
fn lockstep(
    cfg: TcpConfig,
    rounds: usize,
    mut drop: impl FnMut(&Segment) -> bool,
) -> (TcpSender, TcpReceiver) {
    let mut s = TcpSender::new(cfg, 0);
    let mut r = TcpReceiver::new(cfg, 0);
    let mut out = Vec::new();
    let mut t: Time = 0;
    s.start(t, &mut out);
    for _ in 0..rounds {
        t += 50 * MS;
        if s.deadline().is_some_and(|d| d <= t) {
            s.on_timer(t, &mut out);
        }
        let batch = std::mem::take(&mut out);
        if batch.is_empty() {
            // Nothing in flight: only the timer can move things.
            if let Some(d) = s.deadline() {
                t = t.max(d);
                s.on_timer(t, &mut out);
            }
            continue;
        }
        let acks: Vec<Ack> = batch
            .iter()
            .filter(|x| !drop(x))
            .filter_map(|x| r.on_segment(t, x))
            .collect();
        t += 50 * MS;
        for a in &acks {
            s.on_ack(t, a, &mut out);
        }
    }
    (s, r)
}

#[test]
fn single_loss_recovered_by_sack_without_rto() {
    let mut dropped = false;
    let (s, r) = lockstep(TcpConfig::default(), 30, |x| {
        if x.seq == 20 && !dropped {
            dropped = true;
            return true;
        }
        false
    });
    assert_eq!(s.stats().timeouts, 0);
    assert_eq!(s.stats().fast_recoveries, 1);
    assert_eq!(s.stats().retransmits, 1);
    assert!(r.rcv_nxt() > 100);
    assert_eq!(r.stats().delivered, r.rcv_nxt());
}

#[test]
fn single_loss_recovered_by_newreno_without_rto() {
    let cfg = TcpConfig {
        sack: false,
        ..TcpConfig::default()
    };
    let mut dropped = false;
    let (s, r) = lockstep(cfg, 30, |x| {
        if x.seq == 20 && !dropped {
            dropped = true;
            return true;
        }
        false
    });
    assert_eq!(s.stats().timeouts, 0);
    assert_eq!(s.stats().fast_recoveries, 1);
    assert_eq!(s.stats().retransmits, 1);
    assert!(r.rcv_nxt() > 100);
}

#[test]
fn three_losses_in_one_window_one_reduction() {
    let mut seen = std::collections::HashSet::new();
    let (s, r) = lockstep(TcpConfig::default(), 30, |x| {
        [20u64, 23, 27].contains(&x.seq) && seen.insert(x.seq)
    });
    assert_eq!(s.stats().timeouts, 0);
    assert_eq!(s.stats().fast_recoveries, 1);
    assert_eq!(s.stats().retransmits, 3);
    assert!(r.rcv_nxt() > 100);
}

#[test]
fn whole_window_lost_needs_rto_and_backs_off() {
    // Drop every first transmission of segments 20..=60: nothing above 20 arrives.
    let mut seen = std::collections::HashSet::new();
    let (s, r) = lockstep(TcpConfig::default(), 40, |x| {
        (20..=60).contains(&x.seq) && seen.insert(x.seq)
    });
    assert!(s.stats().timeouts >= 1, "{:?}", s.stats());
    assert_eq!(s.stats().fast_recoveries, 0);
    assert!(
        r.rcv_nxt() > 61,
        "recovered after the timeout: {}",
        r.rcv_nxt()
    );
}

#[test]
fn rto_backoff_doubles_and_ssthresh_set_once() {
    let cfg = TcpConfig::default();
    let mut s = TcpSender::new(cfg, 0);
    let mut out = Vec::new();
    s.start(0, &mut out);
    let flight = 2 * 1460;
    let d1 = s.deadline().unwrap();
    s.on_timer(d1, &mut out);
    assert_eq!(s.rto(), 2 * cfg.initial_rto_ns);
    assert_eq!(s.cwnd(), 1460);
    assert_eq!(s.ssthresh(), (flight / 2).max(2 * 1460));
    let d2 = s.deadline().unwrap();
    assert_eq!(d2, d1 + 2 * cfg.initial_rto_ns);
    s.on_timer(d2, &mut out);
    assert_eq!(s.rto(), 4 * cfg.initial_rto_ns);
    assert_eq!(s.stats().timeouts, 2);
    // Retransmissions of segment 0 at each expiry; none of them ECT.
    assert_eq!(out.iter().filter(|x| x.retransmit && x.seq == 0).count(), 2);
    // Early call: nothing happens.
    let before = out.len();
    s.on_timer(d2 + 1, &mut out);
    assert_eq!(out.len(), before);
}

#[test]
fn rtt_estimator_follows_rfc6298() {
    let cfg = TcpConfig {
        min_rto_ns: 0,
        clock_granularity_ns: 1,
        ..TcpConfig::default()
    };
    let mut s = TcpSender::new(cfg, 0);
    let mut r = TcpReceiver::new(cfg, 0);
    let mut out = Vec::new();
    s.start(0, &mut out);
    let a = r.on_segment(50 * MS, &out[0]).unwrap();
    out.clear();
    s.on_ack(100 * MS, &a, &mut out);
    // First sample R = 100 ms: SRTT = R, RTTVAR = R/2, RTO = SRTT + 4 RTTVAR = 300 ms.
    assert_eq!(s.srtt(), Some(100 * MS));
    assert_eq!(s.rto(), 300 * MS);
}

#[test]
fn ecn_halves_once_per_window_and_sets_cwr() {
    let cfg = TcpConfig {
        ecn: true,
        initial_cwnd: 10,
        ..TcpConfig::default()
    };
    let mut s = TcpSender::new(cfg, 0);
    let mut r = TcpReceiver::new(cfg, 0);
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert!(out.iter().all(|x| x.ect));
    let mut batch = std::mem::take(&mut out);
    batch[0].ce = true;
    let cwnd0 = s.cwnd();
    for x in &batch {
        let a = r.on_segment(10 * MS, x).unwrap();
        s.on_ack(20 * MS, &a, &mut out);
    }
    // One halving for the whole window although ten ACKs carried ECE.
    assert_eq!(s.stats().ecn_reductions, 1);
    assert!(s.cwnd() < cwnd0);
    assert_eq!(s.stats().retransmits, 0);
    assert_eq!(out.iter().filter(|x| x.cwr).count(), 1);
    assert!(out[0].cwr);
}

/// A scripted drop decision: `(now, packet) -> drop?`.
type DropRule = Box<dyn FnMut(Time, &Packet) -> bool + Send>;

/// A bottleneck discipline for the pipe tests: tail drop at `cap` packets, an
/// optional instantaneous ECN threshold, and a scripted drop rule.
struct TestQueue {
    fifo: DropTail,
    mark_above: Option<usize>,
    drop: DropRule,
    stats: QdiscStats,
}

impl Qdisc<Packet> for TestQueue {
    fn enqueue(&mut self, now: Time, mut pkt: Packet) -> Result<(), Packet> {
        self.stats.arrived += 1;
        if (self.drop)(now, &pkt) {
            self.stats.early_drops += 1;
            return Err(pkt);
        }
        if let Some(k) = self.mark_above {
            if self.fifo.len() >= k && pkt.seg.mark_ce() {
                self.stats.marks += 1;
            }
        }
        self.fifo
            .push(pkt)
            .inspect_err(|_| self.stats.forced_drops += 1)
    }
    fn dequeue(&mut self, _now: Time) -> Deq {
        self.fifo.pop().map_or(Deq::Empty, Deq::Packet)
    }
    fn waiting(&self) -> usize {
        self.fifo.len()
    }
    fn stats(&self) -> &QdiscStats {
        &self.stats
    }
    fn reset_stats(&mut self) {
        self.stats = QdiscStats::default();
    }
}

/// `n` flows over one bottleneck of `mbps` with `rtt` (no queueing) and a queue of `cap`.
fn pipe(
    n: usize,
    cfg: TcpConfig,
    mbps: u64,
    rtt: Time,
    cap: usize,
    mark_above: Option<usize>,
    drop: DropRule,
) -> Network {
    let mut net = Network::new();
    let q = TestQueue {
        fifo: DropTail::packets(cap),
        mark_above,
        drop,
        stats: QdiscStats::default(),
    };
    let l = net.add_link(mbps * 1_000_000, rtt / 2, Box::new(q));
    for i in 0..n {
        net.add_flow(cfg, &[l], rtt / 2, 0, i as Time * MS);
    }
    net
}

#[test]
fn single_flow_fills_the_bottleneck() {
    let cfg = TcpConfig {
        max_window: 1 << 20,
        ..TcpConfig::default()
    };
    // 10 Mbps, 40 ms: BDP 33 packets, queue 40.
    let mut net = pipe(1, cfg, 10, 40 * MS, 40, None, Box::new(|_, _| false));
    net.run_until(5 * SEC);
    net.reset_link_stats();
    let g0 = net.flows()[0].receiver.goodput_bytes();
    net.run_until(25 * SEC);
    let util = net.links()[0].stats.tx_bytes as f64 * 8.0 / 20.0 / 10e6;
    let good = (net.flows()[0].receiver.goodput_bytes() - g0) as f64 * 8.0 / 20.0 / 10e6;
    assert!(util > 0.95, "utilisation {util}");
    assert!(good > 0.9, "goodput share {good}");
    assert!(net.links()[0].qdisc_stats().drops() > 0, "it did probe");
    assert_eq!(net.flows()[0].sender.stats().timeouts, 0);
}

#[test]
fn two_equal_flows_share_fairly() {
    let cfg = TcpConfig {
        max_window: 1 << 20,
        ..TcpConfig::default()
    };
    let mut net = pipe(2, cfg, 10, 40 * MS, 40, None, Box::new(|_, _| false));
    net.run_until(60 * SEC);
    let g: Vec<f64> = net
        .flows()
        .iter()
        .map(|f| f.receiver.goodput_bytes() as f64)
        .collect();
    let j = jain_index(&g);
    assert!(j > 0.95, "Jain {j}: {g:?}");
    let util = net.links()[0].stats.tx_bytes as f64 * 8.0 / 60.0 / 10e6;
    assert!(util > 0.9, "utilisation {util}");
}

#[test]
fn single_loss_in_the_pipe_is_fast_retransmitted() {
    let mut done = false;
    let drop = Box::new(move |_t: Time, p: &Packet| {
        if p.seg.seq == 200 && !done {
            done = true;
            return true;
        }
        false
    });
    let cfg = TcpConfig {
        max_window: 64 * 1460,
        ..TcpConfig::default()
    };
    // Big buffer: the scripted drop is the only loss.
    let mut net = pipe(1, cfg, 10, 40 * MS, 1000, None, drop);
    net.run_until(10 * SEC);
    let st = *net.flows()[0].sender.stats();
    assert_eq!(st.timeouts, 0, "{st:?}");
    assert_eq!(st.fast_recoveries, 1, "{st:?}");
    assert_eq!(st.retransmits, 1, "{st:?}");
}

#[test]
fn losing_a_whole_window_takes_an_rto() {
    // An outage of 300 ms at t = 2 s drops everything in flight.
    let drop = Box::new(|t: Time, _p: &Packet| (2 * SEC..2 * SEC + 300 * MS).contains(&t));
    let cfg = TcpConfig {
        max_window: 64 * 1460,
        ..TcpConfig::default()
    };
    let mut net = pipe(1, cfg, 10, 40 * MS, 1000, None, drop);
    net.run_until(2 * SEC);
    let before = net.flows()[0].receiver.rcv_nxt();
    net.run_until(10 * SEC);
    let st = *net.flows()[0].sender.stats();
    assert!(st.timeouts >= 1, "{st:?}");
    assert!(net.flows()[0].receiver.rcv_nxt() > before + 1000);
}

#[test]
fn ecn_halves_without_loss() {
    let cfg = TcpConfig {
        max_window: 1 << 20,
        ecn: true,
        ..TcpConfig::default()
    };
    // Mark above 40 packets (above the 33-packet BDP), buffer 200: never overflows.
    let mut net = pipe(2, cfg, 10, 40 * MS, 200, Some(40), Box::new(|_, _| false));
    net.run_until(30 * SEC);
    let q = net.links()[0].qdisc_stats();
    assert!(q.marks > 0);
    assert_eq!(q.drops(), 0);
    for f in net.flows() {
        let st = f.sender.stats();
        assert!(st.ecn_reductions > 5, "{st:?}");
        assert_eq!(st.retransmits, 0);
        assert_eq!(st.timeouts, 0);
    }
    let util = net.links()[0].stats.tx_bytes as f64 * 8.0 / 30.0 / 10e6;
    assert!(util > 0.9, "utilisation {util}");
}

#[test]
fn delayed_acks_still_fill_the_pipe() {
    let cfg = TcpConfig {
        max_window: 1 << 20,
        delayed_ack_ns: Some(100 * MS),
        ..TcpConfig::default()
    };
    let mut net = pipe(1, cfg, 10, 40 * MS, 40, None, Box::new(|_, _| false));
    net.run_until(30 * SEC);
    let r = net.flows()[0].receiver.stats();
    assert!(r.acks_sent < r.received * 3 / 4, "{r:?}");
    let util = net.links()[0].stats.tx_bytes as f64 * 8.0 / 30.0 / 10e6;
    assert!(util > 0.9, "utilisation {util}");
}

#[test]
fn timestamps_give_samples_from_retransmissions() {
    // Two RTOs back the timer off to 4 s; the ACK of the retransmission then
    // gives a sample only with timestamps (Karn's rule keeps the backed-off RTO).
    let run = |timestamps: bool| {
        let cfg = TcpConfig {
            timestamps,
            min_rto_ns: 200 * MS,
            ..TcpConfig::default()
        };
        let mut s = TcpSender::new(cfg, 0);
        let mut r = TcpReceiver::new(cfg, 0);
        let mut out = Vec::new();
        s.start(0, &mut out);
        out.clear();
        let d1 = s.deadline().unwrap();
        s.on_timer(d1, &mut out);
        let d2 = s.deadline().unwrap();
        out.clear();
        s.on_timer(d2, &mut out);
        assert_eq!(s.rto(), 4 * SEC);
        let rtx = out[0];
        assert!(rtx.retransmit && rtx.seq == 0 && rtx.ts == d2);
        let a = r.on_segment(d2 + 50 * MS, &rtx).unwrap();
        assert_eq!(a.tsecr, d2);
        s.on_ack(d2 + 100 * MS, &a, &mut out);
        (s.rto(), s.srtt())
    };
    // First sample 100 ms: RTO = 100 + 4 * 50 = 300 ms.
    assert_eq!(run(true), (300 * MS, Some(100 * MS)));
    assert_eq!(run(false), (4 * SEC, None));
}

#[test]
fn pipe_links_time_packets_like_a_fifo() {
    let cfg = TcpConfig {
        max_window: 1 << 20,
        ..TcpConfig::default()
    };
    let build = |pipe: bool| {
        let mut net = Network::new();
        let first = if pipe {
            net.add_pipe_link(100_000_000, MS)
        } else {
            net.add_link(100_000_000, MS, Box::new(DropTail::packets(1 << 20)))
        };
        let b = net.add_link(10_000_000, 10 * MS, Box::new(DropTail::packets(30)));
        let last = if pipe {
            net.add_pipe_link(20_000_000, MS)
        } else {
            net.add_link(20_000_000, MS, Box::new(DropTail::packets(1 << 20)))
        };
        for i in 0..3 {
            net.add_flow(cfg, &[first, b, last], 12 * MS, 0, i * MS);
        }
        net.run_until(20 * SEC);
        let r: Vec<_> = net
            .flows()
            .iter()
            .map(|f| (*f.sender.stats(), *f.receiver.stats()))
            .collect();
        (r, net.events())
    };
    let (a, ev_pipe) = build(true);
    let (b, ev_fifo) = build(false);
    assert_eq!(a, b);
    assert!(ev_pipe < ev_fifo);
}

#[test]
fn finite_transfers_complete_under_random_loss() {
    // Liveness and accounting over many random loss patterns, for every option
    // combination: the transfer completes, each segment is delivered once, and
    // every retransmission was needed or is counted as a duplicate.
    for seed in 0..96u64 {
        let sack = seed % 2 == 0;
        let ecn = seed % 3 == 0;
        let delack = seed % 4 < 2;
        let loss = 0.01 + 0.01 * (seed % 8) as f64;
        let cfg = TcpConfig {
            sack,
            ecn,
            timestamps: seed % 5 == 0,
            delayed_ack_ns: delack.then_some(40 * MS),
            min_rto_ns: 200 * MS,
            max_window: 30 * 1460,
            ..TcpConfig::default()
        };
        let mut rng = crate::engine::Rng::new(seed);
        let drop = Box::new(move |_t: Time, _p: &Packet| rng.chance(loss));
        let mut net = pipe(1, cfg, 10, 40 * MS, 20, ecn.then_some(10), drop);
        let total = 400;
        let s = TcpSender::new(cfg, 0).with_limit(total);
        net.set_sender(0, s);
        net.run_until(300 * SEC);
        let f = &net.flows()[0];
        let (st, rs) = (f.sender.stats(), f.receiver.stats());
        assert!(f.sender.finished(), "seed {seed}: {st:?} {rs:?}");
        assert_eq!(rs.delivered, total, "seed {seed}");
        assert_eq!(f.receiver.rcv_nxt(), total);
        assert_eq!(st.segments_sent, total + st.retransmits);
        assert!(rs.received <= st.segments_sent);
        assert!(rs.duplicates <= st.retransmits);
        assert_eq!(f.sender.deadline(), None, "timer stopped when all is acked");
    }
}
