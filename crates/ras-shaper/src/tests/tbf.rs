//! Tests of the token bucket filter: known answers, the configuration rules,
//! an exact reference model (u128, tokens in 1/(8 hz) byte) compared packet
//! by packet, the token bucket bounds, and totality under extreme inputs.

use std::collections::VecDeque;
use std::vec::Vec;

use core::time::Duration;
use netcond_core::{Instant, LengthAdjust, Rate, TickRate};
use proptest::prelude::*;

use super::check_sent;
use crate::{Tbf, TbfConfig, TbfDeparture, TbfError, TbfProfile, TbfVerdict};

/// What happened to packet `id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    Sent(usize, u64),
    TooBig(usize, u64),
    OverLimit(usize, u64),
}

/// Drives a [`Tbf`] with a FIFO of its own over `(arrival tick, len)`,
/// arrivals in time order; departures due at or before an arrival go first.
fn drive(p: &TbfProfile, trace: &[(u64, u32)]) -> Vec<Ev> {
    let mut tbf = Tbf::new(p, Instant::ZERO);
    let mut fifo: VecDeque<(usize, u32)> = VecDeque::new();
    let mut out = Vec::new();
    let mut now = 0u64;
    let release = |tbf: &mut Tbf,
                   fifo: &mut VecDeque<(usize, u32)>,
                   now: &mut u64,
                   until: u64,
                   out: &mut Vec<Ev>| {
        while let Some(&(id, len)) = fifo.front() {
            match tbf.dequeue(p, Instant::from_ticks(*now), len) {
                TbfDeparture::Now => {
                    out.push(Ev::Sent(id, *now));
                    fifo.pop_front();
                }
                TbfDeparture::At(t) => {
                    assert!(t.ticks() > *now, "watchdog {t:?} not after {now}");
                    assert_eq!(
                        tbf.next_departure(p, Instant::from_ticks(*now), len),
                        Some(t)
                    );
                    if t.ticks() > until {
                        break;
                    }
                    *now = t.ticks();
                    // The watchdog instant is exact: the head leaves then.
                    assert_eq!(
                        tbf.next_departure(p, t, len),
                        Some(t),
                        "head not ready at its watchdog time"
                    );
                }
                TbfDeparture::Never => panic!("accepted packet can never leave"),
            }
        }
    };
    for (id, &(a, len)) in trace.iter().enumerate() {
        release(&mut tbf, &mut fifo, &mut now, a, &mut out);
        now = now.max(a);
        match tbf.enqueue(p, Instant::from_ticks(now), len) {
            TbfVerdict::Accept => fifo.push_back((id, len)),
            TbfVerdict::DropTooBig => out.push(Ev::TooBig(id, now)),
            TbfVerdict::DropOverLimit => out.push(Ev::OverLimit(id, now)),
        }
        assert_eq!(
            tbf.backlog(),
            fifo.iter().map(|x| u64::from(x.1)).sum::<u64>()
        );
        assert_eq!(tbf.packets() as usize, fifo.len());
    }
    release(&mut tbf, &mut fifo, &mut now, u64::MAX, &mut out);
    assert!(fifo.is_empty());
    assert_eq!(tbf.backlog(), 0);
    out
}

/// The reference: the same FIFO, with tokens written out plainly in u128
/// units of 1/(8 hz) byte (a tick adds `rate_bits` units), the charge by
/// tc's rule in i128, the limit and largest packet from the configuration.
struct Model {
    hz8: u128,
    rate: u128,
    cap: u128,
    peak: Option<(u128, u128)>,
    limit: u128,
    max_size: u32,
    adjust: LengthAdjust,
}

fn charge(a: LengthAdjust, len: u32) -> u128 {
    let n = (i128::from(len) + i128::from(a.overhead))
        .max(i128::from(a.mpu))
        .max(0);
    let n = if a.atm { (n + 47) / 48 * 53 } else { n };
    n.min(i128::from(u32::MAX)) as u128
}

