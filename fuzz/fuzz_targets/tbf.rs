//! The token bucket filter (`ras_shaper::Tbf`, Linux tbf's semantics): every
//! enqueue verdict, every dequeue answer (now, the watchdog instant, or never),
//! `next_departure`, both token counts and the backlog, against an exact model
//! written here from tc-tbf(8)'s rules in `u128` units of `1 / (8 x tick_hz)`
//! byte (a tick adds `rate` bits' worth, so nothing rounds); the watchdog
//! instant is then checked to be the first at which the head may leave; the
//! departures against `ras_shaper::tbf::check_sent` (at most
//! `burst + rate x t` charged bytes, and `mtu + peakrate x t` with a peak
//! rate, over every interval).
#![no_main]

use arbitrary::Arbitrary;
use core::time::Duration;
use libfuzzer_sys::fuzz_target;
use netcond_core::{Instant, LengthAdjust};
use netcond_fuzz::{bounded, Burst, Len, RateSel, Step, TickSel};
use ras_shaper::tbf::check_sent;
use ras_shaper::{Tbf, TbfConfig, TbfDeparture, TbfProfile, TbfVerdict};
use std::collections::VecDeque;

#[derive(Arbitrary, Debug)]
enum Op {
    /// A packet arrives.
    Arrive(Step, Len),
    /// The head is offered once.
    Dequeue(Step),
    /// Up to this many heads leave, each at its watchdog instant.
    Drain(u8),
}

#[derive(Arbitrary, Debug)]
enum Bound {
    Limit(Burst),
    /// The latency in microseconds.
    LatencyUs(u32),
    /// The latency in nanoseconds.
    LatencyNs(u64),
    /// Both (refused).
    Both(Burst, u32),
}

#[derive(Arbitrary, Debug)]
struct Input {
    rate: RateSel,
    burst: Burst,
    bound: Bound,
    peak: Option<(RateSel, Burst)>,
    overhead: i16,
    mpu: u16,
    atm: bool,
    tick: TickSel,
    start: u64,
    ops: Vec<Op>,
}

/// Departures checked against `check_sent` (quadratic).
const CHECKED: usize = 512;

/// One bucket of the model: `tokens` and `size` in units of 1/(8 hz) byte,
/// `rate` units per tick (the rate in bits per second).
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: u128,
    size: u128,
    rate: u128,
}

impl Bucket {
    fn at(&self, dt: u128) -> u128 {
        (self.tokens + dt * self.rate).min(self.size)
    }

    /// Ticks from `tokens` until `need` units, or `None` for never.
    fn wait(&self, tokens: u128, need: u128) -> Option<u128> {
        if need <= tokens {
            Some(0)
        } else if need > self.size {
            None
        } else {
            Some((need - tokens).div_ceil(self.rate))
        }
    }
}

/// The model: tc-tbf(8)'s two buckets, its byte limit and its largest packet.
#[derive(Debug)]
struct Model {
    rate: Bucket,
    peak: Option<Bucket>,
    last: u64,
    backlog: u64,
    limit: u64,
    max_size: u32,
    per_byte: u128,
    adjust: LengthAdjust,
}

impl Model {
    /// The elapsed ticks and the instant the buckets are brought to at `now`
    /// (an older instant elapses nothing).
    fn clock(&self, now: u64) -> (u128, u64) {
        if now >= self.last {
            (u128::from(now - self.last), now)
        } else {
            (0, self.last)
        }
    }

    fn enqueue(&mut self, len: u32) -> TbfVerdict {
        if len > self.max_size {
            TbfVerdict::DropTooBig
        } else if u128::from(self.backlog) + u128::from(len) > u128::from(self.limit) {
            TbfVerdict::DropOverLimit
        } else {
            self.backlog += u64::from(len);
            TbfVerdict::Accept
        }
    }

