//! The delay-based AQMs (CoDel, FQ-CoDel, PIE, FQ-PIE, DualPI2) and the token
//! bucket filter: their per-packet entry points and host-computed streams.
//!
//! Compiled twice, as `cases.rs` is (it includes this file): into the build
//! script, which records what every call returns, and into the firmware,
//! which compares. The queues are the caller's here, as in a router: a small
//! ring of packet descriptors per queue, on the stack.

use super::{length, Sink};
use core::time::Duration;
use netcond::base::{Instant, Rate, SplitMix64};
use netcond::delay::{
    Codel, CodelConfig, CodelProfile, ControlLaw, DualHead, DualPi2, DualPi2Config, DualPi2Profile,
    DualQueue, Ecn, Enqueued, FqCodel, FqCodelConfig, FqCodelProfile, FqPie, FqPieConfig,
    FqPieProfile, Head, Pie, PieConfig, PieLaw, PieProfile, Verdict,
};
use netcond::ras::{Tbf, TbfConfig, TbfDeparture, TbfProfile, TbfVerdict};

/// The flows of the FQ-CoDel and FQ-PIE states.
pub const FQ_N: usize = 4;
/// The capacity of each caller-side FIFO of the streams.
pub const RING: usize = 24;

/// The entry points, one `#[inline(never)]` function each.
pub mod ep {
    use super::*;

    /// CoDel (RFC 8289): the verdict for the packet just dequeued.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_codel_dequeue(
        s: &mut Codel,
        p: &CodelProfile,
        now: Instant,
        head: Head,
        backlog: u64,
    ) -> Verdict {
        s.on_dequeue(p, now, head, backlog)
    }
    /// FQ-CoDel (RFC 8290): a packet pushed to its flow's FIFO.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_fq_codel_enqueue(
        s: &mut FqCodel<FQ_N>,
        p: &FqCodelProfile,
        now: Instant,
        flow: usize,
        len: u32,
        drop_head: &mut dyn FnMut(usize) -> Option<u32>,
    ) -> Enqueued {
        s.enqueue(p, now, flow, len, drop_head)
    }
    /// FQ-CoDel: a dequeue: the scheduler picks a flow, `take` removes that
    /// flow's head from the caller's FIFO, and its CoDel gives the verdict
    /// (on a drop the caller dequeues again).
    #[inline(never)]
    #[no_mangle]
    pub fn fw_fq_codel_dequeue(
        s: &mut FqCodel<FQ_N>,
        p: &FqCodelProfile,
        now: Instant,
        take: &mut dyn FnMut(usize) -> Option<Head>,
    ) -> Option<(usize, Verdict)> {
        let f = s.schedule(p, now)?;
        let head = take(f)?;
        Some((f, s.on_dequeue(p, now, f, head)))
    }
    /// PIE (RFC 8033): the decision for an arriving packet.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_pie_enqueue(
        s: &mut Pie,
        p: &PieProfile,
        now: Instant,
        pkt: Head,
        qlen: u32,
        backlog: u64,
        rng: &mut SplitMix64,
    ) -> Verdict {
        s.on_arrival(p, now, pkt, qlen, backlog, rng)
    }
    /// PIE: a departure (the delay and rate estimators).
    #[inline(never)]
    #[no_mangle]
    pub fn fw_pie_dequeue(s: &mut Pie, p: &PieProfile, now: Instant, head: Head, backlog: u64) {
        s.on_dequeue(p, now, head, backlog)
    }
    /// PIE: the probability update when its period is due.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_pie_poll(s: &mut Pie, p: &PieProfile, now: Instant, backlog: u64) -> bool {
        s.poll(p, now, backlog)
    }
    /// FQ-PIE: a packet arriving for flow `flow`.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_fq_pie_enqueue(
        s: &mut FqPie<FQ_N>,
        p: &FqPieProfile,
        now: Instant,
        flow: usize,
        pkt: Head,
        rng: &mut SplitMix64,
    ) -> Verdict {
        s.enqueue(p, now, flow, pkt, rng)
    }
    /// FQ-PIE: a dequeue: the scheduler picks a flow, `take` removes that
    /// flow's head from the caller's FIFO, and the flow's PIE sees it leave.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_fq_pie_dequeue(
        s: &mut FqPie<FQ_N>,
        p: &FqPieProfile,
        now: Instant,
        take: &mut dyn FnMut(usize) -> Option<Head>,
    ) -> Option<usize> {
        let f = s.schedule(p, now)?;
        let head = take(f)?;
        s.on_dequeue(p, now, f, head);
        Some(f)
    }
    /// DualPI2 (RFC 9332): the queue an arriving packet joins, if any.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_dualpi2_enqueue(
        s: &mut DualPi2,
        p: &DualPi2Profile,
        now: Instant,
        ecn: Ecn,
        len: u32,
        backlog: u64,
    ) -> Option<DualQueue> {
        s.on_arrival(p, now, ecn, len, backlog)
    }
    /// DualPI2: a dequeue: the scheduler picks a queue from the heads'
    /// enqueue instants, `take` removes that queue's head from the caller's
    /// FIFO (with the number of packets left behind it), and the AQM gives
    /// the verdict (on a drop the caller dequeues again).
    #[inline(never)]
    #[no_mangle]
    pub fn fw_dualpi2_dequeue(
        s: &mut DualPi2,
        p: &DualPi2Profile,
        now: Instant,
        heads: (Option<Instant>, Option<Instant>),
        take: &mut dyn FnMut(DualQueue) -> Option<(DualHead, u32)>,
        rng: &mut SplitMix64,
    ) -> Option<(DualQueue, Verdict)> {
        let q = s.schedule(p, now, heads.0, heads.1)?;
        let (head, left) = take(q)?;
        Some((q, s.on_dequeue(p, now, q, head, left, rng)))
    }
    /// DualPI2: the PI update when its period is due.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_dualpi2_poll(
        s: &mut DualPi2,
        p: &DualPi2Profile,
        now: Instant,
        l_head: Option<Instant>,
        c_head: Option<Instant>,
    ) -> bool {
        s.poll(p, now, l_head, c_head)
    }
    /// TBF (Linux's `tbf`): an arriving packet.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_tbf_enqueue(s: &mut Tbf, p: &TbfProfile, now: Instant, len: u32) -> TbfVerdict {
        s.enqueue(p, now, len)
    }
    /// TBF: whether the head packet may leave now, and if not when.
    #[inline(never)]
    #[no_mangle]
    pub fn fw_tbf_dequeue(
        s: &mut Tbf,
        p: &TbfProfile,
        now: Instant,
        head_len: u32,
    ) -> TbfDeparture {
        s.dequeue(p, now, head_len)
    }
}

