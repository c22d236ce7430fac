//! Chain syntax: stages separated by `->`, each a name followed by `key=value`
//! parameters (or, for `dscp`, a list of code points).
//!
//! ```text
//! trtcm cir=10mbit pir=20mbit cbs=32k pbs=64k -> dscp af11,af12,af13
//! srtcm cir=5mbit cbs=16k ebs=32k -> drop-red
//! srtcm cir=1mbit cbs=8k ebs=8k overhead=10 linklayer=atm -> drop-red
//! pcn-ingress dscp=ef -> pcn-node threshold=8mbit excess=10mbit -> rfc6660
//! red min=5 max=15 maxp=0.1 wq=0.002 link=10mbit -> ecn-or-drop
//! trras cir=2mbit pir=4mbit line=34mbit buffer=64k -> trtcm cir=2mbit pir=4mbit cbs=3k pbs=6k
//! tbf rate=10mbit burst=32k latency=50ms
//! tbf rate=1mbit burst=10k limit=64k peakrate=10mbit mtu=1514 overhead=24
//! srtcm cir=5mbit cbs=16k ebs=32k colors=rfc2597 -> dscp af11,af12,af13
//! trtcm cir=1mbit pir=2mbit cbs=8k pbs=8k colors=pcp:1=yellow,5=red -> drop-red
//! codel rate=10mbit target=5ms interval=100ms limit=1000 ecn law=exact
//! fq_codel rate=100mbit flows=1024 quantum=1514 limit=10240
//! pie rate=20mbit target=15ms tupdate=15ms alpha=2 beta=20 limit=1000 ecn
//! fq_pie rate=100mbit flows=1024 quantum=1514 limit=10240 ecn ecn_prob=10
//! dualpi2 rate=100mbit target=15ms tupdate=16ms alpha=0.16 beta=3.2 coupling_factor=2 step_thresh=1ms
//! ```
//!
//! The AQM stages (`codel`, `fq_codel`, `pie`, `fq_pie`, `dualpi2`) take tc's names and defaults
//! and a required `rate=`: the link their queue drains into. The meters'
//! `colors=` makes them color-aware, the input color looked up in a
//! `netcond_core::ColorTable` from the packet's DSCP or VLAN PCP.
//!
//! Rates and sizes take tc's units through `netcond_core::Rate` and
//! `netcond_core::ByteSize`'s `FromStr`. The three meters also take tc's length
//! adjustment (`netcond_core::LengthAdjust`): `overhead=N` bytes per packet
//! (negative allowed), `mpu=SIZE` and `linklayer=atm` (or `ethernet`, the
//! default); the meter is charged the adjusted length, the counts show the
//! captured one.

use netcond::base::{ByteSize, LengthAdjust, Rate};
use netcond::ras::{TbfConfig, TbfProfile};
use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

mod colors;
pub use colors::{parse_colors, parse_dscp, ColorBy, Colors};
mod units;
use units::parse_limit;
pub use units::parse_time;

/// A chain that could not be parsed or does not make sense.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainError(pub String);

impl fmt::Display for ChainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ChainError {}

fn err<T>(msg: impl Into<String>) -> Result<T, ChainError> {
    Err(ChainError(msg.into()))
}

