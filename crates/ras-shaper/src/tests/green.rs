//! The green shapers G-srRAS and G-trRAS: release at T2 only when green,
//! never after T1, T2's waits (cached and uncached), MIR spacing, and a
//! plain model packet by packet.

use super::*;

#[test]
fn green_trras_releases_at_t2_only_green_and_never_after_t1() {
    let p = tr_profile();
    for cbs in [3_000u64, 10_000, 50_000] {
        let mp = trtcm_profile(cbs);
        let trace = onoff_trace(300 + cbs, pick(4_000, 40), 50_000_000, 40);
        let (out, _) = run_green::<TrTcm, 256>(&p, &mp, &trace);
        let mut at_t2 = 0;
        for r in &out {
            // min(T1, T2) <= T1.
            assert!(
                r.sched.at.ticks() < r.t1.at.ticks()
                    || (r.sched.at == r.t1.at && r.sched.frac <= r.t1.frac)
            );
            if r.at_t2 {
                at_t2 += 1;
                assert_eq!(r.color, Some(Color::Green));
            }
        }
        assert!(
            at_t2 > pick(100, 10),
            "cbs {cbs}: only {at_t2} releases at T2"
        );
    }
}

#[test]
fn green_srras_releases_at_t2_only_green() {
    let p = sr_profile();
    let mp = srtcm_profile(6_000);
    let trace = onoff_trace(77, pick(4_000, 50), 50_000_000, 40);
    let (out, _) = run_green::<SrTcm, 256>(&p, &mp, &trace);
    let n = out.iter().filter(|r| r.at_t2).count();
    assert!(n > pick(100, 12), "{n}");
    assert!(out
        .iter()
        .filter(|r| r.at_t2)
        .all(|r| r.color == Some(Color::Green)));
}

#[test]
fn green_shaper_is_never_later_than_the_plain_one() {
    // Same input through a trRAS and a G-trRAS: the green one releases every
    // packet no later, and colors at least as many bytes green.
    let p = tr_profile();
    let cases = [(1u64, 3_000u64), (2, 10_000), (3, 100_000), (4, 3_000)];
    for (seed, cbs) in cases.into_iter().take(pick(4, 1)) {
        let mp = trtcm_profile(cbs);
        let trace = onoff_trace(400 + seed, pick(3_000, 50), 50_000_000, 40);
        let (plain, d1) = run_plain::<256>(&p, &trace);
        let (green, d2) = run_green::<TrTcm, 256>(&p, &mp, &trace);
        assert!(d1.is_empty() && d2.is_empty());
        let mut later = 0;
        for (a, b) in plain.iter().zip(&green) {
            assert_eq!(a.pkt, b.pkt);
            if b.at > a.at {
                later += 1;
            }
        }
        assert_eq!(later, 0, "seed {seed} cbs {cbs}");
        let delay = |v: &[Release]| v.iter().map(|r| r.at - r.arrival).sum::<u64>();
        assert!(delay(&green) <= delay(&plain));
    }
}

