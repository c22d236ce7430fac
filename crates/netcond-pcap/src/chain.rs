//! Chain syntax: stages separated by `->`, each a name followed by `key=value`
//! parameters (or, for `dscp`, a list of code points).
//!
//! ```text
//! trtcm cir=10mbit pir=20mbit cbs=32k pbs=64k -> dscp af11,af12,af13
//! srtcm cir=5mbit cbs=16k ebs=32k -> drop-red
//! srtcm cir=1mbit cbs=8k ebs=8k overhead=10 linklayer=atm -> drop-red
//! srtcm mode=packets cir=1000 cbs=16 ebs=0 -> drop-red
//! trtcm mode=packets cir=100 pir=200 cbs=10 pbs=20 -> dscp af11,af12,af13
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
//!
//! `mode=packets` makes a meter count packets, as tc police's `pkt_rate` and
//! `pkt_burst`: its rates are whole numbers of packets per second and its
//! bursts whole numbers of packets, without units, and every packet costs one
//! token (no length adjustment in that mode).

use std::collections::BTreeMap;
use std::fmt;

mod colors;
pub use colors::{parse_colors, parse_dscp, ColorBy, Colors};
mod units;
use units::parse_limit;
pub use units::parse_time;
mod aqm;
mod meters;
mod params;
mod queues;
mod stage;
use params::Params;
pub use queues::tbf_profile;
pub use stage::Stage;

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

/// The names of every stage, for error messages.
pub const STAGE_NAMES: &str =
    "trtcm, srtcm, rfc4115, dscp, drop-red, drop-yellow, pcn-ingress, pcn-node, rfc6660, red, ecn-or-drop, trras, srras, tbf, codel, fq_codel, pie, fq_pie, dualpi2";

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
            "trtcm" | "srtcm" | "rfc4115" | "pcn-ingress" | "pcn-node" => meters::parse(&mut p)?,
            "red" | "trras" | "srras" | "tbf" => queues::parse(&mut p, gentle)?,
            _ => aqm::parse(&mut p, &has)?,
        };
        p.done()?;
        stages.push(stage);
    }
    check(&stages)?;
    Ok(stages)
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
