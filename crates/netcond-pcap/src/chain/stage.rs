//! One stage of a chain, as parsed.

use super::*;
use netcond::base::{LengthAdjust, Rate};
use netcond::trtcm::Mode;
use std::time::Duration;

/// One stage of a chain, with its parameters parsed and checked.
#[derive(Debug, Clone, PartialEq)]
pub enum Stage {
    /// RFC 2698 trTCM, color-blind unless `colors=` is given.
    TrTcm {
        /// CIR.
        cir: Rate,
        /// PIR.
        pir: Rate,
        /// CBS, bytes (packets in packet mode).
        cbs: u64,
        /// PBS, bytes (packets in packet mode).
        pbs: u64,
        /// The length the meter is charged (`LengthAdjust::NONE` in packet mode).
        adjust: LengthAdjust,
        /// Color-aware: the input color from the DSCP or PCP (`colors=`).
        colors: Option<Colors>,
        /// Bytes (the default), or packets (`mode=packets`): the rates are
        /// then packets per second (`Rate::from_bytes_per_sec(pps)`, as the
        /// library's `packets` constructors write them) and the bursts packets.
        mode: Mode,
    },
    /// RFC 2697 srTCM, color-blind unless `colors=` is given.
    SrTcm {
        /// CIR.
        cir: Rate,
        /// CBS, bytes (packets in packet mode).
        cbs: u64,
        /// EBS, bytes (packets in packet mode).
        ebs: u64,
        /// The length the meter is charged (`LengthAdjust::NONE` in packet mode).
        adjust: LengthAdjust,
        /// Color-aware: the input color from the DSCP or PCP (`colors=`).
        colors: Option<Colors>,
        /// Bytes (the default), or packets (`mode=packets`): the rates are
        /// then packets per second (`Rate::from_bytes_per_sec(pps)`, as the
        /// library's `packets` constructors write them) and the bursts packets.
        mode: Mode,
    },
    /// RFC 4115 trTCM (independent C and E buckets), color-blind unless
    /// `colors=` is given.
    Rfc4115 {
        /// CIR.
        cir: Rate,
        /// EIR.
        eir: Rate,
        /// CBS, bytes (packets in packet mode).
        cbs: u64,
        /// EBS, bytes (packets in packet mode).
        ebs: u64,
        /// The length the meter is charged (`LengthAdjust::NONE` in packet mode).
        adjust: LengthAdjust,
        /// Color-aware: the input color from the DSCP or PCP (`colors=`).
        colors: Option<Colors>,
        /// Bytes (the default), or packets (`mode=packets`): the rates are
        /// then packets per second (`Rate::from_bytes_per_sec(pps)`, as the
        /// library's `packets` constructors write them) and the bursts packets.
        mode: Mode,
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
