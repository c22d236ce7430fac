//! `ras-tcp`: rate adaptive shapers in front of trTCMs with SACK TCP (RFC 2963 appendix A).
//!
//! Ten customer routers C1..C10, each with ten workstations running bulk SACK
//! TCP (MSS 1460, 64 KB window) on their own 10 Mbit/s, 1 ms LAN port. Each
//! customer router meters its traffic with a trTCM (workspace crate `trtcm`,
//! color-blind; CIR 2, 4, 6, 8, 10 Mbit/s for C1-C5 and again for C6-C10, PIR =
//! 2 CIR, PBS = 2 CBS) and sends it on a 34 Mbit/s, 2.5 ms link to the edge
//! router ER1; C6-C10 put a trRAS or a G-trRAS (workspace crate `ras-shaper`)
//! in front of their meter. ER1 and ER2 are joined by the 70 Mbit/s, 10 ms
//! bottleneck, whose queue is three-color RIO (`aqm-red`'s
//! `RioConfig::rfc2963`: red 100/200 packets max_p 0.1, yellow 200/400 0.05,
//! green 400/800 0.02, w_q 0.002). Beyond ER2, 34 Mbit/s / 2.5 ms links lead to
//! C1'..C10' and 10 Mbit/s / 1 ms LAN ports to the receivers. 102 s, the first
//! 2 s are warm-up.
//!
//! Chosen (not in RFC 2963): the shaper thresholds CIR_th = CBS, PIR_th = PBS,
//! MIR_th = 2 PBS (the RFC says they "usually depend on the CBS and PBS"), MIR =
//! line rate (34 Mbit/s, the RFC's typical value), EAR K = 100 ms, a shaper
//! buffer large enough never to drop (the windows bound it); RIO-C (coupled
//! averages) with a 1000-packet buffer; 1 KB = 1000 bytes; TCP initial window 1,
//! no delayed ACKs, minimum RTO 1 s (RFC 2988 of the time); each flow starts at
//! a random time in the first second. Throughput is what crosses the bottleneck
//! per customer router and color (IP bytes, retransmissions included); goodput
//! is the payload the receivers get in order.

use netcond::base::{Color, Instant, Rate};
use netcond::ras::{
    GreenRasShaper, RasShaper, ShaperMeterProfile, ShaperPair, TrRasConfig, TrRasProfile,
    TrThresholds,
};
use netcond::red::{Decision, Ecn, Packet as AqmPacket, Rio, RioConfig, RioProfile};
use netcond::trtcm::{TrTcm, TrTcmConfig, TrTcmProfile};

use crate::engine::{derive_seed, secs, Rng, Time, MS, SEC};
use crate::net::{AtInput, Conditioner, Shaper, ShaperQueue};
use crate::params::{ParamKind, ParamSpec, Params};
use crate::progress::Progress;
use crate::report::{fmt_num, Comparison, Plot, Report, RunRecord, Table};
use crate::runner::run_jobs;
use crate::scenarios::{ReproduceOpts, Scenario};
use crate::tcp::net::{Aqm, AqmQueue, DropTail, Network, Packet, Qdisc, Verdict};
use crate::tcp::TcpConfig;
use crate::SimError;

