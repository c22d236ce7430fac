//! Exact reference models, written as plainly as the RFC text.
//!
//! Each model counts tokens as `u128` in units of `1/(8 tick_hz)` byte: in those
//! units a rate of `R` bit/s adds exactly `R` units per tick and a packet of `B`
//! bytes costs `8 tick_hz B` units, so nothing is ever rounded and no constant has
//! to be reduced. The models share no code with the fast meters (not even
//! [`BucketProfile`]); the differential tests run both over random streams and
//! expect identical colors and identical bucket contents (the fast meters' units
//! are `8 tick_hz / scale` times coarser, exactly).
//!
//! In packet mode ([`Mode::Packets`](crate::Mode)) a packet costs one unit of
//! `8 tick_hz`, whatever its length: the configuration's rates and bursts are
//! packets read as bytes, as in the fast meters.
//!
//! They assume a configuration the fast profile accepted (so every bucket is below
//! 2^126 units here) and are meant for tests and fuzzing, not for the packet path.

use netcond_core::{BucketProfile, Color, TickRate};

use crate::{PremiumPolicerConfig, Rfc4115Config, Rfc4115Ties, SrTcmConfig, TrTcmConfig};

/// Converts a fast meter's token count to reference units (`1/(8 tick_hz)` byte).
#[must_use]
pub fn to_reference_units(bucket: &BucketProfile, tokens: u64, tick: TickRate) -> u128 {
    let per_byte = 8 * u128::from(tick.hz());
    // scale divides 8 hz exactly (scale = 8 hz / gcd).
    u128::from(tokens) * (per_byte / u128::from(bucket.scale()))
}

/// Elapsed ticks from `last` to `now`, updating `last`; a `now` that is older
/// (serial-number arithmetic modulo 2^64, half range) elapses nothing and leaves
/// `last` alone.
fn elapsed(last: &mut u64, now: u64) -> u128 {
    let forward = now.wrapping_sub(*last);
    if forward < (1u64 << 63) {
        *last = now;
        u128::from(forward)
    } else {
        0
    }
}

/// The length a packet is charged: its own, or one unit in packet mode.
fn charged(packets: bool, len: u32) -> u32 {
    if packets {
        1
    } else {
        len
    }
}

/// Tokens `tokens` (units of `1/(8 tick_hz)` byte) kept by a profile update to a
/// bucket of rate `rate_bits` bit/s and `size` units: the new bucket counts in
/// steps of `gcd(rate_bits, 8 tick_hz)` of these units (its `1/scale` byte), so
/// the count is rounded down to a whole step, then capped at the size.
fn carried(tokens: u128, rate_bits: u128, size: u128, tick: TickRate) -> u128 {
    let (mut a, mut b) = (rate_bits, 8 * u128::from(tick.hz()));
    while b != 0 {
        (a, b) = (b, a % b);
    }
    (tokens - tokens % a).min(size)
}

fn bytes_to_units(bytes: u64, tick: TickRate) -> u128 {
    u128::from(bytes) * 8 * u128::from(tick.hz())
}

/// RFC 2697 srTCM, as in section 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SrTcmRef {
    /// Packet mode: every packet costs one unit (a byte's worth of tokens).
    packets: bool,
    cir: u128,
    cbs: u128,
    ebs: u128,
    tick: TickRate,
    /// Token count of C.
    pub tc: u128,
    /// Token count of E.
    pub te: u128,
    /// Time of the last update, in ticks.
    pub last: u64,
}

impl SrTcmRef {
    /// Both buckets full at `now`.
    #[must_use]
    pub fn new(cfg: &SrTcmConfig, now: u64) -> SrTcmRef {
        let cbs = bytes_to_units(cfg.cbs, cfg.tick);
        let ebs = bytes_to_units(cfg.ebs, cfg.tick);
        SrTcmRef {
            packets: cfg.mode.is_packets(),
            cir: u128::from(cfg.cir.bits_per_sec()),
            cbs,
            ebs,
            tick: cfg.tick,
            tc: cbs,
            te: ebs,
            last: now,
        }
    }

    fn update(&mut self, now: u64) {
        // "If Tc is less than CBS, Tc is incremented by one, else if Te is less
        // than EBS, Te is incremented by one, else neither."
        let mut arriving = elapsed(&mut self.last, now) * self.cir;
        let into_c = arriving.min(self.cbs - self.tc);
        self.tc += into_c;
        arriving -= into_c;
        let into_e = arriving.min(self.ebs - self.te);
        self.te += into_e;
    }

    /// The rates and sizes change to `cfg`'s at `now` (same clock): the
    /// buckets fill to `now` at the old rate, then keep what they hold,
    /// rounded down to the new bucket's unit and capped at the new sizes (a
    /// change between bytes and packets starts both full).
    pub fn move_to(&mut self, cfg: &SrTcmConfig, now: u64) {
        self.update(now);
        let next = SrTcmRef::new(cfg, self.last);
        if next.packets == self.packets {
            let tc = carried(self.tc, next.cir, next.cbs, self.tick);
            let te = carried(self.te, next.cir, next.ebs, self.tick);
            *self = SrTcmRef { tc, te, ..next };
        } else {
            *self = next;
        }
    }

