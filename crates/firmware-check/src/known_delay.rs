//! Known answers of the delay-based AQMs and the token bucket filter, worked
//! out from RFC 8289, 8290, 8033, 9332 and tc-tbf(8), through the firmware's
//! entry points.

use crate::cases::delay::{ep, FQ_N};
use crate::known::{Family, Notes};
use core::time::Duration;
use netcond::base::{Instant, Rate, SplitMix64};
use netcond::delay::{
    Codel, CodelConfig, CodelProfile, DualPi2, DualPi2Config, DualPi2Profile, DualQueue, Ecn,
    Enqueued, FqCodel, FqCodelConfig, FqCodelProfile, FqPie, FqPieConfig, FqPieProfile, Head,
    OverflowDrop, Pie, PieConfig, PieProfile, Verdict,
};
use netcond::ras::{Tbf, TbfConfig, TbfDeparture, TbfProfile, TbfVerdict};

/// The families of this file, printed after `known::FAMILIES`.
pub const FAMILIES: &[Family] = &[
    Family {
        name: "CoDel (RFC 8289)",
        check: codel,
        streams: &["CoDel"],
    },
    Family {
        name: "FQ-CoDel (RFC 8290)",
        check: fq_codel,
        streams: &["FQ-CoDel"],
    },
    Family {
        name: "PIE (RFC 8033)",
        check: pie,
        streams: &["PIE"],
    },
    Family {
        name: "FQ-PIE",
        check: fq_pie,
        streams: &["FQ-PIE"],
    },
    Family {
        name: "DualPI2 (RFC 9332)",
        check: dualpi2,
        streams: &["DualPI2"],
    },
    Family {
        name: "TBF (tc-tbf)",
        check: tbf,
        streams: &["TBF"],
    },
];

fn ms(m: u64) -> Instant {
    Instant::from_ticks(m * 1_000_000)
}

/// CoDel: a standing 10 ms queue (above the 5 ms target) from t = 11 ms is
/// first dropped once it has stood for an interval (100 ms), at t = 111 ms
/// (RFC 8289 sections 4.3 and 5.5); with ECN on, an ECN-capable packet is
/// marked there instead.
pub fn codel(n: &mut Notes) {
    for ecn in [false, true] {
        let Ok(p) = CodelProfile::new(&CodelConfig::rfc8289().with_ecn(ecn)) else {
            n.check("CoDel profile", false, true);
            return;
        };
        let mut s = Codel::new(&p, ms(0));
        let mut first = None;
        for t in 11..=150u64 {
            let head = Head::new(ms(t - 10), 1500, true);
            let v = ep::fw_codel_dequeue(&mut s, &p, ms(t), head, 10_000);
            if v != Verdict::Deliver {
                first = Some((t, v));
                break;
            }
        }
        let want = if ecn { Verdict::Mark } else { Verdict::Drop };
        n.check("CoDel first signal", first, Some((111, want)));
    }
}

/// FQ-CoDel: over the packet limit, packets are dropped from the head of the
/// fattest flow (RFC 8290 section 4.1): one with `OverflowDrop::Single`, and
/// with Linux's batch until at least half of that flow's bytes are gone (two
/// of its three 1000-byte packets); a new flow is served before old ones.
pub fn fq_codel(n: &mut Notes) {
    let single = FqCodelConfig::rfc8290().with_overflow(OverflowDrop::Single);
    for (cfg, dropped) in [(single, 1u32), (FqCodelConfig::linux(), 2)] {
        let Ok(p) = FqCodelProfile::new(&cfg.with_limit(3)) else {
            n.check("FQ-CoDel profile", false, true);
            return;
        };
        let mut s = FqCodel::<FQ_N>::new(&p, ms(0));
        let mut held = [0u32; FQ_N];
        let mut e = Enqueued::Queued;
        for flow in [2, 2, 2, 1] {
            held[flow] += 1;
            let mut drop_head = |f: usize| {
                held[f] -= 1;
                Some(1000)
            };
            e = ep::fw_fq_codel_enqueue(&mut s, &p, ms(0), flow, 1000, &mut drop_head);
        }
        let want = Enqueued::Overflow {
            victim: 2,
            packets: dropped,
            bytes: u64::from(dropped) * 1000,
        };
        n.check("FQ-CoDel overflow drops from the fattest flow", e, want);
        n.check("FQ-CoDel packets held", held, [0, 1, 3 - dropped, 0]);
        // Flow 2 is served first: both are new, and it arrived first.
        let mut take = |_| Some(Head::new(ms(0), 1000, false));
        let first = ep::fw_fq_codel_dequeue(&mut s, &p, ms(1), &mut take);
        n.check(
            "FQ-CoDel first flow served",
            first,
            Some((2, Verdict::Deliver)),
        );
    }
}

