//! Behavioural tests of the shapers, by subject: the FIFO
//! ([`fifo`]), the output rate and smoothing ([`output_rate`]), the green
//! shapers ([`green`]), the exact reference model ([`reference_model`]),
//! property tests over the invariants ([`properties`]), the invariants'
//! detector runs on the real code ([`mutations`]) and the caller-kept queue ([`caller_queue`]). This file
//! holds what they share: descriptors, profiles, traces and drivers.
#![allow(clippy::float_arithmetic)] // f64 summaries in tests only

use std::collections::VecDeque;
use std::vec::Vec;

use netcond_core::{Color, Instant, RandomSource, Rate, SplitMix64, TickRate};
use proptest::prelude::*;
use trtcm::{SrTcm, SrTcmConfig, SrTcmProfile, TrTcm, TrTcmConfig, TrTcmProfile};

use crate::invariants;
use crate::{
    transmission_time, GreenRas, PacketLen, Ras, RasProfile, Schedule, SrRasConfig, SrRasProfile,
    SrThresholds, TrRasConfig, TrRasProfile, TrThresholds,
};

mod caller_queue;
mod fifo;
mod green;
mod mutations;
mod output_rate;
mod properties;
mod reference_model;

/// A descriptor with an id, to check order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pkt {
    len: u32,
    id: u32,
}

impl PacketLen for Pkt {
    fn packet_len(&self) -> u32 {
        self.len
    }
}

fn t(x: u64) -> Instant {
    Instant::from_ticks(x)
}

/// The customer router of RFC 2963 appendix A: CIR 2 Mbit/s, PIR 4, line 34,
/// 64 KB buffer.
fn tr_cfg() -> TrRasConfig {
    let mut c = TrRasConfig::new(
        Rate::from_mbps(2),
        Rate::from_mbps(4),
        Rate::from_mbps(34),
        64_000,
    );
    c.thresholds = Some(TrThresholds {
        cir_th: 6_000,
        pir_th: 24_000,
        mir_th: 48_000,
    });
    c
}

pub(crate) fn tr_profile() -> RasProfile {
    TrRasProfile::new(&tr_cfg()).unwrap().into()
}

pub(crate) fn sr_profile() -> RasProfile {
    let mut c = SrRasConfig::new(Rate::from_mbps(2), Rate::from_mbps(34), 64_000);
    c.mir = Some(Rate::from_mbps(20));
    c.thresholds = Some(SrThresholds {
        cir_th: 6_000,
        mir_th: 48_000,
    });
    SrRasProfile::new(&c).unwrap().into()
}

fn trtcm_profile(cbs: u64) -> TrTcmProfile {
    TrTcmProfile::new(&TrTcmConfig::new(
        Rate::from_mbps(2),
        Rate::from_mbps(4),
        cbs,
        2 * cbs,
    ))
    .unwrap()
}

fn srtcm_profile(cbs: u64) -> SrTcmProfile {
    SrTcmProfile::new(&SrTcmConfig::new(Rate::from_mbps(2), cbs, 2 * cbs)).unwrap()
}

/// `native` natively; `miri` under Miri, which interprets every instruction,
/// so that the long traces and many seeds of the native run are cut short
/// there.
const fn pick(native: usize, miri: usize) -> usize {
    if cfg!(miri) {
        miri
    } else {
        native
    }
}

/// A TCP-like on/off source: every `period` ns a window of 1..=max_w packets of
/// mixed lengths, back to back at 10 Mbit/s.
fn onoff_trace(seed: u64, n: usize, period: u64, max_w: u32) -> Vec<(u64, Pkt)> {
    let mut r = SplitMix64::new(seed);
    let mut out = Vec::with_capacity(n);
    let mut start = 0u64;
    let mut id = 0;
    while out.len() < n {
        let w = 1 + r.below(max_w);
        let mut at = start;
        for _ in 0..w {
            let len = match r.below(8) {
                0..=4 => 1500,
                5 => 40,
                6 => 576,
                _ => 40 + r.below(1461),
            };
            out.push((at, Pkt { len, id }));
            id += 1;
            at += len as u64 * 800; // 10 Mbit/s: 800 ns per byte
        }
        start += period + r.below(period as u32 / 4) as u64;
    }
    out.truncate(n);
    out
}

#[derive(Clone, Copy, Debug)]
struct Release {
    at: u64,
    sched: Schedule,
    arrival: u64,
    pkt: Pkt,
    color: Option<Color>,
    at_t2: bool,
    t1: Schedule,
}