/// One stage of a chain, with its parameters parsed and checked.
#[derive(Debug, Clone, PartialEq)]
pub enum Stage {
    /// RFC 2698 trTCM, color-blind unless `colors=` is given.
    TrTcm {
        /// CIR.
        cir: Rate,
        /// PIR.
        pir: Rate,
        /// CBS, bytes.
        cbs: u64,
        /// PBS, bytes.
        pbs: u64,
        /// The length the meter is charged.
        adjust: LengthAdjust,
        /// Color-aware: the input color from the DSCP or PCP (`colors=`).
        colors: Option<Colors>,
    },
    /// RFC 2697 srTCM, color-blind unless `colors=` is given.
    SrTcm {
        /// CIR.
        cir: Rate,
        /// CBS, bytes.
        cbs: u64,
        /// EBS, bytes.
        ebs: u64,
        /// The length the meter is charged.
        adjust: LengthAdjust,
        /// Color-aware: the input color from the DSCP or PCP (`colors=`).
        colors: Option<Colors>,
    },
    /// RFC 4115 trTCM (independent C and E buckets), color-blind unless
    /// `colors=` is given.
    Rfc4115 {
        /// CIR.
        cir: Rate,
        /// EIR.
        eir: Rate,
        /// CBS, bytes.
        cbs: u64,
        /// EBS, bytes.
        ebs: u64,
        /// The length the meter is charged.
        adjust: LengthAdjust,
        /// Color-aware: the input color from the DSCP or PCP (`colors=`).
        colors: Option<Colors>,
    },
    /// Sets DSCP by the last meter's color: green, yellow, red.
    Dscp([u8; 3]),
    /// Drops packets the last meter colored red.
    DropRed,
    /// Drops packets the last meter colored yellow or red.
    DropYellow,
    /// PCN ingress: DSCP set to `dscp` and the ECN field to NM (`10`).
    PcnIngress {
        /// The PCN-compatible DSCP written.
        dscp: u8,
    },
    /// RFC 5670 node marker: excess-traffic meter then threshold meter.
    PcnNode {
        /// PCN-threshold-rate.
        threshold: Rate,
        /// PCN-excess-rate.
        excess: Rate,
        /// BS_tm, bytes.
        tbs: u64,
        /// Marking depth of the threshold meter, bytes.
        depth: u64,
        /// BS_etm, bytes.
        ebs: u64,
        /// PCN-compatible DSCPs, as a 64-bit mask.
        dscps: u64,
    },
    /// Writes the PCN mark into the ECN field (RFC 6660 encoding).
    Rfc6660,
    /// RED in front of a FIFO served at `link`.
    Red {
        /// min_th, packets.
        min: u32,
        /// max_th, packets.
        max: u32,
        /// max_p as text (parsed by the engine into fixed point).
        maxp: f64,
        /// w_q.
        wq: f64,
        /// The link rate that serves the queue.
        link: Rate,
        /// Buffer, packets.
        limit: u32,
        /// Gentle RED.
        gentle: bool,
        /// Mark ECN-capable packets instead of dropping them (`-> ecn-or-drop`).
        ecn: bool,
        /// PRNG seed.
        seed: u64,
    },
    /// RFC 2963 trRAS: a FIFO served at the adaptive shaping rate.
    TrRas {
        /// CIR.
        cir: Rate,
        /// PIR.
        pir: Rate,
        /// MIR (default: the line rate).
        mir: Option<Rate>,
        /// Line rate.
        line: Rate,
        /// Buffer, bytes.
        buffer: u64,
    },
    /// RFC 2963 srRAS.
    SrRas {
        /// CIR.
        cir: Rate,
        /// MIR (default: the line rate).
        mir: Option<Rate>,
        /// Line rate.
        line: Rate,
        /// Buffer, bytes.
        buffer: u64,
    },
    /// A token bucket filter with Linux tbf's semantics (tc-tbf(8)).
    Tbf {
        /// The rate at which the bucket fills.
        rate: Rate,
        /// The bucket, bytes.
        burst: u64,
        /// The queue limit, bytes (given or computed from `latency`).
        limit: Option<u64>,
        /// The latency tc turns into a limit.
        latency: Option<Duration>,
        /// Peak rate and the peak bucket (`mtu`), bytes.
        peak: Option<(Rate, u64)>,
        /// The length the buckets are charged.
        adjust: LengthAdjust,
    },
    /// CoDel (RFC 8289) on a FIFO sent at `rate` (tc-codel(8)).
    Codel {
        /// The link rate that serves the queue.
        rate: Rate,
        /// TARGET.
        target: Duration,
        /// INTERVAL.
        interval: Duration,
        /// The queue limit (tc: 1000 packets).
        limit: QueueLimit,
        /// Mark ECN-capable packets CE instead of dropping them.
        ecn: bool,
        /// Linux's control law and state machine (`law=linux`, the default)
        /// or RFC 8289's computed exactly (`law=exact`).
        linux: bool,
    },
    /// FQ-CoDel (RFC 8290) sent at `rate` (tc-fq_codel(8)).
    FqCodel {
        /// The link rate that serves the queue.
        rate: Rate,
        /// Flow queues (1 to [`FQ_FLOWS_MAX`]).
        flows: u32,
        /// DRR quantum, bytes.
        quantum: u32,
        /// TARGET.
        target: Duration,
        /// INTERVAL.
        interval: Duration,
        /// Packet limit of the whole queue.
        limit: u32,
        /// Mark ECN-capable packets (on by default, as tc's fq_codel).
        ecn: bool,
    },
    /// PIE (RFC 8033) on a FIFO sent at `rate` (tc-pie(8)).
    Pie {
        /// The link rate that serves the queue.
        rate: Rate,
        /// QDELAY_REF.
        target: Duration,
        /// T_UPDATE.
        tupdate: Duration,
        /// alpha, in sixteenths (tc-pie(8)'s units).
        alpha: u32,
        /// beta, in the same units.
        beta: u32,
        /// Packet limit.
        limit: u32,
        /// Mark instead of drop while the probability is at most 10 %.
        ecn: bool,
        /// Byte mode.
        bytemode: bool,
    },
    /// FQ-PIE (Linux's `sch_fq_pie`) sent at `rate` (tc-fq_pie(8)).
    FqPie {
        /// The link rate that serves the queue.
        rate: Rate,
        /// Flow queues (1 to [`FQ_FLOWS_MAX`]).
        flows: u32,
        /// DRR quantum, bytes.
        quantum: u32,
        /// Each flow's QDELAY_REF.
        target: Duration,
        /// T_UPDATE.
        tupdate: Duration,
        /// alpha, in sixteenths.
        alpha: u32,
        /// beta, in sixteenths.
        beta: u32,
        /// Packet limit over all flows.
        limit: u32,
        /// Mark ECN-capable packets (off by default, as tc's fq_pie).
        ecn: bool,
        /// Mark instead of drop while the flow's probability is at most this
        /// many percent.
        ecn_prob: u32,
        /// Byte mode.
        bytemode: bool,
    },
    /// DualPI2 (RFC 9332) sent at `rate` (tc-dualpi2(8)'s names): ECT(1) and
    /// CE packets to the L4S queue, the rest to the Classic queue.
    DualPi2 {
        /// The link rate that serves both queues.
        rate: Rate,
        /// The Classic queue's delay target.
        target: Duration,
        /// Tupdate.
        tupdate: Duration,
        /// alpha, millihertz.
        alpha_mhz: u32,
        /// beta, millihertz.
        beta_mhz: u32,
        /// The coupling factor k, in sixteenths.
        k16: u32,
        /// The L4S queue's step threshold.
        step: Duration,
        /// The shared buffer, bytes.
        limit: u64,
        /// The time shift of the scheduler (a time-shifted FIFO).
        tshift: Duration,
    },
}

