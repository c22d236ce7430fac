//! FqCodel and FqPie read back from their serde form mid-stream continue
//! exactly as the states they were written from.
#![cfg(feature = "serde")]

use std::collections::VecDeque;

use aqm_delay::{
    Enqueued, FqCodel, FqCodelConfig, FqCodelProfile, FqPie, FqPieConfig, FqPieProfile, Head,
    Verdict,
};
use netcond_core::{Instant, SplitMix64};

/// More flows than serde's own array impls reach.
const N: usize = 40;

fn us(t: u64) -> Instant {
    Instant::from_ticks(t * 1_000)
}

/// What a step of a run did, to compare two runs by.
#[derive(Debug, PartialEq, Eq)]
enum Event {
    Enqueued(usize, Enqueued),
    Dequeued(usize, Verdict),
    PieVerdict(usize, Verdict),
}

/// Flow `f`'s packet length at step `t`, and whether it sends then: seven
/// flows of different rates and sizes into a link of one packet per 100 us.
fn offered(t: u64, f: u64) -> Option<u32> {
    (t % (f + 1) == 0).then(|| 200 + 180 * (f as u32) + (t % 5) as u32 * 37)
}

fn codel_run(
    p: &FqCodelProfile,
    fq: &mut FqCodel<N>,
    fifos: &mut [VecDeque<Head>],
    steps: core::ops::Range<u64>,
) -> Vec<Event> {
    let mut ev = Vec::new();
    for t in steps {
        let now = us(t * 50);
        for f in 0..7u64 {
            if let Some(len) = offered(t, f) {
                // Flows 0..7 land on queues spread over the N.
                let q = (f as usize * 11) % N;
                fifos[q].push_back(Head::new(now, len, t % 3 == 0));
                let r = fq.enqueue(p, now, q, len, |v| fifos[v].pop_front().map(|h| h.len));
                ev.push(Event::Enqueued(q, r));
            }
        }
        if t % 2 == 0 {
            while let Some(f) = fq.schedule(p, now) {
                let h = fifos[f].pop_front().unwrap();
                let v = fq.on_dequeue(p, now, f, h);
                ev.push(Event::Dequeued(f, v));
                if v != Verdict::Drop {
                    break;
                }
            }
        }
    }
    ev
}

#[test]
fn fq_codel_continues_after_a_round_trip() {
    let p = FqCodelProfile::new(&FqCodelConfig::rfc8290().with_limit(600)).unwrap();
    let mut fq: FqCodel<N> = FqCodel::new(&p, Instant::ZERO);
    let mut fifos = vec![VecDeque::new(); N];
    let first = codel_run(&p, &mut fq, &mut fifos, 0..20_000);
    // Mid-stream: packets queued in several flows, CoDel dropping.
    assert!(fq.packets() > 0);
    assert!(first.contains(&Event::Dequeued(0, Verdict::Drop)));

    let text = serde_json::to_string(&fq).unwrap();
    let mut back: FqCodel<N> = serde_json::from_str(&text).unwrap();
    assert_eq!(back, fq);
    let mut fifos_back = fifos.clone();

    let a = codel_run(&p, &mut fq, &mut fifos, 20_000..40_000);
    let b = codel_run(&p, &mut back, &mut fifos_back, 20_000..40_000);
    assert!(a
        .iter()
        .any(|e| matches!(e, Event::Dequeued(_, Verdict::Drop))));
    assert_eq!(a, b);
    assert_eq!(back, fq);
    assert_eq!(fifos_back, fifos);

    // A state with another number of flows is refused.
    assert!(serde_json::from_str::<FqCodel<41>>(&text).is_err());
    assert!(serde_json::from_str::<FqCodel<39>>(&text).is_err());
}

fn pie_run(
    p: &FqPieProfile,
    fq: &mut FqPie<N>,
    fifos: &mut [VecDeque<Head>],
    rng: &mut SplitMix64,
    steps: core::ops::Range<u64>,
) -> Vec<Event> {
    let mut ev = Vec::new();
    for t in steps {
        let now = us(t * 50);
        fq.poll(p, now);
        for f in 0..7u64 {
            if let Some(len) = offered(t, f) {
                let q = (f as usize * 11) % N;
                let h = Head::new(now, len, t % 3 == 0);
                let v = fq.enqueue(p, now, q, h, rng);
                if v != Verdict::Drop {
                    fifos[q].push_back(h);
                }
                ev.push(Event::PieVerdict(q, v));
            }
        }
        if t % 2 == 0 {
            if let Some(f) = fq.schedule(p, now) {
                let h = fifos[f].pop_front().unwrap();
                fq.on_dequeue(p, now, f, h);
                ev.push(Event::Dequeued(f, Verdict::Deliver));
            }
        }
    }
    ev
}

#[test]
fn fq_pie_continues_after_a_round_trip() {
    let p = FqPieProfile::new(&FqPieConfig::linux()).unwrap();
    let mut fq: FqPie<N> = FqPie::new(&p, Instant::ZERO);
    let mut fifos = vec![VecDeque::new(); N];
    let mut rng = SplitMix64::new(7);
    let first = pie_run(&p, &mut fq, &mut fifos, &mut rng, 0..40_000);
    assert!(fq.totals().0 > 0);
    assert!(first.contains(&Event::PieVerdict(0, Verdict::Drop)));

    let text = serde_json::to_string(&fq).unwrap();
    let mut back: FqPie<N> = serde_json::from_str(&text).unwrap();
    assert_eq!(back, fq);
    let mut fifos_back = fifos.clone();
    let mut rng_back = rng;

    let a = pie_run(&p, &mut fq, &mut fifos, &mut rng, 40_000..80_000);
    let b = pie_run(
        &p,
        &mut back,
        &mut fifos_back,
        &mut rng_back,
        40_000..80_000,
    );
    assert!(a
        .iter()
        .any(|e| matches!(e, Event::PieVerdict(_, Verdict::Drop))));
    assert_eq!(a, b);
    assert_eq!(back, fq);

    assert!(serde_json::from_str::<FqPie<64>>(&text).is_err());
}