/// The `ras-tcp` scenario.
pub struct RasTcp;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "shaper",
        default: "trras",
        kind: ParamKind::Choice(&["trras", "gtrras", "none"]),
        help: "shaper of C6-C10: trRAS (A.2), G-trRAS (A.3), or none",
    },
    ParamSpec {
        key: "cbs_kb",
        default: "3",
        kind: ParamKind::F64 { min: 1.6, max: 100_000.0 },
        help: "CBS of every trTCM in KB of 1000 bytes; PBS = 2 CBS (RFC 2963 A.2: 3; A.4 sweeps 3..400)",
    },
    ParamSpec {
        key: "duration_s",
        default: "102",
        kind: ParamKind::F64 { min: 3.0, max: 100_000.0 },
        help: "simulated time including the 2 s warm-up (RFC 2963 A.1: 102 s)",
    },
    ParamSpec {
        key: "hosts",
        default: "10",
        kind: ParamKind::U64 { min: 1, max: 100 },
        help: "workstations per customer router (RFC 2963 A.1: 10)",
    },
    ParamSpec {
        key: "bottleneck_mbps",
        default: "70",
        kind: ParamKind::F64 { min: 1.0, max: 10_000.0 },
        help: "ER1-ER2 link (RFC 2963 A.1: 70 Mbit/s, 10 ms)",
    },
    ParamSpec {
        key: "min_rto_ms",
        default: "1000",
        kind: ParamKind::F64 { min: 1.0, max: 10_000.0 },
        help: "TCP minimum RTO (chosen: RFC 2988's 1 s)",
    },
    ParamSpec {
        key: "rio_buffer",
        default: "1000",
        kind: ParamKind::U64 { min: 800, max: 100_000 },
        help: "RIO buffer in packets (chosen; at least green max_th 800)",
    },
];

/// The CIRs of C1..C5 (and C6..C10), Mbit/s (RFC 2963 table A.1).
const CIR_MBPS: [u64; 5] = [2, 4, 6, 8, 10];

/// The result of one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RasOutcome {
    /// Shaper of C6-C10.
    pub shaper: String,
    /// CBS in KB.
    pub cbs_kb: f64,
    /// Per router: green, yellow, red throughput (Mbit/s) across the bottleneck.
    pub colors: [[f64; 3]; 10],
    /// Per router: goodput (Mbit/s).
    pub goodput: [f64; 10],
    /// Bottleneck drops (early, forced).
    pub drops: (u64, u64),
    /// Retransmission timeouts over all flows.
    pub timeouts: u64,
    /// Events.
    pub events: u64,
}

impl RasOutcome {
    /// Total throughput of router `k` (0-based).
    #[must_use]
    pub fn total(&self, k: usize) -> f64 {
        self.colors[k].iter().sum()
    }
}

/// The customer routers' trTCM (color-blind), a conditioner.
struct TrTcmMarker {
    profile: TrTcmProfile,
    meter: TrTcm,
}

impl Conditioner<Packet> for TrTcmMarker {
    fn condition(&mut self, now: Time, _link: u32, pkt: &mut Packet) -> bool {
        let at = Instant::from_ticks(now);
        pkt.color = self.meter.color_blind(&self.profile, at, pkt.seg.wire_len);
        true
    }
}

/// The trRAS in front of a customer router's trTCM.
struct Ras(Box<RasShaper<(u32, Packet), 1024>>);

impl Shaper<Packet> for Ras {
    fn enqueue(&mut self, now: Time, pkt: Packet) -> Result<(), Packet> {
        let at = Instant::from_ticks(now);
        self.0.enqueue(at, (pkt.seg.wire_len, pkt)).map_err(|e| e.1)
    }
    fn next_release(&self) -> Option<Time> {
        self.0.next_release().map(Instant::ticks)
    }
    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        self.0.dequeue(Instant::from_ticks(now)).map(|(_, p)| p)
    }
    fn held(&self) -> usize {
        self.0.state.len()
    }
}

/// The G-trRAS, which colors the packets it releases.
struct GreenRas(Box<GreenRasShaper<(u32, Packet), TrTcm, 1024>>);

impl Shaper<Packet> for GreenRas {
    fn enqueue(&mut self, now: Time, pkt: Packet) -> Result<(), Packet> {
        let at = Instant::from_ticks(now);
        self.0.enqueue(at, (pkt.seg.wire_len, pkt)).map_err(|e| e.1)
    }
    fn next_release(&self) -> Option<Time> {
        self.0.next_release().map(Instant::ticks)
    }
    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        let ((_, mut p), c) = self.0.dequeue(Instant::from_ticks(now))?;
        p.color = c;
        Some(p)
    }
    fn held(&self) -> usize {
        self.0.state.shaper.ras().len()
    }
}