#[test]
fn t2_is_infinite_above_the_burst_sizes() {
    let p = tr_profile();
    let mp = trtcm_profile(3_000); // CBS 3000, PBS 6000
    let mut meter = TrTcm::new(&mp, Instant::ZERO);
    let mut g: GreenRas<u32, 8> = GreenRas::new(&p, Instant::ZERO);
    // A first packet leaves at once and makes the next T1 lie in the future.
    g.enqueue(&p, &mp, &meter, t(0), 100).unwrap();
    assert_eq!(
        g.dequeue(&p, &mp, &mut meter, t(0)),
        Some((100, Color::Green))
    );
    g.enqueue(&p, &mp, &meter, t(1), 3_001).unwrap();
    assert!(g.ras().head_t1().at.ticks() > 1);
    assert_eq!(g.ras().head_t2(), None);
    assert!(!g.head_at_t2());
    let at = g.next_release().unwrap();
    assert_eq!(at, g.ras().head_t1().ceil());
    let (len, c) = g.dequeue(&p, &mp, &mut meter, at).unwrap();
    assert_eq!((len, c), (3_001, Color::Yellow));
    // Exactly CBS: finite, and green when released there.
    g.enqueue(&p, &mp, &meter, at.wrapping_add(1), 3_000)
        .unwrap();
    let t2 = g.ras().head_t2().expect("finite T2");
    if g.head_at_t2() {
        let (_, c) = g.dequeue(&p, &mp, &mut meter, t2).unwrap();
        assert_eq!(c, Color::Green);
    }
    // srTCM: above CBS is infinite even though EBS is larger.
    let sp = srtcm_profile(3_000);
    let mut sm = SrTcm::new(&sp, Instant::ZERO);
    let mut g: GreenRas<u32, 8> = GreenRas::new(&p, Instant::ZERO);
    g.enqueue(&p, &sp, &sm, t(0), 100).unwrap();
    g.dequeue(&p, &sp, &mut sm, t(0)).unwrap();
    g.enqueue(&p, &sp, &sm, t(1), 3_001).unwrap();
    assert!(g.ras().head_t1().at.ticks() > 1);
    assert_eq!(g.ras().head_t2(), None);
    g.enqueue(&p, &sp, &sm, t(2), 3_000).unwrap();
}

#[test]
fn fast_ticks_until_is_exact() {
    let mut r = SplitMix64::new(11);
    for _ in 0..pick(200_000, 200) {
        let rate = Rate::from_bits_per_sec(1 + (r.next_u32() as u64) * (1 + r.below(1000) as u64));
        let hz = [1_000_000_000u64, 2_300_000_000, 1_000_000, 3][r.below(4) as usize];
        let size = 1 + r.below(1_000_000) as u64;
        let Ok(b) = netcond_core::BucketProfile::new(rate, size, TickRate::from_hz(hz).unwrap())
        else {
            continue;
        };
        let tokens = (r.next_u32() as u64 * r.next_u32() as u64) % (b.full() + 1);
        let need = b.cost(r.below(size as u32 + 2));
        assert_eq!(
            crate::ticks_until(&b, tokens, need),
            b.ticks_until(tokens, need)
        );
    }
}

#[test]
fn t2_waits_for_the_slower_bucket() {
    // Empty both buckets, then ask for a 1500-byte packet: Tc refills at 2 Mbit/s
    // (6 ms for 1500 B), Tp at 4 Mbit/s (3 ms): T2 is 6 ms later, and at T2 the
    // packet is green while one tick earlier it is not.
    let mp = trtcm_profile(3_000);
    let mut meter = TrTcm::new(&mp, Instant::ZERO);
    assert_eq!(meter.color_blind(&mp, t(0), 3_000), Color::Green);
    assert_eq!(meter.color_blind(&mp, t(0), 3_000), Color::Yellow);
    use crate::GreenMeter;
    let t2 = meter.green_at(&mp, t(0), 1500).unwrap().ticks();
    assert_eq!(t2, 6_000_000);
    let mut m1 = meter;
    assert_eq!(m1.color_blind(&mp, t(t2 - 1), 1500), Color::Yellow);
    let mut m2 = meter;
    assert_eq!(m2.color_blind(&mp, t(t2), 1500), Color::Green);
}

#[test]
fn green_shaper_with_large_bursts_barely_delays() {
    // RFC 2963 appendix A.3: with a large CBS the G-trRAS releases almost
    // everything at once (the meter would color it green anyway), where the
    // trRAS still spaces the bursts out.
    let p = tr_profile();
    let mp = trtcm_profile(400_000);
    let trace = onoff_trace(1_000, pick(3_000, 50), 50_000_000, 30);
    let (plain, _) = run_plain::<256>(&p, &trace);
    let (green, _) = run_green::<TrTcm, 256>(&p, &mp, &trace);
    let delay = |v: &[Release]| v.iter().map(|r| r.at - r.arrival).sum::<u64>();
    assert!(delay(&plain) > 0);
    assert!(
        delay(&green) * 20 < delay(&plain),
        "green {} plain {}",
        delay(&green),
        delay(&plain)
    );
}