    /// The answer for a head of `len` bytes at `now`, and the departure's
    /// instant and charge when it leaves.
    fn dequeue(&mut self, now: u64, len: u32) -> (TbfDeparture, Option<(u64, u32)>) {
        let (dt, base) = self.clock(now);
        let charged = self.adjust.apply(len);
        let need = u128::from(charged) * self.per_byte;
        let t = self.rate.at(dt);
        let pt = self.peak.map(|b| b.at(dt));
        let w = match (self.rate.wait(t, need), self.peak) {
            (None, _) => None,
            (Some(w), None) => Some(w),
            (Some(w), Some(b)) => b.wait(pt.unwrap(), need).map(|v| v.max(w)),
        };
        match w {
            None => (TbfDeparture::Never, None),
            Some(0) => {
                self.rate.tokens = t - need;
                if let (Some(b), Some(pt)) = (self.peak.as_mut(), pt) {
                    b.tokens = pt - need;
                }
                self.last = base;
                self.backlog -= u64::from(len);
                (TbfDeparture::Now, Some((base, charged)))
            }
            Some(w) => {
                let at = u128::from(base) + w;
                assert!(
                    at <= u128::from(u64::MAX),
                    "tbf: watchdog instant {at} beyond u64"
                );
                (TbfDeparture::At(Instant::from_ticks(at as u64)), None)
            }
        }
    }
}

/// tc's limit from a latency: `rate x latency + size`, rates in whole bytes
/// per second, saturating.
fn latency_limit(bits: u64, lat: Duration, size: u64) -> u64 {
    let v = u128::from(bits / 8) * lat.as_nanos() / 1_000_000_000 + u128::from(size);
    u64::try_from(v).unwrap_or(u64::MAX)
}

struct Run {
    p: TbfProfile,
    s: Tbf,
    m: Model,
    fifo: VecDeque<u32>,
    sent: Vec<(u64, u32)>,
}

impl Run {
    /// Offers the head at `now` to both, compares, and returns the answer.
    fn dequeue(&mut self, i: usize, now: u64) -> Option<TbfDeparture> {
        let &head = self.fifo.front()?;
        let base = self.m.last.max(now);
        let next = self
            .s
            .next_departure(&self.p, Instant::from_ticks(now), head);
        let got = self.s.dequeue(&self.p, Instant::from_ticks(now), head);
        let (want, sent) = self.m.dequeue(now, head);
        assert_eq!(got, want, "tbf: op {i}: dequeue of {head} bytes at {now}");
        let want_next = match want {
            TbfDeparture::Now => Some(Instant::from_ticks(base)),
            TbfDeparture::At(t) => Some(t),
            TbfDeparture::Never => None,
        };
        assert_eq!(next, want_next, "tbf: op {i}: next_departure at {now}");
        assert!(
            want != TbfDeparture::Never,
            "tbf: op {i}: an accepted head can never leave"
        );
        if let Some(rec) = sent {
            self.fifo.pop_front();
            if self.sent.len() < CHECKED {
                self.sent.push(rec);
            }
        }
        self.check(i);
        Some(got)
    }

    fn check(&self, i: usize) {
        let scale = |b: &netcond_core::BucketProfile| self.m.per_byte / u128::from(b.scale());
        let t = u128::from(self.s.tokens()) * scale(self.p.rate_bucket());
        assert_eq!(t, self.m.rate.tokens, "tbf: op {i}: rate bucket tokens");
        if let (Some(b), Some(mb)) = (self.p.peak_bucket(), self.m.peak) {
            let pt = u128::from(self.s.peak_tokens()) * scale(b);
            assert_eq!(pt, mb.tokens, "tbf: op {i}: peak bucket tokens");
        }
        let bytes: u64 = self.fifo.iter().map(|&l| u64::from(l)).sum();
        assert_eq!(self.s.backlog(), bytes, "tbf: op {i}: backlog");
        assert_eq!(self.m.backlog, bytes, "tbf: op {i}: model backlog");
        assert_eq!(
            self.s.packets() as usize,
            self.fifo.len(),
            "tbf: op {i}: packets"
        );
    }
}