/// The most flow queues an `fq_codel` stage takes (tc allows up to 65536;
/// this tool keeps Linux's default as its ceiling).
pub const FQ_FLOWS_MAX: u32 = 1024;

/// A queue limit in packets or in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueLimit {
    /// Packets.
    Packets(u32),
    /// Bytes.
    Bytes(u64),
}

impl Stage {
    /// The stage's name as written in a chain.
    pub fn name(&self) -> &'static str {
        match self {
            Stage::TrTcm { .. } => "trtcm",
            Stage::SrTcm { .. } => "srtcm",
            Stage::Rfc4115 { .. } => "rfc4115",
            Stage::Dscp(_) => "dscp",
            Stage::DropRed => "drop-red",
            Stage::DropYellow => "drop-yellow",
            Stage::PcnIngress { .. } => "pcn-ingress",
            Stage::PcnNode { .. } => "pcn-node",
            Stage::Rfc6660 => "rfc6660",
            Stage::Red { .. } => "red",
            Stage::TrRas { .. } => "trras",
            Stage::SrRas { .. } => "srras",
            Stage::Tbf { .. } => "tbf",
            Stage::Codel { .. } => "codel",
            Stage::FqCodel { .. } => "fq_codel",
            Stage::Pie { .. } => "pie",
            Stage::FqPie { .. } => "fq_pie",
            Stage::DualPi2 { .. } => "dualpi2",
        }
    }

    /// True for the stages that hold packets in a queue (they move timestamps).
    pub fn is_queue(&self) -> bool {
        matches!(
            self,
            Stage::Red { .. }
                | Stage::TrRas { .. }
                | Stage::SrRas { .. }
                | Stage::Tbf { .. }
                | Stage::Codel { .. }
                | Stage::FqCodel { .. }
                | Stage::Pie { .. }
                | Stage::FqPie { .. }
                | Stage::DualPi2 { .. }
        )
    }

    /// True for the three-color meters.
    pub fn is_color_meter(&self) -> bool {
        matches!(
            self,
            Stage::TrTcm { .. } | Stage::SrTcm { .. } | Stage::Rfc4115 { .. }
        )
    }
}

/// The names of every stage, for error messages.
pub const STAGE_NAMES: &str =
    "trtcm, srtcm, rfc4115, dscp, drop-red, drop-yellow, pcn-ingress, pcn-node, rfc6660, red, ecn-or-drop, trras, srras, tbf, codel, fq_codel, pie, fq_pie, dualpi2";

struct Params<'a> {
    stage: &'a str,
    map: BTreeMap<&'a str, &'a str>,
}