impl Model {
    fn new(cfg: &TbfConfig) -> Model {
        let hz8 = 8 * u128::from(cfg.tick.hz());
        let burst = u32::try_from(cfg.burst).unwrap();
        let lat_limit = |rate: Rate, size: u64| {
            // tc: rate (whole bytes per second) x latency + size.
            u128::from(rate.bits_per_sec() / 8) * cfg.latency.unwrap().as_nanos() / 1_000_000_000
                + u128::from(size)
        };
        let mut limit = match cfg.limit {
            Some(l) => u128::from(l),
            None => lat_limit(cfg.rate, cfg.burst),
        };
        let mut max_size = burst;
        let peak = cfg.peak.map(|pk| {
            let mtu = u32::try_from(pk.mtu).unwrap();
            max_size = max_size.min(mtu);
            if cfg.limit.is_none() {
                limit = limit.min(lat_limit(pk.rate, pk.mtu));
            }
            (
                u128::from(pk.rate.bits_per_sec()),
                charge(cfg.adjust, mtu) * hz8,
            )
        });
        Model {
            hz8,
            rate: u128::from(cfg.rate.bits_per_sec()),
            cap: charge(cfg.adjust, burst) * hz8,
            peak,
            limit,
            max_size,
            adjust: cfg.adjust,
        }
    }

    fn run(&self, trace: &[(u64, u32)]) -> Vec<Ev> {
        let mut tok = self.cap;
        let mut ptok = self.peak.map_or(0, |p| p.1);
        let mut last = 0u128;
        let mut backlog = 0u128;
        let mut fifo: VecDeque<(usize, u32)> = VecDeque::new();
        let mut out = Vec::new();
        let mut now = 0u128;
        let ceil = |a: u128, b: u128| a.div_ceil(b);
        let mut release = |until: u128,
                           now: &mut u128,
                           fifo: &mut VecDeque<(usize, u32)>,
                           out: &mut Vec<Ev>,
                           backlog: &mut u128| {
            while let Some(&(id, len)) = fifo.front() {
                let need = charge(self.adjust, len) * self.hz8;
                let fill = |t: u128, cap: u128, r: u128, at: u128| (t + (at - last) * r).min(cap);
                // The earliest tick at which each bucket holds `need`.
                let mut t = *now;
                if fill(tok, self.cap, self.rate, t) < need {
                    t = last + ceil(need - tok, self.rate);
                }
                if let Some((pr, pc)) = self.peak {
                    if fill(ptok, pc, pr, t) < need {
                        t = t.max(last + ceil(need - ptok, pr));
                    }
                }
                if t > until {
                    break;
                }
                tok = fill(tok, self.cap, self.rate, t) - need;
                if let Some((pr, pc)) = self.peak {
                    ptok = fill(ptok, pc, pr, t) - need;
                }
                last = t;
                *now = t;
                *backlog -= u128::from(len);
                out.push(Ev::Sent(id, t as u64));
                fifo.pop_front();
            }
        };
        for (id, &(a, len)) in trace.iter().enumerate() {
            release(u128::from(a), &mut now, &mut fifo, &mut out, &mut backlog);
            now = now.max(u128::from(a));
            if len > self.max_size {
                out.push(Ev::TooBig(id, now as u64));
            } else if backlog + u128::from(len) > self.limit {
                out.push(Ev::OverLimit(id, now as u64));
            } else {
                backlog += u128::from(len);
                fifo.push_back((id, len));
            }
        }
        release(u128::MAX, &mut now, &mut fifo, &mut out, &mut backlog);
        out
    }
}

fn sent_charged(p: &TbfProfile, trace: &[(u64, u32)], ev: &[Ev]) -> Vec<(u64, u32)> {
    ev.iter()
        .filter_map(|e| match *e {
            Ev::Sent(id, t) => Some((t, p.charge(trace[id].1))),
            _ => None,
        })
        .collect()
}

