use super::*;
use netcond_core::SplitMix64;

fn cfg(mode: RioMode) -> RioConfig {
    let mut c = RioConfig::rfc2963(1000);
    c.mode = mode;
    c
}

#[test]
fn rfc2963_profile_is_accepted_and_has_its_numbers() {
    let p = RioProfile::new(&cfg(RioMode::Coupled)).unwrap();
    let at = |c: Color, x: u32| p.p_b(c, U32F32::from_num(x));
    // Midpoints: red 150 -> 0.05, yellow 300 -> 0.025, green 600 -> 0.01.
    let close = |v: U32F32, e: f64| (v.to_num::<f64>() - e).abs() < 1e-9;
    assert!(close(at(Color::Red, 150), 0.05));
    assert!(close(at(Color::Yellow, 300), 0.025));
    assert!(close(at(Color::Green, 600), 0.01));
    assert_eq!(at(Color::Red, 99), 0);
    assert_eq!(at(Color::Red, 200), 1);
    assert_eq!(at(Color::Yellow, 199), 0);
    assert_eq!(at(Color::Yellow, 400), 1);
    assert_eq!(at(Color::Green, 399), 0);
    assert_eq!(at(Color::Green, 800), 1);
    assert_eq!(p.limit(), 1000);
    // Gentle is ordered too.
    let mut g = cfg(RioMode::Wred);
    g.queue.gentle = true;
    assert!(RioProfile::new(&g).is_ok());
}

#[test]
fn misordered_precedences_are_refused() {
    let mut c = cfg(RioMode::Wred);
    // Green max_p above yellow's where both are active.
    c.colors[0] = Precedence {
        min_th: 200,
        max_th: 400,
        max_p: U32F32::from_num(0.1),
    };
    assert_eq!(RioProfile::new(&c), Err(RedError::PrecedenceOrder));
    // Equal curves are fine (two levels of loss, RFC 2597 section 2).
    let mut c = cfg(RioMode::Wred);
    c.colors[0] = c.colors[1];
    assert!(RioProfile::new(&c).is_ok());
    // Each color is checked as RED.
    let mut c = cfg(RioMode::Wred);
    c.colors[2].min_th = 200;
    assert_eq!(RioProfile::new(&c), Err(RedError::ThresholdOrder));
    let mut c = cfg(RioMode::Wred);
    c.queue.limit = 700;
    assert_eq!(RioProfile::new(&c), Err(RedError::ThresholdAboveLimit));
}

/// Drives a queue whose per-color occupancy is held constant and counts
/// decisions per color.
fn run(mode: RioMode, queue: [u32; 3], n: u32, seed: u64) -> (Rio, [[u32; 4]; 3]) {
    let p = RioProfile::new(&cfg(mode)).unwrap();
    let mut rio = Rio::new(&p, Instant::ZERO);
    let mut rng = SplitMix64::new(seed);
    let mut counts = [[0u32; 4]; 3];
    for i in 0..n {
        let color = Color::from_index((i % 3) as usize);
        let d = rio.on_arrival(
            &p,
            Instant::from_ticks(i as u64 * 100),
            queue,
            color,
            Packet::not_ect(1500),
            &mut rng,
        );
        counts[color.index()][d.index()] += 1;
    }
    (rio, counts)
}

#[test]
#[cfg_attr(
    miri,
    ignore = "60,000 arrivals to converge: arithmetic, not memory safety; runs natively"
)]
fn coupled_averages_converge_to_cumulative_queues() {
    let (rio, counts) = run(RioMode::Coupled, [300, 100, 50], 60_000, 1);
    let p = RioProfile::new(&cfg(RioMode::Coupled)).unwrap();
    assert_eq!(rio.avg(&p, Color::Green), 300);
    assert_eq!(rio.avg(&p, Color::Yellow), 400);
    assert_eq!(rio.avg(&p, Color::Red), 450);
    // Green below its min_th (400): never dropped; yellow and red at/above max_th: all dropped
    // once converged.
    assert_eq!(counts[0][Decision::Enqueue.index()], 20_000);
    assert!(counts[1][Decision::DropForced.index()] > 15_000);
    assert!(counts[2][Decision::DropForced.index()] > 15_000);
}

#[test]
#[cfg_attr(
    miri,
    ignore = "60,000 arrivals to converge: arithmetic, not memory safety; runs natively"
)]
fn decoupled_averages_are_per_color() {
    let (rio, counts) = run(RioMode::Decoupled, [300, 100, 50], 60_000, 2);
    let p = RioProfile::new(&cfg(RioMode::Decoupled)).unwrap();
    assert_eq!(rio.avg(&p, Color::Green), 300);
    assert_eq!(rio.avg(&p, Color::Yellow), 100);
    assert_eq!(rio.avg(&p, Color::Red), 50);
    // Everything below its min_th.
    for c in counts {
        assert_eq!(c[Decision::Enqueue.index()], 20_000);
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "60,000 arrivals to converge: arithmetic, not memory safety; runs natively"
)]
fn wred_shares_one_average() {
    let (rio, counts) = run(RioMode::Wred, [100, 100, 100], 60_000, 3);
    let p = RioProfile::new(&cfg(RioMode::Wred)).unwrap();
    for c in Color::ALL {
        assert_eq!(rio.avg(&p, c), 300);
    }
    // At 300: green below 400 (no drops), yellow p_b 0.025, red forced.
    assert_eq!(counts[0][Decision::Enqueue.index()], 20_000);
    let y = counts[1][Decision::DropEarly.index()];
    assert!(y > 300 && y < 1_500, "{y}");
    assert!(counts[2][Decision::DropForced.index()] > 19_000);
}