impl<'a> Params<'a> {
    fn take(&mut self, key: &str) -> Option<&'a str> {
        self.map.remove(key)
    }
    fn rate(&mut self, key: &str) -> Result<Option<Rate>, ChainError> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => v
                .parse::<Rate>()
                .map(Some)
                .map_err(|e| ChainError(format!("{} {key}={v}: bad rate: {e}", self.stage))),
        }
    }
    fn need_rate(&mut self, key: &str) -> Result<Rate, ChainError> {
        self.rate(key)?
            .ok_or_else(|| ChainError(format!("{}: missing {key}=<rate>", self.stage)))
    }
    fn size(&mut self, key: &str) -> Result<Option<u64>, ChainError> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => v
                .parse::<ByteSize>()
                .map(|b| Some(b.bytes()))
                .map_err(|e| ChainError(format!("{} {key}={v}: bad size: {e}", self.stage))),
        }
    }
    fn need_size(&mut self, key: &str) -> Result<u64, ChainError> {
        self.size(key)?
            .ok_or_else(|| ChainError(format!("{}: missing {key}=<size>", self.stage)))
    }
    fn count(&mut self, key: &str) -> Result<Option<u32>, ChainError> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => v.parse::<u32>().map(Some).map_err(|_| {
                ChainError(format!(
                    "{} {key}={v}: expected a whole number of packets",
                    self.stage
                ))
            }),
        }
    }
    fn prob(&mut self, key: &str) -> Result<Option<f64>, ChainError> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => match v.parse::<f64>() {
                Ok(x) if (0.0..=1.0).contains(&x) => Ok(Some(x)),
                _ => err(format!(
                    "{} {key}={v}: expected a number between 0 and 1",
                    self.stage
                )),
            },
        }
    }
    /// tc's `overhead`, `mpu` and `linklayer`.
    fn adjust(&mut self) -> Result<LengthAdjust, ChainError> {
        let mut a = LengthAdjust::NONE;
        if let Some(v) = self.take("overhead") {
            a.overhead = v.parse::<i32>().map_err(|_| {
                ChainError(format!(
                    "{} overhead={v}: expected a whole number of bytes (negative allowed)",
                    self.stage
                ))
            })?;
        }
        if let Some(m) = self.size("mpu")? {
            a.mpu = u32::try_from(m).map_err(|_| {
                ChainError(format!("{} mpu={m}: at most 4294967295 bytes", self.stage))
            })?;
        }
        if let Some(v) = self.take("linklayer") {
            a.atm = match v.to_ascii_lowercase().as_str() {
                "atm" | "adsl" => true,
                "ethernet" => false,
                _ => {
                    return err(format!(
                        "{} linklayer={v}: expected atm or ethernet",
                        self.stage
                    ))
                }
            };
        }
        Ok(a)
    }
    fn time(&mut self, key: &str) -> Result<Option<Duration>, ChainError> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => parse_time(v)
                .map(Some)
                .map_err(|e| ChainError(format!("{} {key}={v}: bad time: {e}", self.stage))),
        }
    }
    fn colors(&mut self) -> Result<Option<Colors>, ChainError> {
        match self.take("colors") {
            None => Ok(None),
            Some(v) => parse_colors(self.stage, v).map(Some),
        }
    }
    fn done(self) -> Result<(), ChainError> {
        if let Some(k) = self.map.keys().next() {
            return err(format!("{}: unknown parameter '{k}'", self.stage));
        }
        Ok(())
    }
}

