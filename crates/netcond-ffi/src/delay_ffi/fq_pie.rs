//! FQ-PIE (Linux's `sch_fq_pie`) in C: `aqm_delay::FqPie` with 1024 flows,
//! the caller's FIFOs, PIE's parameters and verdicts of `delay_ffi/pie.rs`.
//!
//! For each arrival `netcond_fq_pie_enqueue` decides on the flow's PIE (and
//! the packet limit over all flows); a queued packet goes to the tail of its
//! flow's FIFO. To send, `netcond_fq_pie_schedule` names the flow to serve
//! (deficit round robin, new flows first) and `netcond_fq_pie_on_dequeue` is told
//! about the head taken from it. `netcond_fq_pie_poll`, on every event or from
//! a timer, updates every flow's probability once T_UPDATE has passed.

use super::pie::{pie_config, pie_info, pie_verdict, Draw64};
use super::*;
use aqm_delay::{FqPie, FqPieConfig, FqPieProfile};
use netcond_core::{RandomSource, SplitMix64};

use crate::red_ffi::netcond_rng;
use crate::state;

/// The flow queues of a `netcond_fq_pie`: flow indexes are taken modulo this.
pub const NETCOND_FQ_PIE_FLOWS: usize = 1024;
/// Size in bytes of a `netcond_fq_pie_profile`.
pub const NETCOND_FQ_PIE_PROFILE_SIZE: usize = 192;
/// Size in bytes of a `netcond_fq_pie` (a whole queue: 1024 flows of 120
/// bytes, the lists, counters and clocks, the tag).
pub const NETCOND_FQ_PIE_SIZE: usize = 122_944;

/// The parameters of an FQ-PIE queue.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_fq_pie_params {
    /// Each flow's PIE (its `limit` is not used; its `mtu` is the two-MTU
    /// threshold of each flow's backlog).
    pub pie: netcond_pie_params,
    /// The DRR quantum, bytes (Linux: 1514).
    pub quantum: u32,
    /// The packet limit over all flows (Linux: 10240).
    pub limit: u32,
    /// Mark ECN-capable packets instead of dropping them (with the PIE's
    /// `ecn` on) while the flow's probability is at most this many percent
    /// (Linux: 10).
    pub ecn_prob: u32,
    /// Reserved, set to 0.
    pub reserved: u32,
}

/// One flow queue of a `netcond_fq_pie`, for logs and tests.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct netcond_fq_pie_flow {
    /// Its DRR deficit, bytes.
    pub deficit: i64,
    /// Bytes queued.
    pub bytes: u64,
    /// Packets queued.
    pub packets: u32,
    /// Reserved, 0.
    pub reserved: u32,
    /// Its PIE.
    pub pie: netcond_pie_info,
}

/// A validated FQ-PIE profile (opaque).
#[repr(C, align(64))]
pub struct netcond_fq_pie_profile {
    /// Opaque.
    pub opaque: [u64; 24],
}

/// A whole FQ-PIE queue (opaque; must be started by `netcond_fq_pie_config`).
#[repr(C, align(64))]
pub struct netcond_fq_pie {
    /// Opaque.
    pub opaque: [u64; 15368],
}

type Fq = FqPie<NETCOND_FQ_PIE_FLOWS>;

const _: () =
    assert!(core::mem::size_of::<netcond_fq_pie_profile>() == NETCOND_FQ_PIE_PROFILE_SIZE);
const _: () = assert!(core::mem::size_of::<netcond_fq_pie>() == NETCOND_FQ_PIE_SIZE);
const _: () = assert!(core::mem::align_of::<netcond_fq_pie>() == 64);
const _: () = assert!(core::mem::size_of::<netcond_fq_pie_params>() == 88);
const _: () = assert!(core::mem::size_of::<netcond_fq_pie_flow>() == 80);
const _: () = assert!(crate::fits::<netcond_fq_pie, crate::Tagged<Fq>>());
const _: () = assert!(crate::fits::<
    netcond_fq_pie_profile,
    crate::Tagged<FqPieProfile>,
>());

