//! The AQM stages: codel, fq_codel, pie, fq_pie, dualpi2.

use super::*;
use netcond::base::Rate;
use std::time::Duration;

/// An AQM stage from its parameters (`has`: whether a flag is given),
/// checked by the library.
pub(super) fn parse(p: &mut Params<'_>, has: &dyn Fn(&str) -> bool) -> Result<Stage, ChainError> {
    let stage = match p.stage {
        "codel" => {
            let rate = aqm_rate(p)?;
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
            let rate = aqm_rate(p)?;
            let flows = p.count("flows")?.unwrap_or(1024);
            if flows == 0 || flows > FQ_FLOWS_MAX {
                return err(format!(
                    "fq_codel flows={flows}: expected 1 to {FQ_FLOWS_MAX} flow queues"
                ));
            }
            let quantum = match p.size("quantum")? {
                None => 1514,
                Some(q) => u32::try_from(q)
                    .map_err(|_| ChainError(format!("fq_codel quantum={q}: below 2^31 bytes")))?,
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
            let rate = aqm_rate(p)?;
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
            let rate = aqm_rate(p)?;
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
            let alpha = sixteenths(p, "alpha", 2)?;
            let beta = sixteenths(p, "beta", 20)?;
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
            let rate = aqm_rate(p)?;
            let alpha_mhz = millis(p, "alpha", 160)?;
            let beta_mhz = millis(p, "beta", 3200)?;
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
    crate::engine::check_aqm(&stage).map_err(|e| ChainError(e.0))?;
    Ok(stage)
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