#[test]
fn burst_then_rate() {
    // 8 Mbit/s = 1 byte per ns / 1000: a 1500-byte packet every 1.5 ms.
    let p = TbfProfile::new(&TbfConfig::with_limit(Rate::from_mbps(8), 3000, 100_000)).unwrap();
    let trace: Vec<(u64, u32)> = (0..6).map(|_| (0, 1500)).collect();
    let ev = drive(&p, &trace);
    let times: Vec<u64> = ev
        .iter()
        .map(|e| match e {
            Ev::Sent(_, t) => *t,
            _ => panic!("{e:?}"),
        })
        .collect();
    assert_eq!(times, [0, 0, 1_500_000, 3_000_000, 4_500_000, 6_000_000]);
}

#[test]
fn peak_rate_spaces_the_burst() {
    // Burst 10 kB at 1 Mbit/s, but at most 10 Mbit/s within it, mtu 1500:
    // the burst leaves one packet per 1.2 ms, not all at once.
    let cfg = TbfConfig::with_limit(Rate::from_mbps(1), 10_000, 100_000)
        .with_peak(Rate::from_mbps(10), 1500);
    let p = TbfProfile::new(&cfg).unwrap();
    assert_eq!(p.max_size(), 1500);
    let trace: Vec<(u64, u32)> = (0..4).map(|_| (0, 1500)).collect();
    let ev = drive(&p, &trace);
    assert_eq!(
        ev,
        [
            Ev::Sent(0, 0),
            Ev::Sent(1, 1_200_000),
            Ev::Sent(2, 2_400_000),
            Ev::Sent(3, 3_600_000)
        ]
    );
    // A 1501-byte packet is longer than the peak bucket: dropped at enqueue.
    let mut t = Tbf::new(&p, Instant::ZERO);
    assert_eq!(t.enqueue(&p, Instant::ZERO, 1501), TbfVerdict::DropTooBig);
    assert_eq!(t.next_departure(&p, Instant::ZERO, 1501), None);
    assert_eq!(t.dequeue(&p, Instant::ZERO, 1501), TbfDeparture::Never);
}

#[test]
fn limit_drops_tail() {
    let p = TbfProfile::new(&TbfConfig::with_limit(Rate::from_mbps(8), 1500, 3000)).unwrap();
    let mut t = Tbf::new(&p, Instant::ZERO);
    let z = Instant::ZERO;
    assert_eq!(t.enqueue(&p, z, 1500), TbfVerdict::Accept);
    assert_eq!(t.enqueue(&p, z, 1000), TbfVerdict::Accept);
    assert_eq!(t.enqueue(&p, z, 501), TbfVerdict::DropOverLimit);
    assert_eq!(t.enqueue(&p, z, 500), TbfVerdict::Accept);
    assert_eq!(t.enqueue(&p, z, 0), TbfVerdict::Accept);
    assert_eq!(t.enqueue(&p, z, 1), TbfVerdict::DropOverLimit);
    assert_eq!(t.backlog(), 3000);
    assert_eq!(t.packets(), 4);
    // A packet longer than the burst is dropped whatever the room.
    assert_eq!(t.enqueue(&p, z, 1501), TbfVerdict::DropTooBig);
}

#[test]
fn latency_becomes_limit_as_tc_computes_it() {
    // tc qdisc ... tbf rate 10mbit burst 32k latency 50ms:
    // 1,250,000 B/s x 0.05 s + 32768 = 95268.
    let p = TbfProfile::new(&TbfConfig::with_latency(
        Rate::from_mbps(10),
        32 * 1024,
        Duration::from_millis(50),
    ))
    .unwrap();
    assert_eq!(p.limit(), 95_268);
    // With a peak rate: min(95268, 2,500,000 x 0.05 + 1514) = 95268;
    // with a low peak rate the second term wins.
    let cfg = TbfConfig::with_latency(Rate::from_mbps(10), 32 * 1024, Duration::from_millis(50));
    let p = TbfProfile::new(&cfg.with_peak(Rate::from_mbps(20), 1514)).unwrap();
    assert_eq!(p.limit(), 95_268);
    let p = TbfProfile::new(&cfg.with_peak(Rate::from_mbps(11), 1514)).unwrap();
    assert_eq!(p.limit(), 1_375_000 / 20 + 1514);
    // A rate in bits is taken in whole bytes per second, as tc keeps it.
    let p = TbfProfile::new(&TbfConfig::with_latency(
        Rate::from_bits_per_sec(8_007),
        100,
        Duration::from_secs(1),
    ))
    .unwrap();
    assert_eq!(p.limit(), 1000 + 100);
}

