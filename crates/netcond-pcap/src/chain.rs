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
//! ```
//!
//! Rates and sizes take tc's units through `netcond_core::Rate` and
//! `netcond_core::ByteSize`'s `FromStr`. The three meters also take tc's length
//! adjustment (`netcond_core::LengthAdjust`): `overhead=N` bytes per packet
//! (negative allowed), `mpu=SIZE` and `linklayer=atm` (or `ethernet`, the
//! default); the meter is charged the adjusted length, the counts show the
//! captured one.

use netcond::base::{ByteSize, LengthAdjust, Rate};
use std::collections::BTreeMap;
use std::fmt;

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
    /// RFC 2698 trTCM, color-blind.
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
    },
    /// RFC 2697 srTCM, color-blind.
    SrTcm {
        /// CIR.
        cir: Rate,
        /// CBS, bytes.
        cbs: u64,
        /// EBS, bytes.
        ebs: u64,
        /// The length the meter is charged.
        adjust: LengthAdjust,
    },
    /// RFC 4115 trTCM (independent C and E buckets), color-blind.
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
        }
    }

    /// True for the stages that hold packets in a queue (they move timestamps).
    pub fn is_queue(&self) -> bool {
        matches!(
            self,
            Stage::Red { .. } | Stage::TrRas { .. } | Stage::SrRas { .. }
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
    "trtcm, srtcm, rfc4115, dscp, drop-red, drop-yellow, pcn-ingress, pcn-node, rfc6660, red, ecn-or-drop, trras, srras";

/// A DSCP by name (`ef`, `af11`..`af43`, `cs0`..`cs7`, `be`/`default`, `va`,
/// `le`) or number (0-63).
pub fn parse_dscp(s: &str) -> Result<u8, ChainError> {
    let l = s.to_ascii_lowercase();
    let v = match l.as_str() {
        "be" | "default" | "df" => Some(0),
        "ef" => Some(46),
        "va" | "voice-admit" => Some(44),
        "le" => Some(1),
        _ => None,
    };
    if let Some(v) = v {
        return Ok(v);
    }
    if let Some(rest) = l.strip_prefix("af") {
        let b = rest.as_bytes();
        if b.len() == 2 && (b'1'..=b'4').contains(&b[0]) && (b'1'..=b'3').contains(&b[1]) {
            // RFC 2597 section 6: AFxy = 8x + 2y.
            return Ok(8 * (b[0] - b'0') + 2 * (b[1] - b'0'));
        }
    }
    if let Some(rest) = l.strip_prefix("cs") {
        if let Ok(n) = rest.parse::<u8>() {
            if n <= 7 {
                return Ok(n * 8);
            }
        }
    }
    match l.parse::<u8>() {
        Ok(n) if n < 64 => Ok(n),
        _ => err(format!(
            "bad DSCP '{s}': expected 0-63, ef, va, le, be, af11..af43 or cs0..cs7"
        )),
    }
}

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
                _ => {
                    return err(format!(
                        "unknown chain stage '{name}' (known: {STAGE_NAMES})"
                    ))
                }
            },
            map,
        };
        let gentle = flags.iter().any(|f| f.eq_ignore_ascii_case("gentle"));
        if let Some(f) = flags
            .iter()
            .find(|f| !(p.stage == "red" && f.eq_ignore_ascii_case("gentle")))
        {
            return err(format!("{}: '{f}' is not a key=value parameter", p.stage));
        }
        let stage = match p.stage {
            "trtcm" => Stage::TrTcm {
                cir: p.need_rate("cir")?,
                pir: p.need_rate("pir")?,
                cbs: p.need_size("cbs")?,
                pbs: p.need_size("pbs")?,
                adjust: p.adjust()?,
            },
            "srtcm" => Stage::SrTcm {
                cir: p.need_rate("cir")?,
                cbs: p.need_size("cbs")?,
                ebs: p.need_size("ebs")?,
                adjust: p.adjust()?,
            },
            "rfc4115" => Stage::Rfc4115 {
                cir: p.need_rate("cir")?,
                eir: p.need_rate("eir")?,
                cbs: p.need_size("cbs")?,
                ebs: p.need_size("ebs")?,
                adjust: p.adjust()?,
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
            _ => unreachable_stage()?,
        };
        p.done()?;
        stages.push(stage);
    }
    check(&stages)?;
    Ok(stages)
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
mod tests {
    use super::*;

