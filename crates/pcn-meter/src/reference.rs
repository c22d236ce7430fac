//! Exact reference models of the meters, written as plainly as their sources.
//!
//! They keep tokens as `i128` counts of `1 / (8 * hz * m)` byte, where `hz` is
//! the clock frequency and `m` the MTU for 3sM's proportional reduction (1
//! otherwise): a rate of `R` bit/s then adds exactly `R * m` units per tick and
//! nothing is ever rounded, with no `gcd`, no saturation and no floor. They
//! share no code with the fast meters and exist to be compared with them
//! (differential tests and fuzz targets), not to be fast. Time never wraps here:
//! an `Instant` older than the last one adds no time and leaves the last one.
//!
//! Each model's `fill_matches` checks a fast meter's fill against its own,
//! exactly, by cross-multiplication.

use crate::mark::PcnMark;
use crate::rfc5670::{ClassicTie, ExcessMode, ExcessTrafficMeterConfig, ThresholdMeterConfig};
use crate::tsm::{AsForm, AsMarkerConfig, EtMarkerConfig, EtMarkerSim48Config, EtMarking};
use netcond_core::Instant;

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

fn same_level(ref_fill: i128, ref_per_byte: i128, fast_fill: i128, fast_per_byte: u64) -> bool {
    ref_fill * fast_per_byte as i128 == fast_fill * ref_per_byte
}

/// Reference 3sM ET-marker (seed 000 section 1.2, 3sm-01 section 3.1.2 and
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

    /// Units per byte.
    #[must_use]
    pub fn per_byte(&self) -> i128 {
        8 * self.c.tick.hz() as i128 * self.m()
    }

    fn size(&self) -> i128 {
        self.c.bucket_size as i128 * self.per_byte()
    }

    /// One packet.
    pub fn mark(&mut self, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        let dt = elapsed(&mut self.last, now);
        let size = self.size();
        // TB.fill = min(TB.size, TB.fill + TB.rate * dt)
        self.fill = size.min(self.fill + dt * self.c.sr.bits_per_sec() as i128 * self.m());
        if mark == PcnMark::NotPcn {
            return mark;
        }
        let len = len as i128;
        let byte = self.per_byte();
        let hz8 = 8 * self.c.tick.hz() as i128;
        let (need, add) = match self.c.marking {
            // if (TB.fill < packet.size) ... TB.fill = min(TB.size, TB.fill + s)
            EtMarking::TailMarking => (len * byte, self.c.s as i128 * byte),
            // if (TB.fill >= MTU) ... else TB.fill = min(TB.size, TB.fill + s * packet.size / MTU)
            // s * size / MTU bytes = s * size * 8 hz units, as a byte is 8 hz MTU units.
            EtMarking::SizeIndependent { mtu } => {
                (mtu as i128 * byte, self.c.s as i128 * len * hz8)
            }
        };
        if mark == PcnMark::Etm {
            if self.c.already_et_adds_s {
                self.fill = size.min(self.fill + add);
            }
            return PcnMark::Etm;
        }
        if self.fill < need {
            self.fill = size.min(self.fill + add);
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

/// Reference ET-marker of seed 000 section 4.8 (Figure 9).
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
            tokens: c.pcn_tb as i128 * 8 * c.tick.hz() as i128,
            last: now.ticks(),
        }
    }

    /// Units per byte.
    #[must_use]
    pub fn per_byte(&self) -> i128 {
        8 * self.c.tick.hz() as i128
    }

    /// `Preempt_Meter(pktLen)`.
    pub fn mark(&mut self, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        let dt = elapsed(&mut self.last, now);
        let byte = self.per_byte();
        self.tokens += dt * self.c.pcn_pt.bits_per_sec() as i128;
        self.tokens = self.tokens.min(self.c.pcn_tb as i128 * byte);
        if mark == PcnMark::NotPcn {
            return mark;
        }
        self.tokens -= len as i128 * byte;
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
            fill: c.bucket_size as i128 * 8 * c.tick.hz() as i128,
            last: now.ticks(),
        }
    }

    /// Units per byte.
    #[must_use]
    pub fn per_byte(&self) -> i128 {
        8 * self.c.tick.hz() as i128
    }

    /// One packet.
    pub fn mark(&mut self, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        let dt = elapsed(&mut self.last, now);
        let byte = self.per_byte();
        let size = self.c.bucket_size as i128 * byte;
        self.fill = size.min(self.fill + dt * self.c.ar.bits_per_sec() as i128);
        // Only packets that are not ET-marked are metered.
        if mark != PcnMark::Nm && mark != PcnMark::Thm {
            return mark;
        }
        let len = len as i128 * byte;
        let threshold = self.c.threshold as i128 * byte;
        let as_marked = match self.c.form {
            AsForm::Seed000 => {
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
            fill: c.bs_tm as i128 * 8 * c.tick.hz() as i128,
            last: now.ticks(),
        }
    }

    /// Units per byte.
    #[must_use]
    pub fn per_byte(&self) -> i128 {
        8 * self.c.tick.hz() as i128
    }

    /// One packet.
    pub fn mark(&mut self, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        let dt = elapsed(&mut self.last, now);
        let byte = self.per_byte();
        let bs = self.c.bs_tm as i128 * byte;
        self.fill = bs.min(self.fill + dt * self.c.threshold_rate.bits_per_sec() as i128);
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
            fill: c.bs_etm as i128 * 8 * c.tick.hz() as i128,
            last: now.ticks(),
        }
    }

    /// Units per byte.
    #[must_use]
    pub fn per_byte(&self) -> i128 {
        8 * self.c.tick.hz() as i128
    }

    /// One packet.
    pub fn mark(&mut self, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        let dt = elapsed(&mut self.last, now);
        let byte = self.per_byte();
        let bs = self.c.bs_etm as i128 * byte;
        self.fill = bs.min(self.fill + dt * self.c.excess_rate.bits_per_sec() as i128);
        if mark != PcnMark::Nm && mark != PcnMark::Thm {
            return mark;
        }
        let size = len as i128 * byte;
        match self.c.mode {
            ExcessMode::SizeIndependent => {
                if self.fill < 0 {
                    PcnMark::Etm
                } else {
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