/// A caller-side FIFO: a fixed ring, no allocation.
#[derive(Clone, Copy)]
pub struct Ring<T: Copy, const N: usize> {
    items: [Option<T>; N],
    head: usize,
    len: usize,
}

impl<T: Copy, const N: usize> Ring<T, N> {
    /// An empty ring.
    pub const fn new() -> Self {
        Ring {
            items: [None; N],
            head: 0,
            len: 0,
        }
    }
    /// Appends `x`; false (and nothing stored) when full.
    pub fn push(&mut self, x: T) -> bool {
        if self.len == N {
            return false;
        }
        self.items[(self.head + self.len) % N] = Some(x);
        self.len += 1;
        true
    }
    /// Removes the head.
    pub fn pop(&mut self) -> Option<T> {
        let x = self.front()?;
        self.items[self.head] = None;
        self.head = (self.head + 1) % N;
        self.len -= 1;
        Some(x)
    }
    /// The head.
    pub fn front(&self) -> Option<T> {
        if self.len == 0 {
            None
        } else {
            self.items[self.head]
        }
    }
    /// The number of items.
    pub const fn len(&self) -> usize {
        self.len
    }
}

/// A FIFO of packets with its byte count.
#[derive(Clone, Copy)]
struct Fifo {
    ring: Ring<Head, RING>,
    bytes: u64,
}

impl Fifo {
    const fn new() -> Fifo {
        Fifo {
            ring: Ring::new(),
            bytes: 0,
        }
    }
    fn push(&mut self, h: Head) -> bool {
        let ok = self.ring.push(h);
        if ok {
            self.bytes += u64::from(h.len);
        }
        ok
    }
    fn pop(&mut self) -> Option<Head> {
        let h = self.ring.pop()?;
        self.bytes -= u64::from(h.len);
        Some(h)
    }
}

