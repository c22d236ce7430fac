//! Byte mode and queues counted in bytes: p_b scaled by the packet size,
//! the byte-counted queue, and byte mode with DPDK's law.

use super::*;

#[test]
fn byte_mode_scales_by_packet_size() {
    let mut c = cfg(10, 30, 0.5, 0.01, 100);
    c.queue.byte_mode = Some(1500);
    c.queue.spreading = Spreading::Geometric;
    let p = RedProfile::new(&c).unwrap();
    let warm = settle(&p, 20, 5000);
    // p_b = 0.25; Geometric: the drop fraction is p_b * min(len, M) / M.
    for (len, want) in [
        (1500u32, 0.25),
        (750, 0.125),
        (150, 0.025),
        (9000, 0.25),
        (0, 0.0),
    ] {
        let mut red = warm;
        let mut rng = SplitMix64::new(u64::from(len));
        // Miri interprets every instruction: fewer arrivals there (the
        // bound below widens with 1 / sqrt(n)).
        let n = if cfg!(miri) { 200 } else { 200_000u32 };
        let drops = (0..n)
            .filter(|&i| {
                red.on_arrival(&p, t(u64::from(i)), 20, Packet::not_ect(len), &mut rng)
                    .is_drop()
            })
            .count();
        let f = drops as f64 / f64::from(n);
        let sd = (want * (1.0 - want) / f64::from(n)).sqrt();
        assert!(
            (f - want).abs() <= 5.0 * sd + 1e-9,
            "len {len}: {f} vs {want}"
        );
    }
}

#[test]
fn queue_in_bytes() {
    let mut c = cfg(15_000, 45_000, 0.1, 0.002, 75_000);
    c.queue.unit = QueueUnit::Bytes;
    let p = RedProfile::new(&c).unwrap();
    let mut red = Red::new(&p, Instant::ZERO);
    // Fits exactly, then one byte too many.
    assert_eq!(
        red.on_arrival(&p, t(1), 73_500, Packet::not_ect(1500), &mut Supplied(0)),
        Decision::Enqueue
    );
    assert_eq!(
        red.on_arrival(&p, t(2), 73_501, Packet::not_ect(1500), &mut Supplied(0)),
        Decision::DropForced
    );
    assert_eq!(
        red.on_arrival(&p, t(3), 0, Packet::not_ect(u32::MAX), &mut Supplied(0)),
        Decision::DropForced
    );
    let red = settle(&p, 30_000, 20_000);
    assert_eq!(red.avg(&p), 30_000);
    assert_eq!((p.p_b(red.avg(&p)).to_num::<f64>() * 1e6).round(), 50_000.0);
}

/// Byte mode with `AccumulatedDpdk` takes the general path (no short path),
/// which halves the scaled p_b: at p_b = 0.25 the drop fraction is that of
/// DPDK's law at `p_b len / M`, `2 p / (2 + p)` where `2 / p` is whole.
#[test]
#[cfg_attr(
    miri,
    ignore = "statistics over 800,000 arrivals: arithmetic, not memory safety; runs natively"
)]
fn byte_mode_with_the_dpdk_law() {
    let mut c = cfg(10, 30, 0.5, 0.01, 100);
    c.queue.byte_mode = Some(1500);
    c.queue.spreading = Spreading::AccumulatedDpdk;
    let p = RedProfile::new(&c).unwrap();
    assert!(!p.common.fast && p.curve.fast_range == 0 && p.curve.early_range == 0);
    let warm = settle(&p, 20, 5000);
    let pb = p.p_b(warm.avg(&p)).to_num::<f64>();
    assert!((pb - 0.25).abs() < 1e-9);
    for (len, scaled) in [(1500u32, 0.25), (750, 0.125), (9000, 0.25), (375, 0.0625)] {
        let (mean, var) = gap_moments(scaled, Spreading::AccumulatedDpdk);
        let want = 1.0 / mean;
        assert!((want - 2.0 * scaled / (2.0 + scaled)).abs() < 1e-9);
        let mut red = warm;
        let mut rng = SplitMix64::new(u64::from(len));
        let n = 200_000u64;
        let drops = (0..n)
            .filter(|&i| {
                red.on_arrival(&p, t(i), 20, Packet::not_ect(len), &mut rng)
                    .is_drop()
            })
            .count();
        let f = drops as f64 / n as f64;
        // Renewal-reward CLT, 5 sigma.
        let sd = (n as f64 * var / mean.powi(3)).sqrt() / n as f64;
        assert!(
            (f - want).abs() <= 5.0 * sd + 2.0 / n as f64,
            "len {len}: {f} vs {want}"
        );
    }
}
