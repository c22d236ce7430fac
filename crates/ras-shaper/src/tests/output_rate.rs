//! The output rate while backlogged (between CIR and MIR, plain and green)
//! and the smoothing of bursts.

use super::*;

/// Exact integer check of the output rate between consecutive releases of a
/// backlog: `CIR (gap - 1) <= L <= MIR (gap + 1)` in bits and ticks.
fn check_rates(p_cir_bits: u64, p_mir_bits: u64, hz: u64, out: &[Release]) -> (usize, usize) {
    let mut backlogged_pairs = 0;
    let mut at_mir = 0;
    for w in out.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        if b.arrival > a.at {
            continue; // the queue went idle in between
        }
        backlogged_pairs += 1;
        let gap = (b.at - a.at) as u128;
        let bits = a.pkt.len as u128 * 8 * hz as u128;
        assert!(
            bits <= p_mir_bits as u128 * (gap + 1),
            "above MIR: {} B in {gap} ticks",
            a.pkt.len
        );
        assert!(
            bits + p_cir_bits as u128 >= p_cir_bits as u128 * gap,
            "below CIR: {} B in {gap} ticks",
            a.pkt.len
        );
        if bits * 100 >= p_mir_bits as u128 * (gap + 1) * 99 {
            at_mir += 1;
        }
    }
    (backlogged_pairs, at_mir)
}

#[test]
fn output_rate_stays_between_cir_and_mir_while_backlogged() {
    let mut cfg = tr_cfg();
    cfg.mir = Some(Rate::from_mbps(8));
    let p: RasProfile = TrRasProfile::new(&cfg).unwrap().into();
    let mut total_pairs = 0;
    let mut total_mir = 0;
    for seed in 0..pick(6, 1) as u64 {
        // Windows up to 40 packets every 20 ms: well above MIR at times.
        let trace = onoff_trace(100 + seed, pick(4_000, 120), 20_000_000, 40);
        let (out, _drops) = run_plain::<128>(&p, &trace);
        let (pairs, mir) = check_rates(2_000_000, 8_000_000, 1_000_000_000, &out);
        total_pairs += pairs;
        total_mir += mir;
        // Over each whole backlog period too (no drift): sum of bytes between the
        // first and last release within [CIR, MIR] times the span, +-1 tick.
        let mut start = 0;
        for k in 1..=out.len() {
            if k == out.len() || out[k].arrival > out[k - 1].at {
                if k - start >= 2 {
                    let span = (out[k - 1].at - out[start].at) as u128;
                    let bits: u128 = out[start..k - 1]
                        .iter()
                        .map(|r| r.pkt.len as u128)
                        .sum::<u128>()
                        * 8
                        * 1_000_000_000;
                    assert!(bits <= 8_000_000 * (span + 1));
                    assert!(bits + 2_000_000 >= 2_000_000 * span);
                }
                start = k;
            }
        }
    }
    // The test exercised both bounds: many backlogged pairs, some at MIR.
    assert!(total_pairs > pick(10_000, 80), "{total_pairs}");
    assert!(total_mir > pick(100, 8), "{total_mir}");
}

/// The green shapers' output stays within [CIR, MIR] while backlogged too:
/// a packet released at T2 waits until the one before it has gone out at MIR
/// (without that, a meter with tokens let packets follow each other in the
/// same tick, and the output went above MIR). Meters with large bursts, so
/// that T2 often wins.
#[test]
fn green_output_rate_stays_between_cir_and_mir_while_backlogged() {
    let mut cfg = tr_cfg();
    cfg.mir = Some(Rate::from_mbps(8));
    let tr: RasProfile = TrRasProfile::new(&cfg).unwrap().into();
    let mut c = SrRasConfig::new(Rate::from_mbps(2), Rate::from_mbps(34), 64_000);
    c.mir = Some(Rate::from_mbps(8));
    c.thresholds = Some(SrThresholds {
        cir_th: 6_000,
        mir_th: 48_000,
    });
    let sr: RasProfile = SrRasProfile::new(&c).unwrap().into();
    for seed in 0..pick(3, 1) as u64 {
        let trace = onoff_trace(700 + seed, pick(4_000, 120), 20_000_000, 40);
        for (name, out) in [
            (
                "G-trRAS",
                run_green::<TrTcm, 128>(&tr, &trtcm_profile(50_000), &trace).0,
            ),
            (
                "G-srRAS",
                run_green::<SrTcm, 128>(&sr, &srtcm_profile(50_000), &trace).0,
            ),
        ] {
            let (pairs, at_mir) = check_rates(2_000_000, 8_000_000, 1_000_000_000, &out);
            let at_t2 = out.iter().filter(|r| r.at_t2).count();
            assert!(pairs > pick(1_000, 20), "{name}: {pairs} backlogged pairs");
            assert!(at_t2 > pick(100, 2), "{name}: {at_t2} releases at T2");
            assert!(at_mir > pick(10, 1), "{name}: {at_mir} pairs at MIR");
        }
    }
}

#[test]
fn srras_output_rate_bounds() {
    let p = sr_profile();
    let trace = onoff_trace(7, pick(4_000, 60), 20_000_000, 40);
    let (out, _) = run_plain::<128>(&p, &trace);
    let (pairs, _) = check_rates(2_000_000, 20_000_000, 1_000_000_000, &out);
    assert!(pairs > pick(1_000, 40), "{pairs}");
}

/// Peak rate over fixed windows of `win` ns, in bytes per window.
fn peak(events: impl Iterator<Item = (u64, u32)>, win: u64) -> u64 {
    let mut bins = std::collections::BTreeMap::<u64, u64>::new();
    for (at, len) in events {
        *bins.entry(at / win).or_default() += len as u64;
    }
    bins.values().copied().max().unwrap_or(0)
}

#[test]
fn bursts_are_smoothed() {
    let p = tr_profile();
    for seed in 0..pick(4, 1) as u64 {
        // TCP-like: windows of up to 30 packets at 10 Mbit/s every 50 ms
        // (about 3.6 Mbit/s on average).
        let trace = onoff_trace(200 + seed, pick(3_000, 60), 50_000_000, 30);
        let (out, drops) = run_plain::<256>(&p, &trace);
        assert!(drops.is_empty());
        let pin = peak(trace.iter().map(|(a, k)| (*a, k.len)), 10_000_000);
        let pout = peak(out.iter().map(|r| (r.at, r.pkt.len)), 10_000_000);
        assert!(
            pout * 10 < pin * 9,
            "seed {seed}: peak out {pout} B/10ms not below in {pin}"
        );
        // And the shaped stream meets a trTCM with more green.
        let mp = trtcm_profile(3_000);
        let greens = |ev: &mut dyn Iterator<Item = (u64, u32)>| {
            let mut m = TrTcm::new(&mp, Instant::ZERO);
            ev.filter(|(at, len)| m.color_blind(&mp, t(*at), *len) == Color::Green)
                .map(|(_, len)| len as u64)
                .sum::<u64>()
        };
        let g_in = greens(&mut trace.iter().map(|(a, k)| (*a, k.len)));
        let g_out = greens(&mut out.iter().map(|r| (r.at, r.pkt.len)));
        assert!(
            g_out > g_in,
            "seed {seed}: green {g_out} vs unshaped {g_in}"
        );
    }
}