/// PIE: a packet arriving at a full queue is dropped; with the probability
/// still zero an arrival into a short queue is accepted (RFC 8033 section
/// 4.1); the probability rises once the queue delay stays above the 15 ms
/// target (section 4.2).
pub fn pie(n: &mut Notes) {
    let Ok(p) = PieProfile::new(&PieConfig::rfc8033().with_limit(10)) else {
        n.check("PIE profile", false, true);
        return;
    };
    let mut s = Pie::new(&p, ms(0));
    let mut rng = SplitMix64::new(3);
    let h = Head::new(ms(0), 1000, false);
    n.check(
        "PIE short queue accepts",
        ep::fw_pie_enqueue(&mut s, &p, ms(0), h, 1, 1000, &mut rng),
        Verdict::Deliver,
    );
    n.check(
        "PIE full queue drops",
        ep::fw_pie_enqueue(&mut s, &p, ms(0), h, 10, 10_000, &mut rng),
        Verdict::Drop,
    );
    // A departure every 10 ms of a packet queued 100 ms: the delay is far
    // above target, and the updates raise the probability.
    for t in 1..=30u64 {
        let head = Head::new(ms(t * 10 - 100), 1000, false);
        ep::fw_pie_dequeue(&mut s, &p, ms(t * 10), head, 9000);
        ep::fw_pie_poll(&mut s, &p, ms(t * 10), 9000);
    }
    n.check("PIE probability rises above target", s.prob() > 0, true);
}

/// FQ-PIE: a packet arriving at the packet limit is dropped.
pub fn fq_pie(n: &mut Notes) {
    let Ok(p) = FqPieProfile::new(&FqPieConfig::linux().with_limit(2)) else {
        n.check("FQ-PIE profile", false, true);
        return;
    };
    let mut s = FqPie::<FQ_N>::new(&p, ms(0));
    let mut rng = SplitMix64::new(4);
    let h = Head::new(ms(0), 1000, false);
    let v: [Verdict; 3] =
        core::array::from_fn(|i| ep::fw_fq_pie_enqueue(&mut s, &p, ms(0), i, h, &mut rng));
    n.check(
        "FQ-PIE limit",
        v,
        [Verdict::Deliver, Verdict::Deliver, Verdict::Drop],
    );
}

/// DualPI2: ECT(1) and CE join the L4S queue, Not-ECT and ECT(0) the
/// Classic one (RFC 9332 section 4.1); no packet is taken when one more MTU
/// would not fit the shared buffer.
pub fn dualpi2(n: &mut Notes) {
    let Ok(p) = DualPi2Profile::new(&DualPi2Config::rfc9332().with_limit(10_000, 1500)) else {
        n.check("DualPI2 profile", false, true);
        return;
    };
    let mut s = DualPi2::new(&p, ms(0));
    let q = [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce]
        .map(|e| ep::fw_dualpi2_enqueue(&mut s, &p, ms(0), e, 1000, 0));
    let (l, c) = (Some(DualQueue::L4s), Some(DualQueue::Classic));
    n.check("DualPI2 classification", q, [c, c, l, l]);
    n.check(
        "DualPI2 full buffer",
        ep::fw_dualpi2_enqueue(&mut s, &p, ms(0), Ecn::Ect1, 1000, 8501),
        None,
    );
}

/// TBF as `tbf rate 8mbit burst 3000 latency 10ms`: the limit is rate x
/// latency + burst = 13,000 bytes (tc-tbf(8)); the burst lets two 1500-byte
/// packets go at once and the third 1.5 ms later.
pub fn tbf(n: &mut Notes) {
    let cfg = TbfConfig::with_latency(Rate::from_mbps(8), 3000, Duration::from_millis(10));
    let Ok(p) = TbfProfile::new(&cfg) else {
        n.check("TBF profile", false, true);
        return;
    };
    n.check("TBF limit from latency", p.limit(), 13_000);
    let mut s = Tbf::new(&p, ms(0));
    let v = [0; 3].map(|_| ep::fw_tbf_enqueue(&mut s, &p, ms(0), 1500));
    n.check("TBF accepts", v, [TbfVerdict::Accept; 3]);
    let d = [0; 3].map(|_| ep::fw_tbf_dequeue(&mut s, &p, ms(0), 1500));
    let at = TbfDeparture::At(Instant::from_ticks(1_500_000));
    n.check(
        "TBF departures",
        d,
        [TbfDeparture::Now, TbfDeparture::Now, at],
    );
}
