//! Traffic models of draft-babiarz-pcn-explicit-marking-01 (sections 2.1, 3.1, 3.2 and 4.7).
//!
//! - [`Codec`]: a voice codec, CBR or on/off with exponential on and off periods
//!   (ITU-T P.56 style talk spurts, mean 1.004 s on, 1.590 s off).
//! - [`VoiceSource`]: one flow of a codec, an event-driven state machine.
//! - [`VideoSource`]: the AR(1) video model of Maglaris et al. (1988) with the
//!   document's 1356-byte MTU packetization (section 4.7).
//! - [`FlowArrivals`]: Poisson flow arrivals with batches, exponential holding
//!   times, media delay and randomized first packet (section 2.1).
//! - [`Reroute`]: the scheduled reroute steps (section 4.1): instant, or 80 % of
//!   the new flows within 1 s and the rest within 5 s more.

use crate::engine::{secs, Rng, Time, MS, SEC};

/// A voice codec: packet size (IP bytes), packet interval, optional on/off periods.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Codec {
    /// Name as the document writes it.
    pub name: &'static str,
    /// IP packet size in bytes.
    pub bytes: u32,
    /// Packet interval in ns.
    pub period: Time,
    /// Mean on and off periods in ns (None: CBR).
    pub on_off: Option<(Time, Time)>,
}

/// Mean talk spurt and silence of the document's VBR voice (section 3.2): 1.004 s / 1.590 s.
pub const VOICE_ON_OFF: Option<(Time, Time)> = Some((1_004 * MS, 1_590 * MS));

/// G.711 at 20 ms, CBR: 200 B every 20 ms (80 kbps).
pub const G711_20_CBR: Codec = Codec {
    name: "G.711/20 CBR",
    bytes: 200,
    period: 20 * MS,
    on_off: None,
};
/// G.711 at 20 ms with silence suppression (31 kbps mean).
pub const G711_20_VBR: Codec = Codec {
    name: "G.711/20 VBR",
    bytes: 200,
    period: 20 * MS,
    on_off: VOICE_ON_OFF,
};
/// G.711 at 10 ms with silence suppression: 120 B every 10 ms (37.2 kbps mean).
pub const G711_10_VBR: Codec = Codec {
    name: "G.711/10 VBR",
    bytes: 120,
    period: 10 * MS,
    on_off: VOICE_ON_OFF,
};
/// G.729 at 20 ms with silence suppression: 60 B every 20 ms (9.3 kbps mean).
pub const G729_20_VBR: Codec = Codec {
    name: "G.729/20 VBR",
    bytes: 60,
    period: 20 * MS,
    on_off: VOICE_ON_OFF,
};
/// The document's dual-rate codec, sending at a constant rate: 360 B every 20 ms (144 kbps).
pub const DUAL_RATE: Codec = Codec {
    name: "dual-rate CBR",
    bytes: 360,
    period: 20 * MS,
    on_off: None,
};

impl Codec {
    /// Rate while sending, bits per second.
    #[must_use]
    pub fn peak_bps(&self) -> f64 {
        f64::from(self.bytes) * 8.0 * SEC as f64 / self.period as f64
    }

    /// Fraction of time on (1 for CBR).
    #[must_use]
    pub fn on_fraction(&self) -> f64 {
        match self.on_off {
            None => 1.0,
            Some((on, off)) => on as f64 / (on + off) as f64,
        }
    }

    /// Long-run mean rate, bits per second.
    #[must_use]
    pub fn mean_bps(&self) -> f64 {
        self.peak_bps() * self.on_fraction()
    }
}

/// One voice flow. Drive it with [`VoiceSource::start`], then call
/// [`VoiceSource::fire`] at each time it returns.
///
/// On/off flows start on with the stationary probability, with a fresh
/// exponential remaining period (memoryless). Each talk spurt's first packet
/// comes a uniform fraction of a packet interval after the spurt starts, so
/// a spurt of length `x` carries `x / period` packets on average and the
/// long-run rate is exactly `mean_bps`.
#[derive(Clone, Copy, Debug)]
pub struct VoiceSource {
    /// The codec.
    pub codec: Codec,
    on: bool,
    /// End of the current on or off period (on/off codecs).
    period_end: Time,
}