const TAG_FQ_PIE: u64 = 0x6e63_6670;
const TAG_FQ_PIE_STATE: u64 = 0x6e63_6674;

/// The Rust configuration of `a`, or the status refusing it.
pub(crate) fn fq_pie_config(a: &netcond_fq_pie_params) -> Result<FqPieConfig, c_int> {
    crate::errors::reserved_zero(&[a.reserved.into()])?;
    Ok(FqPieConfig::linux()
        .with_pie(pie_config(&a.pie)?)
        .with_quantum(a.quantum)
        .with_limit(a.limit)
        .with_ecn_prob(a.ecn_prob))
}

/// Validates `params` and writes the FQ-PIE profile to `p`. Returns 0,
/// `NETCOND_E_NULL`, `NETCOND_E_TICK`, `NETCOND_E_ENUM` or a
/// `NETCOND_E_DELAY_*` code; on error `p` is unusable.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_pie_profile_config(
    p: *mut netcond_fq_pie_profile,
    params: *const netcond_fq_pie_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_FQ_PIE, |a| {
            FqPieProfile::new(&fq_pie_config(a)?).map_err(delay_code)
        })
    }
}

/// Starts queue `q` on profile `p` at `now`: every flow empty, on neither
/// list, the first update due one T_UPDATE after `now`. Returns 0 or
/// `NETCOND_E_NULL`. Builds the 120 KiB queue on the stack before copying it
/// to `q`.
///
/// # Safety
/// `q` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_pie_config(
    q: *mut netcond_fq_pie,
    p: *const netcond_fq_pie_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start_queue(q, p, TAG_FQ_PIE, TAG_FQ_PIE_STATE, now, Fq::new) }
}

/// The queue and profile, if both are present and started.
///
/// # Safety
/// `q` and `p` are NULL or valid; `q` is used by this call only.
#[inline(always)]
unsafe fn fq<'a>(
    q: *mut netcond_fq_pie,
    p: *const netcond_fq_pie_profile,
) -> Option<(&'a mut Fq, &'a FqPieProfile)> {
    // SAFETY: caller contract, passed on.
    unsafe { queue_and_profile(q, p, TAG_FQ_PIE, TAG_FQ_PIE_STATE) }
}

const ENQUEUE: netcond_pie_verdict = netcond_pie_verdict::NETCOND_PIE_ENQUEUE;

/// The verdict through `q`'s flow's PIE.
///
/// # Safety
/// As `netcond_fq_pie_enqueue`.
#[allow(clippy::too_many_arguments)]
unsafe fn enqueue<R: RandomSource>(
    q: *mut netcond_fq_pie,
    p: *const netcond_fq_pie_profile,
    now: u64,
    flow: u32,
    len: u32,
    ecn_capable: c_int,
    rng: &mut R,
) -> netcond_pie_verdict {
    // SAFETY: caller contract, passed on.
    match unsafe { fq(q, p) } {
        Some((q, p)) => {
            let t = Instant::from_ticks(now);
            let h = Head::new(t, len, ecn_capable == 1);
            pie_verdict(q.enqueue(p, t, flow as usize, h, rng))
        }
        None => ENQUEUE,
    }
}

/// The verdict for a packet of `len` bytes, ECN-capable if `ecn_capable` is 1,
/// arriving at `now` to flow `flow` (modulo `NETCOND_FQ_PIE_FLOWS`; the
/// caller's hash or classifier), with draws from `rng`: `NETCOND_PIE_DROP`
/// when `limit` packets are queued over all flows or the flow's PIE drops it
/// early, `NETCOND_PIE_MARK` (set CE) for an ECN-capable early-drop candidate
/// while the flow's probability is at most `ecn_prob` percent. On
/// `NETCOND_PIE_ENQUEUE` or `NETCOND_PIE_MARK` push it to the flow's FIFO. A
/// NULL, unstarted or unconfigured argument gives `NETCOND_PIE_ENQUEUE` and
/// changes nothing.
///
/// # Safety
/// Each pointer is NULL or valid; `q` and `rng` are used by one thread.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn netcond_fq_pie_enqueue(
    q: *mut netcond_fq_pie,
    p: *const netcond_fq_pie_profile,
    now: u64,
    flow: u32,
    len: u32,
    ecn_capable: c_int,
    rng: *mut netcond_rng,
) -> netcond_pie_verdict {
    // SAFETY: caller contract.
    let Some(rng) = (unsafe { state::<_, SplitMix64>(rng) }) else {
        return ENQUEUE;
    };
    // SAFETY: caller contract, passed on.
    unsafe { enqueue(q, p, now, flow, len, ecn_capable, rng) }
}