#[test]
fn every_rule_has_its_error() {
    let ok = TbfConfig::with_limit(Rate::from_mbps(1), 1500, 10_000);
    assert!(TbfProfile::new(&ok).is_ok());
    let cases = [
        (
            TbfConfig::with_limit(Rate::ZERO, 1500, 10_000),
            TbfError::ZeroRate,
        ),
        (
            TbfConfig::with_limit(Rate::from_mbps(1), 0, 10_000),
            TbfError::ZeroBurst,
        ),
        (
            TbfConfig::with_limit(Rate::from_mbps(1), 1 << 32, 10_000),
            TbfError::BurstTooLarge,
        ),
        (
            TbfConfig {
                latency: Some(Duration::from_millis(1)),
                ..ok
            },
            TbfError::LimitAndLatency,
        ),
        (TbfConfig { limit: None, ..ok }, TbfError::NoLimit),
        (
            ok.with_peak(Rate::from_mbps(1), 1500),
            TbfError::PeakNotAboveRate,
        ),
        (ok.with_peak(Rate::from_mbps(2), 0), TbfError::ZeroMtu),
        (
            ok.with_peak(Rate::from_mbps(2), 1 << 32),
            TbfError::MtuTooLarge,
        ),
        (
            ok.with_tick(TickRate::from_hz(1 << 60).unwrap()),
            TbfError::BucketTooLarge,
        ),
    ];
    for (cfg, want) in cases {
        assert_eq!(TbfProfile::new(&cfg), Err(want), "{cfg:?}");
        assert!(want.to_string().contains("tc-tbf(8)") || want == TbfError::BucketTooLarge);
    }
}

#[test]
fn length_adjust_charges_the_buckets_not_the_limit() {
    // ATM: a 1500-byte packet costs 32 cells = 1696 bytes; the burst of
    // 3000 bytes is 63 cells = 3339 bytes, so one packet passes at once and
    // the next waits for 1696 - (3339 - 1696) = 53 bytes at 1 B/us.
    let cfg = TbfConfig::with_limit(Rate::from_mbps(8), 3000, 1500)
        .with_adjust(LengthAdjust::NONE.with_atm(true));
    let p = TbfProfile::new(&cfg).unwrap();
    assert_eq!(p.charge(1500), 1696);
    let ev = drive(&p, &[(0, 1500), (0, 1500), (0, 1)]);
    assert_eq!(
        ev,
        [Ev::Sent(0, 0), Ev::OverLimit(2, 0), Ev::Sent(1, 53_000)]
    );
}

#[test]
fn clock_stepping_back_creates_no_tokens() {
    let p = TbfProfile::new(&TbfConfig::with_limit(Rate::from_mbps(8), 1500, 10_000)).unwrap();
    let t0 = Instant::from_ticks(1_000_000);
    let mut t = Tbf::new(&p, t0);
    t.enqueue(&p, t0, 1500);
    t.enqueue(&p, t0, 1500);
    assert_eq!(t.dequeue(&p, t0, 1500), TbfDeparture::Now);
    // Earlier than the start: still 1.5 ms from t0.
    let back = Instant::from_ticks(10);
    assert_eq!(
        t.dequeue(&p, back, 1500),
        TbfDeparture::At(Instant::from_ticks(2_500_000))
    );
}

/// A trace of bursts: `(gap before the burst, packets, size)` from a few sizes.
fn trace_strategy() -> impl Strategy<Value = Vec<(u64, u32)>> {
    proptest::collection::vec(
        (
            0u64..5_000,
            1usize..8,
            prop::sample::select(vec![
                0u32, 1, 40, 64, 576, 1000, 1499, 1500, 1514, 3000, 9000,
            ]),
        ),
        1..40,
    )
    .prop_map(|bursts| {
        let mut t = 0u64;
        let mut out = Vec::new();
        for (gap, n, len) in bursts {
            t += gap;
            for _ in 0..n {
                out.push((t, len));
            }
        }
        out
    })
}

