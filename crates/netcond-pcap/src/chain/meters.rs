//! The meters (trtcm, srtcm, rfc4115) and the PCN stages.

use super::*;

/// A meter or PCN stage from its parameters.
pub(super) fn parse(p: &mut Params<'_>) -> Result<Stage, ChainError> {
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
        _ => unreachable_stage()?,
    };
    Ok(stage)
}