fn verdict(v: Verdict) -> u64 {
    match v {
        Verdict::Deliver => 0,
        Verdict::Mark => 1,
        Verdict::Drop => 2,
    }
}

/// The clock of these streams, in nanoseconds: forward steps of up to 1.5 ms,
/// and every 300th step one of `Clock`'s adversarial moves (a step back, a
/// jump past half the range, to `u64::MAX` or just below it). Rarer than in
/// the markers' streams, so that queues stand long enough (CoDel's 100 ms
/// interval is some 130 steps) to reach the dropping states.
pub struct CalmClock {
    rng: SplitMix64,
    t: u64,
    n: u64,
}

impl CalmClock {
    /// The next timestamp.
    pub fn next(&mut self) -> Instant {
        let r = self.rng.next_u64();
        self.n += 1;
        self.t = if self.n.is_multiple_of(300) {
            match (self.n / 300) % 4 {
                0 => self.t.wrapping_sub((r >> 20) % 6_000_001),
                1 => self.t.wrapping_add(1 << 63).wrapping_add(r >> 50),
                2 => u64::MAX,
                _ => u64::MAX - (r >> 40) % 12_000_001,
            }
        } else {
            self.t.wrapping_add((r >> 16) % 1_500_001)
        };
        Instant::from_ticks(self.t)
    }
}

fn clock(seed: u64, start: u64) -> CalmClock {
    CalmClock {
        rng: SplitMix64::new(seed),
        t: start,
        n: 0,
    }
}

/// Runs one stream's `STEPS` steps from `start`: each step gets the calm
/// clock's next instant, one draw `r` and the stream's generator (seeded with
/// `seed ^ salt`) for its other draws.
fn run_steps(
    seed: u64,
    start: u64,
    salt: u64,
    mut step: impl FnMut(Instant, u64, &mut SplitMix64),
) {
    let mut c = clock(seed, start);
    let mut rng = SplitMix64::new(seed ^ salt);
    for _ in 0..STEPS {
        let now = c.next();
        let r = rng.next_u64();
        step(now, r, &mut rng);
    }
}

/// Steps of each run of a stream (some 600 ms of clock).
const STEPS: usize = 800;

/// Two starts: zero, and 5 s before the clock wraps.
const STARTS: [(u64, u64); 2] = [(11, 0), (12, u64::MAX - 5_000_000_000)];

/// CoDel under both control laws, ECN on for the exact one: arrivals at up
/// to three packets a step, one dequeue (with its drop loop) a step, so a
/// standing queue builds and the dropping state is entered and left.
pub fn codel_stream(out: &mut dyn Sink) {
    let cfgs = [
        CodelConfig::linux(),
        CodelConfig::rfc8289()
            .with_control_law(ControlLaw::Exact)
            .with_ecn(true),
    ];
    for (cfg, (seed, start)) in cfgs.iter().zip(STARTS) {
        let Ok(p) = CodelProfile::new(cfg) else {
            out.put(u64::MAX);
            return;
        };
        let mut s = Codel::new(&p, Instant::from_ticks(start));
        let mut q = Fifo::new();
        run_steps(seed, start, 0xC0DE, |now, r, rng| {
            for _ in 0..r % 4 {
                q.push(Head::new(now, length(rng), r & 16 != 0));
            }
            loop {
                let Some(h) = q.pop() else {
                    s.on_queue_empty(&p, now);
                    break;
                };
                let v = ep::fw_codel_dequeue(&mut s, &p, now, h, q.bytes);
                out.put(verdict(v));
                if v != Verdict::Drop {
                    break;
                }
            }
            out.put(u64::from(s.count()) << 1 | u64::from(s.dropping()));
        });
    }
}

