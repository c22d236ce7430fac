//! The queue stages: RED, the RAS shapers and tbf.

use super::*;
use netcond::base::Rate;
use netcond::ras::{TbfConfig, TbfProfile};

/// A RED, RAS or tbf stage from its parameters (`gentle`: RED's flag).
pub(super) fn parse(p: &mut Params<'_>, gentle: bool) -> Result<Stage, ChainError> {
    let stage = match p.stage {
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
            let line = line_rate(p, mir)?;
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
            let line = line_rate(p, mir)?;
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
        _ => unreachable_stage()?,
    };
    Ok(stage)
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