/// Parses a chain: stages separated by `->`.
pub fn parse_chain(text: &str) -> Result<Vec<Stage>, ChainError> {
    let mut stages: Vec<Stage> = Vec::new();
    if text.trim().is_empty() {
        return err("empty chain");
    }
    for part in text.split("->") {
        let mut words = part.split_whitespace();
        let Some(name) = words.next() else {
            return err("empty stage between '->'");
        };
        let name_l = name.to_ascii_lowercase();
        let rest: Vec<&str> = words.collect();
        // Stages that take no key=value parameters.
        match name_l.as_str() {
            "dscp" => {
                let list = rest.join("");
                let codes: Result<Vec<u8>, _> = list
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(parse_dscp)
                    .collect();
                let codes = codes?;
                let c = match codes.len() {
                    1 => [codes[0]; 3],
                    3 => [codes[0], codes[1], codes[2]],
                    _ => {
                        return err(
                            "dscp: give one code point, or three (green,yellow,red), e.g. dscp af11,af12,af13",
                        )
                    }
                };
                stages.push(Stage::Dscp(c));
                continue;
            }
            "drop-red" | "drop-yellow" | "rfc6660" | "ecn-or-drop" => {
                if let Some(w) = rest.first() {
                    return err(format!("{name_l}: takes no parameters (got '{w}')"));
                }
                match name_l.as_str() {
                    "drop-red" => stages.push(Stage::DropRed),
                    "drop-yellow" => stages.push(Stage::DropYellow),
                    "rfc6660" => stages.push(Stage::Rfc6660),
                    _ => match stages.last_mut() {
                        Some(Stage::Red { ecn, .. }) => *ecn = true,
                        _ => return err("ecn-or-drop must directly follow a red stage"),
                    },
                }
                continue;
            }
            _ => {}
        }
        let mut map = BTreeMap::new();
        let mut flags = Vec::new();
        for w in &rest {
            match w.split_once('=') {
                Some((k, v)) if !k.is_empty() && !v.is_empty() => {
                    if map.insert(k, v).is_some() {
                        return err(format!("{name_l}: parameter '{k}' given twice"));
                    }
                }
                Some(_) => return err(format!("{name_l}: bad parameter '{w}'")),
                None => flags.push(*w),
            }
        }
        let mut p = Params {
            stage: match name_l.as_str() {
                "trtcm" => "trtcm",
                "srtcm" => "srtcm",
                "rfc4115" => "rfc4115",
                "pcn-ingress" => "pcn-ingress",
                "pcn-node" => "pcn-node",
                "red" => "red",
                "trras" => "trras",
                "srras" => "srras",
                "tbf" => "tbf",
                "codel" => "codel",
                "fq_codel" | "fq-codel" => "fq_codel",
                "pie" => "pie",
                "fq_pie" | "fq-pie" => "fq_pie",
                "dualpi2" => "dualpi2",
                _ => {
                    return err(format!(
                        "unknown chain stage '{name}' (known: {STAGE_NAMES})"
                    ))
                }
            },
            map,
        };
        let gentle = flags.iter().any(|f| f.eq_ignore_ascii_case("gentle"));
        let flag_ok = |f: &str| {
            let f = f.to_ascii_lowercase();
            match p.stage {
                "red" => f == "gentle",
                "codel" | "fq_codel" => f == "ecn" || f == "noecn",
                "pie" | "fq_pie" => {
                    matches!(f.as_str(), "ecn" | "noecn" | "bytemode" | "nobytemode")
                }
                _ => false,
            }
        };
        let has = |name: &str| flags.iter().any(|f| f.eq_ignore_ascii_case(name));
        if has("ecn") && has("noecn") {
            return err(format!("{}: give ecn or noecn, not both", p.stage));
        }
        if has("bytemode") && has("nobytemode") {
            return err(format!(
                "{}: give bytemode or nobytemode, not both",
                p.stage
            ));
        }
        if let Some(f) = flags.iter().find(|f| !flag_ok(f)) {
            return err(format!("{}: '{f}' is not a key=value parameter", p.stage));
        }
        let stage = match p.stage {
            "trtcm" => Stage::TrTcm {
                cir: p.need_rate("cir")?,
                pir: p.need_rate("pir")?,
                cbs: p.need_size("cbs")?,
                pbs: p.need_size("pbs")?,
                adjust: p.adjust()?,
                colors: p.colors()?,
            },
            "srtcm" => Stage::SrTcm {
                cir: p.need_rate("cir")?,
                cbs: p.need_size("cbs")?,
                ebs: p.need_size("ebs")?,
                adjust: p.adjust()?,
                colors: p.colors()?,
            },
            "rfc4115" => Stage::Rfc4115 {
                cir: p.need_rate("cir")?,
                eir: p.need_rate("eir")?,
                cbs: p.need_size("cbs")?,
                ebs: p.need_size("ebs")?,
                adjust: p.adjust()?,
                colors: p.colors()?,
            },
            "pcn-ingress" => Stage::PcnIngress {
                dscp: match p.take("dscp") {
                    Some(d) => parse_dscp(d)?,
                    None => 46,
                },
            },
            "pcn-node" => {
                let threshold = p.need_rate("threshold")?;
                let excess = p.need_rate("excess")?;
                let tbs = p.size("tbs")?.unwrap_or(32 * 1024);
                let depth = p.size("depth")?.unwrap_or(tbs / 2);
                let ebs = p.size("ebs")?.unwrap_or(32 * 1024);
                let mut dscps = 0u64;
                match p.take("dscps") {
                    Some(list) => {
                        for d in list.split(',').filter(|s| !s.is_empty()) {
                            dscps |= 1u64 << parse_dscp(d)?;
                        }
                    }
                    None => dscps = 1u64 << 46,
                }
                if depth > tbs {
                    return err(format!(
                        "pcn-node: depth={depth} B exceeds tbs={tbs} B (RFC 5670 section 2.3: the threshold is a depth inside the bucket)"
                    ));
                }
                Stage::PcnNode {
                    threshold,
                    excess,
                    tbs,
                    depth,
                    ebs,
                    dscps,
                }
            }
            "red" => {
                let min = p
                    .count("min")?
                    .ok_or_else(|| ChainError("red: missing min=<packets>".into()))?;
                let max = p
                    .count("max")?
                    .ok_or_else(|| ChainError("red: missing max=<packets>".into()))?;
                let maxp = p.prob("maxp")?.unwrap_or(0.1);
                let wq = p.prob("wq")?.unwrap_or(0.002);
                let link = p.need_rate("link")?;
                let limit = p.count("limit")?.unwrap_or(max.saturating_mul(2));
                let seed = match p.take("seed") {
                    Some(s) => s
                        .parse::<u64>()
                        .map_err(|_| ChainError(format!("red seed={s}: expected a number")))?,
                    None => 1,
                };
                if min >= max {
                    return err(format!("red: min={min} must be below max={max}"));
                }
                if max > limit {
                    return err(format!("red: max={max} must not exceed limit={limit}"));
                }
                if link.is_zero() {
                    return err("red: link must be above zero");
                }
                Stage::Red {
                    min,
                    max,
                    maxp,
                    wq,
                    link,
                    limit,
                    gentle,
                    ecn: false,
                    seed,
                }
            }
            "trras" => {
                let cir = p.need_rate("cir")?;
                let pir = p.need_rate("pir")?;
                let mir = p.rate("mir")?;
                let line = line_rate(&mut p, mir)?;
                let buffer = p.size("buffer")?.unwrap_or(64 * 1024);
                Stage::TrRas {
                    cir,
                    pir,
                    mir,
                    line,
                    buffer,
                }
            }
            "srras" => {
                let cir = p.need_rate("cir")?;
                let mir = p.rate("mir")?;
                let line = line_rate(&mut p, mir)?;
                let buffer = p.size("buffer")?.unwrap_or(64 * 1024);
                Stage::SrRas {
                    cir,
                    mir,
                    line,
                    buffer,
                }
            }
            "tbf" => {
                let rate = p.need_rate("rate")?;
                let burst = p.need_size("burst")?;
                let limit = p.size("limit")?;
                let latency = p.time("latency")?;
                let peak = match (p.rate("peakrate")?, p.size("mtu")?) {
                    (Some(r), Some(m)) => Some((r, m)),
                    (None, None) => None,
                    (Some(_), None) => {
                        return err("tbf: peakrate needs mtu=<size> (the peak bucket, tc-tbf(8))")
                    }
                    (None, Some(_)) => {
                        return err("tbf: mtu is the peakrate bucket: give peakrate=<rate> with it")
                    }
                };
                let adjust = p.adjust()?;
                let stage = Stage::Tbf {
                    rate,
                    burst,
                    limit,
                    latency,
                    peak,
                    adjust,
                };
                tbf_profile(&stage).map_err(|e| ChainError(format!("tbf: {e}")))?;
                stage
            }
            "codel" => {
                let rate = aqm_rate(&mut p)?;
                let target = p.time("target")?.unwrap_or(Duration::from_millis(5));
                let interval = p.time("interval")?.unwrap_or(Duration::from_millis(100));
                let limit = match p.take("limit") {
                    None => QueueLimit::Packets(1000),
                    Some(v) => {
                        parse_limit(v).map_err(|e| ChainError(format!("codel limit={v}: {e}")))?
                    }
                };
                let linux = match p.take("law") {
                    None => true,
                    Some(v) => match v.to_ascii_lowercase().as_str() {
                        "linux" => true,
                        "exact" | "rfc8289" => false,
                        _ => return err(format!("codel law={v}: expected linux or exact")),
                    },
                };
                Stage::Codel {
                    rate,
                    target,
                    interval,
                    limit,
                    ecn: has("ecn"),
                    linux,
                }
            }
            "fq_codel" => {
                let rate = aqm_rate(&mut p)?;
                let flows = p.count("flows")?.unwrap_or(1024);
                if flows == 0 || flows > FQ_FLOWS_MAX {
                    return err(format!(
                        "fq_codel flows={flows}: expected 1 to {FQ_FLOWS_MAX} flow queues"
                    ));
                }
                let quantum = match p.size("quantum")? {
                    None => 1514,
                    Some(q) => u32::try_from(q).map_err(|_| {
                        ChainError(format!("fq_codel quantum={q}: below 2^31 bytes"))
                    })?,
                };
                Stage::FqCodel {
                    rate,
                    flows,
                    quantum,
                    target: p.time("target")?.unwrap_or(Duration::from_millis(5)),
                    interval: p.time("interval")?.unwrap_or(Duration::from_millis(100)),
                    limit: p.count("limit")?.unwrap_or(10240),
                    // tc-fq_codel(8): ECN is on unless noecn.
                    ecn: !has("noecn"),
                }
            }
            "pie" => {
                let rate = aqm_rate(&mut p)?;
                let mut sixteenths = |key: &str, default: u32| -> Result<u32, ChainError> {
                    match p.count(key)? {
                        None => Ok(default),
                        Some(x) if x <= 32 => Ok(x),
                        Some(x) => err(format!(
                            "pie {key}={x}: at most 32 (tc-pie(8)'s units, 1/16)"
                        )),
                    }
                };
                let alpha = sixteenths("alpha", 2)?;
                let beta = sixteenths("beta", 20)?;
                Stage::Pie {
                    rate,
                    target: p.time("target")?.unwrap_or(Duration::from_millis(15)),
                    tupdate: p.time("tupdate")?.unwrap_or(Duration::from_millis(15)),
                    alpha,
                    beta,
                    limit: p.count("limit")?.unwrap_or(1000),
                    ecn: has("ecn"),
                    bytemode: has("bytemode"),
                }
            }
            "fq_pie" => {
                let rate = aqm_rate(&mut p)?;
                let flows = p.count("flows")?.unwrap_or(1024);
                if flows == 0 || flows > FQ_FLOWS_MAX {
                    return err(format!(
                        "fq_pie flows={flows}: expected 1 to {FQ_FLOWS_MAX} flow queues"
                    ));
                }
                let quantum = match p.size("quantum")? {
                    None => 1514,
                    Some(q) => u32::try_from(q)
                        .map_err(|_| ChainError(format!("fq_pie quantum={q}: below 2^31 bytes")))?,
                };
                let alpha = sixteenths(&mut p, "alpha", 2)?;
                let beta = sixteenths(&mut p, "beta", 20)?;
                Stage::FqPie {
                    rate,
                    flows,
                    quantum,
                    target: p.time("target")?.unwrap_or(Duration::from_millis(15)),
                    tupdate: p.time("tupdate")?.unwrap_or(Duration::from_millis(15)),
                    alpha,
                    beta,
                    limit: p.count("limit")?.unwrap_or(10240),
                    // tc-fq_pie(8): ECN is off unless ecn.
                    ecn: has("ecn"),
                    ecn_prob: p.count("ecn_prob")?.unwrap_or(10),
                    bytemode: has("bytemode"),
                }
            }
            "dualpi2" => {
                let rate = aqm_rate(&mut p)?;
                let alpha_mhz = millis(&mut p, "alpha", 160)?;
                let beta_mhz = millis(&mut p, "beta", 3200)?;
                // k in sixteenths: 2 (tc's default) is 32.
                let k16 = match p.take("coupling_factor") {
                    None => 32,
                    Some(v) => match v.parse::<f64>() {
                        Ok(k) if (0.0..=16.0).contains(&k) => (k * 16.0).round() as u32,
                        _ => {
                            return err(format!(
                                "dualpi2 coupling_factor={v}: expected a number from 0 to 16"
                            ))
                        }
                    },
                };
                // tc-dualpi2(8): limit in packets (10000), here of 1500 bytes.
                let limit = match p.take("limit") {
                    None => 10_000 * 1500,
                    Some(v) => match parse_limit(v)
                        .map_err(|e| ChainError(format!("dualpi2 limit={v}: {e}")))?
                    {
                        QueueLimit::Packets(n) => u64::from(n) * 1500,
                        QueueLimit::Bytes(b) => b,
                    },
                };
                Stage::DualPi2 {
                    rate,
                    target: p.time("target")?.unwrap_or(Duration::from_millis(15)),
                    tupdate: p.time("tupdate")?.unwrap_or(Duration::from_millis(16)),
                    alpha_mhz,
                    beta_mhz,
                    k16,
                    step: p.time("step_thresh")?.unwrap_or(Duration::from_millis(1)),
                    limit,
                    tshift: p.time("tshift")?.unwrap_or(Duration::from_millis(40)),
                }
            }
            _ => unreachable_stage()?,
        };
        if matches!(
            stage,
            Stage::Codel { .. }
                | Stage::FqCodel { .. }
                | Stage::Pie { .. }
                | Stage::FqPie { .. }
                | Stage::DualPi2 { .. }
        ) {
            crate::engine::check_aqm(&stage).map_err(|e| ChainError(e.0))?;
        }
        p.done()?;
        stages.push(stage);
    }
    check(&stages)?;
    Ok(stages)
}