impl VoiceSource {
    /// A flow starting at `t0`; returns it and the time of its first event. The
    /// first packet is randomized within one packet interval (the document's
    /// anti-synchronization rule).
    pub fn start(codec: Codec, t0: Time, rng: &mut Rng) -> (VoiceSource, Time) {
        let phase = rng.time_below(codec.period);
        match codec.on_off {
            None => (
                VoiceSource {
                    codec,
                    on: true,
                    period_end: Time::MAX,
                },
                t0 + phase,
            ),
            Some((on, off)) => {
                let is_on = rng.chance(codec.on_fraction());
                if is_on {
                    let end = t0 + rng.exp_time(on);
                    (
                        VoiceSource {
                            codec,
                            on: true,
                            period_end: end,
                        },
                        t0 + phase,
                    )
                } else {
                    let end = t0 + rng.exp_time(off);
                    (
                        VoiceSource {
                            codec,
                            on: false,
                            period_end: end,
                        },
                        end,
                    )
                }
            }
        }
    }

    /// The flow's event at `now`: returns the packet size if it sends one now, and
    /// the time of its next event.
    pub fn fire(&mut self, now: Time, rng: &mut Rng) -> (Option<u32>, Time) {
        let Some((on, off)) = self.codec.on_off else {
            return (Some(self.codec.bytes), now + self.codec.period);
        };
        if self.on {
            if now < self.period_end {
                return (Some(self.codec.bytes), now + self.codec.period);
            }
            // Talk spurt over: silence, then the next spurt.
            self.on = false;
            self.period_end = self.period_end.max(now) + rng.exp_time(off);
            (None, self.period_end)
        } else {
            let start = now;
            self.on = true;
            self.period_end = start + rng.exp_time(on);
            (None, start + rng.time_below(self.codec.period))
        }
    }

    /// True during a talk spurt.
    #[must_use]
    pub fn is_on(&self) -> bool {
        self.on
    }
}

/// Parameters of the AR(1) video model (Maglaris et al. 1988): bits per pixel of
/// frame n, `l(n) = a l(n-1) + b w(n)` with `w` Gaussian of mean `eta`, variance 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VideoModel {
    /// AR coefficient a.
    pub a: f64,
    /// Noise gain b.
    pub b: f64,
    /// Noise mean.
    pub eta: f64,
    /// Frames per second F.
    pub fps: u32,
    /// Pixels per frame P.
    pub pixels: f64,
    /// MTU in bytes including the 40-byte header (seed: 1356).
    pub mtu: u32,
    /// IP header bytes (seed: 40).
    pub header: u32,
}

impl VideoModel {
    /// Maglaris' coefficients (a 0.8781, b 0.1108, eta 0.572, 30 fps) with the
    /// pixel count scaled so the mean payload rate is `mean_bps` (draft-babiarz-pcn-explicit-marking-01
    /// section 4.7: 400 kbps), and the document's packetization.
    #[must_use]
    pub fn maglaris(mean_bps: f64) -> VideoModel {
        let (a, b, eta, fps) = (0.8781, 0.1108, 0.572, 30);
        let mean_bpp = b * eta / (1.0 - a);
        VideoModel {
            a,
            b,
            eta,
            fps,
            pixels: mean_bps / (f64::from(fps) * mean_bpp),
            mtu: 1356,
            header: 40,
        }
    }

    /// Mean bits per pixel of the stationary process.
    #[must_use]
    pub fn mean_bpp(&self) -> f64 {
        self.b * self.eta / (1.0 - self.a)
    }

    /// Frame interval in ns.
    #[must_use]
    pub fn frame_interval(&self) -> Time {
        SEC / u64::from(self.fps)
    }
}

/// One AR(1) video flow.
#[derive(Clone, Copy, Debug)]
pub struct VideoSource {
    /// The model.
    pub model: VideoModel,
    bpp: f64,
}

impl VideoSource {
    /// A flow starting at `t0` with its AR state drawn from the stationary law;
    /// returns it and the end of its first frame interval (randomized within 1/F).
    pub fn start(model: VideoModel, t0: Time, rng: &mut Rng) -> (VideoSource, Time) {
        let sd = model.b / (1.0 - model.a * model.a).sqrt();
        let bpp = model.mean_bpp() + sd * rng.normal();
        let first = t0 + rng.time_below(model.frame_interval());
        (VideoSource { model, bpp }, first)
    }

