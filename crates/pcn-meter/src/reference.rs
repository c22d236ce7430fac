//! Exact reference models of the meters, written as plainly as their sources.
//!
//! They keep tokens as `i128` counts of `1 / (8 * hz * m / g)` byte, where `hz`
//! is the clock frequency, `m` the MTU for 3sM's proportional reduction (1
//! otherwise) and `g = gcd(rate, 8 * hz)` for a rate of `rate` bit/s (`8 * hz`
//! for a zero rate): a tick then adds exactly `rate * m / g` units, a byte is
//! `8 * hz * m / g` units, and nothing is ever rounded. Reducing by `g` keeps
//! every quantity a fast profile accepts (a capacity below 2^62 of its own
//! units) well inside an `i128`: a byte and a full bucket are below 2^94
//! units (2^62 times `m / k <= 2^32`, `k` being the fast refinement), a packet
//! below 2^126. Time gains and proportional additions, which only matter up to
//! the bucket size, saturate before the `min` with it. The models share no code
//! with the fast meters and exist to be compared with them (differential tests
//! and fuzz targets), not to be fast. Time never wraps here: an `Instant` older
//! than the last one adds no time and leaves the last one.
//!
//! The two buckets that may go negative (draft-babiarz-pcn-explicit-marking-01 section 4.8 and RFC 5670
//! appendix A.2) follow their texts with no limit: every packet takes its
//! whole size, and the level has no floor. Their units are the fast meters'
//! (`1 / (8 hz / g)` byte, below 2^62 units per byte), so a packet is below
//! 2^94 units, and the checked `i128` arithmetic here cannot overflow within
//! 2^33 packets (a differential test or fuzz input runs a few thousand); it
//! would panic rather than hold a value.
//!
//! Each model's `fill_matches` checks a fast meter's fill against its own,
//! exactly, as a comparison of fractions that cannot overflow.

use crate::mark::PcnMark;
use crate::{AsForm, AsMarkerConfig, EtMarkerConfig, EtMarkerSim48Config, EtMarking};
use crate::{ClassicTie, ExcessMode, ExcessTrafficMeterConfig, ThresholdMeterConfig};
use netcond_core::{Instant, Rate, TickRate};

