//! The summary's description of a stage.

use crate::chain::{tbf_profile, ColorBy, Colors, QueueLimit, Stage};
use netcond::base::{Color, LengthAdjust, Rate};
use netcond::trtcm::Mode;

fn rate(r: Rate) -> String {
    let b = r.bits_per_sec();
    if b % 1_000_000_000 == 0 && b > 0 {
        format!("{}gbit", b / 1_000_000_000)
    } else if b % 1_000_000 == 0 && b > 0 {
        format!("{}mbit", b / 1_000_000)
    } else if b % 1000 == 0 && b > 0 {
        format!("{}kbit", b / 1000)
    } else {
        format!("{b}bit")
    }
}

/// A meter's length adjustment as tc writes it (nothing when there is none).
fn describe_adjust(a: &LengthAdjust) -> String {
    let mut s = String::new();
    if a.overhead != 0 {
        s += &format!(" overhead={}B", a.overhead);
    }
    if a.mpu != 0 {
        s += &format!(" mpu={}B", a.mpu);
    }
    if a.atm {
        s += " linklayer=atm";
    }
    s
}

/// A meter: its name, ` mode=packets` in packet mode, its rates (tc's units,
/// or packets per second) and buckets (bytes, or packets), its length
/// adjustment and its input colors.
fn describe_meter<const R: usize>(
    name: &str,
    rates: [(&str, Rate); R],
    buckets: [(&str, u64); 2],
    mode: Mode,
    adjust: &LengthAdjust,
    colors: &Option<Colors>,
) -> String {
    let packets = mode.is_packets();
    let mut s = String::from(name);
    if packets {
        s += " mode=packets";
    }
    for (k, r) in rates {
        s += &if packets {
            format!(" {k}={}pps", r.bytes_per_sec())
        } else {
            format!(" {k}={}", rate(r))
        };
    }
    for (k, b) in buckets {
        s += &format!(" {k}={b}{}", if packets { "p" } else { "B" });
    }
    s + &describe_adjust(adjust) + &describe_colors(colors)
}