/// A meter that computes T2 without the shaper's cached divisors (the default
/// `green_at_cached`, that is `green_at` and its table-and-Newton
/// `ticks_until`, itself tested against the exact division).
#[derive(Clone, Copy, Debug)]
struct Uncached<M>(M);

impl<M: crate::GreenMeter> netcond_core::State for Uncached<M> {
    type Profile = M::Profile;
    fn start(profile: &M::Profile, now: Instant) -> Self {
        Uncached(M::start(profile, now))
    }
}

impl<M: crate::GreenMeter> crate::GreenMeter for Uncached<M> {
    fn green_at(&self, profile: &M::Profile, now: Instant, len: u32) -> Option<Instant> {
        self.0.green_at(profile, now, len)
    }
    fn color(&mut self, profile: &M::Profile, now: Instant, len: u32) -> Color {
        self.0.color(profile, now, len)
    }
}

/// Drives a green shaper on the cached-divisor path and one on the uncached
/// path with the same operations, switching between two meter profiles of
/// different rates so that the cache is refilled now and then, and checks that
/// every T1, T2, release point, released packet and color agree.
fn cached_t2_matches<M: crate::GreenMeter>(seed: u64, profiles: [M::Profile; 2], steps: usize) {
    let mut r = SplitMix64::new(seed);
    let p = tr_profile();
    let mut a: GreenRas<u32, 8> = GreenRas::new(&p, Instant::ZERO);
    let mut b: GreenRas<u32, 8> = GreenRas::new(&p, Instant::ZERO);
    let mut ma = M::start(&profiles[0], Instant::ZERO);
    let mut mb = <Uncached<M> as netcond_core::State>::start(&profiles[0], Instant::ZERO);
    let mut now = 0u64;
    for _ in 0..steps {
        // Mostly one profile, sometimes the other (the cache switches).
        let mp = &profiles[(r.below(8) == 0) as usize];
        now = match r.below(10) {
            0 => now.wrapping_sub(r.below(1000) as u64),
            1 => now.wrapping_add(r.next_u32() as u64 * r.next_u32() as u64),
            2 => a.next_release().map_or(now, |x| x.ticks()),
            _ => now.wrapping_add(r.below(100_000) as u64),
        };
        if r.below(2) == 0 {
            let len = [0u32, 1, 64, 1500, 9000, 70_000, u32::MAX][r.below(7) as usize];
            let ra = a.enqueue(&p, mp, &ma, t(now), len);
            let rb = b.enqueue(&p, mp, &mb, t(now), len);
            assert_eq!(ra, rb);
        } else {
            let ra = a.dequeue(&p, mp, &mut ma, t(now));
            let rb = b.dequeue(&p, mp, &mut mb, t(now));
            assert_eq!(ra, rb);
        }
        assert_eq!(a.ras().head_t1(), b.ras().head_t1());
        assert_eq!(a.ras().head_t2(), b.ras().head_t2());
        assert_eq!(a.ras().head_schedule(), b.ras().head_schedule());
        assert_eq!(a.next_release(), b.next_release());
    }
}