/// As `netcond_fq_pie_enqueue`, with `draw` (a uniform 64-bit value) for the
/// one random draw the decision may take.
///
/// # Safety
/// As `netcond_fq_pie_enqueue`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn netcond_fq_pie_enqueue_draw(
    q: *mut netcond_fq_pie,
    p: *const netcond_fq_pie_profile,
    now: u64,
    flow: u32,
    len: u32,
    ecn_capable: c_int,
    draw: u64,
) -> netcond_pie_verdict {
    let mut rng = Draw64 {
        value: draw,
        high_next: true,
    };
    // SAFETY: caller contract, passed on.
    unsafe { enqueue(q, p, now, flow, len, ecn_capable, &mut rng) }
}

/// The flow to serve at `now` (new flows first, then old ones, by deficit
/// round robin): returns 1 and writes it to `*flow` (if not NULL), 0 if every
/// flow is empty, `NETCOND_E_NULL` if `q` or `p` is NULL or unstarted.
///
/// # Safety
/// `q`, `p` and `flow` are NULL or valid; `q` is used by one thread.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_pie_schedule(
    q: *mut netcond_fq_pie,
    p: *const netcond_fq_pie_profile,
    now: u64,
    flow: *mut u32,
) -> c_int {
    // SAFETY: caller contract, passed on.
    let Some((q, p)) = (unsafe { fq(q, p) }) else {
        return NETCOND_E_NULL;
    };
    // SAFETY: `flow` is NULL or writable (caller contract).
    unsafe { scheduled(q.schedule(p, Instant::from_ticks(now)), flow) }
}

/// The head packet just taken at `now` from flow `flow`'s FIFO (the flow
/// `netcond_fq_pie_schedule` named), enqueued at `enqueued_at`, `len` bytes:
/// charged to the flow's deficit, its sojourn time given to the flow's PIE.
/// Does nothing on a NULL, unstarted or unconfigured argument.
///
/// # Safety
/// `q` and `p` are NULL or valid; `q` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_pie_on_dequeue(
    q: *mut netcond_fq_pie,
    p: *const netcond_fq_pie_profile,
    now: u64,
    flow: u32,
    enqueued_at: u64,
    len: u32,
) {
    // SAFETY: caller contract, passed on.
    if let Some((q, p)) = unsafe { fq(q, p) } {
        q.on_dequeue(
            p,
            Instant::from_ticks(now),
            flow as usize,
            Head::new(Instant::from_ticks(enqueued_at), len, false),
        );
    }
}

/// The old name of `netcond_fq_pie_on_dequeue`, which it calls.
///
/// # Safety
/// As `netcond_fq_pie_on_dequeue`.
#[deprecated(since = "0.1.0", note = "renamed to netcond_fq_pie_on_dequeue")]
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_pie_dequeue(
    q: *mut netcond_fq_pie,
    p: *const netcond_fq_pie_profile,
    now: u64,
    flow: u32,
    enqueued_at: u64,
    len: u32,
) {
    // SAFETY: caller contract, passed on.
    unsafe { netcond_fq_pie_on_dequeue(q, p, now, flow, enqueued_at, len) }
}