    /// Color-blind: every packet is treated as pre-colored green.
    pub fn color_blind(&mut self, now: u64, len: u32) -> Color {
        self.color_aware(now, len, Color::Green)
    }

    /// Color-aware, section 3.
    pub fn color_aware(&mut self, now: u64, len: u32, input: Color) -> Color {
        self.update(now);
        let len = charged(self.packets, len);
        let b = bytes_to_units(u64::from(len), self.tick);
        if input == Color::Green && self.tc >= b {
            self.tc -= b;
            Color::Green
        } else if (input == Color::Green || input == Color::Yellow) && self.te >= b {
            self.te -= b;
            Color::Yellow
        } else {
            Color::Red
        }
    }
}

/// RFC 2698 trTCM, as in section 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrTcmRef {
    /// Packet mode: every packet costs one unit (a byte's worth of tokens).
    packets: bool,
    cir: u128,
    pir: u128,
    cbs: u128,
    pbs: u128,
    tick: TickRate,
    /// Token count of C.
    pub tc: u128,
    /// Token count of P.
    pub tp: u128,
    /// Time of the last update, in ticks.
    pub last: u64,
}

impl TrTcmRef {
    /// Both buckets full at `now`.
    #[must_use]
    pub fn new(cfg: &TrTcmConfig, now: u64) -> TrTcmRef {
        let cbs = bytes_to_units(cfg.cbs, cfg.tick);
        let pbs = bytes_to_units(cfg.pbs, cfg.tick);
        TrTcmRef {
            packets: cfg.mode.is_packets(),
            cir: u128::from(cfg.cir.bits_per_sec()),
            pir: u128::from(cfg.pir.bits_per_sec()),
            cbs,
            pbs,
            tick: cfg.tick,
            tc: cbs,
            tp: pbs,
            last: now,
        }
    }

    fn update(&mut self, now: u64) {
        let dt = elapsed(&mut self.last, now);
        self.tp = (self.tp + dt * self.pir).min(self.pbs);
        self.tc = (self.tc + dt * self.cir).min(self.cbs);
    }

    /// The rates and sizes change to `cfg`'s at `now`, as
    /// [`SrTcmRef::move_to`] does (each bucket rounded to its own new unit).
    pub fn move_to(&mut self, cfg: &TrTcmConfig, now: u64) {
        self.update(now);
        let next = TrTcmRef::new(cfg, self.last);
        if next.packets == self.packets {
            let tc = carried(self.tc, next.cir, next.cbs, self.tick);
            let tp = carried(self.tp, next.pir, next.pbs, self.tick);
            *self = TrTcmRef { tc, tp, ..next };
        } else {
            *self = next;
        }
    }

    /// Color-blind: every packet is treated as pre-colored green.
    pub fn color_blind(&mut self, now: u64, len: u32) -> Color {
        self.color_aware(now, len, Color::Green)
    }

    /// Color-aware, section 3.
    pub fn color_aware(&mut self, now: u64, len: u32, input: Color) -> Color {
        self.update(now);
        let len = charged(self.packets, len);
        let b = bytes_to_units(u64::from(len), self.tick);
        if input == Color::Red || self.tp < b {
            Color::Red
        } else if input == Color::Yellow || self.tc < b {
            self.tp -= b;
            Color::Yellow
        } else {
            self.tp -= b;
            self.tc -= b;
            Color::Green
        }
    }
}

/// RFC 4115, section 3 and figure 1, with either tie rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rfc4115Ref {
    /// Packet mode: every packet costs one unit (a byte's worth of tokens).
    packets: bool,
    cir: u128,
    eir: u128,
    cbs: u128,
    ebs: u128,
    tick: TickRate,
    ties: Rfc4115Ties,
    /// Token count of C.
    pub tc: u128,
    /// Token count of E.
    pub te: u128,
    /// Time of the last update, in ticks.
    pub last: u64,
}

impl Rfc4115Ref {
    /// Both buckets full at `now`.
    #[must_use]
    pub fn new(cfg: &Rfc4115Config, ties: Rfc4115Ties, now: u64) -> Rfc4115Ref {
        let cbs = bytes_to_units(cfg.cbs, cfg.tick);
        let ebs = bytes_to_units(cfg.ebs, cfg.tick);
        Rfc4115Ref {
            packets: cfg.mode.is_packets(),
            cir: u128::from(cfg.cir.bits_per_sec()),
            eir: u128::from(cfg.eir.bits_per_sec()),
            cbs,
            ebs,
            tick: cfg.tick,
            ties,
            tc: cbs,
            te: ebs,
            last: now,
        }
    }