#[test]
#[cfg_attr(
    miri,
    ignore = "statistics over 300,000 arrivals: arithmetic, not memory safety; runs natively"
)]
fn rio_drop_fractions_follow_the_rfc2963_curves() {
    // WRED at an average of 150: only red is early-dropped, at p_b = 0.05:
    // FJ93 spreading gives 2 p_b / (1 + p_b) = 0.0952.
    let n = 300_000u32;
    let (_, counts) = run(RioMode::Wred, [50, 50, 50], n, 4);
    let red = counts[2][Decision::DropEarly.index()] as f64 / f64::from(n / 3);
    assert!((red - 0.1 / 1.05).abs() < 0.006, "{red}");
    assert_eq!(counts[1][Decision::Enqueue.index()], n / 3);
    assert_eq!(counts[0][Decision::Enqueue.index()], n / 3);
}

#[test]
fn overflow_and_idle() {
    let p = RioProfile::new(&cfg(RioMode::Coupled)).unwrap();
    let mut rio = Rio::new(&p, Instant::ZERO);
    let mut r = SplitMix64::new(5);
    assert_eq!(
        rio.on_arrival(
            &p,
            Instant::ZERO,
            [1000, 0, 0],
            Color::Green,
            Packet::not_ect(1),
            &mut r
        ),
        Decision::DropForced
    );
    assert!(rio.avg_bits()[2] > 0);
    rio.on_queue_empty(&p, Instant::from_ticks(1_000_000_000_000));
    let before = rio.avg_bits();
    rio.on_arrival(
        &p,
        Instant::from_ticks(2_000_000_000_000),
        [0; 3],
        Color::Red,
        Packet::not_ect(1),
        &mut r,
    );
    // 1000 s idle at s = 171 us: everything decays to zero.
    assert!(before.iter().any(|&a| a > 0));
    assert_eq!(rio.avg_bits(), [0; 3]);
    assert_eq!(core::mem::size_of::<Rio>(), 32);
}

/// Drives two copies of a three-color queue with the same arrivals, one by
/// `on_arrival` (short paths included) and one by the general path alone,
/// and checks that decisions, states and random streams stay identical.
fn paths_agree(cfg: &RioConfig, seed: u64, steps: u32) {
    let p = RioProfile::new(cfg).unwrap();
    let (mut a, mut b) = (Rio::new(&p, Instant::ZERO), Rio::new(&p, Instant::ZERO));
    let (mut ra, mut rb) = (SplitMix64::new(seed), SplitMix64::new(seed));
    let mut r = SplitMix64::new(seed ^ 0xAAAA);
    let limit = p.limit();
    let mut q = i64::from(r.below(limit));
    let mut now = 0u64;
    for i in 0..steps {
        now += u64::from(r.below(2000));
        if r.below(128) == 0 {
            a.on_queue_empty(&p, Instant::from_ticks(now));
            b.on_queue_empty(&p, Instant::from_ticks(now));
            now += u64::from(r.below(100_000));
        }
        q = match r.below(64) {
            0 => i64::from(r.below(limit.saturating_add(3))),
            1 => 0,
            _ => (q + i64::from(r.below(7)) - 3).clamp(0, i64::from(limit) + 2),
        };
        let q = q as u32;
        // Any split of q, and now and then colors that overflow a u32.
        let g = r.below(q + 1);
        let y = r.below(q - g + 1);
        let split = if r.below(256) == 0 {
            [u32::MAX, g, y]
        } else {
            [g, y, q - g - y]
        };
        let color = Color::from_index(r.below(3) as usize);
        let pkt = Packet::new(r.below(3000), crate::Ecn::from_bits(r.below(4) as u8));
        let t = Instant::from_ticks(now);
        let da = a.on_arrival(&p, t, split, color, pkt, &mut ra);
        let db = b.on_arrival(&p.general_path_only(), t, split, color, pkt, &mut rb);
        assert_eq!((da, a, ra), (db, b, rb), "step {i} of {cfg:?}");
    }
}