/// Every flow's probability update, if due at `now` (one T_UPDATE after the
/// previous one); the next is then due one T_UPDATE after `now`. Returns 1 if
/// it ran, 0 if not, `NETCOND_E_NULL` on a NULL, unstarted or unconfigured
/// argument.
///
/// # Safety
/// `q` and `p` are NULL or valid; `q` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_pie_poll(
    q: *mut netcond_fq_pie,
    p: *const netcond_fq_pie_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    match unsafe { fq(q, p) } {
        Some((q, p)) => c_int::from(q.poll(p, Instant::from_ticks(now))),
        None => NETCOND_E_NULL,
    }
}

/// Packets in the whole queue, or 0 if `q` is NULL or unstarted.
///
/// # Safety
/// `q` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_pie_packets(q: *const netcond_fq_pie) -> u32 {
    // SAFETY: caller contract.
    match unsafe { profile::<_, Fq>(q, TAG_FQ_PIE_STATE) } {
        Some(q) => q.totals().0,
        None => 0,
    }
}

/// Bytes in the whole queue, or 0 if `q` is NULL or unstarted.
///
/// # Safety
/// `q` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_pie_bytes(q: *const netcond_fq_pie) -> u64 {
    // SAFETY: caller contract.
    match unsafe { profile::<_, Fq>(q, TAG_FQ_PIE_STATE) } {
        Some(q) => q.totals().1,
        None => 0,
    }
}

/// Writes flow `flow`'s state (`flow` modulo `NETCOND_FQ_PIE_FLOWS`) to
/// `*out`. Returns 0, or `NETCOND_E_NULL` (leaving `*out` untouched) if `q`
/// or `out` is NULL or `q` is unstarted.
///
/// # Safety
/// `q` and `out` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_pie_flow_get(
    q: *const netcond_fq_pie,
    flow: u32,
    out: *mut netcond_fq_pie_flow,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(q), Some(out)) = (unsafe { (profile::<_, Fq>(q, TAG_FQ_PIE_STATE), out.as_mut()) })
    else {
        return NETCOND_E_NULL;
    };
    *out = flow_of(q, flow as usize);
    NETCOND_OK
}