/// ER1's three-color RIO in front of the bottleneck's FIFO, counting the
/// queued packets per color.
struct RioAqm {
    profile: RioProfile,
    rio: Rio,
    per_color: [u32; 3],
    rng: Rng,
}

impl Aqm<Packet> for RioAqm {
    fn on_arrival(&mut self, now: Time, _fifo: &DropTail, pkt: &mut Packet) -> Verdict {
        let d = self.rio.on_arrival(
            &self.profile,
            Instant::from_ticks(now),
            self.per_color,
            Color::from_index(pkt.color.index()),
            AqmPacket::new(pkt.seg.wire_len, Ecn::NotEct),
            &mut self.rng,
        );
        match d {
            Decision::DropEarly => Verdict::DropEarly,
            Decision::DropForced => Verdict::DropForced,
            // Not ECN-capable: never marked, so a mark would only queue it.
            Decision::Enqueue | Decision::Mark => Verdict::Enqueue,
        }
    }
    fn on_enqueued(&mut self, pkt: &Packet) {
        self.per_color[pkt.color.index()] += 1;
    }
    fn on_dequeue(&mut self, now: Time, fifo: &DropTail, pkt: Option<&Packet>) {
        let Some(p) = pkt else {
            return;
        };
        self.per_color[p.color.index()] -= 1;
        if fifo.is_empty() {
            self.rio
                .on_queue_empty(&self.profile, Instant::from_ticks(now));
        }
    }
}

fn cfg_err<E: core::fmt::Display>(e: E) -> SimError {
    SimError::Config(e.to_string())
}

/// A customer router's egress queue: the trTCM, then a FIFO; or a trRAS (a
/// G-trRAS) and then the trTCM (the G-trRAS's own meter).
fn customer(
    k: usize,
    shaper: &str,
    cbs: u64,
    line: Rate,
) -> Result<Box<dyn Qdisc<Packet>>, SimError> {
    let cir = Rate::from_mbps(CIR_MBPS[k % 5]);
    let pir = Rate::from_mbps(2 * CIR_MBPS[k % 5]);
    let pbs = 2 * cbs;
    let meter_cfg = TrTcmConfig::new(cir, pir, cbs, pbs);
    let meter_profile = TrTcmProfile::new(&meter_cfg).map_err(cfg_err)?;
    let t0 = Instant::ZERO;
    let marker = TrTcmMarker {
        profile: meter_profile,
        meter: TrTcm::new(&meter_profile, t0),
    };
    if k < 5 || shaper == "none" {
        let fifo = DropTail::packets(100_000);
        return Ok(Box::new(AqmQueue::new(fifo, AtInput(marker))));
    }
    let th = TrThresholds::new(cbs, pbs, 2 * pbs);
    let mut cfg = TrRasConfig::new(cir, pir, line, (2 * pbs).max(1024 * 1500));
    cfg.thresholds = Some(th);
    let profile = TrRasProfile::new(&cfg).map_err(cfg_err)?;
    Ok(if shaper == "gtrras" {
        let s = GreenRasShaper::new(ShaperMeterProfile::new(profile, meter_profile), t0);
        Box::new(ShaperQueue::new(GreenRas(Box::new(s)), ()))
    } else {
        let s = RasShaper::new(profile.into(), t0);
        Box::new(ShaperQueue::new(Ras(Box::new(s)), marker))
    })
}