#[test]
fn cached_t2_divisors_match_the_uncached_path() {
    let mut r = SplitMix64::new(21);
    let (mut sr, mut tr) = (0, 0);
    for seed in 0..pick(300, 3) as u64 {
        let tick = random_tick(&mut r);
        let sp: Vec<SrTcmProfile> = (0..2)
            .filter_map(|_| {
                SrTcmProfile::new(
                    &SrTcmConfig::new(
                        random_rate(&mut r),
                        1 + r.below(100_000) as u64,
                        r.below(100_000) as u64,
                    )
                    .with_tick(tick),
                )
                .ok()
            })
            .collect();
        if let [x, y] = sp[..] {
            cached_t2_matches::<SrTcm>(seed, [x, y], pick(2_000, 60));
            sr += 1;
        }
        let tp: Vec<TrTcmProfile> = (0..2)
            .filter_map(|_| {
                let cir = random_rate(&mut r);
                TrTcmProfile::new(
                    &TrTcmConfig::new(
                        cir,
                        Rate::from_bits_per_sec(
                            cir.bits_per_sec() + random_rate(&mut r).bits_per_sec() / 4,
                        ),
                        1 + r.below(100_000) as u64,
                        1 + r.below(100_000) as u64,
                    )
                    .with_tick(tick),
                )
                .ok()
            })
            .collect();
        if let [x, y] = tp[..] {
            cached_t2_matches::<TrTcm>(seed, [x, y], pick(2_000, 60));
            tr += 1;
        }
    }
    // Most random profiles are valid, so both meters were exercised.
    assert!(sr >= pick(200, 1) && tr >= pick(200, 1), "{sr} {tr}");
}

/// `mir_spacing` passes a release one MIR gap after the previous one and
/// fails one that follows in the same tick or two ticks short of the gap.
#[test]
fn mir_spacing_rejects_releases_faster_than_mir() {
    let p = sr_profile();
    // 1500 B at MIR, in ticks, rounded up (the exact gap is not whole here).
    let mir_bytes_per_tick = p.mir_units() as f64 / (1u64 << p.scale()) as f64;
    let g = (1500.0 / mir_bytes_per_tick).ceil() as u64;
    assert!(g >= 2, "{g}");
    let at = |x: u64| Instant::from_ticks(1_000 + x);
    let prev = Some((at(0), 1500));
    assert_eq!(invariants::mir_spacing(&p, prev, at(g)), Ok(()));
    assert_eq!(invariants::mir_spacing(&p, prev, at(g - 1)), Ok(()));
    // g - 2 ticks may pass: when the exact gap is just above g - 1, the
    // rule's slack of 2^-30 relative covers it.
    assert!(invariants::mir_spacing(&p, prev, at(g - 3)).is_err());
    assert!(invariants::mir_spacing(&p, prev, at(0)).is_err());
    assert!(invariants::mir_spacing(&p, Some((at(5), 1500)), at(0)).is_err());
    assert_eq!(invariants::mir_spacing(&p, None, at(0)), Ok(()));
}

/// The green shaper written plainly, step by step as `GreenRas` documents it,
/// for a packet-by-packet differential test with no tolerance: a `VecDeque`,
/// the schedule as `Option`s and comparisons in serial time, T2 from the
/// meter's uncached `green_at` (table-and-Newton `ticks_until`, itself tested
/// against exact division). The transmission times come from the profile's
/// own `gap` and `mir_gap` (tested on their own against the `u128` forms and
/// exact division), so every release must agree to the tick and fraction.
struct GreenModel<M> {
    q: VecDeque<(u32, Instant)>,
    cap: usize,
    bytes: u64,
    ear: crate::Ear,
    meter: M,
    /// Earliest start of the next head: last release point plus L/R.
    next: Schedule,
    /// The first tick the line is free: last release point plus L/MIR, up.
    free: Instant,
    t1: Schedule,
    t2: Option<Instant>,
    head: Schedule,
}

/// `a <= b` in serial time (equal ticks compare the fractions).
fn sched_not_after(a: Schedule, b: Schedule) -> bool {
    let d = b.at.ticks().wrapping_sub(a.at.ticks());
    if d == 0 {
        a.frac <= b.frac
    } else {
        d < 1 << 63
    }
}

impl<M: crate::GreenMeter> GreenModel<M> {
    fn new(mp: &M::Profile, now: Instant, cap: usize) -> Self {
        GreenModel {
            q: VecDeque::new(),
            cap,
            bytes: 0,
            ear: crate::Ear::zero_at(now),
            meter: M::start(mp, now),
            next: Schedule::whole(now),
            free: now,
            t1: Schedule::whole(now),
            t2: None,
            head: Schedule::whole(now),
        }
    }

