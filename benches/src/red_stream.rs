//! The RED family's bench stream and per-step loops (docs/performance.md):
//! shared by `benches/red.rs` and the `contention` example.
use netcond::base::{Color, Instant, SplitMix64};
use netcond::red::{
    Packet, Precedence, Red, RedConfig, RedProfile, Rio, RioConfig, RioMode, RioProfile, Spreading,
    U32F32,
};
use std::hint::black_box;

/// Packets per step of the wave (one criterion iteration).
pub const STEP: u64 = 1024;
/// Ticks between arrivals.
pub const TICKS: u64 = 100;

/// w_q = 2^-9.
#[must_use]
pub fn w_q() -> U32F32 {
    U32F32::from_bits(1 << 23)
}

/// The triangle wave: 20, 21, ..., 140, 139, ..., 21, 20, ...
#[derive(Clone, Copy, Debug)]
pub struct Wave {
    q: u32,
    up: bool,
}

impl Default for Wave {
    fn default() -> Wave {
        Wave::new()
    }
}

impl Wave {
    /// The wave at its bottom, going up.
    #[must_use]
    pub fn new() -> Wave {
        Wave { q: 20, up: true }
    }
    /// The current length; moves the wave one step.
    pub fn step(&mut self) -> u32 {
        let q = self.q;
        if self.up {
            self.q += 1;
            self.up = self.q < 140;
        } else {
            self.q -= 1;
            self.up = self.q <= 20;
        }
        q
    }
}

/// The RED bench profile: min_th 32, max_th 128 packets, max_p 0.1, limit 256.
#[must_use]
pub fn red_profile(ecn: bool, spreading: Spreading) -> RedProfile {
    let mut c = RedConfig::packets(32, 128, U32F32::from_num(0.1), w_q(), 256);
    c.queue.spreading = spreading;
    c.queue.ecn = ecn;
    c.queue.ecn_drop_th = if ecn { Some(128) } else { None };
    c.queue.typical_tx = std::time::Duration::from_nanos(1200);
    RedProfile::new(&c).unwrap()
}

/// One step of the wave (`STEP` arrivals at queue length `q`) through RED. Not
/// inlined, with the profile as a `&` argument, as in a router's per-burst
/// function (the caller passes it through `black_box`, so its constants cannot
/// be folded); the state, clock and generator are in locals for the burst.
#[inline(never)]
pub fn red_burst(
    p: &RedProfile,
    red: &mut Red,
    rng: &mut SplitMix64,
    now: &mut u64,
    q: u32,
    pkt: Packet,
) -> u32 {
    let (mut r, mut g, mut t) = (*red, *rng, *now);
    let mut drops = 0u32;
    for _ in 0..STEP {
        t += TICKS;
        // The queue length is opaque per packet, as a real queue's would be.
        let d = r.on_arrival(p, Instant::from_ticks(t), black_box(q), pkt, &mut g);
        drops += u32::from(d.is_drop());
    }
    (*red, *rng, *now) = (r, g, t);
    drops
}

/// One step of the wave through RIO, the colors from a table; as [`red_burst`].
#[inline(never)]
pub fn rio_burst(
    p: &RioProfile,
    rio: &mut Rio,
    rng: &mut SplitMix64,
    now: &mut u64,
    split: [u32; 3],
    colors: &[Color],
) -> u32 {
    let (mut r, mut g, mut t) = (*rio, *rng, *now);
    let mut drops = 0u32;
    for &color in colors {
        t += TICKS;
        let d = r.on_arrival(
            p,
            Instant::from_ticks(t),
            black_box(split),
            color,
            Packet::not_ect(1500),
            &mut g,
        );
        drops += u32::from(d.is_drop());
    }
    (*rio, *rng, *now) = (r, g, t);
    drops
}

/// The RIO bench profile in `mode`: green 64/128 max_p 0.05, yellow 48/128
/// max_p 0.1, red 32/128 max_p 0.1, limit 256.
#[must_use]
pub fn rio_profile(mode: RioMode) -> RioProfile {
    let mut cfg = RioConfig::rfc2963(256);
    cfg.mode = mode;
    cfg.queue.w_q = w_q();
    cfg.queue.typical_tx = std::time::Duration::from_nanos(1200);
    cfg.colors = [
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
    RioProfile::new(&cfg).unwrap()
}

/// The RIO benches' colors: 6 green, 1 yellow, 1 red of 8, one per packet of a step.
#[must_use]
pub fn rio_colors() -> Vec<Color> {
    crate::precolors(STEP as usize, 2)
}

/// The RIO benches' split of a queue of `q` packets: green q/2, yellow q/4,
/// red the rest.
#[must_use]
pub fn rio_split(q: u32) -> [u32; 3] {
    [q / 2, q / 4, q - q / 2 - q / 4]
}