/// One run with `p`'s parameters.
pub fn run_ras(p: &Params, seed: u64, progress: &Progress) -> Result<RasOutcome, SimError> {
    let shaper = p.str("shaper").to_string();
    let cbs_kb = p.f64("cbs_kb");
    let cbs = (cbs_kb * 1000.0).round() as u64;
    let hosts = p.u64("hosts") as usize;
    let mut rng = Rng::new(seed);
    let tcp = TcpConfig {
        mss: 1460,
        header: 40,
        max_window: 65_536,
        initial_cwnd: 1,
        min_rto_ns: secs(p.f64("min_rto_ms") / 1000.0),
        ..TcpConfig::default()
    };
    let line = Rate::from_mbps(34);
    let bott_bps = (p.f64("bottleneck_mbps") * 1e6).round() as u64;
    let rio_profile =
        RioProfile::new(&RioConfig::rfc2963(p.u64("rio_buffer") as u32)).map_err(cfg_err)?;
    let mut net = Network::new();
    let bottleneck = net.add_link(
        bott_bps,
        10 * MS,
        Box::new(AqmQueue::new(
            DropTail::packets(usize::MAX),
            RioAqm {
                rio: Rio::new(&rio_profile, Instant::ZERO),
                profile: rio_profile,
                per_color: [0; 3],
                rng: rng.fork(1),
            },
        )),
    );
    let lan = |net: &mut Network| net.add_pipe_link(10_000_000, MS);
    // ACK path: LAN, 34 Mbit/s, 70 Mbit/s, 34 Mbit/s, LAN, propagation plus a 40-byte ACK's serialization.
    let ser = |bps: u64| crate::engine::serialization_ns(40, bps);
    let ack_delay =
        2 * MS + 5 * MS + 10 * MS + 2 * ser(10_000_000) + 2 * ser(34_000_000) + ser(bott_bps);
    for k in 0..10 {
        let egress = net.add_link(34_000_000, 2_500_000, customer(k, &shaper, cbs, line)?);
        let far = net.add_pipe_link(34_000_000, 2_500_000);
        for _ in 0..hosts {
            let a = lan(&mut net);
            let b = lan(&mut net);
            let start = rng.time_below(SEC);
            net.add_flow(
                tcp,
                &[a, egress, bottleneck, far, b],
                ack_delay,
                k as u8,
                start,
            );
        }
    }
    let end = secs(p.f64("duration_s"));
    let warm = 2 * SEC;
    let mut g0 = vec![0u64; net.flows().len()];
    let mut rto0 = 0;
    let mut t = 0;
    while t < end {
        let next = (t + SEC).min(end);
        if t < warm && next >= warm {
            net.run_until(warm);
            net.reset_link_stats();
            for (i, f) in net.flows().iter().enumerate() {
                g0[i] = f.receiver.stats().delivered;
                rto0 += f.sender.stats().timeouts;
            }
        }
        net.run_until(next);
        progress.advance((next - t) / MS);
        t = next;
    }
    let span = crate::engine::to_secs(end.saturating_sub(warm)).max(1e-9);
    // Bytes the bottleneck sent per customer router (the packet's class) and color.
    let link = &net.links()[bottleneck as usize];
    let sent = link.stats.class_color_bytes;
    let rio = link.qdisc_stats();
    let mut out = RasOutcome {
        shaper,
        cbs_kb,
        drops: (rio.early_drops, rio.forced_drops),
        events: net.events(),
        ..RasOutcome::default()
    };
    for (row, bytes) in out.colors.iter_mut().zip(&sent) {
        for (mbps, &b) in row.iter_mut().zip(bytes) {
            *mbps = b as f64 * 8.0 / span / 1e6;
        }
    }
    for (i, f) in net.flows().iter().enumerate() {
        let k = i / hosts;
        out.goodput[k] += (f.receiver.stats().delivered - g0[i]) as f64 * 1460.0 * 8.0 / span / 1e6;
        out.timeouts += f.sender.stats().timeouts;
    }
    out.timeouts -= rto0;
    Ok(out)
}

/// RFC 2963 tables A.2/A.3 (trRAS) and A.5/A.6 (G-trRAS): green, yellow, total
/// in Mbit/s per CIR, unshaped (C1-C5) then shaped (C6-C10).
/// Green, yellow, total (Mbit/s) for the five CIRs.
type ColorRows = [[f64; 3]; 5];

