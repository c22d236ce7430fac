//! The C test `tests/c/green_ras_test.c`, of the green shapers G-srRAS and
//! G-trRAS: its cases, and its seeded streams against the same streams through
//! the Rust API.

use super::*;
use ras_shaper::{GreenRas, RasProfile};

const FNV: u64 = 0x0100_0000_01b3;

/// The C side's `sr()` / `tr()` shapers (those of `ras_test.c`) and `srm()`
/// / `trm()` meters.
fn profiles() -> (RasProfile, RasProfile, SrTcmProfile, TrTcmProfile) {
    let [sr, tr] = super::ras::profiles();
    let sm = SrTcmProfile::new(
        &SrTcmConfig::new(Rate::from_bytes_per_sec(125_000), 3000, 3000).with_tick(HZ),
    )
    .unwrap();
    let tm = TrTcmProfile::new(
        &TrTcmConfig::new(
            Rate::from_bytes_per_sec(125_000),
            Rate::from_bytes_per_sec(250_000),
            3000,
            3000,
        )
        .with_tick(HZ),
    )
    .unwrap();
    (sr, tr, sm, tm)
}

/// One stream through a green shaper with meter `M`; `read` gives the
/// meter's (tc, te or tp, last).
fn one<M: ras_shaper::GreenMeter>(
    kind: u32,
    seed: u64,
    p: &RasProfile,
    mp: &M::Profile,
    read: impl Fn(&M) -> (u64, u64, u64),
) -> String {
    let mut s = Box::new(GreenRas::<(u32, u64), 64>::new(p, t(0)));
    let mut meter = M::start(mp, t(0));
    let mut rng = Rng(seed);
    let (mut now, mut hash, mut refused, mut sent) = (0u64, 0xcbf2_9ce4_8422_2325u64, 0u64, 0u64);
    let mut colors = [0u64; 3];
    for i in 0..100_000u32 {
        let r = rng.next_u64();
        let l = 64 + (r % 1437) as u32;
        now += if (r >> 32) % 8 == 0 {
            (r >> 12) % 50_000_000
        } else {
            u64::from(l) * 1000
        };
        while let Some(at) = s.next_release().filter(|a| a.ticks() <= now) {
            let ((len, cookie), color) = s.dequeue(p, mp, &mut meter, at).expect("due");
            let c = color.index() as u64;
            colors[c as usize] += 1;
            hash =
                (hash ^ at.ticks() ^ (u64::from(len) << 40) ^ cookie ^ (c << 60)).wrapping_mul(FNV);
            sent += 1;
        }
        refused += u64::from(s.enqueue(p, mp, &meter, t(now), (l, u64::from(i))).is_err());
    }
    let (tc, te, last) = read(&meter);
    format!(
        "green_ras{kind} {sent} {refused} {} {} {} {} {hash:016x} {tc} {te} {last}",
        colors[0],
        colors[1],
        colors[2],
        s.ras().len()
    )
}

fn rust_streams(seed: u64) -> Vec<String> {
    let (sr, tr, sm, tm) = profiles();
    vec![
        one::<SrTcm>(0, seed, &sr, &sm, |m| (m.tc(), m.te(), m.last().ticks())),
        one::<TrTcm>(1, seed, &tr, &tm, |m| (m.tc(), m.tp(), m.last().ticks())),
    ]
}

#[test]
fn green_ras_cases_and_bad_arguments() {
    c_cases("green_ras_test", "all green RAS cases passed");
}

#[test]
fn green_ras_streams_through_c_equal_streams_through_rust() {
    c_streams(
        "green_ras_test",
        [17, 0x00c0_ffee_1234],
        rust_streams,
        |rust| {
            // Most packets were released, most of them green.
            for line in &rust {
                let f = counts(line, 3);
                assert!(f[0] > 50_000 && f[2] * 2 > f[0], "{line}");
            }
        },
    );
}
