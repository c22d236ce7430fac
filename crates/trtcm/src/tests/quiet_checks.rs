//! The checks the fuzz targets run (the `invariants` step functions and the
//! differential comparison with the `reference` models) on seeded streams:
//! quiet on the real code. The streams pause now and then for a second and
//! then send a packet exactly as long as a bucket, so that ties (a packet that
//! exactly empties a full bucket) occur and `<` against `<=` in a bucket test
//! changes a color.

use crate::invariants::{policer_step, rfc4115_step, srtcm_step, trtcm_step};
use crate::reference::{to_reference_units, PremiumPolicerRef, Rfc4115Ref, SrTcmRef, TrTcmRef};
use crate::*;
use netcond_core::{Rate, TickRate};

/// A small xorshift generator: the streams are the same on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// One packet: time in nanoseconds, length, pre-color (`None`: color-blind).
type Packet = (u64, u32, Option<Color>);

/// 2 000 packets that keep 1 MB/s buckets busy: 64 to 1500 bytes 0 to 2 ms
/// apart (about 0.8 MB/s on average), now and then a step back in time, and
/// now and then a 1 s pause (every bucket fills) followed by a packet exactly
/// as long as one of the `ties` (the bucket sizes), so that ties occur.
fn packets(seed: u64, ties: [u32; 2]) -> Vec<Packet> {
    let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut t = 1_000u64;
    (0..2_000)
        .map(|_| {
            let len = match r.below(40) {
                0 => {
                    t += 1_000_000_000;
                    ties[r.below(2) as usize]
                }
                1 => {
                    t = t.saturating_sub(5_000);
                    64 + r.below(1_437) as u32
                }
                _ => {
                    t += r.below(2_000_000);
                    64 + r.below(1_437) as u32
                }
            };
            let color = [
                None,
                None,
                Some(Color::Green),
                Some(Color::Yellow),
                Some(Color::Red),
            ][r.below(5) as usize];
            (t, len, color)
        })
        .collect()
}

const TICK: TickRate = TickRate::NANOS;

fn rate(bytes_per_sec: u64) -> Rate {
    Rate::from_bytes_per_sec(bytes_per_sec)
}

/// The srtcm fuzz target's checks on `pk`: true when one fails.
fn srtcm_fails(pk: &[Packet]) -> bool {
    let cfg = SrTcmConfig {
        cir: rate(1_000_000),
        cbs: 3000,
        ebs: 6000,
        tick: TICK,
        mode: crate::Mode::Bytes,
    };
    let p = SrTcmProfile::new(&cfg).unwrap();
    assert!(p.on_fast_path());
    let mut s = SrTcm::new(&p, Instant::from_ticks(0));
    let mut r = SrTcmRef::new(&cfg, 0);
    pk.iter().any(|&(t, len, c)| {
        let Ok(got) = srtcm_step(&p, &mut s, Instant::from_ticks(t), len, c) else {
            return true;
        };
        let want = match c {
            None => r.color_blind(t, len),
            Some(c) => r.color_aware(t, len, c),
        };
        got != want
            || to_reference_units(p.committed(), s.tc(), TICK) != r.tc
            || to_reference_units(p.excess(), s.te(), TICK) != r.te
            || s.last().ticks() != r.last
    })
}

/// The trtcm fuzz target's checks on `pk`.
fn trtcm_fails(pk: &[Packet]) -> bool {
    let cfg = TrTcmConfig {
        cir: rate(600_000),
        pir: rate(1_000_000),
        cbs: 3000,
        pbs: 6000,
        tick: TICK,
        mode: crate::Mode::Bytes,
    };
    let p = TrTcmProfile::new(&cfg).unwrap();
    assert!(p.on_fast_path());
    let mut s = TrTcm::new(&p, Instant::from_ticks(0));
    let mut r = TrTcmRef::new(&cfg, 0);
    pk.iter().any(|&(t, len, c)| {
        let Ok(got) = trtcm_step(&p, &mut s, Instant::from_ticks(t), len, c) else {
            return true;
        };
        let want = match c {
            None => r.color_blind(t, len),
            Some(c) => r.color_aware(t, len, c),
        };
        got != want
            || to_reference_units(p.committed(), s.tc(), TICK) != r.tc
            || to_reference_units(p.peak(), s.tp(), TICK) != r.tp
            || s.last().ticks() != r.last
    })
}

/// The rfc4115 fuzz target's checks on `pk`, with figure 1's tie rule.
fn rfc4115_fails(pk: &[Packet]) -> bool {
    let cfg = Rfc4115Config {
        cir: rate(600_000),
        eir: rate(400_000),
        cbs: 3000,
        ebs: 6000,
        tick: TICK,
        mode: crate::Mode::Bytes,
    };
    let ties = Rfc4115Ties::Figure1;
    let p = Rfc4115Profile::with_ties(&cfg, ties).unwrap();
    assert!(p.on_fast_path());
    let mut s = Rfc4115::new(&p, Instant::from_ticks(0));
    let mut r = Rfc4115Ref::new(&cfg, ties, 0);
    pk.iter().any(|&(t, len, c)| {
        let Ok(got) = rfc4115_step(&p, &mut s, Instant::from_ticks(t), len, c) else {
            return true;
        };
        let want = match c {
            None => r.color_blind(t, len),
            Some(c) => r.color_aware(t, len, c),
        };
        got != want
            || to_reference_units(p.committed(), s.tc(), TICK) != r.tc
            || to_reference_units(p.excess(), s.te(), TICK) != r.te
            || s.last().ticks() != r.last
    })
}

/// The ef_policer fuzz target's checks on `pk`: arrivals, and after every
/// red-marked packet a departure of its length from the buffer.
fn policer_fails(pk: &[Packet]) -> bool {
    let cfg = PremiumPolicerConfig {
        rate: rate(1_000_000),
        tbs: 3000,
        pbs: 6000,
        max_packet: 1500,
        tick: TICK,
        mode: crate::Mode::Bytes,
    };
    let p = PremiumPolicerProfile::new(&cfg).unwrap();
    let mut s = PremiumPolicer::new(&p, Instant::from_ticks(0));
    let mut r = PremiumPolicerRef::new(&cfg, 0);
    pk.iter().any(|&(t, len, c)| {
        let Ok(got) = policer_step(&p, &mut s, Instant::from_ticks(t), len) else {
            return true;
        };
        if got.index() != r.offer(t, len) {
            return true;
        }
        if c == Some(Color::Red) {
            s.dequeued(len);
            r.dequeued(len);
        }
        to_reference_units(p.committed(), s.tokens(), TICK) != r.tokens
            || u128::from(s.backlog()) != r.backlog
    })
}

/// Runs check `id` (1 srTCM, 2 trTCM, 3 RFC 4115, 4 premium policer) on a
/// few streams: true when any of them fails.
fn fails(id: u32) -> bool {
    (1..=4u64).any(|seed| {
        let pk = packets(seed, [3000, 6000]);
        match id {
            1 => srtcm_fails(&pk),
            2 => trtcm_fails(&pk),
            3 => rfc4115_fails(&pk),
            _ => policer_fails(&pk),
        }
    })
}

/// None of the fuzz targets' checks fires on the real code.
#[test]
#[cfg_attr(miri, ignore = "thousands of packets per check; Miri takes minutes")]
fn no_check_fires_on_the_real_code() {
    for id in 1..=4 {
        assert!(!fails(id), "check {id} fires on the real code");
    }
}