const DOC_TABLES: [(&str, ColorRows, ColorRows); 2] = [
    (
        "trras",
        [
            [1.10, 0.93, 2.25],
            [2.57, 1.80, 4.55],
            [4.10, 2.12, 6.39],
            [5.88, 2.32, 8.33],
            [7.57, 2.37, 10.0],
        ],
        [
            [2.00, 1.69, 3.71],
            [3.97, 2.34, 6.33],
            [5.93, 2.23, 8.17],
            [7.84, 2.28, 10.1],
            [9.77, 2.14, 11.9],
        ],
    ),
    (
        "gtrras",
        [
            [1.10, 0.95, 2.26],
            [2.41, 1.66, 4.24],
            [3.94, 1.97, 6.07],
            [5.72, 2.13, 7.96],
            [7.25, 2.29, 9.64],
        ],
        [
            [1.92, 1.75, 3.77],
            [3.79, 3.24, 7.05],
            [5.35, 3.62, 8.97],
            [6.96, 3.48, 10.4],
            [8.69, 3.06, 11.7],
        ],
    ),
];

/// CBS values of tables A.4 and A.7, KB.
const CBS_SWEEP: [f64; 10] = [
    3.0, 10.0, 25.0, 50.0, 75.0, 100.0, 150.0, 200.0, 300.0, 400.0,
];

/// Tables A.4 (trRAS) and A.7 (G-trRAS): goodput of C1, C6, C3, C8 per CBS.
/// (The 3.14 is a measured goodput, not pi.)
#[allow(clippy::approx_constant)]
const DOC_GOODPUT: [(&str, [[f64; 4]; 10]); 2] = [
    (
        "trras",
        [
            [1.88, 3.49, 5.91, 7.77],
            [2.97, 2.91, 6.76, 7.08],
            [3.14, 2.78, 7.07, 6.73],
            [3.12, 2.67, 7.20, 6.64],
            [3.18, 2.56, 7.08, 6.58],
            [3.20, 2.64, 7.00, 6.62],
            [3.21, 2.54, 7.11, 6.52],
            [3.26, 2.57, 7.07, 6.53],
            [3.19, 2.53, 7.13, 6.49],
            [3.13, 2.48, 7.18, 6.43],
        ],
    ),
    (
        "gtrras",
        [
            [1.90, 3.44, 5.62, 8.44],
            [2.95, 3.30, 6.70, 7.20],
            [2.98, 3.01, 7.03, 6.93],
            [3.06, 2.85, 6.81, 6.84],
            [3.08, 2.80, 6.87, 6.96],
            [2.99, 2.78, 6.85, 6.88],
            [2.98, 2.70, 6.80, 6.81],
            [2.96, 2.70, 6.82, 6.97],
            [2.94, 2.70, 6.83, 6.86],
            [2.86, 2.62, 6.83, 6.84],
        ],
    ),
];

/// Routers of tables A.4/A.7, 0-based: C1, C6, C3, C8.
const SWEEP_ROUTERS: [usize; 4] = [0, 5, 2, 7];
const SWEEP_LABELS: [&str; 4] = [
    "2 Mbps unsh (C1)",
    "2 Mbps sh (C6)",
    "6 Mbps unsh (C3)",
    "6 Mbps sh (C8)",
];

fn shaper_name(s: &str) -> &'static str {
    match s {
        "gtrras" => "G-trRAS",
        "trras" => "trRAS",
        _ => "none",
    }
}