/// PIE's alpha or beta in sixteenths (tc-pie(8)'s units), at most 32.
fn sixteenths(p: &mut Params<'_>, key: &str, default: u32) -> Result<u32, ChainError> {
    match p.count(key)? {
        None => Ok(default),
        Some(x) if x <= 32 => Ok(x),
        Some(x) => err(format!(
            "{} {key}={x}: at most 32 (tc-pie(8)'s units, 1/16)",
            p.stage
        )),
    }
}

/// A gain in hertz (`alpha=0.16`), as whole millihertz.
fn millis(p: &mut Params<'_>, key: &str, default: u32) -> Result<u32, ChainError> {
    match p.take(key) {
        None => Ok(default),
        Some(v) => match v.parse::<f64>() {
            Ok(x) if (0.0..=1000.0).contains(&x) => Ok((x * 1000.0).round() as u32),
            _ => err(format!(
                "{} {key}={v}: expected a gain in Hz from 0 to 1000",
                p.stage
            )),
        },
    }
}

/// An AQM stage's link rate: `rate=` (required: the AQM is a qdisc on a
/// device of that rate, and its queue builds when arrivals exceed it).
fn aqm_rate(p: &mut Params<'_>) -> Result<Rate, ChainError> {
    let r = p.rate("rate")?.ok_or_else(|| {
        ChainError(format!(
            "{}: missing rate=<rate> (the link the queue drains into)",
            p.stage
        ))
    })?;
    if r.is_zero() {
        return err(format!("{}: rate must be above zero", p.stage));
    }
    Ok(r)
}