fuzz_target!(|input: Input| {
    let rate = input.rate.get();
    let burst = input.burst.get();
    let tick = input.tick.get();
    let adjust = LengthAdjust::NONE
        .with_overhead(i32::from(input.overhead))
        .with_mpu(u32::from(input.mpu))
        .with_atm(input.atm);
    let (limit, latency) = match input.bound {
        Bound::Limit(l) => (Some(l.get()), None),
        Bound::LatencyUs(us) => (None, Some(Duration::from_micros(u64::from(us)))),
        Bound::LatencyNs(ns) => (None, Some(Duration::from_nanos(ns))),
        Bound::Both(l, us) => (Some(l.get()), Some(Duration::from_micros(u64::from(us)))),
    };
    let mut cfg = TbfConfig::with_limit(rate, burst, 0)
        .with_adjust(adjust)
        .with_tick(tick);
    cfg.limit = limit;
    cfg.latency = latency;
    if let Some((pr, mtu)) = input.peak {
        cfg = cfg.with_peak(pr.get(), mtu.get());
    }
    let Ok(p) = TbfProfile::new(&cfg) else {
        // Refused: the rules tc-tbf(8) and the token counter impose.
        let refusable = rate.is_zero()
            || burst == 0
            || burst > u64::from(u32::MAX)
            || limit.is_some() == latency.is_some()
            || cfg
                .peak
                .is_some_and(|pk| pk.rate <= rate || pk.mtu == 0 || pk.mtu > u64::from(u32::MAX))
            || p_too_large(&cfg);
        assert!(refusable, "tbf: a valid configuration refused: {cfg:?}");
        return;
    };

    // The model's constants, from the configuration alone.
    let per_byte = 8 * u128::from(tick.hz());
    let bucket = |r: netcond_core::Rate, size: u64| {
        let size = u128::from(adjust.apply(size as u32)) * per_byte;
        Bucket {
            tokens: size,
            size,
            rate: u128::from(r.bits_per_sec()),
        }
    };
    let mut max_size = burst as u32;
    let mut lim =
        limit.unwrap_or_else(|| latency_limit(rate.bits_per_sec(), latency.unwrap(), burst));
    let peak = cfg.peak.map(|pk| {
        max_size = max_size.min(pk.mtu as u32);
        if let Some(lat) = latency {
            lim = lim.min(latency_limit(pk.rate.bits_per_sec(), lat, pk.mtu));
        }
        bucket(pk.rate, pk.mtu)
    });
    assert_eq!(p.limit(), lim, "tbf: limit");
    assert_eq!(p.max_size(), max_size, "tbf: largest packet");
    let mut now = input.start >> 1;
    let mut run = Run {
        p,
        s: Tbf::new(&p, Instant::from_ticks(now)),
        m: Model {
            rate: bucket(rate, burst),
            peak,
            last: now,
            backlog: 0,
            limit: lim,
            max_size,
            per_byte,
            adjust,
        },
        fifo: VecDeque::new(),
        sent: Vec::new(),
    };
    run.check(usize::MAX);

    for (i, op) in bounded(&input.ops).iter().enumerate() {
        match *op {
            Op::Arrive(step, len) => {
                now = step.bounded(now);
                let len = len.get();
                let got = run.s.enqueue(&run.p, Instant::from_ticks(now), len);
                let want = run.m.enqueue(len);
                assert_eq!(got, want, "tbf: op {i}: enqueue of {len} bytes at {now}");
                if got == TbfVerdict::Accept {
                    run.fifo.push_back(len);
                }
                run.check(i);
            }
            Op::Dequeue(step) => {
                now = step.bounded(now);
                run.dequeue(i, now);
            }
            Op::Drain(n) => {
                for _ in 0..n {
                    match run.dequeue(i, now) {
                        Some(TbfDeparture::At(t)) => {
                            let t = t.ticks();
                            if t >= 1 << 63 {
                                break; // beyond the model's clock range
                            }
                            // Not a tick earlier (when that is still ahead).
                            if t - 1 > now {
                                let early = run.dequeue(i, t - 1);
                                assert_eq!(
                                    early,
                                    Some(TbfDeparture::At(Instant::from_ticks(t))),
                                    "tbf: op {i}: the head left before its watchdog instant {t}"
                                );
                            }
                            now = t;
                            let at = run.dequeue(i, now);
                            assert_eq!(
                                at,
                                Some(TbfDeparture::Now),
                                "tbf: op {i}: the head did not leave at its watchdog instant {t}"
                            );
                        }
                        Some(_) => {}
                        None => break,
                    }
                }
            }
        }
    }
    if let Err((a, b)) = check_sent(&run.p, &run.sent) {
        panic!(
            "tbf: departures {a}..={b} exceed the token bucket bound: {:?}",
            &run.sent[a..=b]
        );
    }
});

/// Whether a bucket's size times the clock's resolution is too large for the
/// token counter (`BucketProfile`'s own rule, `TooLarge`).
fn p_too_large(cfg: &TbfConfig) -> bool {
    let too_large = |r: netcond_core::Rate, size: u64| {
        netcond_core::BucketProfile::new(
            r,
            u64::from(cfg.adjust.apply(size.min(u64::from(u32::MAX)) as u32)),
            cfg.tick,
        )
        .is_err()
    };
    too_large(cfg.rate, cfg.burst) || cfg.peak.is_some_and(|pk| too_large(pk.rate, pk.mtu))
}