    /// The next frame: packet sizes (bytes, with headers) to send back to back,
    /// as draft-babiarz-pcn-explicit-marking-01 section 4.7 packetizes them: only positive bits make packets,
    /// each full packet carries `(mtu - header) * 8` bits, the last carries the
    /// remainder plus the header.
    pub fn frame(&mut self, rng: &mut Rng, out: &mut Vec<u32>) {
        let m = self.model;
        self.bpp = m.a * self.bpp + m.b * (m.eta + rng.normal());
        out.clear();
        let bits = (self.bpp * m.pixels).round();
        if bits <= 0.0 {
            return;
        }
        let mut bits = bits as u64;
        let per = u64::from(m.mtu - m.header) * 8;
        while bits >= per {
            out.push(m.mtu);
            bits -= per;
        }
        if bits > 0 {
            out.push(bits.div_ceil(8) as u32 + m.header);
        }
    }
}

/// Poisson flow arrivals (draft-babiarz-pcn-explicit-marking-01 section 2.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowArrivals {
    /// Arrivals (batches) per second.
    pub rate_per_sec: f64,
    /// Mean batch size (geometric; 1 = single flows).
    pub batch_mean: f64,
    /// Mean holding time (exponential).
    pub mean_holding: Time,
    /// Maximum media delay: the first packet waits a uniform time up to this.
    pub max_media_delay: Time,
}

impl FlowArrivals {
    /// Time to the next arrival.
    pub fn next_gap(&self, rng: &mut Rng) -> Time {
        secs(rng.exp(1.0 / self.rate_per_sec))
    }

    /// Flows in this arrival.
    pub fn batch(&self, rng: &mut Rng) -> u64 {
        rng.batch(self.batch_mean)
    }

    /// A holding time.
    pub fn holding(&self, rng: &mut Rng) -> Time {
        rng.exp_time(self.mean_holding)
    }

    /// A media delay.
    pub fn media_delay(&self, rng: &mut Rng) -> Time {
        if self.max_media_delay == 0 {
            0
        } else {
            rng.time_below(self.max_media_delay)
        }
    }
}

/// How rerouted flows arrive (draft-babiarz-pcn-explicit-marking-01 section 4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reroute {
    /// All at once (fast reroute).
    Instant,
    /// `first_pct` % uniformly within `first` ns, the rest uniformly within
    /// `rest` ns after that (the document: 80 % within 1 s, 20 % within 5 s more).
    Slow {
        /// Percentage in the first phase.
        first_pct: u32,
        /// Length of the first phase.
        first: Time,
        /// Length of the second phase.
        rest: Time,
    },
}

impl Reroute {
    /// The document's slow reroute: 80 % within 1 s, 20 % within 5 s more.
    pub const SEED_SLOW: Reroute = Reroute::Slow {
        first_pct: 80,
        first: SEC,
        rest: 5 * SEC,
    };

    /// Start times of `n` rerouted flows from `t0` (sorted).
    pub fn start_times(&self, n: usize, t0: Time, rng: &mut Rng) -> Vec<Time> {
        let mut v: Vec<Time> = match *self {
            Reroute::Instant => vec![t0; n],
            Reroute::Slow {
                first_pct,
                first,
                rest,
            } => {
                let k = (n * first_pct as usize + 50) / 100;
                (0..n)
                    .map(|i| {
                        if i < k {
                            t0 + rng.time_below(first)
                        } else {
                            t0 + first + rng.time_below(rest)
                        }
                    })
                    .collect()
            }
        };
        v.sort_unstable();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codec_rates_match_the_document() {
        assert!((G711_20_CBR.mean_bps() - 80_000.0).abs() < 1e-6);
        assert!((G711_20_VBR.mean_bps() - 31_000.0).abs() < 100.0);
        assert!((G711_10_VBR.mean_bps() - 37_200.0).abs() < 100.0);
        assert!((G729_20_VBR.mean_bps() - 9_300.0).abs() < 30.0);
        assert!((DUAL_RATE.peak_bps() - 144_000.0).abs() < 1e-6);
        // The document's 15:1 ratio between the highest and lowest rate.
        assert!((DUAL_RATE.mean_bps() / G729_20_VBR.mean_bps() - 15.0).abs() < 0.6);
    }

    #[test]
    fn reroute_slow_split() {
        let mut r = Rng::new(1);
        let t = Reroute::SEED_SLOW.start_times(1000, 10 * SEC, &mut r);
        let early = t.iter().filter(|&&x| x < 11 * SEC).count();
        assert_eq!(early, 800);
        assert!(t.iter().all(|&x| (10 * SEC..16 * SEC).contains(&x)));
        assert!(Reroute::Instant
            .start_times(5, 3, &mut r)
            .iter()
            .all(|&x| x == 3));
    }
}