/// A shaper's line rate: `line=`, or MIR when only that is given (the shaper
/// then sends at most at MIR, RFC 2963 section 2.2).
fn line_rate(p: &mut Params<'_>, mir: Option<Rate>) -> Result<Rate, ChainError> {
    match (p.rate("line")?, mir) {
        (Some(l), _) => Ok(l),
        (None, Some(m)) => Ok(m),
        (None, None) => err(format!("{}: missing line=<rate> (or mir=<rate>)", p.stage)),
    }
}

/// The library's profile of a `tbf` stage (`None` for another stage).
pub fn tbf_profile(s: &Stage) -> Result<Option<TbfProfile>, netcond::ras::TbfError> {
    let Stage::Tbf {
        rate,
        burst,
        limit,
        latency,
        peak,
        adjust,
    } = *s
    else {
        return Ok(None);
    };
    let mut cfg = TbfConfig::with_limit(rate, burst, 0).with_adjust(adjust);
    cfg.limit = limit;
    cfg.latency = latency;
    if let Some((r, m)) = peak {
        cfg = cfg.with_peak(r, m);
    }
    TbfProfile::new(&cfg).map(Some)
}

fn unreachable_stage() -> Result<Stage, ChainError> {
    err("internal: stage table out of step")
}

/// Checks that each action has the meter it reads before it.
fn check(stages: &[Stage]) -> Result<(), ChainError> {
    let mut color = false;
    let mut pcn = false;
    for s in stages {
        match s {
            Stage::Dscp(_) | Stage::DropRed | Stage::DropYellow if !color => {
                return err(format!(
                    "{} needs a color meter (trtcm, srtcm, rfc4115) before it",
                    s.name()
                ))
            }
            Stage::Rfc6660 if !pcn => return err("rfc6660 needs a pcn-node stage before it"),
            _ => {}
        }
        color |= s.is_color_meter();
        pcn |= matches!(s, Stage::PcnNode { .. });
    }
    Ok(())
}

/// Reads a chain file (TOML): `chain = "..."` or `chain = ["stage", ...]`,
/// and optionally `classify = "aggregate" | "five-tuple" | "dscp"`.
pub fn parse_toml(text: &str) -> Result<(Vec<Stage>, Option<String>), ChainError> {
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| ChainError(format!("chain file: {}", e.message())))?;
    let mut classify = None;
    let mut chain = None;
    for (k, v) in &table {
        match (k.as_str(), v) {
            ("chain", toml::Value::String(s)) => chain = Some(s.clone()),
            ("chain", toml::Value::Array(a)) => {
                let mut parts = Vec::new();
                for x in a {
                    match x {
                        toml::Value::String(s) => parts.push(s.clone()),
                        _ => return err("chain file: 'chain' array must hold strings"),
                    }
                }
                chain = Some(parts.join(" -> "));
            }
            ("classify", toml::Value::String(s)) => classify = Some(s.clone()),
            _ => {
                return err(format!(
                    "chain file: unknown key '{k}' (expected chain, classify)"
                ))
            }
        }
    }
    let Some(chain) = chain else {
        return err("chain file: no 'chain' key");
    };
    Ok((parse_chain(&chain)?, classify))
}

#[cfg(test)]
mod tests;
