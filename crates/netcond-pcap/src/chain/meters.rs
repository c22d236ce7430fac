//! The meters (trtcm, srtcm, rfc4115) and the PCN stages.

use super::*;
use netcond::base::{LengthAdjust, Rate};
use netcond::trtcm::Mode;

/// A meter or PCN stage from its parameters.
pub(super) fn parse(p: &mut Params<'_>) -> Result<Stage, ChainError> {
    let stage = match p.stage {
        "trtcm" => {
            let mode = mode(p)?;
            Stage::TrTcm {
                cir: rate(p, "cir", mode)?,
                pir: rate(p, "pir", mode)?,
                cbs: burst(p, "cbs", mode)?,
                pbs: burst(p, "pbs", mode)?,
                adjust: adjust(p, mode)?,
                colors: p.colors()?,
                mode,
            }
        }
        "srtcm" => {
            let mode = mode(p)?;
            Stage::SrTcm {
                cir: rate(p, "cir", mode)?,
                cbs: burst(p, "cbs", mode)?,
                ebs: burst(p, "ebs", mode)?,
                adjust: adjust(p, mode)?,
                colors: p.colors()?,
                mode,
            }
        }
        "rfc4115" => {
            let mode = mode(p)?;
            Stage::Rfc4115 {
                cir: rate(p, "cir", mode)?,
                eir: rate(p, "eir", mode)?,
                cbs: burst(p, "cbs", mode)?,
                ebs: burst(p, "ebs", mode)?,
                adjust: adjust(p, mode)?,
                colors: p.colors()?,
                mode,
            }
        }
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
        _ => unreachable_stage()?,
    };
    Ok(stage)
}

/// The most packets per second, or packets in a bucket, a packet-mode meter
/// takes.
const PACKETS_MAX: u64 = u32::MAX as u64;

/// A meter's `mode=`: `bytes` (the default) or `packets`. tc police's
/// `pkt_rate` and `pkt_burst` are refused with the way to write them here.
fn mode(p: &mut Params<'_>) -> Result<Mode, ChainError> {
    for k in ["pkt_rate", "pkt_burst"] {
        if let Some(v) = p.take(k) {
            return err(format!(
                "{} {k}={v}: write tc police's pkt_rate/pkt_burst as mode=packets with the meter's own rates and bursts, e.g. srtcm mode=packets cir=1000 cbs=16 ebs=0",
                p.stage
            ));
        }
    }
    match p.take("mode") {
        None => Ok(Mode::Bytes),
        Some(v) => match v.to_ascii_lowercase().as_str() {
            "bytes" => Ok(Mode::Bytes),
            "packets" => Ok(Mode::Packets),
            _ => err(format!("{} mode={v}: expected bytes or packets", p.stage)),
        },
    }
}

/// A meter's rate: tc's units in byte mode; in packet mode a whole number of
/// packets per second, without a unit.
fn rate(p: &mut Params<'_>, key: &str, mode: Mode) -> Result<Rate, ChainError> {
    match mode {
        Mode::Bytes => p.need_rate(key),
        Mode::Packets => packets(p, key, "packets per second").map(Rate::from_bytes_per_sec),
    }
}

/// A meter's burst: tc's sizes in byte mode; in packet mode a whole number
/// of packets, without a unit.
fn burst(p: &mut Params<'_>, key: &str, mode: Mode) -> Result<u64, ChainError> {
    match mode {
        Mode::Bytes => p.need_size(key),
        Mode::Packets => packets(p, key, "packets"),
    }
}

/// A packet-mode value: required, a plain whole number, at most
/// [`PACKETS_MAX`]; zero only for the excess rate and buckets (`eir`, `ebs`),
/// which a meter may go without.
fn packets(p: &mut Params<'_>, key: &str, what: &str) -> Result<u64, ChainError> {
    let stage = p.stage;
    let Some(v) = p.take(key) else {
        return err(format!(
            "{stage}: missing {key}=<{what}> (mode=packets: a whole number)"
        ));
    };
    let n = match v.parse::<u64>() {
        Ok(n) if n <= PACKETS_MAX => n,
        Ok(_) => return err(format!("{stage} {key}={v}: at most {PACKETS_MAX} {what}")),
        Err(_) => {
            return err(format!(
                "{stage} {key}={v}: with mode=packets, a whole number of {what} without a unit"
            ))
        }
    };
    if n == 0 && !matches!(key, "eir" | "ebs") {
        return err(format!(
            "{stage} {key}=0: must be at least 1 in mode=packets"
        ));
    }
    Ok(n)
}

/// tc's length adjustment in byte mode; refused in packet mode, where every
/// packet costs one token whatever its length.
fn adjust(p: &mut Params<'_>, mode: Mode) -> Result<LengthAdjust, ChainError> {
    if mode == Mode::Packets {
        for k in ["overhead", "mpu", "linklayer"] {
            if let Some(v) = p.take(k) {
                return err(format!(
                    "{} {k}={v}: no length adjustment in mode=packets (every packet costs one token, whatever its length)",
                    p.stage
                ));
            }
        }
    }
    p.adjust()
}