/// Drives a plain shaper with exact event timing: every release happens at
/// `next_release`. Returns releases and drops.
fn run_plain<const N: usize>(p: &RasProfile, trace: &[(u64, Pkt)]) -> (Vec<Release>, Vec<Pkt>) {
    let mut s: Ras<Pkt, N> = Ras::new(p, Instant::ZERO);
    let mut out = Vec::new();
    let mut drops = Vec::new();
    let mut i = 0;
    loop {
        let next_rel = s.next_release().map(|x| x.ticks());
        let next_arr = trace.get(i).map(|x| x.0);
        match (next_rel, next_arr) {
            (None, None) => break,
            (Some(r), a) if a.map_or(true, |a| r < a) => {
                let sched = s.head_schedule();
                let t1 = s.head_t1();
                let arrival = s.head_arrival().unwrap().ticks();
                let pkt = s.dequeue(p, t(r)).expect("due");
                let prev = out.last().map(|x: &Release| (t(x.at), x.pkt.len));
                invariants::mir_spacing(p, prev, t(r)).unwrap();
                out.push(Release {
                    at: r,
                    sched,
                    arrival,
                    pkt,
                    color: None,
                    at_t2: false,
                    t1,
                });
            }
            (_, Some(a)) => {
                if let Err(pkt) = s.enqueue(p, t(a), trace[i].1) {
                    drops.push(pkt);
                }
                i += 1;
            }
            (Some(_), None) => unreachable!(),
        }
        invariants::shaper_consistent(p, &s).unwrap();
    }
    (out, drops)
}

fn run_green<M: crate::GreenMeter, const N: usize>(
    p: &RasProfile,
    mp: &M::Profile,
    trace: &[(u64, Pkt)],
) -> (Vec<Release>, Vec<Pkt>) {
    let mut s: GreenRas<Pkt, N> = GreenRas::new(p, Instant::ZERO);
    let mut meter = M::start(mp, Instant::ZERO);
    let mut out = Vec::new();
    let mut drops = Vec::new();
    let mut i = 0;
    loop {
        let next_rel = s.next_release().map(|x| x.ticks());
        let next_arr = trace.get(i).map(|x| x.0);
        match (next_rel, next_arr) {
            (None, None) => break,
            (Some(r), a) if a.map_or(true, |a| r < a) => {
                let sched = s.ras().head_schedule();
                let t1 = s.ras().head_t1();
                let at_t2 = s.head_at_t2();
                let arrival = s.ras().head_arrival().unwrap().ticks();
                let (pkt, color) = s.dequeue(p, mp, &mut meter, t(r)).expect("due");
                invariants::green_at_t2(at_t2, color).unwrap();
                let prev = out.last().map(|x: &Release| (t(x.at), x.pkt.len));
                invariants::mir_spacing(p, prev, t(r)).unwrap();
                out.push(Release {
                    at: r,
                    sched,
                    arrival,
                    pkt,
                    color: Some(color),
                    at_t2,
                    t1,
                });
            }
            (_, Some(a)) => {
                if let Err(pkt) = s.enqueue(p, mp, &meter, t(a), trace[i].1) {
                    drops.push(pkt);
                }
                i += 1;
            }
            (Some(_), None) => unreachable!(),
        }
        invariants::shaper_consistent(p, s.ras()).unwrap();
    }
    (out, drops)
}

/// Random meter rates, clocks and bursts: increments per tick from 0 (a zero
/// rate is refused by the meters, but tiny rates on fast clocks are not) to
/// well above the bucket sizes.
fn random_rate(r: &mut SplitMix64) -> Rate {
    let bits = match r.below(4) {
        0 => 1 + r.below(10_000) as u64,
        1 => 1 + r.next_u32() as u64,
        2 => (1 + r.next_u32() as u64) * (1 + r.below(10_000) as u64),
        _ => 8 << r.below(40),
    };
    Rate::from_bits_per_sec(bits)
}

fn random_tick(r: &mut SplitMix64) -> TickRate {
    let hz = [1_000_000_000u64, 2_300_000_000, 1_000_000, 3, 1][r.below(5) as usize];
    TickRate::from_hz(hz).unwrap()
}

/// A random srRAS or trRAS profile with odd rates (not round numbers, so
/// that gaps carry fractions of a tick), CIR from 1 kbit/s to 2 Gbit/s, one
/// of three clocks, thresholds anywhere in the buffer, and a K that puts
/// the bench streams' gaps in either EAR regime.
fn random_ras_profile(r: &mut SplitMix64) -> RasProfile {
    let tick = random_tick(r);
    let cir = 1_000 + (r.next_u32() as u64 % 2_000_000) * (1 + r.below(1_000) as u64);
    let pir = cir + cir * r.below(3) as u64 + r.below(1_000) as u64;
    let mir = pir + pir * r.below(4) as u64 + r.below(1_000) as u64;
    let buf = 3_000 + r.below(300_000) as u64;
    let mut th = [0; 3].map(|_| buf * r.below(101) as u64 / 100);
    th.sort_unstable();
    let k = core::time::Duration::from_nanos(1_000 + r.below(200_000_000) as u64);
    let rate = Rate::from_bits_per_sec;
    let built = if r.below(2) == 0 {
        let mut c = TrRasConfig::new(rate(cir), rate(pir), rate(mir), buf);
        c.thresholds = Some(TrThresholds {
            cir_th: th[0],
            pir_th: th[1],
            mir_th: th[2],
        });
        c.k = k;
        c.tick = tick;
        TrRasProfile::new(&c).map(RasProfile::from)
    } else {
        let mut c = SrRasConfig::new(rate(cir), rate(mir), buf);
        c.thresholds = Some(SrThresholds {
            cir_th: th[0],
            mir_th: th[2],
        });
        c.k = k;
        c.tick = tick;
        SrRasProfile::new(&c).map(RasProfile::from)
    };
    built.unwrap_or_else(|_| tr_profile())
}