    fn next_release(&self) -> Option<Instant> {
        self.q.front().map(|_| self.head.ceil())
    }

    /// T1 = max(arrival, next start); T2 only while T1 is in the future, and
    /// no earlier than the line is free; the head leaves at min(T1, T2).
    fn schedule(&mut self, mp: &M::Profile, now: Instant) {
        let Some(&(len, arrival)) = self.q.front() else {
            return;
        };
        let a = Schedule::whole(arrival);
        let t1 = if sched_not_after(a, self.next) {
            self.next
        } else {
            a
        };
        let t2 = if sched_not_after(t1, Schedule::whole(now)) {
            None
        } else {
            self.meter.green_at(mp, now, len).map(|x| {
                // The later of x and free in serial time (x if neither is).
                let d = self.free.ticks().wrapping_sub(x.ticks());
                if d != 0 && d < 1 << 63 {
                    self.free
                } else {
                    x
                }
            })
        };
        self.t1 = t1;
        self.t2 = t2;
        self.head = match t2 {
            Some(x) if sched_not_after(Schedule::whole(x), t1) => Schedule::whole(x),
            _ => t1,
        };
    }

    fn enqueue(&mut self, p: &RasProfile, mp: &M::Profile, now: Instant, len: u32) -> bool {
        self.ear.update(p.ear(), now, len);
        if self.q.len() == self.cap || self.bytes.saturating_add(len as u64) > p.buffer_bytes() {
            return false;
        }
        self.q.push_back((len, now));
        self.bytes += len as u64;
        if self.q.len() == 1 {
            self.schedule(mp, now);
        }
        true
    }

    fn dequeue(&mut self, p: &RasProfile, mp: &M::Profile, now: Instant) -> Option<(u32, Color)> {
        // Due unless the release lies 1 to 2^63 - 1 ticks after now.
        let d = self.next_release()?.ticks().wrapping_sub(now.ticks());
        if d != 0 && d <= i64::MAX as u64 {
            return None;
        }
        let (len, _) = self.q.pop_front()?;
        self.bytes -= len as u64;
        self.next = self.head.plus(p.gap(&self.ear, self.bytes, len));
        self.free = self.head.plus(p.mir_gap(len)).ceil();
        let color = self.meter.color(mp, now, len);
        self.schedule(mp, now);
        Some((len, color))
    }
}