fn color_table(o: &RasOutcome, name: &str, title: String) -> Table {
    let mut rows = Vec::new();
    for k in 0..10 {
        rows.push(vec![
            format!("C{}", k + 1),
            CIR_MBPS[k % 5].to_string(),
            if k < 5 || o.shaper == "none" {
                "no".into()
            } else {
                shaper_name(&o.shaper).into()
            },
            fmt_num(o.colors[k][0]),
            fmt_num(o.colors[k][1]),
            fmt_num(o.colors[k][2]),
            fmt_num(o.total(k)),
            fmt_num(o.goodput[k]),
        ]);
    }
    Table {
        name: name.into(),
        title,
        header: [
            "router", "CIR Mbps", "shaper", "green", "yellow", "red", "total", "goodput",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        rows,
    }
}

const NOTES: &[&str] = &[
    "chosen (not in RFC 2963): shaper thresholds CIR_th = CBS, PIR_th = PBS, MIR_th = 2 PBS, \
     MIR = 34 Mbit/s, EAR K = 100 ms; RIO-C with a 1000-packet buffer; TCP initial window 1, \
     no delayed ACKs, min RTO 1 s; flows start at random in the first second; 1 KB = 1000 bytes",
    "throughput = IP bytes per router and color across the bottleneck (retransmissions \
     included); goodput = payload delivered in order; both over 2..102 s",
];

impl Scenario for RasTcp {
    fn name(&self) -> &'static str {
        "ras-tcp"
    }

    fn description(&self) -> &'static str {
        "RFC 2963 appendix A: trTCM + trRAS / G-trRAS with 100 SACK TCP flows over a 70 Mbit/s RIO bottleneck"
    }

    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }

    fn in_quick(&self) -> bool {
        true
    }

    fn run(&self, params: &Params, seed: u64, progress: &Progress) -> Result<Report, SimError> {
        progress.add_total(secs(params.f64("duration_s")) / MS);
        let o = run_ras(params, seed, progress)?;
        let mut r = Report::new(self.name(), self.description());
        r.params = params.listing();
        r.tables.push(color_table(
            &o,
            "routers",
            format!(
                "throughput and goodput in Mbit/s, CBS {} KB",
                fmt_num(o.cbs_kb)
            ),
        ));
        r.notes = NOTES.iter().map(|s| s.to_string()).collect();
        r.events = o.events;
        r.sim_seconds = params.f64("duration_s");
        Ok(r)
    }

    fn reproduce(&self, opts: &ReproduceOpts, progress: &Progress) -> Result<Report, SimError> {
        let duration = if opts.quick { 22.0 } else { 102.0 };
        let cbs_list: Vec<f64> = if opts.quick {
            vec![3.0, 50.0, 400.0]
        } else {
            CBS_SWEEP.to_vec()
        };
        let base = self.defaults();
        let mut jobs = Vec::new();
        for s in ["trras", "gtrras"] {
            for &c in &cbs_list {
                jobs.push((s, c));
            }
        }
        let work = |_: &(&str, f64)| secs(duration) / MS;
        let outs = run_jobs(&jobs, progress, work, |i, &(s, c)| {
            let p = base.with(&[
                format!("shaper={s}"),
                format!("cbs_kb={c}"),
                format!("duration_s={duration}"),
            ])?;
            run_ras(&p, derive_seed(opts.seed, i as u64), progress)
        })?;
        let mut records = Vec::new();
        for (i, &(s, c)) in jobs.iter().enumerate() {
            let p = base.with(&[
                format!("shaper={s}"),
                format!("cbs_kb={c}"),
                format!("duration_s={duration}"),
            ])?;
            records.push(RunRecord::new(
                i as u64,
                &format!("{}, CBS {c} KB", shaper_name(s)),
                opts.seed,
                &p,
                &base,
            ));
        }
        let mut r = Report::new(self.name(), self.description());
        r.runs = records;
        r.params = base.with(&[format!("duration_s={duration}")])?.listing();
        for o in &outs {
            r.events += o.events;
            r.sim_seconds += duration;
        }
        // Tables A.2/A.3 and A.5/A.6: the CBS 3 KB runs.
        for (s, unsh, sh) in DOC_TABLES {
            let (ta, tb) = if s == "trras" {
                ("A.2", "A.3")
            } else {
                ("A.5", "A.6")
            };
            let Some(o) = outs.iter().find(|o| o.shaper == s && o.cbs_kb == 3.0) else {
                continue;
            };
            for k in 0..10 {
                let (tab, doc) = if k < 5 {
                    (ta, unsh[k])
                } else {
                    (tb, sh[k - 5])
                };
                let case = format!("{tab} {} Mbps [C{}]", CIR_MBPS[k % 5], k + 1);
                r.comparisons.push(Comparison::new(
                    &case,
                    "green",
                    Some(doc[0]),
                    Some(o.colors[k][0]),
                ));
                r.comparisons.push(Comparison::new(
                    &case,
                    "yellow",
                    Some(doc[1]),
                    Some(o.colors[k][1]),
                ));
                r.comparisons.push(Comparison::new(
                    &case,
                    "total",
                    Some(doc[2]),
                    Some(o.total(k)),
                ));
            }
            r.tables.push(color_table(
                o,
                &format!("routers_{s}_cbs3"),
                format!(
                    "{ta}/{tb} ({}, CBS 3 KB): Mbit/s per router",
                    shaper_name(s)
                ),
            ));
        }
        // Tables A.4 and A.7: goodput vs CBS.
        for (s, doc) in DOC_GOODPUT {
            let tab = if s == "trras" { "A.4" } else { "A.7" };
            let mut rows = Vec::new();
            let mut plot = Plot {
                name: format!("goodput_vs_cbs_{s}"),
                title: format!(
                    "Table {tab}: goodput vs CBS, {} (dashed: RFC 2963)",
                    shaper_name(s)
                ),
                x_label: "CBS, KB".into(),
                y_label: "goodput, Mbit/s".into(),
                ..Plot::default()
            };
            let mut ours_pts = vec![Vec::new(); 4];
            let mut doc_pts = vec![Vec::new(); 4];
            for (ci, &cbs) in CBS_SWEEP.iter().enumerate() {
                let Some(o) = outs.iter().find(|o| o.shaper == s && o.cbs_kb == cbs) else {
                    continue;
                };
                let mut row = vec![fmt_num(cbs)];
                for (j, &k) in SWEEP_ROUTERS.iter().enumerate() {
                    r.comparisons.push(Comparison::new(
                        &format!("{tab} CBS {cbs} KB"),
                        SWEEP_LABELS[j],
                        Some(doc[ci][j]),
                        Some(o.goodput[k]),
                    ));
                    row.push(format!(
                        "{} ({})",
                        fmt_num(o.goodput[k]),
                        fmt_num(doc[ci][j])
                    ));
                    ours_pts[j].push((cbs, o.goodput[k]));
                    doc_pts[j].push((cbs, doc[ci][j]));
                }
                rows.push(row);
            }
            // Each router's pair in one colour: ours solid, the RFC's dashed.
            for j in 0..4 {
                plot.styled_line(
                    &format!("{} ours", SWEEP_LABELS[j]),
                    ours_pts[j].clone(),
                    j,
                    false,
                );
                plot.styled_line(
                    &format!("{} RFC", SWEEP_LABELS[j]),
                    doc_pts[j].clone(),
                    j,
                    true,
                );
            }
            r.plots.push(plot);
            let mut header = vec!["CBS KB".to_string()];
            header.extend(SWEEP_LABELS.iter().map(|l| format!("{l} ours (RFC)")));
            r.tables.push(Table {
                name: format!("goodput_vs_cbs_{s}"),
                title: format!(
                    "Table {tab} ({}): goodput in Mbit/s, ours (RFC 2963)",
                    shaper_name(s)
                ),
                header,
                rows,
            });
        }
        r.notes = NOTES.iter().map(|s| s.to_string()).collect();
        if opts.quick {
            r.notes
                .push("quick: 22 s runs (2 s warm-up), CBS 3, 50 and 400 KB only".into());
        }
        Ok(r)
    }
}