fn config_strategy() -> impl Strategy<Value = TbfConfig> {
    (
        1u64..200_000,
        1u64..20_000,
        prop::option::of(0u64..40_000),
        0u64..50_000,
        prop::option::of((1u64..300_000, 1u64..10_000)),
        (-100i32..100, 0u32..200, any::<bool>()),
        prop::sample::select(vec![1u64, 3, 1000, 1_000_000, 1_000_000_000, 2_300_000_000]),
    )
        .prop_map(|(rate, burst, limit, lat_us, peak, (o, m, atm), hz)| {
            // Rates in bits per tick-ish so that the traces (in ticks) keep
            // queues short and long.
            let rate = Rate::from_bits_per_sec(rate.saturating_mul(hz / 1000 + 1));
            let base = match limit {
                Some(l) => TbfConfig::with_limit(rate, burst, l),
                None => TbfConfig::with_latency(rate, burst, Duration::from_micros(lat_us)),
            };
            let mut cfg = base
                .with_adjust(LengthAdjust {
                    overhead: o,
                    mpu: m,
                    atm,
                })
                .with_tick(TickRate::from_hz(hz).unwrap());
            if let Some((extra, mtu)) = peak {
                cfg = cfg.with_peak(
                    Rate::from_bits_per_sec(rate.bits_per_sec() + extra * (hz / 1000 + 1)),
                    mtu,
                );
            }
            cfg
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 512 }))]

    /// Every departure instant and every drop equal the exact model's.
    #[test]
    fn matches_the_reference(cfg in config_strategy(), trace in trace_strategy()) {
        let Ok(p) = TbfProfile::new(&cfg) else { return Ok(()); };
        let got = drive(&p, &trace);
        let want = Model::new(&cfg).run(&trace);
        prop_assert_eq!(&got, &want);
        // The bounds: burst + rate x time, and mtu + peakrate x time.
        let sent = sent_charged(&p, &trace, &got);
        prop_assert_eq!(check_sent(&p, &sent), Ok(()));
    }

    /// No input panics: any configuration, any call in any order, any
    /// length and instant.
    #[test]
    fn total(
        rate in any::<u64>(), burst in any::<u64>(), limit in any::<u64>(),
        peak in prop::option::of((any::<u64>(), any::<u64>())),
        adjust in (any::<i32>(), any::<u32>(), any::<bool>()),
        hz in 1u64..,
        start in any::<u64>(),
        ops in proptest::collection::vec((0u8..3, any::<u64>(), any::<u32>()), 1..60),
    ) {
        let mut cfg = TbfConfig::with_limit(Rate::from_bits_per_sec(rate), burst, limit)
            .with_adjust(LengthAdjust { overhead: adjust.0, mpu: adjust.1, atm: adjust.2 })
            .with_tick(TickRate::from_hz(hz).unwrap());
        if let Some((r, m)) = peak {
            cfg = cfg.with_peak(Rate::from_bits_per_sec(r), m);
        }
        let Ok(p) = TbfProfile::new(&cfg) else { return Ok(()); };
        let mut t = Tbf::new(&p, Instant::from_ticks(start));
        for (op, now, len) in ops {
            let now = Instant::from_ticks(now);
            match op {
                0 => { let _ = t.enqueue(&p, now, len); }
                1 => {
                    let before = t;
                    match t.dequeue(&p, now, len) {
                        TbfDeparture::Now => {}
                        TbfDeparture::At(_) | TbfDeparture::Never => prop_assert_eq!(before, t),
                    }
                }
                _ => { let _ = t.next_departure(&p, now, len); }
            }
            prop_assert!(t.tokens() <= p.rate_bucket().full());
            prop_assert!(t.peak_tokens() <= p.peak_bucket().map_or(0, |b| b.full()));
            prop_assert!(t.backlog() <= p.limit());
        }
    }
}