fn elapsed(last: &mut u64, now: Instant) -> i128 {
    let now = now.ticks();
    if now >= *last {
        let d = now - *last;
        *last = now;
        d as i128
    } else {
        0
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `(units per byte, units per tick)` for `rate` on clock `tick`: `8 hz / g`
/// and `rate / g` with `g = gcd(rate, 8 hz)`.
fn units(rate: Rate, tick: TickRate) -> (i128, i128) {
    let hz8 = 8 * tick.hz() as u128;
    let r = rate.bits_per_sec() as u128;
    let g = gcd(r, hz8);
    ((hz8 / g) as i128, (r / g) as i128)
}

/// True if `a / b == c / d` (`b`, `d` > 0), by reduced cross-multiplication:
/// with `g = gcd(b, d)`, `a d / g == c b / g` and the coprime `b / g`, `d / g`
/// must divide `a` and `c`; the quotients are then equal. No product is formed.
fn same_level(a: i128, b: i128, c: i128, d: u64) -> bool {
    let (b, d) = (b as u128, d as u128);
    if b == 0 || d == 0 {
        return false;
    }
    let g = gcd(b, d);
    let (b, d) = ((b / g) as i128, (d / g) as i128);
    a % b == 0 && c % d == 0 && a / b == c / d
}

/// Reference 3sM ET-marker (draft-babiarz-pcn-explicit-marking-01 section 1.2, 3sm-01 section 3.1.2 and
/// appendix A.1.5).
#[derive(Clone, Copy, Debug)]
pub struct RefEtMarker {
    c: EtMarkerConfig,
    /// TB.fill in units.
    pub fill: i128,
    last: u64,
}

impl RefEtMarker {
    /// A full bucket at `now`.
    #[must_use]
    pub fn new(c: EtMarkerConfig, now: Instant) -> RefEtMarker {
        let mut r = RefEtMarker {
            c,
            fill: 0,
            last: now.ticks(),
        };
        r.fill = r.size();
        r
    }

    fn m(&self) -> i128 {
        match self.c.marking {
            EtMarking::TailMarking => 1,
            EtMarking::SizeIndependent { mtu } => mtu as i128,
        }
    }

    /// Units per byte: `8 hz / g` times `m`.
    #[must_use]
    pub fn per_byte(&self) -> i128 {
        units(self.c.sr, self.c.tick).0 * self.m()
    }

    fn size(&self) -> i128 {
        self.c.bucket_size as i128 * self.per_byte()
    }

    /// One packet.
    pub fn mark(&mut self, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        let dt = elapsed(&mut self.last, now);
        let size = self.size();
        let (scale, inc) = units(self.c.sr, self.c.tick);
        // TB.fill = min(TB.size, TB.fill + TB.rate * dt)
        let gain = dt.saturating_mul(inc * self.m());
        self.fill = size.min(self.fill.saturating_add(gain));
        if mark == PcnMark::NotPcn {
            return mark;
        }
        let len = len as i128;
        let byte = self.per_byte();
        let (need, add) = match self.c.marking {
            // if (TB.fill < packet.size) ... TB.fill = min(TB.size, TB.fill + s)
            EtMarking::TailMarking => (len * byte, (self.c.s as i128).saturating_mul(byte)),
            // if (TB.fill >= MTU) ... else TB.fill = min(TB.size, TB.fill + s * packet.size / MTU)
            // s * size / MTU bytes = s * size * (8 hz / g) units, as a byte is
            // (8 hz / g) MTU units.
            EtMarking::SizeIndependent { mtu } => (
                mtu as i128 * byte,
                (self.c.s as i128).saturating_mul(len * scale),
            ),
        };
        if mark == PcnMark::Etm {
            if self.c.already_et_adds_s {
                self.fill = size.min(self.fill.saturating_add(add));
            }
            return PcnMark::Etm;
        }
        if self.fill < need {
            self.fill = size.min(self.fill.saturating_add(add));
            PcnMark::Etm
        } else {
            self.fill = (self.fill - len * byte).max(0);
            mark
        }
    }

    /// True if `fast_fill` units of `fast_per_byte` per byte equal this fill.
    #[must_use]
    pub fn fill_matches(&self, fast_fill: i128, fast_per_byte: u64) -> bool {
        same_level(self.fill, self.per_byte(), fast_fill, fast_per_byte)
    }
}

/// Reference ET-marker of draft-babiarz-pcn-explicit-marking-01 section 4.8 (Figure 9).
#[derive(Clone, Copy, Debug)]
pub struct RefEtMarkerSim48 {
    c: EtMarkerSim48Config,
    /// tokenCountP in units.
    pub tokens: i128,
    last: u64,
}

impl RefEtMarkerSim48 {
    /// `tokenCountP = pcn_tb` at `now`.
    #[must_use]
    pub fn new(c: EtMarkerSim48Config, now: Instant) -> RefEtMarkerSim48 {
        RefEtMarkerSim48 {
            c,
            tokens: c.pcn_tb as i128 * units(c.pcn_pt, c.tick).0,
            last: now.ticks(),
        }
    }

    /// Units per byte.
    #[must_use]
    pub fn per_byte(&self) -> i128 {
        units(self.c.pcn_pt, self.c.tick).0
    }

    /// `Preempt_Meter(pktLen)`.
    pub fn mark(&mut self, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        let dt = elapsed(&mut self.last, now);
        let (byte, inc) = units(self.c.pcn_pt, self.c.tick);
        self.tokens = self.tokens.saturating_add(dt.saturating_mul(inc));
        self.tokens = self.tokens.min(self.c.pcn_tb as i128 * byte);
        if mark == PcnMark::NotPcn {
            return mark;
        }
        // tokenCountP -= pktLen (no floor: Fig. 9 has none).
        self.tokens = self
            .tokens
            .checked_sub(len as i128 * byte)
            .expect("2^33 packets");
        if self.tokens <= 0 {
            self.tokens += self.c.pcn_px as i128 * byte;
            PcnMark::Etm
        } else {
            mark
        }
    }

    /// True if the fast tokens equal these.
    #[must_use]
    pub fn fill_matches(&self, fast_fill: i128, fast_per_byte: u64) -> bool {
        same_level(self.tokens, self.per_byte(), fast_fill, fast_per_byte)
    }
}

/// Reference 3sM AS-marker, both forms.
#[derive(Clone, Copy, Debug)]
pub struct RefAsMarker {
    c: AsMarkerConfig,
    /// TB.fill in units.
    pub fill: i128,
    last: u64,
}

impl RefAsMarker {
    /// A full bucket at `now`.
    #[must_use]
    pub fn new(c: AsMarkerConfig, now: Instant) -> RefAsMarker {
        RefAsMarker {
            c,
            fill: c.bucket_size as i128 * units(c.ar, c.tick).0,
            last: now.ticks(),
        }
    }

    /// Units per byte.
    #[must_use]
    pub fn per_byte(&self) -> i128 {
        units(self.c.ar, self.c.tick).0
    }

    /// One packet.
    pub fn mark(&mut self, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        let dt = elapsed(&mut self.last, now);
        let (byte, inc) = units(self.c.ar, self.c.tick);
        let size = self.c.bucket_size as i128 * byte;
        self.fill = size.min(self.fill.saturating_add(dt.saturating_mul(inc)));
        // Only packets that are not ET-marked are metered.
        if mark != PcnMark::Nm && mark != PcnMark::Thm {
            return mark;
        }
        let len = len as i128 * byte;
        let threshold = self.c.threshold as i128 * byte;
        let as_marked = match self.c.form {
            AsForm::DraftExplicitMarking01 => {
                if self.fill < len {
                    true
                } else {
                    self.fill -= len;
                    self.fill < threshold
                }
            }
            AsForm::Draft3sm01 => {
                let m = self.fill < threshold;
                self.fill = (self.fill - len).max(0);
                m
            }
        };
        if as_marked {
            PcnMark::Thm
        } else {
            mark
        }
    }

    /// True if the fast fill equals this one.
    #[must_use]
    pub fn fill_matches(&self, fast_fill: i128, fast_per_byte: u64) -> bool {
        same_level(self.fill, self.per_byte(), fast_fill, fast_per_byte)
    }
}

/// Reference RFC 5670 threshold meter (appendix A.1).
#[derive(Clone, Copy, Debug)]
pub struct RefThresholdMeter {
    c: ThresholdMeterConfig,
    /// F_tm in units.
    pub fill: i128,
    last: u64,
}

impl RefThresholdMeter {
    /// A full bucket at `now`.
    #[must_use]
    pub fn new(c: ThresholdMeterConfig, now: Instant) -> RefThresholdMeter {
        RefThresholdMeter {
            c,
            fill: c.bs_tm as i128 * units(c.threshold_rate, c.tick).0,
            last: now.ticks(),
        }
    }

    /// Units per byte.
    #[must_use]
    pub fn per_byte(&self) -> i128 {
        units(self.c.threshold_rate, self.c.tick).0
    }

    /// One packet.
    pub fn mark(&mut self, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        let dt = elapsed(&mut self.last, now);
        let (byte, inc) = units(self.c.threshold_rate, self.c.tick);
        let bs = self.c.bs_tm as i128 * byte;
        self.fill = bs.min(self.fill.saturating_add(dt.saturating_mul(inc)));
        if mark == PcnMark::NotPcn {
            return mark;
        }
        self.fill = (self.fill - len as i128 * byte).max(0);
        if self.fill < self.c.threshold as i128 * byte && mark != PcnMark::Etm {
            PcnMark::Thm
        } else {
            mark
        }
    }

    /// True if the fast fill equals this one.
    #[must_use]
    pub fn fill_matches(&self, fast_fill: i128, fast_per_byte: u64) -> bool {
        same_level(self.fill, self.per_byte(), fast_fill, fast_per_byte)
    }
}

/// Reference RFC 5670 excess-traffic meter (section 2.4 classic, appendix A.2
/// size independent).
#[derive(Clone, Copy, Debug)]
pub struct RefExcessTrafficMeter {
    c: ExcessTrafficMeterConfig,
    /// F_etm in units.
    pub fill: i128,
    last: u64,
}

impl RefExcessTrafficMeter {
    /// A full bucket at `now`.
    #[must_use]
    pub fn new(c: ExcessTrafficMeterConfig, now: Instant) -> RefExcessTrafficMeter {
        RefExcessTrafficMeter {
            c,
            fill: c.bs_etm as i128 * units(c.excess_rate, c.tick).0,
            last: now.ticks(),
        }
    }

    /// Units per byte.
    #[must_use]
    pub fn per_byte(&self) -> i128 {
        units(self.c.excess_rate, self.c.tick).0
    }

    /// One packet.
    pub fn mark(&mut self, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        let dt = elapsed(&mut self.last, now);
        let (byte, inc) = units(self.c.excess_rate, self.c.tick);
        let bs = self.c.bs_etm as i128 * byte;
        self.fill = bs.min(self.fill.saturating_add(dt.saturating_mul(inc)));
        if mark != PcnMark::Nm && mark != PcnMark::Thm {
            return mark;
        }
        let size = len as i128 * byte;
        match self.c.mode {
            ExcessMode::SizeIndependent => {
                if self.fill < 0 {
                    PcnMark::Etm
                } else {
                    // F_etm -= packet_size (A.2: the whole size, however large).
                    self.fill -= size;
                    mark
                }
            }
            ExcessMode::Classic(ClassicTie::Section2_4) => {
                self.fill = (self.fill - size).max(0);
                if self.fill == 0 {
                    PcnMark::Etm
                } else {
                    mark
                }
            }
            ExcessMode::Classic(ClassicTie::AppendixB6) => {
                let marked = self.fill < size;
                self.fill = (self.fill - size).max(0);
                if marked {
                    PcnMark::Etm
                } else {
                    mark
                }
            }
        }
    }

    /// True if the fast fill equals this one.
    #[must_use]
    pub fn fill_matches(&self, fast_fill: i128, fast_per_byte: u64) -> bool {
        same_level(self.fill, self.per_byte(), fast_fill, fast_per_byte)
    }
}