/// Runs a `GreenRas` and the plain model side by side on one stream and
/// compares every step: drops, released packets and colors, the release
/// instant, T1, T2 and the release point. `idle`: arrivals spaced at random
/// around the mean transmission time (the shaper often empties); otherwise
/// a backlog: bursts of arrivals at the last release. Dequeues are tried at
/// the release instant, and now and then early (nothing must leave).
fn green_matches_model<M: crate::GreenMeter>(
    r: &mut SplitMix64,
    p: &RasProfile,
    mp: &M::Profile,
    idle: bool,
    steps: usize,
) -> (usize, usize) {
    const CAP: usize = 16;
    let start = Instant::from_ticks(r.next_u32() as u64 * r.next_u32() as u64);
    let mut g: GreenRas<u32, CAP> = GreenRas::new(p, start);
    let mut meter = M::start(mp, start);
    let mut model: GreenModel<M> = GreenModel::new(mp, start, CAP);
    // About one 600-byte packet's time at CIR, in ticks.
    let mean = ((600u128 << p.scale()) / p.cir_units().max(1) as u128).clamp(1, 1 << 40) as u64;
    let mut now = start;
    // Packets released, and of those, released at T2 (before T1).
    let (mut released, mut at_t2) = (0, 0);
    for i in 0..steps {
        // Idle: one arrival in most steps, spaced at random around the mean
        // time; backlog: zero to three arrivals at the last release.
        let arrivals = if idle {
            (r.below(4) != 0 || g.ras().is_empty()) as u64
        } else if g.ras().len() < 12 {
            r.below(4) as u64
        } else {
            0
        };
        for _ in 0..arrivals {
            let len = match r.below(8) {
                0 => r.below(70_000),
                1 => [0, 1, 40][r.below(3) as usize],
                _ => [64u32, 576, 1500][r.below(3) as usize],
            };
            if idle {
                now = now.wrapping_add(r.next_u32() as u64 % (2 * mean + 1));
            }
            let a = g.enqueue(p, mp, &meter, now, len).is_ok();
            let b = model.enqueue(p, mp, now, len);
            assert_eq!(a, b, "step {i}: enqueue");
        }
        if r.below(6) == 0 {
            // An early poll, one tick before the release: nothing leaves.
            if let Some(x) = g.next_release() {
                let early = x.wrapping_add(u64::MAX);
                if early.ticks_since(now) > 0 {
                    assert_eq!(g.dequeue(p, mp, &mut meter, early), None, "step {i}");
                    assert_eq!(model.dequeue(p, mp, early), None, "step {i}");
                }
            }
        }
        if let Some(x) = g.next_release() {
            if x.ticks_since(now) > 0 {
                now = x;
            }
            at_t2 += g.head_at_t2() as usize;
            let a = g.dequeue(p, mp, &mut meter, now);
            let b = model.dequeue(p, mp, now);
            assert_eq!(a, b, "step {i}: dequeue at {now:?}");
            released += a.is_some() as usize;
        }
        assert_eq!(g.next_release(), model.next_release(), "step {i}");
        if !g.ras().is_empty() {
            assert_eq!(g.ras().head_t1(), model.t1, "step {i}: T1");
            assert_eq!(g.ras().head_t2(), model.t2, "step {i}: T2");
            assert_eq!(g.ras().head_schedule(), model.head, "step {i}: head");
        }
    }
    (released, at_t2)
}

/// G-srRAS and G-trRAS against the plain model, packet by packet with no
/// tolerance, idle and backlogged, on random profiles with odd rates and
/// meters whose bursts range from below one packet to many.
#[test]
fn green_shapers_match_the_plain_model_packet_by_packet() {
    let mut r = SplitMix64::new(77);
    // Packets released, and of those at T2, by meter and idle / backlog.
    let (mut sr, mut tr) = (0, 0);
    let mut t2_wins = [[0; 2]; 2];
    for case in 0..pick(400, 4) {
        let p = random_ras_profile(&mut r);
        let idle = case % 2 == 0;
        let tick = TickRate::from_hz(p.tick_hz()).unwrap();
        let cbs = 64 + r.below(30_000) as u64;
        let cir = random_rate(&mut r);
        if let Ok(mp) =
            SrTcmProfile::new(&SrTcmConfig::new(cir, cbs, r.below(30_000) as u64).with_tick(tick))
        {
            let (n, w) = green_matches_model::<SrTcm>(&mut r, &p, &mp, idle, pick(600, 40));
            sr += n;
            t2_wins[0][idle as usize] += w;
        }
        if let Ok(mp) = TrTcmProfile::new(
            &TrTcmConfig::new(
                cir,
                Rate::from_bits_per_sec(cir.bits_per_sec() + random_rate(&mut r).bits_per_sec()),
                cbs,
                64 + r.below(30_000) as u64,
            )
            .with_tick(tick),
        ) {
            let (n, w) = green_matches_model::<TrTcm>(&mut r, &p, &mp, idle, pick(600, 40));
            tr += n;
            t2_wins[1][idle as usize] += w;
        }
    }
    assert!(sr > pick(50_000, 20) && tr > pick(50_000, 20), "{sr} {tr}");
    // T2 wins often enough, for both meters, idle and backlogged.
    let few = pick(5_000, 0);
    assert!(t2_wins.iter().flatten().all(|&w| w >= few), "{t2_wins:?}");
}