/// FQ-CoDel with four flows and a 20-packet limit (so the fattest flow is
/// trimmed): arrivals on random flows, one scheduled dequeue a step.
pub fn fq_codel_stream(out: &mut dyn Sink) {
    let cfg = FqCodelConfig::linux().with_limit(20).with_quantum(600);
    let Ok(p) = FqCodelProfile::new(&cfg) else {
        out.put(u64::MAX);
        return;
    };
    for (seed, start) in STARTS {
        let mut s = FqCodel::<FQ_N>::new(&p, Instant::from_ticks(start));
        let mut q = [Fifo::new(); FQ_N];
        run_steps(seed, start, 0xF0C0, |now, r, rng| {
            for i in 0..r % 4 {
                let flow = ((r >> (8 + 2 * i)) % FQ_N as u64) as usize;
                let len = length(rng);
                if !q[flow].push(Head::new(now, len, false)) {
                    out.put(3);
                    continue;
                }
                let mut drop_head = |f: usize| q[f % FQ_N].pop().map(|h| h.len);
                let e = ep::fw_fq_codel_enqueue(&mut s, &p, now, flow, len, &mut drop_head);
                match e {
                    Enqueued::Queued => out.put(0),
                    Enqueued::Overflow {
                        victim,
                        packets,
                        bytes,
                    } => {
                        out.put((victim as u64) << 32 | u64::from(packets) << 1 | 1);
                        out.put(bytes);
                    }
                }
            }
            loop {
                let mut take = |f: usize| q[f].pop();
                let Some((f, v)) = ep::fw_fq_codel_dequeue(&mut s, &p, now, &mut take) else {
                    break;
                };
                out.put((f as u64) << 2 | verdict(v));
                if v != Verdict::Drop {
                    break;
                }
            }
        });
    }
}

/// PIE under Linux's law and RFC 8033's (with its departure-rate
/// estimator), ECN on: arrivals, a poll (the update timer) and one departure
/// a step.
pub fn pie_stream(out: &mut dyn Sink) {
    let cfgs = [
        PieConfig::linux().with_limit(RING as u32).with_ecn(true),
        PieConfig::rfc8033()
            .with_law(PieLaw::Rfc8033)
            .with_limit(RING as u32)
            .with_t_update(Duration::from_millis(5)),
    ];
    for (cfg, (seed, start)) in cfgs.iter().zip(STARTS) {
        let Ok(p) = PieProfile::new(cfg) else {
            out.put(u64::MAX);
            return;
        };
        let mut draws = SplitMix64::new(seed ^ 0xD4A);
        let mut s = Pie::new(&p, Instant::from_ticks(start));
        let mut q = Fifo::new();
        run_steps(seed, start, 0x91E, |now, r, rng| {
            for _ in 0..r % 4 {
                let h = Head::new(now, length(rng), r & 32 != 0);
                let qlen = q.ring.len() as u32;
                let v = ep::fw_pie_enqueue(&mut s, &p, now, h, qlen, q.bytes, &mut draws);
                out.put(verdict(v));
                if v != Verdict::Drop {
                    q.push(h);
                }
            }
            out.put(u64::from(ep::fw_pie_poll(&mut s, &p, now, q.bytes)));
            if let Some(h) = q.pop() {
                ep::fw_pie_dequeue(&mut s, &p, now, h, q.bytes);
            }
            out.put(s.prob());
            out.put(s.qdelay());
        });
    }
}

/// FQ-PIE with four flows: arrivals on random flows, a poll and one
/// scheduled departure a step.
pub fn fq_pie_stream(out: &mut dyn Sink) {
    let cfg = FqPieConfig::linux().with_limit(40).with_quantum(600);
    let Ok(p) = FqPieProfile::new(&cfg) else {
        out.put(u64::MAX);
        return;
    };
    for (seed, start) in STARTS {
        let mut draws = SplitMix64::new(seed ^ 0xD4A);
        let mut s = FqPie::<FQ_N>::new(&p, Instant::from_ticks(start));
        let mut q = [Fifo::new(); FQ_N];
        run_steps(seed, start, 0xF01E, |now, r, rng| {
            for i in 0..r % 4 {
                let flow = ((r >> (8 + 2 * i)) % FQ_N as u64) as usize;
                let h = Head::new(now, length(rng), false);
                if q[flow].ring.len() == RING {
                    out.put(3);
                    continue;
                }
                let v = ep::fw_fq_pie_enqueue(&mut s, &p, now, flow, h, &mut draws);
                out.put(verdict(v));
                if v != Verdict::Drop {
                    q[flow].push(h);
                }
            }
            out.put(u64::from(s.poll(&p, now)));
            let mut take = |f: usize| q[f].pop();
            if let Some(f) = ep::fw_fq_pie_dequeue(&mut s, &p, now, &mut take) {
                out.put(f as u64);
            }
        });
    }
}

