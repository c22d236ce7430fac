//! The plain shaper against a reference model written as the RFC states it
//! (exact division), and the gaps against exact quotients.

use super::*;

#[test]
fn transmission_time_matches_exact_division() {
    let mut r = SplitMix64::new(9);
    for _ in 0..pick(200_000, 200) {
        let len = r.below(70_000);
        let scale = r.below(48);
        let rate = ((r.next_u32() as u64) << 32 | r.next_u32() as u64) >> r.below(64);
        let rate = rate.max(1);
        let (w, f) = transmission_time(len, rate, scale);
        let exact = ((len as u128) << (scale + 32)) / rate as u128;
        if exact >> 32 >= crate::MAX_GAP_TICKS as u128 {
            assert_eq!((w, f), (crate::MAX_GAP_TICKS, 0));
            continue;
        }
        let got = ((w as u128) << 32) | f as u128;
        let err = got.abs_diff(exact);
        assert!(
            err as f64 <= 1e-10 * exact as f64 + 2.0,
            "len {len} rate {rate} S {scale}: {got} vs {exact}"
        );
    }
}

/// The reference model: the shaper as the RFC states it, written plainly with a
/// `VecDeque`, the same rate units as the profile, and exact division (the
/// schedule in 2^-64 tick). It returns the release instant of every packet.
struct Reference {
    q: VecDeque<(Pkt, u64)>,
    bytes: u64,
    ear: crate::Ear,
    /// Next start, in 2^-64 tick.
    next: u128,
    head: u128,
}

impl Reference {
    fn new() -> Self {
        Reference {
            q: VecDeque::new(),
            bytes: 0,
            ear: crate::Ear::zero_at(Instant::ZERO),
            next: 0,
            head: 0,
        }
    }
    fn head_release(&self) -> Option<u64> {
        self.q.front()?;
        // Not sooner than the schedule: round up.
        Some(self.head.div_ceil(1 << 64) as u64)
    }
    fn schedule(&mut self) {
        if let Some((_, a)) = self.q.front() {
            let a = (*a as u128) << 64;
            self.head = a.max(self.next);
        }
    }
    fn enqueue(&mut self, p: &RasProfile, now: u64, pkt: Pkt, cap: usize) -> bool {
        self.ear.update(p.ear(), t(now), pkt.len);
        if self.q.len() == cap || self.bytes + pkt.len as u64 > p.buffer_bytes() {
            return false;
        }
        self.q.push_back((pkt, now));
        self.bytes += pkt.len as u64;
        if self.q.len() == 1 {
            self.schedule();
        }
        true
    }
    fn dequeue(&mut self, p: &RasProfile) -> Pkt {
        let (pkt, _) = self.q.pop_front().unwrap();
        self.bytes -= pkt.len as u64;
        let rate = p
            .rate_function(self.bytes)
            .max(p.ear_rate(&self.ear))
            .min(p.mir_units());
        // L / R ticks = L * 2^S / rate, in 2^-64 tick.
        let gap = ((pkt.len as u128) << (p.scale() + 64 - 32)) / rate as u128;
        self.next = self.head + (gap << 32);
        self.schedule();
        pkt
    }
}

/// The FIFO of the differential test: 64 entries natively; 16 under Miri,
/// where the traces are short, so that they overflow it too.
const FIFO: usize = pick(64, 16);

#[test]
fn differential_against_the_reference_model() {
    let p = tr_profile();
    let mut mismatches = 0;
    let mut compared = 0;
    for seed in 0..pick(8, 2) as u64 {
        let trace = onoff_trace(500 + seed, pick(3_000, 50), 20_000_000, 48);
        let (out, drops) = run_plain::<FIFO>(&p, &trace);
        // Replay through the reference with the same event order.
        let mut r = Reference::new();
        let mut i = 0;
        let mut got = Vec::new();
        let mut rdrops = Vec::new();
        loop {
            let rel = r.head_release();
            let arr = trace.get(i).map(|x| x.0);
            match (rel, arr) {
                (None, None) => break,
                (Some(x), a) if a.map_or(true, |a| x < a) => got.push((x, r.dequeue(&p))),
                (_, Some(a)) => {
                    if !r.enqueue(&p, a, trace[i].1, FIFO) {
                        rdrops.push(trace[i].1);
                    }
                    i += 1;
                }
                _ => unreachable!(),
            }
        }
        assert_eq!(drops, rdrops, "seed {seed}: drops differ");
        assert_eq!(out.len(), got.len());
        for (a, (at, pkt)) in out.iter().zip(&got) {
            assert_eq!(a.pkt, *pkt);
            compared += 1;
            // The reciprocal's error (below 1e-10 of a gap) may move a release
            // across a tick boundary; nothing more.
            if a.at.abs_diff(*at) > 1 {
                mismatches += 1;
            }
        }
        assert!(
            !drops.is_empty() || seed > 0,
            "the trace should overflow the {FIFO}-entry FIFO"
        );
    }
    assert!(compared > pick(20_000, 40), "{compared}");
    assert_eq!(mismatches, 0);
}

#[test]
fn const_gaps_bracket_the_exact_quotient() {
    // The precomputed CIR gap is never longer than the exact quotient and the MIR
    // gap never shorter than its floor; both within 2^-33 relative.
    let mut r = SplitMix64::new(21);
    let mut used = 0;
    // Miri interprets every instruction: fewer random cases there.
    let n = pick(200_000, 500);
    for _ in 0..n {
        let scale = r.below(48);
        let rate =
            (((r.next_u32() as u64) << 32 | r.next_u32() as u64) >> (24 + r.below(40))).max(1);
        let len = match r.below(4) {
            0 => r.below(2_000),
            1 => u32::MAX - r.below(1_000),
            _ => r.next_u32(),
        };
        let exact = ((len as u128) << (scale + 32)) / rate as u128;
        for up in [false, true] {
            let Some(g) = crate::fixed::ConstGap::new(rate, scale, up) else {
                continue;
            };
            used += 1;
            let (w, f) = g.gap(len);
            assert!(w < crate::MAX_GAP_TICKS);
            let got = ((w as u128) << 32) | f as u128;
            if up {
                assert!(got >= exact, "up: rate {rate} S {scale} len {len}");
            } else {
                assert!(got <= exact, "down: rate {rate} S {scale} len {len}");
            }
            assert!(
                got.abs_diff(exact) <= (exact >> 33) + 1,
                "rate {rate} S {scale} len {len}"
            );
        }
    }
    assert!(used > n * 3 / 2, "{used}");
    // The profiles of these tests use them.
    assert!(tr_profile().has_const_gaps() && sr_profile().has_const_gaps());
}