    /// tc's length adjustment on the three meters, and what is refused.
    #[test]
    fn length_adjustment() {
        let c =
            parse_chain("srtcm cir=1mbit cbs=8k ebs=8k overhead=10 mpu=64 linklayer=atm").unwrap();
        let want = LengthAdjust::NONE
            .with_overhead(10)
            .with_mpu(64)
            .with_atm(true);
        assert!(matches!(c[0], Stage::SrTcm { adjust, .. } if adjust == want));
        let c = parse_chain("rfc4115 cir=1mbit eir=1mbit cbs=8k ebs=8k overhead=-4").unwrap();
        assert!(
            matches!(c[0], Stage::Rfc4115 { adjust, .. } if adjust == LengthAdjust::NONE.with_overhead(-4))
        );
        let c = parse_chain("trtcm cir=1mbit pir=2mbit cbs=8k pbs=8k linklayer=ethernet").unwrap();
        assert!(matches!(c[0], Stage::TrTcm { adjust, .. } if adjust.is_none()));
        for (chain, msg) in [
            (
                "srtcm cir=1mbit cbs=8k ebs=8k overhead=1.5",
                "overhead=1.5: expected a whole number of bytes",
            ),
            (
                "srtcm cir=1mbit cbs=8k ebs=8k overhead=99999999999",
                "expected a whole number of bytes",
            ),
            (
                "srtcm cir=1mbit cbs=8k ebs=8k linklayer=x25",
                "linklayer=x25: expected atm or ethernet",
            ),
            (
                "srtcm cir=1mbit cbs=8k ebs=8k mpu=8g",
                "mpu=8589934592: at most",
            ),
            (
                "red min=5 max=15 maxp=0.1 wq=0.002 link=10mbit overhead=4",
                "unknown parameter 'overhead'",
            ),
        ] {
            let e = parse_chain(chain).unwrap_err().0;
            assert!(e.contains(msg), "{chain}: {e}");
        }
    }

    #[test]
    fn parses_the_examples() {
        let c = parse_chain("trtcm cir=10mbit pir=20mbit cbs=32k pbs=64k -> dscp af11,af12,af13")
            .unwrap();
        assert_eq!(
            c,
            vec![
                Stage::TrTcm {
                    cir: Rate::from_mbps(10),
                    pir: Rate::from_mbps(20),
                    cbs: 32768,
                    pbs: 65536,
                    adjust: LengthAdjust::NONE,
                },
                Stage::Dscp([10, 12, 14])
            ]
        );
        let c =
            parse_chain("red min=5 max=15 maxp=0.1 wq=0.002 link=10mbit -> ecn-or-drop").unwrap();
        assert!(matches!(
            c[0],
            Stage::Red {
                ecn: true,
                limit: 30,
                ..
            }
        ));
        let c = parse_chain("trras cir=2mbit pir=4mbit mir=10mbit").unwrap();
        assert!(matches!(c[0], Stage::TrRas { line, .. } if line == Rate::from_mbps(10)));
        assert!(parse_chain("srras cir=2mbit").is_err());
        let c = parse_chain("pcn-node threshold=8mbit excess=10mbit -> rfc6660").unwrap();
        assert!(matches!(c[0], Stage::PcnNode { dscps, .. } if dscps == 1 << 46));
    }

    #[test]
    fn refuses_bad_chains() {
        for (chain, needle) in [
            (
                "trtcm cir=10mbits pir=20mbit cbs=32k pbs=64k",
                "cir=10mbits",
            ),
            ("policer cir=1mbit", "unknown chain stage 'policer'"),
            ("dscp af11", "needs a color meter"),
            ("srtcm cir=1mbit cbs=1k", "missing ebs"),
            (
                "srtcm cir=1mbit cbs=1k ebs=1k foo=1",
                "unknown parameter 'foo'",
            ),
            (
                "trtcm cir=1mbit pir=2mbit cbs=1k pbs=1k -> dscp af51",
                "bad DSCP",
            ),
            ("ecn-or-drop", "must directly follow a red"),
            ("red min=15 max=5 link=1mbit", "below max"),
            ("", "empty chain"),
        ] {
            let e = parse_chain(chain).unwrap_err();
            assert!(e.0.contains(needle), "{chain}: {e}");
        }
    }

    #[test]
    fn toml_chain() {
        let (c, cl) = parse_toml(
            "classify = \"five-tuple\"\nchain = [\"srtcm cir=1mbit cbs=2k ebs=4k\", \"drop-red\"]\n",
        )
        .unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(cl.as_deref(), Some("five-tuple"));
        assert!(parse_toml("chain = 3").is_err());
    }

    #[test]
    fn dscp_names() {
        assert_eq!(parse_dscp("AF41").unwrap(), 34);
        assert_eq!(parse_dscp("cs6").unwrap(), 48);
        assert_eq!(parse_dscp("ef").unwrap(), 46);
        assert_eq!(parse_dscp("63").unwrap(), 63);
        assert!(parse_dscp("64").is_err());
    }
}