/// DualPI2 at RFC 9332's parameters with a 30-packet shared buffer: packets
/// of every ECN codepoint, a poll and one dequeue (with its drops) a step.
pub fn dualpi2_stream(out: &mut dyn Sink) {
    let cfg = DualPi2Config::rfc9332().with_limit(30 * 1500, 1500);
    let Ok(p) = DualPi2Profile::new(&cfg) else {
        out.put(u64::MAX);
        return;
    };
    for (seed, start) in STARTS {
        let mut draws = SplitMix64::new(seed ^ 0xD4A);
        let mut s = DualPi2::new(&p, Instant::from_ticks(start));
        let mut l: Ring<DualHead, RING> = Ring::new();
        let mut cq: Ring<DualHead, RING> = Ring::new();
        let mut bytes = 0u64;
        run_steps(seed, start, 0xD2, |now, r, rng| {
            for i in 0..r % 4 {
                let ecn = Ecn::from_bits((r >> (8 + 2 * i)) as u8);
                let len = length(rng) % 1501;
                let joined = ep::fw_dualpi2_enqueue(&mut s, &p, now, ecn, len, bytes);
                let h = DualHead::new(now, len, ecn);
                let stored = match joined {
                    Some(DualQueue::L4s) => l.push(h),
                    Some(DualQueue::Classic) => cq.push(h),
                    None => false,
                };
                if stored {
                    bytes += u64::from(len);
                }
                out.put(match joined {
                    None => 0,
                    Some(DualQueue::L4s) => 1,
                    Some(DualQueue::Classic) => 2,
                });
            }
            let heads = (
                l.front().map(|h| h.enqueued),
                cq.front().map(|h| h.enqueued),
            );
            out.put(u64::from(ep::fw_dualpi2_poll(
                &mut s, &p, now, heads.0, heads.1,
            )));
            loop {
                let heads = (
                    l.front().map(|h| h.enqueued),
                    cq.front().map(|h| h.enqueued),
                );
                let mut take = |which: DualQueue| {
                    let fifo = if which == DualQueue::L4s {
                        &mut l
                    } else {
                        &mut cq
                    };
                    let h = fifo.pop()?;
                    bytes -= u64::from(h.len);
                    Some((h, fifo.len() as u32))
                };
                let Some((which, v)) =
                    ep::fw_dualpi2_dequeue(&mut s, &p, now, heads, &mut take, &mut draws)
                else {
                    break;
                };
                out.put(u64::from(which == DualQueue::L4s) << 2 | verdict(v));
                if v != Verdict::Drop {
                    break;
                }
            }
            out.put(s.p_prime());
        });
    }
}

/// TBF as `tc ... tbf rate 8mbit burst 3000 latency 10ms peakrate 16mbit
/// mtu 1600`: arrivals, then every head that may leave now, and the instant
/// the next one may.
pub fn tbf_stream(out: &mut dyn Sink) {
    let cfg = TbfConfig::with_latency(Rate::from_mbps(8), 3000, Duration::from_millis(10))
        .with_peak(Rate::from_mbps(16), 1600);
    let Ok(p) = TbfProfile::new(&cfg) else {
        out.put(u64::MAX);
        return;
    };
    for (seed, start) in STARTS {
        let mut s = Tbf::new(&p, Instant::from_ticks(start));
        let mut q: Ring<u32, RING> = Ring::new();
        run_steps(seed, start, 0x7BF, |now, r, rng| {
            for _ in 0..r % 4 {
                let len = length(rng);
                if q.len() == RING {
                    out.put(4);
                    continue;
                }
                let v = ep::fw_tbf_enqueue(&mut s, &p, now, len);
                out.put(match v {
                    TbfVerdict::Accept => u64::from(q.push(len)),
                    TbfVerdict::DropOverLimit => 2,
                    TbfVerdict::DropTooBig => 3,
                });
            }
            while let Some(len) = q.front() {
                match ep::fw_tbf_dequeue(&mut s, &p, now, len) {
                    TbfDeparture::Now => {
                        q.pop();
                        out.put(0);
                    }
                    TbfDeparture::At(t) => {
                        out.put(t.ticks());
                        break;
                    }
                    TbfDeparture::Never => {
                        q.pop();
                        out.put(1);
                    }
                }
            }
            out.put(s.tokens());
        });
    }
}