    fn fits(&self, tokens: u128, b: u128) -> bool {
        match self.ties {
            // Figure 1: B <= Tc(t-).
            Rfc4115Ties::Figure1 => b <= tokens,
            // Text: Tc(t) - B > 0.
            Rfc4115Ties::Text => tokens > b,
        }
    }

    /// The rates, sizes and tie rule change to `cfg`'s and `ties` at `now`, as
    /// [`SrTcmRef::move_to`] does (each bucket rounded to its own new unit).
    pub fn move_to(&mut self, cfg: &Rfc4115Config, ties: Rfc4115Ties, now: u64) {
        let dt = elapsed(&mut self.last, now);
        self.tc = (self.tc + dt * self.cir).min(self.cbs);
        self.te = (self.te + dt * self.eir).min(self.ebs);
        let next = Rfc4115Ref::new(cfg, ties, self.last);
        if next.packets == self.packets {
            let tc = carried(self.tc, next.cir, next.cbs, self.tick);
            let te = carried(self.te, next.eir, next.ebs, self.tick);
            *self = Rfc4115Ref { tc, te, ..next };
        } else {
            *self = next;
        }
    }

    /// Color-blind: every packet is treated as green.
    pub fn color_blind(&mut self, now: u64, len: u32) -> Color {
        self.color_aware(now, len, Color::Green)
    }

    /// Color-aware, section 3.
    pub fn color_aware(&mut self, now: u64, len: u32, input: Color) -> Color {
        let dt = elapsed(&mut self.last, now);
        self.tc = (self.tc + dt * self.cir).min(self.cbs);
        self.te = (self.te + dt * self.eir).min(self.ebs);
        let len = charged(self.packets, len);
        let b = bytes_to_units(u64::from(len), self.tick);
        if input == Color::Green && self.fits(self.tc, b) {
            self.tc -= b;
            Color::Green
        } else if input != Color::Red && self.fits(self.te, b) {
            self.te -= b;
            Color::Yellow
        } else {
            Color::Red
        }
    }
}

/// The premium policer: a token bucket, then a byte-counted buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PremiumPolicerRef {
    /// Packet mode: every packet costs one unit (a byte's worth of tokens).
    packets: bool,
    rate: u128,
    tbs: u128,
    pbs: u128,
    tick: TickRate,
    /// Token count.
    pub tokens: u128,
    /// Bytes in the premium buffer.
    pub backlog: u128,
    /// Time of the last update, in ticks.
    pub last: u64,
}

/// The reference policer's verdict: `0` admitted, `1` policer drop, `2` buffer drop
/// (the indices of [`crate::PolicerVerdict`]).
pub type RefVerdict = usize;

impl PremiumPolicerRef {
    /// Full bucket, empty buffer at `now`.
    #[must_use]
    pub fn new(cfg: &PremiumPolicerConfig, now: u64) -> PremiumPolicerRef {
        let tbs = bytes_to_units(cfg.tbs, cfg.tick);
        PremiumPolicerRef {
            packets: cfg.mode.is_packets(),
            rate: u128::from(cfg.rate.bits_per_sec()),
            tbs,
            pbs: u128::from(cfg.pbs),
            tick: cfg.tick,
            tokens: tbs,
            backlog: 0,
            last: now,
        }
    }

    /// The rate and sizes change to `cfg`'s at `now`, as
    /// [`SrTcmRef::move_to`] does; the buffer keeps its packets (a change
    /// between bytes and packets empties it and fills the bucket).
    pub fn move_to(&mut self, cfg: &PremiumPolicerConfig, now: u64) {
        let dt = elapsed(&mut self.last, now);
        self.tokens = (self.tokens + dt * self.rate).min(self.tbs);
        let next = PremiumPolicerRef::new(cfg, self.last);
        if next.packets == self.packets {
            let tokens = carried(self.tokens, next.rate, next.tbs, self.tick);
            *self = PremiumPolicerRef {
                tokens,
                backlog: self.backlog,
                ..next
            };
        } else {
            *self = next;
        }
    }

    /// Offers a packet of `len` units (bytes, or packets in packet mode).
    pub fn offer(&mut self, now: u64, len: u32) -> RefVerdict {
        let dt = elapsed(&mut self.last, now);
        self.tokens = (self.tokens + dt * self.rate).min(self.tbs);
        let b = bytes_to_units(u64::from(len), self.tick);
        if b > self.tokens {
            return 1;
        }
        self.tokens -= b;
        // Admitted if it fits the room left, PBs - backlog (none when a
        // profile update left the backlog above PBs).
        if u128::from(len) <= self.pbs.saturating_sub(self.backlog) {
            self.backlog += u128::from(len);
            0
        } else {
            2
        }
    }

    /// `len` bytes (packets in packet mode) left the buffer.
    pub fn dequeued(&mut self, len: u32) {
        self.backlog = self.backlog.saturating_sub(u128::from(len));
    }
}