/// A stage as the summary names it, with its parameters in plain units.
pub fn describe(s: &Stage) -> String {
    match s {
        Stage::TrTcm {
            cir,
            pir,
            cbs,
            pbs,
            adjust,
            colors,
            mode,
        } => describe_meter(
            "trtcm",
            [("cir", *cir), ("pir", *pir)],
            [("cbs", *cbs), ("pbs", *pbs)],
            *mode,
            adjust,
            colors,
        ),
        Stage::SrTcm {
            cir,
            cbs,
            ebs,
            adjust,
            colors,
            mode,
        } => describe_meter(
            "srtcm",
            [("cir", *cir)],
            [("cbs", *cbs), ("ebs", *ebs)],
            *mode,
            adjust,
            colors,
        ),
        Stage::Rfc4115 {
            cir,
            eir,
            cbs,
            ebs,
            adjust,
            colors,
            mode,
        } => describe_meter(
            "rfc4115",
            [("cir", *cir), ("eir", *eir)],
            [("cbs", *cbs), ("ebs", *ebs)],
            *mode,
            adjust,
            colors,
        ),
        Stage::Dscp(c) => format!("dscp {},{},{}", c[0], c[1], c[2]),
        Stage::DropRed => "drop-red".into(),
        Stage::DropYellow => "drop-yellow".into(),
        Stage::PcnIngress { dscp } => format!("pcn-ingress dscp={dscp}"),
        Stage::PcnNode {
            threshold,
            excess,
            tbs,
            depth,
            ebs,
            ..
        } => format!(
            "pcn-node threshold={} excess={} tbs={tbs}B depth={depth}B ebs={ebs}B",
            rate(*threshold),
            rate(*excess)
        ),
        Stage::Rfc6660 => "rfc6660".into(),
        Stage::Red {
            min,
            max,
            maxp,
            wq,
            link,
            limit,
            gentle,
            ecn,
            ..
        } => format!(
            "red min={min} max={max} maxp={maxp} wq={wq} link={} limit={limit}{}{}",
            rate(*link),
            if *gentle { " gentle" } else { "" },
            if *ecn { " -> ecn-or-drop" } else { "" }
        ),
        Stage::TrRas {
            cir,
            pir,
            mir,
            line,
            buffer,
        } => format!(
            "trras cir={} pir={} mir={} line={} buffer={buffer}B",
            rate(*cir),
            rate(*pir),
            rate(mir.unwrap_or(*line)),
            rate(*line)
        ),
        Stage::SrRas {
            cir,
            mir,
            line,
            buffer,
        } => format!(
            "srras cir={} mir={} line={} buffer={buffer}B",
            rate(*cir),
            rate(mir.unwrap_or(*line)),
            rate(*line)
        ),
        Stage::Tbf {
            rate: r,
            burst,
            latency,
            peak,
            adjust,
            ..
        } => {
            let limit = match tbf_profile(s) {
                Ok(Some(p)) => format!(" limit={}B", p.limit()),
                _ => String::new(),
            };
            let lat = latency.map_or(String::new(), |l| format!(" (latency {l:?})"));
            let pk = peak.map_or(String::new(), |(pr, mtu)| {
                format!(" peakrate={} mtu={mtu}B", rate(pr))
            });
            format!(
                "tbf rate={} burst={burst}B{limit}{lat}{pk}{}",
                rate(*r),
                describe_adjust(adjust)
            )
        }
        Stage::Codel {
            rate: r,
            target,
            interval,
            limit,
            ecn,
            linux,
        } => format!(
            "codel rate={} target={target:?} interval={interval:?} limit={}{} law={}",
            rate(*r),
            match limit {
                QueueLimit::Packets(n) => format!("{n}p"),
                QueueLimit::Bytes(b) => format!("{b}B"),
            },
            if *ecn { " ecn" } else { "" },
            if *linux { "linux" } else { "exact" }
        ),
        Stage::FqCodel {
            rate: r,
            flows,
            quantum,
            target,
            interval,
            limit,
            ecn,
        } => format!(
            "fq_codel rate={} flows={flows} quantum={quantum}B target={target:?} interval={interval:?} limit={limit}p{}",
            rate(*r),
            if *ecn { " ecn" } else { " noecn" }
        ),
        Stage::Pie {
            rate: r,
            target,
            tupdate,
            alpha,
            beta,
            limit,
            ecn,
            bytemode,
        } => format!(
            "pie rate={} target={target:?} tupdate={tupdate:?} alpha={alpha} beta={beta} limit={limit}p{}{}",
            rate(*r),
            if *ecn { " ecn" } else { "" },
            if *bytemode { " bytemode" } else { "" }
        ),
        Stage::FqPie {
            rate: r,
            flows,
            quantum,
            target,
            tupdate,
            alpha,
            beta,
            limit,
            ecn,
            ecn_prob,
            bytemode,
        } => format!(
            "fq_pie rate={} flows={flows} quantum={quantum}B target={target:?} tupdate={tupdate:?} alpha={alpha} beta={beta} limit={limit}p{} ecn_prob={ecn_prob}{}",
            rate(*r),
            if *ecn { " ecn" } else { "" },
            if *bytemode { " bytemode" } else { "" }
        ),
        Stage::DualPi2 {
            rate: r,
            target,
            tupdate,
            alpha_mhz,
            beta_mhz,
            k16,
            step,
            limit,
            tshift,
        } => format!(
            "dualpi2 rate={} target={target:?} tupdate={tupdate:?} alpha={}Hz beta={}Hz coupling_factor={} step_thresh={step:?} limit={limit}B tshift={tshift:?}",
            rate(*r),
            f64::from(*alpha_mhz) / 1000.0,
            f64::from(*beta_mhz) / 1000.0,
            f64::from(*k16) / 16.0,
        ),
    }
}

fn describe_colors(c: &Option<Colors>) -> String {
    match c {
        None => String::new(),
        Some(c) if *c == Colors::RFC2597 => " colors=rfc2597".into(),
        Some(c) => {
            let (name, table): (&str, &[Color]) = match c.by {
                ColorBy::Dscp => ("dscp", c.table.dscp_table()),
                ColorBy::Pcp => ("pcp", c.table.pcp_table()),
            };
            let items: Vec<String> = table
                .iter()
                .enumerate()
                .filter(|(_, &k)| k != Color::Green)
                .map(|(i, k)| format!("{i}={}", if *k == Color::Yellow { "yellow" } else { "red" }))
                .collect();
            format!(" colors={name}:{}", items.join(","))
        }
    }
}