fn flow_of(q: &Fq, f: usize) -> netcond_fq_pie_flow {
    let (packets, bytes, deficit) = q.flow(f);
    netcond_fq_pie_flow {
        deficit,
        bytes,
        packets,
        reserved: 0,
        pie: pie_info(q.pie(f)),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    //! The C calls against `aqm_delay::FqPie` through the Rust API, packet for
    //! packet, on seeded random streams; configuration errors and bad
    //! arguments.

    use super::*;
    use crate::delay_ffi::tests::{Rng, NS};
    use crate::errors::{
        NETCOND_E_DELAY_FQ_PIE_ECN_PROB_TOO_LARGE, NETCOND_E_DELAY_QUANTUM_TOO_LARGE,
        NETCOND_E_DELAY_ZERO_LIMIT, NETCOND_E_DELAY_ZERO_QUANTUM, NETCOND_E_DELAY_ZERO_UPDATE,
    };
    use crate::red_ffi::netcond_rng_seed;
    use std::collections::VecDeque;

    pub(crate) fn fq_params(ecn: u32, hz: u64) -> netcond_fq_pie_params {
        netcond_fq_pie_params {
            pie: netcond_pie_params {
                target_ns: 15_000_000,
                t_update_ns: 15_000_000,
                max_burst_ns: 150_000_000,
                tick_hz: hz,
                alpha: 2,
                beta: 20,
                limit: 1000,
                mtu: 1514,
                ecn,
                bytemode: 0,
                bound_prob: 0,
                reserved0: 0,
                reserved: 0,
            },
            quantum: 1514,
            limit: 2000,
            ecn_prob: 10,
            reserved: 0,
        }
    }

    fn new_profile(a: &netcond_fq_pie_params) -> (c_int, Box<netcond_fq_pie_profile>) {
        let mut p = Box::new(netcond_fq_pie_profile { opaque: [0; 24] });
        // SAFETY: both pointers are valid.
        let rc = unsafe { netcond_fq_pie_profile_config(&mut *p, a) };
        (rc, p)
    }

    /// Flows hashed to 12 indexes (two beyond 1024, aliasing 3 and 5), two
    /// heavy, arrivals in phases over and under the link: the C calls and
    /// `FqPie<1024>` through the Rust API side by side, every answer and the
    /// touched flow's state compared. Returns delivered, marked, dropped.
    fn fq_stream(a: &netcond_fq_pie_params, seed: u64, supplied: bool) -> [u64; 3] {
        let (rc, cp) = new_profile(a);
        assert_eq!(rc, 0);
        let rp = FqPieProfile::new(&fq_pie_config(a).unwrap()).unwrap();
        let mut cq: Box<netcond_fq_pie> = Box::new(netcond_fq_pie { opaque: [0; 15368] });
        // SAFETY: valid pointers.
        assert_eq!(unsafe { netcond_fq_pie_config(&mut *cq, &*cp, 0) }, 0);
        let mut rq: Box<Fq> = Box::new(Fq::new(&rp, Instant::ZERO));
        let mut fifos = vec![VecDeque::<(u64, u32)>::new(); NETCOND_FQ_PIE_FLOWS];
        let keys: [u32; 12] = [0, 1, 2, 3, 5, 8, 13, 21, 34, 1023, 1027, 1029];
        let mut crng = netcond_rng { opaque: [0] };
        // SAFETY: valid pointer.
        unsafe { netcond_rng_seed(&mut crng, seed) };
        let mut rrng = SplitMix64::new(seed);
        let mut rng = Rng(seed ^ 0xf9);
        let per_us = a.pie.tick_hz / 1_000_000;
        let mut now = 0u64;
        let mut counts = [0u64; 3];
        let same = |cq: &netcond_fq_pie, rq: &Fq, f: u32| {
            let mut got = netcond_fq_pie_flow::default();
            // SAFETY: valid pointers.
            assert_eq!(unsafe { netcond_fq_pie_flow_get(cq, f, &mut got) }, 0);
            assert_eq!(got, flow_of(rq, f as usize));
            // SAFETY: valid pointers.
            unsafe {
                assert_eq!(netcond_fq_pie_packets(cq), rq.totals().0);
                assert_eq!(netcond_fq_pie_bytes(cq), rq.totals().1);
            }
        };
        for i in 0..60_000u64 {
            let r = rng.next();
            let phase = (i / 10_000) % 3;
            now += (r % 100 + 1) * per_us;
            // SAFETY: valid pointers.
            let ran = unsafe { netcond_fq_pie_poll(&mut *cq, &*cp, now) };
            assert_eq!(ran, c_int::from(rq.poll(&rp, Instant::from_ticks(now))));
            let arrive = match phase {
                0 => (r >> 20) % 4 < 3,
                1 => (r >> 20) % 2 == 0,
                _ => (r >> 20) % 4 == 0,
            };
            if arrive {
                // Flows 0 and 1 carry half the arrivals.
                let k = if (r >> 30) % 2 == 0 {
                    ((r >> 31) % 2) as usize
                } else {
                    ((r >> 32) % 12) as usize
                };
                let flow = keys[k];
                let len = 64 + ((r >> 40) % 1451) as u32;
                let ecn = c_int::from((r >> 52) % 2 == 0);
                let draw = rng.next();
                // SAFETY: valid pointers.
                let c = unsafe {
                    if supplied {
                        netcond_fq_pie_enqueue_draw(&mut *cq, &*cp, now, flow, len, ecn, draw)
                    } else {
                        netcond_fq_pie_enqueue(&mut *cq, &*cp, now, flow, len, ecn, &mut crng)
                    }
                };
                let t = Instant::from_ticks(now);
                let h = Head::new(t, len, ecn == 1);
                let w = if supplied {
                    let mut d = Draw64 {
                        value: draw,
                        high_next: true,
                    };
                    rq.enqueue(&rp, t, flow as usize, h, &mut d)
                } else {
                    rq.enqueue(&rp, t, flow as usize, h, &mut rrng)
                };
                assert_eq!(c, pie_verdict(w), "step {i}");
                counts[c as usize] += 1;
                if w != Verdict::Drop {
                    fifos[flow as usize % NETCOND_FQ_PIE_FLOWS].push_back((now, len));
                }
                same(&cq, &rq, flow);
            }
            if (r >> 56) % 2 == 0 {
                let mut f = u32::MAX;
                // SAFETY: valid pointers.
                let got = unsafe { netcond_fq_pie_schedule(&mut *cq, &*cp, now, &mut f) };
                let want = rq.schedule(&rp, Instant::from_ticks(now));
                assert_eq!(got, c_int::from(want.is_some()), "step {i}");
                if let Some(w) = want {
                    assert_eq!(f as usize, w, "step {i}");
                    let (at, len) = fifos[w].pop_front().unwrap();
                    // SAFETY: valid pointers. Every other step through
                    // the old name, which must do the same.
                    #[allow(deprecated)]
                    unsafe {
                        if i % 2 == 0 {
                            netcond_fq_pie_on_dequeue(&mut *cq, &*cp, now, f, at, len)
                        } else {
                            netcond_fq_pie_dequeue(&mut *cq, &*cp, now, f, at, len)
                        }
                    };
                    rq.on_dequeue(
                        &rp,
                        Instant::from_ticks(now),
                        w,
                        Head::new(Instant::from_ticks(at), len, false),
                    );
                    same(&cq, &rq, f);
                }
            }
        }
        counts
    }

    #[test]
    fn c_calls_give_the_rust_verdicts_call_for_call() {
        for (k, a) in [fq_params(0, NS), fq_params(1, 1_000_000)]
            .iter()
            .enumerate()
        {
            for supplied in [false, true] {
                let counts = fq_stream(a, 3 + k as u64, supplied);
                assert!(counts[2] > 500, "{k}: {counts:?}");
                if a.pie.ecn == 1 {
                    assert!(counts[1] > 10, "{k}: {counts:?}");
                } else {
                    assert_eq!(counts[1], 0, "{k}: {counts:?}");
                }
            }
        }
    }

    #[test]
    fn errors_and_bad_arguments() {
        let good = fq_params(1, NS);
        let (rc, p) = new_profile(&good);
        assert_eq!(rc, 0);
        type Case = (fn(&mut netcond_fq_pie_params), c_int);
        let cases: [Case; 7] = [
            (|a| a.quantum = 0, NETCOND_E_DELAY_ZERO_QUANTUM),
            (|a| a.quantum = 1 << 31, NETCOND_E_DELAY_QUANTUM_TOO_LARGE),
            (|a| a.limit = 0, NETCOND_E_DELAY_ZERO_LIMIT),
            (
                |a| a.ecn_prob = 101,
                NETCOND_E_DELAY_FQ_PIE_ECN_PROB_TOO_LARGE,
            ),
            (|a| a.pie.t_update_ns = 0, NETCOND_E_DELAY_ZERO_UPDATE),
            (|a| a.pie.ecn = 2, NETCOND_E_ENUM),
            (|a| a.pie.tick_hz = 0, NETCOND_E_TICK),
        ];
        for (n, (f, want)) in cases.into_iter().enumerate() {
            let mut a = good;
            f(&mut a);
            assert_eq!(new_profile(&a).0, want, "case {n}");
        }
        let mut a = good;
        a.ecn_prob = 100;
        assert_eq!(new_profile(&a).0, 0);
        let never = netcond_fq_pie_profile { opaque: [0; 24] };
        let mut q: Box<netcond_fq_pie> = Box::new(netcond_fq_pie { opaque: [0; 15368] });
        let mut rng = netcond_rng { opaque: [0] };
        let drop = netcond_pie_verdict::NETCOND_PIE_DROP;
        // SAFETY: every pointer is NULL or valid.
        unsafe {
            netcond_rng_seed(&mut rng, 1);
            assert_eq!(netcond_fq_pie_config(&mut *q, &never, 0), NETCOND_E_NULL);
            assert_eq!(
                netcond_fq_pie_config(core::ptr::null_mut(), &*p, 0),
                NETCOND_E_NULL
            );
            assert_eq!(
                netcond_fq_pie_profile_config(core::ptr::null_mut(), &good),
                NETCOND_E_NULL
            );
            // Unstarted: enqueue, nothing changes.
            assert_eq!(
                netcond_fq_pie_enqueue(&mut *q, &*p, 1, 0, 1500, 0, &mut rng),
                ENQUEUE
            );
            assert_eq!(
                netcond_fq_pie_enqueue_draw(&mut *q, &*p, 1, 0, 1500, 0, 0),
                ENQUEUE
            );
            assert_eq!(
                netcond_fq_pie_schedule(&mut *q, &*p, 1, core::ptr::null_mut()),
                NETCOND_E_NULL
            );
            assert_eq!(netcond_fq_pie_poll(&mut *q, &*p, 1 << 40), NETCOND_E_NULL);
            netcond_fq_pie_on_dequeue(&mut *q, &*p, 1, 0, 0, 1500);
            assert!(q.opaque.iter().all(|&w| w == 0));
            assert_eq!(netcond_fq_pie_packets(&*q), 0);
            let mut fl = netcond_fq_pie_flow::default();
            assert_eq!(netcond_fq_pie_flow_get(&*q, 0, &mut fl), NETCOND_E_NULL);
            assert_eq!(netcond_fq_pie_config(&mut *q, &*p, 0), 0);
            assert_eq!(
                netcond_fq_pie_enqueue(&mut *q, &*p, 1, 0, 1500, 0, core::ptr::null_mut()),
                ENQUEUE
            );
            assert_eq!(
                netcond_fq_pie_enqueue(&mut *q, &never, 1, 0, 1500, 0, &mut rng),
                ENQUEUE
            );
            assert_eq!(netcond_fq_pie_packets(&*q), 0);
            // Fill to the limit (2000 packets) across flows; the next is dropped.
            for i in 0..2000u32 {
                assert_eq!(
                    netcond_fq_pie_enqueue_draw(&mut *q, &*p, 2, i, 100, 0, u64::MAX),
                    ENQUEUE
                );
            }
            assert_eq!(
                (netcond_fq_pie_packets(&*q), netcond_fq_pie_bytes(&*q)),
                (2000, 200_000)
            );
            assert_eq!(
                netcond_fq_pie_enqueue_draw(&mut *q, &*p, 2, 7, 100, 0, u64::MAX),
                drop
            );
            // Flow 1024 is flow 0: packets 0 and 1024, a quantum of credit.
            assert_eq!(netcond_fq_pie_flow_get(&*q, 1024, &mut fl), 0);
            assert_eq!((fl.packets, fl.bytes, fl.deficit), (2, 200, 1514));
            assert_eq!(
                netcond_fq_pie_flow_get(&*q, 0, core::ptr::null_mut()),
                NETCOND_E_NULL
            );
            // New flows in arrival order.
            let mut f = u32::MAX;
            assert_eq!(netcond_fq_pie_schedule(&mut *q, &*p, 3, &mut f), 1);
            assert_eq!(f, 0);
            netcond_fq_pie_on_dequeue(&mut *q, &*p, 3, 0, 2, 100);
            assert_eq!(netcond_fq_pie_flow_get(&*q, 0, &mut fl), 0);
            assert_eq!((fl.packets, fl.bytes, fl.deficit), (1, 100, 1414));
            // Credit left and a packet: flow 0 again, then flow 1.
            assert_eq!(netcond_fq_pie_schedule(&mut *q, &*p, 3, &mut f), 1);
            assert_eq!(f, 0);
            netcond_fq_pie_on_dequeue(&mut *q, &*p, 3, 0, 2, 100);
            assert_eq!(netcond_fq_pie_schedule(&mut *q, &*p, 3, &mut f), 1);
            assert_eq!(f, 1);
            assert_eq!(netcond_fq_pie_packets(&*q), 1998);
            // The first update is due one T_UPDATE after the start.
            assert_eq!(netcond_fq_pie_poll(&mut *q, &*p, 14_999_999), 0);
            assert_eq!(netcond_fq_pie_poll(&mut *q, &*p, 15_000_000), 1);
        }
    }
}