fn small(mode: RioMode, n: u32, spreading: Spreading) -> RioConfig {
    let mut c = cfg(mode);
    c.queue.limit = 60;
    c.queue.w_q = U32F32::from_bits(1 << (32 - n));
    c.colors = [
        Precedence {
            min_th: 20,
            max_th: 40,
            max_p: U32F32::from_num(0.05),
        },
        Precedence {
            min_th: 15,
            max_th: 40,
            max_p: U32F32::from_num(0.1),
        },
        Precedence {
            min_th: 10,
            max_th: 30,
            max_p: U32F32::from_num(0.2),
        },
    ];
    c.queue.spreading = spreading;
    c
}

#[test]
fn short_paths_equal_the_general_path() {
    // Under Miri, which interprets every instruction, a short walk on
    // every fourth configuration: that still runs every mode with every
    // spreading, every weight, and each configuration of the general
    // path only.
    let steps = if cfg!(miri) { 32 } else { 30_000 };
    let run = |c: &RioConfig, seed: u64| {
        if !cfg!(miri) || seed % 4 == 0 {
            paths_agree(c, seed, steps);
        }
    };
    let spreadings = [
        Spreading::Accumulated,
        Spreading::AccumulatedDpdk,
        Spreading::Uniform,
        Spreading::UniformCountFirst,
        Spreading::Dpdk,
        Spreading::Geometric,
        Spreading::Wait,
    ];
    let mut k = 0;
    for mode in [RioMode::Coupled, RioMode::Decoupled, RioMode::Wred] {
        for n in [0, 3, 7] {
            for s in spreadings {
                for (gentle, ecn) in [(false, false), (true, true)] {
                    let mut c = small(mode, n, s);
                    c.queue.gentle = gentle;
                    c.queue.ecn = ecn;
                    c.queue.ecn_drop_th = if ecn { Some(35) } else { None };
                    run(&c, k);
                    k += 1;
                }
            }
        }
        // Not a power of two, bytes, byte mode: the general path only.
        let mut c = small(mode, 4, Spreading::Accumulated);
        c.queue.w_q = U32F32::from_num(0.07);
        run(&c, k);
        c.queue.w_q = U32F32::from_bits(1 << 28);
        c.queue.byte_mode = Some(1000);
        run(&c, k + 1);
        c.queue.byte_mode = None;
        c.queue.unit = QueueUnit::Bytes;
        run(&c, k + 2);
        k += 3;
    }
}

/// The benchmark's stream (see `red::tests`): colors 6:1:1, the queue
/// split green q/2, yellow q/4, red the rest. Under Miri, which
/// interprets every instruction, one step every 2 packets instead of 1024
/// (the colors run on through the same 1024).
#[test]
fn short_paths_equal_the_general_path_on_the_bench_stream() {
    let per_step = if cfg!(miri) { 2 } else { 1024 };
    for mode in [RioMode::Coupled, RioMode::Wred, RioMode::Decoupled] {
        let mut c = RioConfig::rfc2963(256);
        c.mode = mode;
        c.queue.w_q = U32F32::from_bits(1 << 23);
        c.queue.typical_tx = core::time::Duration::from_nanos(1200);
        c.colors = [
            Precedence {
                min_th: 64,
                max_th: 128,
                max_p: U32F32::from_num(0.05),
            },
            Precedence {
                min_th: 48,
                max_th: 128,
                max_p: U32F32::from_num(0.1),
            },
            Precedence {
                min_th: 32,
                max_th: 128,
                max_p: U32F32::from_num(0.1),
            },
        ];
        let p = RioProfile::new(&c).unwrap();
        let mut cr = SplitMix64::new(2);
        let colors: Vec<Color> = (0..1024)
            .map(|_| match cr.below(8) {
                0 => Color::Red,
                1 => Color::Yellow,
                _ => Color::Green,
            })
            .collect();
        let mut next_color = colors.iter().copied().cycle();
        let (mut a, mut b) = (Rio::new(&p, Instant::ZERO), Rio::new(&p, Instant::ZERO));
        let (mut ra, mut rb) = (SplitMix64::new(1), SplitMix64::new(1));
        let (mut q, mut up, mut now) = (20u32, true, 0u64);
        let mut drops = 0u32;
        for _ in 0..240 {
            let split = [q / 2, q / 4, q - q / 2 - q / 4];
            for color in next_color.by_ref().take(per_step) {
                now += 100;
                let t = Instant::from_ticks(now);
                let pkt = Packet::not_ect(1500);
                let da = a.on_arrival(&p, t, split, color, pkt, &mut ra);
                let db = b.on_arrival(&p.general_path_only(), t, split, color, pkt, &mut rb);
                assert_eq!((da, a, ra), (db, b, rb));
                drops += u32::from(da.is_drop());
            }
            crate::triangle_step(&mut q, &mut up);
        }
        // RIO-D's per-color averages stay low on this stream. Under Miri
        // the stream is too short for the averages to rise far: no bound.
        let least = match (cfg!(miri), mode) {
            (true, _) => None,
            (false, RioMode::Decoupled) => Some(50),
            (false, _) => Some(5_000),
        };
        if let Some(least) = least {
            assert!(drops > least, "{mode:?}: {drops}");
        }
    }
}
