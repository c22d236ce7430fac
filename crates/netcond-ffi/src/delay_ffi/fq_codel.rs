//! FQ-CoDel (RFC 8290) in C: `aqm_delay::FqCodel` with Linux's 1024 flows,
//! the caller's FIFOs, and the CoDel profile and verdicts of the parent module.

use super::*;
use aqm_delay::FqCodel;

/// The flow queues of a `netcond_fq_codel` (Linux's default): flow indexes are
/// taken modulo this.
pub const NETCOND_FQ_CODEL_FLOWS: usize = 1024;
/// Size in bytes of a `netcond_fq_codel_profile`.
pub const NETCOND_FQ_CODEL_PROFILE_SIZE: usize = 128;
/// Size in bytes of a `netcond_fq_codel` (a whole queue: 1024 flows of 64
/// bytes, the lists and counters, the tag).
pub const NETCOND_FQ_CODEL_SIZE: usize = 65_600;

/// What an FQ-CoDel overflow drops (RFC 8290 section 4.1).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_fq_overflow {
    /// One packet from the head of the fattest flow.
    NETCOND_FQ_OVERFLOW_SINGLE = 0,
    /// Linux's `fq_codel_drop`: from the head of the fattest flow until half
    /// its bytes are gone, at most `drop_batch` packets.
    NETCOND_FQ_OVERFLOW_BATCH = 1,
}

/// The parameters of an FQ-CoDel queue (RFC 8290 section 5.2).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_fq_codel_params {
    /// The CoDel of every flow queue (its `mtu` is compared with the bytes of
    /// the whole queue, as in Linux).
    pub codel: netcond_codel_params,
    /// The DRR quantum, bytes (RFC 8290 section 5.2.4; Linux: 1514).
    pub quantum: u32,
    /// The packet limit of the whole queue (section 5.2.3; Linux: 10240).
    pub limit: u32,
    /// A `netcond_fq_overflow`.
    pub overflow: u32,
    /// With `NETCOND_FQ_OVERFLOW_BATCH`, the most packets one overflow drops
    /// (Linux's `drop_batch_size`, 64); ignored otherwise.
    pub drop_batch: u32,
    /// Reserved, set to 0.
    pub reserved: u64,
}

/// What an overflow dropped.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct netcond_fq_overflow_info {
    /// Bytes dropped.
    pub bytes: u64,
    /// The flow whose head packets were dropped (the fattest).
    pub victim: u32,
    /// Packets dropped.
    pub packets: u32,
}

/// One flow queue of a `netcond_fq_codel`, for logs and tests.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct netcond_fq_codel_flow {
    /// Its DRR deficit, bytes.
    pub deficit: i64,
    /// Bytes queued.
    pub bytes: u64,
    /// Packets queued.
    pub packets: u32,
    /// 0 on neither list, 1 on the new flows, 2 on the old flows.
    pub list: u32,
    /// Its CoDel.
    pub codel: netcond_codel_info,
}

/// A validated FQ-CoDel profile (opaque).
#[repr(C, align(64))]
pub struct netcond_fq_codel_profile {
    /// Opaque.
    pub opaque: [u64; 16],
}

/// A whole FQ-CoDel queue (opaque; must be started by
/// `netcond_fq_codel_config`).
#[repr(C, align(64))]
pub struct netcond_fq_codel {
    /// Opaque.
    pub opaque: [u64; 8200],
}

/// The caller's drop of the head packet of flow `flow`'s FIFO on overflow:
/// removes it, writes its length to `*len` and returns 1, or returns 0 if the
/// FIFO is empty. `ctx` is the pointer given to `netcond_fq_codel_enqueue`.
pub type netcond_fq_drop_head_fn =
    Option<unsafe extern "C" fn(ctx: *mut core::ffi::c_void, flow: u32, len: *mut u32) -> c_int>;

type Fq = FqCodel<NETCOND_FQ_CODEL_FLOWS>;

const _: () =
    assert!(core::mem::size_of::<netcond_fq_codel_profile>() == NETCOND_FQ_CODEL_PROFILE_SIZE);
const _: () = assert!(core::mem::size_of::<netcond_fq_codel>() == NETCOND_FQ_CODEL_SIZE);
const _: () = assert!(core::mem::align_of::<netcond_fq_codel>() == 64);
const _: () = assert!(core::mem::size_of::<netcond_fq_codel_params>() == 72);
const _: () = assert!(core::mem::size_of::<netcond_fq_overflow_info>() == 16);
const _: () = assert!(core::mem::size_of::<netcond_fq_codel_flow>() == 72);
const _: () = assert!(crate::fits::<netcond_fq_codel, crate::Tagged<Fq>>());
const _: () = assert!(crate::fits::<
    netcond_fq_codel_profile,
    crate::Tagged<FqCodelProfile>,
>());

const TAG_FQ_CODEL: u64 = 0x6e63_6671;
const TAG_FQ_CODEL_STATE: u64 = 0x6e63_6673;

/// Validates `params` and writes the FQ-CoDel profile to `p`. Returns 0,
/// `NETCOND_E_NULL`, `NETCOND_E_TICK`, `NETCOND_E_ENUM` or a
/// `NETCOND_E_DELAY_*` code; on error `p` is unusable.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_codel_profile_config(
    p: *mut netcond_fq_codel_profile,
    params: *const netcond_fq_codel_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_FQ_CODEL, |a| {
            crate::errors::reserved_zero(&[a.reserved])?;
            let overflow = match a.overflow {
                0 => OverflowDrop::Single,
                1 => OverflowDrop::Batch {
                    max_packets: a.drop_batch,
                },
                _ => return Err(NETCOND_E_ENUM),
            };
            FqCodelProfile::new(
                &FqCodelConfig::rfc8290()
                    .with_codel(codel_config(&a.codel)?)
                    .with_quantum(a.quantum)
                    .with_limit(a.limit)
                    .with_overflow(overflow),
            )
            .map_err(delay_code)
        })
    }
}

/// Starts queue `q` on profile `p` at `now`: every flow empty, on neither
/// list. Returns 0 or `NETCOND_E_NULL`. Builds the 64 KiB queue on the stack
/// before copying it to `q`.
///
/// # Safety
/// `q` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_codel_config(
    q: *mut netcond_fq_codel,
    p: *const netcond_fq_codel_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start_queue(q, p, TAG_FQ_CODEL, TAG_FQ_CODEL_STATE, now, Fq::new) }
}

/// The queue and profile, if both are present and started.
///
/// # Safety
/// `q` and `p` are NULL or valid; `q` is used by this call only.
#[inline(always)]
unsafe fn fq<'a>(
    q: *mut netcond_fq_codel,
    p: *const netcond_fq_codel_profile,
) -> Option<(&'a mut Fq, &'a FqCodelProfile)> {
    // SAFETY: caller contract, passed on.
    unsafe { queue_and_profile(q, p, TAG_FQ_CODEL, TAG_FQ_CODEL_STATE) }
}

/// A packet of `len` bytes was pushed to the tail of flow `flow`'s FIFO
/// (`flow` modulo `NETCOND_FQ_CODEL_FLOWS`; the caller's hash or classifier).
/// Returns 0 if the queue is within its limit; 1 if it went over it, after
/// calling `drop_head(ctx, victim, &len)` for each packet to drop from the
/// head of the fattest flow, with what was dropped written to `*out` (if not
/// NULL); `NETCOND_E_NULL` (nothing changed) if `q`, `p` or `drop_head` is
/// NULL or `q` is unstarted.
///
/// # Safety
/// `q`, `p` and `out` are NULL or valid; `q` is used by one thread during the
/// call; `drop_head` is NULL or a function that may be called with `ctx`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn netcond_fq_codel_enqueue(
    q: *mut netcond_fq_codel,
    p: *const netcond_fq_codel_profile,
    now: u64,
    flow: u32,
    len: u32,
    drop_head: netcond_fq_drop_head_fn,
    ctx: *mut core::ffi::c_void,
    out: *mut netcond_fq_overflow_info,
) -> c_int {
    let Some(drop_head) = drop_head else {
        return NETCOND_E_NULL;
    };
    // SAFETY: caller contract, passed on.
    let Some((q, p)) = (unsafe { fq(q, p) }) else {
        return NETCOND_E_NULL;
    };
    let r = q.enqueue(p, Instant::from_ticks(now), flow as usize, len, |victim| {
        let mut l = 0u32;
        // SAFETY: the caller's callback with its own context (caller contract);
        // `victim` is below NETCOND_FQ_CODEL_FLOWS.
        let dropped = unsafe { drop_head(ctx, victim as u32, &mut l) };
        (dropped == 1).then_some(l)
    });
    match r {
        Enqueued::Queued => 0,
        Enqueued::Overflow {
            victim,
            packets,
            bytes,
        } => {
            // SAFETY: `out` is NULL or writable (caller contract).
            if let Some(o) = unsafe { out.as_mut() } {
                *o = netcond_fq_overflow_info {
                    bytes,
                    victim: victim as u32,
                    packets,
                };
            }
            1
        }
    }
}

/// The flow to serve at `now` (RFC 8290 section 4.2: new flows first, then
/// old ones, by deficit round robin): returns 1 and writes it to `*flow` (if
/// not NULL), 0 if every flow is empty, `NETCOND_E_NULL` if `q` or `p` is NULL
/// or unstarted. While a flow's CoDel is dropping in one dequeue, the same
/// flow comes back.
///
/// # Safety
/// `q`, `p` and `flow` are NULL or valid; `q` is used by one thread.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_codel_schedule(
    q: *mut netcond_fq_codel,
    p: *const netcond_fq_codel_profile,
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

/// The verdict for the head packet just taken from flow `flow`'s FIFO (the
/// flow `netcond_fq_codel_schedule` named): enqueued at `enqueued_at`, `len`
/// bytes, ECN-capable if `ecn_capable` is 1. The flow's CoDel decides with the
/// bytes left in the whole queue as its backlog. On `NETCOND_CODEL_DROP`,
/// drop it and call `netcond_fq_codel_schedule` again. A NULL or unstarted
/// argument gives `NETCOND_CODEL_DELIVER` and changes nothing.
///
/// # Safety
/// `q` and `p` are NULL or valid; `q` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_codel_on_dequeue(
    q: *mut netcond_fq_codel,
    p: *const netcond_fq_codel_profile,
    now: u64,
    flow: u32,
    enqueued_at: u64,
    len: u32,
    ecn_capable: c_int,
) -> netcond_codel_verdict {
    // SAFETY: caller contract, passed on.
    match unsafe { fq(q, p) } {
        Some((q, p)) => verdict(q.on_dequeue(
            p,
            Instant::from_ticks(now),
            flow as usize,
            Head::new(Instant::from_ticks(enqueued_at), len, ecn_capable == 1),
        )),
        None => DELIVER,
    }
}

/// Packets in the whole queue, or 0 if `q` is NULL or unstarted.
///
/// # Safety
/// `q` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_codel_packets(q: *const netcond_fq_codel) -> u32 {
    // SAFETY: caller contract.
    match unsafe { profile::<_, Fq>(q, TAG_FQ_CODEL_STATE) } {
        Some(q) => q.packets(),
        None => 0,
    }
}

/// Bytes in the whole queue, or 0 if `q` is NULL or unstarted.
///
/// # Safety
/// `q` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_codel_bytes(q: *const netcond_fq_codel) -> u64 {
    // SAFETY: caller contract.
    match unsafe { profile::<_, Fq>(q, TAG_FQ_CODEL_STATE) } {
        Some(q) => q.bytes(),
        None => 0,
    }
}

/// Writes flow `flow`'s state (`flow` modulo `NETCOND_FQ_CODEL_FLOWS`) to
/// `*out`. Returns 0, or `NETCOND_E_NULL` (leaving `*out` untouched) if `q`
/// or `out` is NULL or `q` is unstarted.
///
/// # Safety
/// `q` and `out` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_codel_flow_get(
    q: *const netcond_fq_codel,
    flow: u32,
    out: *mut netcond_fq_codel_flow,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(q), Some(out)) = (unsafe { (profile::<_, Fq>(q, TAG_FQ_CODEL_STATE), out.as_mut()) })
    else {
        return NETCOND_E_NULL;
    };
    *out = flow_of(q, flow as usize % NETCOND_FQ_CODEL_FLOWS);
    NETCOND_OK
}

fn flow_of(q: &Fq, f: usize) -> netcond_fq_codel_flow {
    netcond_fq_codel_flow {
        deficit: q.deficit(f),
        bytes: q.flow_bytes(f),
        packets: q.flow_packets(f),
        list: if q.is_new(f) {
            1
        } else if q.is_old(f) {
            2
        } else {
            0
        },
        codel: info_of(q.codel(f)),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    //! The C calls against `aqm_delay::FqCodel` through the Rust API, packet
    //! for packet, on seeded random streams; configuration errors and bad
    //! arguments.

    use super::*;
    use crate::delay_ffi::tests::{params, Rng, NS};
    use crate::errors::{
        NETCOND_E_DELAY_QUANTUM_TOO_LARGE, NETCOND_E_DELAY_ZERO_DROP_BATCH,
        NETCOND_E_DELAY_ZERO_LIMIT, NETCOND_E_DELAY_ZERO_QUANTUM, NETCOND_E_DELAY_ZERO_TARGET,
    };
    use std::collections::VecDeque;

    fn fq_params(law: u32, ecn: u32, overflow: u32) -> netcond_fq_codel_params {
        netcond_fq_codel_params {
            codel: params(law, 0, ecn, NS),
            quantum: 1514,
            limit: 300,
            overflow,
            drop_batch: 64,
            reserved: 0,
        }
    }

    /// The caller's FIFOs (enqueue instant, length, ECN), one per flow index
    /// as given (the C side takes them modulo 1024).
    struct Fifos(Vec<VecDeque<(u64, u32, bool)>>);

    unsafe extern "C" fn drop_head(ctx: *mut core::ffi::c_void, flow: u32, len: *mut u32) -> c_int {
        // SAFETY: the test passes a live `Fifos` and a writable `len`.
        let f = unsafe { &mut *ctx.cast::<Fifos>() };
        match f.0[flow as usize].pop_front() {
            Some((_, l, _)) => {
                // SAFETY: as above.
                unsafe { *len = l };
                1
            }
            None => 0,
        }
    }

    /// Flows hashed to 12 indexes (two of them beyond 1024, aliasing 3 and
    /// 5), arrivals in overload and underload phases, over the packet limit
    /// at times: the C calls and `FqCodel<1024>` through the Rust API side by
    /// side, every answer and the touched flow's state compared.
    fn fq_stream(a: &netcond_fq_codel_params, seed: u64) -> [u64; 4] {
        let mut cp = Box::new(netcond_fq_codel_profile { opaque: [0; 16] });
        // SAFETY: valid pointers.
        assert_eq!(unsafe { netcond_fq_codel_profile_config(&mut *cp, a) }, 0);
        let overflow = if a.overflow == 0 {
            OverflowDrop::Single
        } else {
            OverflowDrop::Batch {
                max_packets: a.drop_batch,
            }
        };
        let rp = FqCodelProfile::new(
            &FqCodelConfig::rfc8290()
                .with_codel(codel_config(&a.codel).unwrap())
                .with_quantum(a.quantum)
                .with_limit(a.limit)
                .with_overflow(overflow),
        )
        .unwrap();
        let mut cq: Box<netcond_fq_codel> = Box::new(netcond_fq_codel { opaque: [0; 8200] });
        // SAFETY: valid pointers.
        assert_eq!(unsafe { netcond_fq_codel_config(&mut *cq, &*cp, 0) }, 0);
        let mut rq: Box<Fq> = Box::new(Fq::new(&rp, Instant::ZERO));
        let mut cf = Fifos(vec![VecDeque::new(); NETCOND_FQ_CODEL_FLOWS]);
        let mut rf = Fifos(vec![VecDeque::new(); NETCOND_FQ_CODEL_FLOWS]);
        let keys: [u32; 12] = [0, 1, 2, 3, 5, 8, 13, 21, 34, 1023, 1027, 1029];
        let mut rng = Rng(seed);
        let mut now = 0u64;
        let mut counts = [0u64; 4]; // delivered, marked, dropped, overflow drops
        let same_flow = |cq: &netcond_fq_codel, rq: &Fq, f: usize| {
            let mut got = netcond_fq_codel_flow::default();
            // SAFETY: valid pointers.
            assert_eq!(
                unsafe { netcond_fq_codel_flow_get(cq, f as u32, &mut got) },
                0
            );
            assert_eq!(got, flow_of(rq, f));
            // SAFETY: valid pointers.
            unsafe {
                assert_eq!(netcond_fq_codel_packets(cq), rq.packets());
                assert_eq!(netcond_fq_codel_bytes(cq), rq.bytes());
            }
        };
        for i in 0..40_000u64 {
            let r = rng.next();
            now += (r % 300) * 1000 + 1;
            let overload = (i / 5000) % 2 == 0;
            let arrivals = if overload {
                (r >> 10) % 3
            } else {
                (r >> 10) % 2
            };
            for j in 0..arrivals {
                let k = keys[((r >> (20 + 4 * j)) % 12) as usize];
                let f = k as usize % NETCOND_FQ_CODEL_FLOWS;
                let len = 64 + ((r >> (30 + 8 * j)) % 1437) as u32;
                let ecn = (r >> (50 + j)) & 1 == 1;
                cf.0[f].push_back((now, len, ecn));
                rf.0[f].push_back((now, len, ecn));
                let mut info = netcond_fq_overflow_info::default();
                // SAFETY: valid pointers; `cf` outlives the call.
                let c = unsafe {
                    netcond_fq_codel_enqueue(
                        &mut *cq,
                        &*cp,
                        now,
                        k,
                        len,
                        Some(drop_head),
                        (&mut cf as *mut Fifos).cast(),
                        &mut info,
                    )
                };
                let want = rq.enqueue(&rp, Instant::from_ticks(now), k as usize, len, |v| {
                    rf.0[v].pop_front().map(|h| h.1)
                });
                match want {
                    Enqueued::Queued => assert_eq!(c, 0),
                    Enqueued::Overflow {
                        victim,
                        packets,
                        bytes,
                    } => {
                        assert_eq!(c, 1);
                        assert_eq!(
                            info,
                            netcond_fq_overflow_info {
                                bytes,
                                victim: victim as u32,
                                packets
                            }
                        );
                        counts[3] += u64::from(packets);
                        same_flow(&cq, &rq, victim);
                    }
                }
                same_flow(&cq, &rq, f);
            }
            // One departure per step on average below the arrivals' mean in
            // overload and above it in underload.
            if (r >> 60) % 4 == 0 {
                continue;
            }
            loop {
                let mut cflow = u32::MAX;
                // SAFETY: valid pointers.
                let c = unsafe { netcond_fq_codel_schedule(&mut *cq, &*cp, now, &mut cflow) };
                let want = rq.schedule(&rp, Instant::from_ticks(now));
                let Some(f) = want else {
                    assert_eq!(c, 0);
                    break;
                };
                assert_eq!((c, cflow), (1, f as u32));
                let (at, len, ecn) = cf.0[f].pop_front().unwrap();
                assert_eq!(rf.0[f].pop_front(), Some((at, len, ecn)));
                // SAFETY: valid pointers.
                let v = unsafe {
                    netcond_fq_codel_on_dequeue(
                        &mut *cq,
                        &*cp,
                        now,
                        f as u32,
                        at,
                        len,
                        c_int::from(ecn),
                    )
                };
                let w = rq.on_dequeue(
                    &rp,
                    Instant::from_ticks(now),
                    f,
                    Head::new(Instant::from_ticks(at), len, ecn),
                );
                assert_eq!(v, verdict(w), "step {i}");
                same_flow(&cq, &rq, f);
                counts[v as usize] += 1;
                if v != netcond_codel_verdict::NETCOND_CODEL_DROP {
                    break;
                }
            }
        }
        counts
    }

    #[test]
    fn fq_codel_c_calls_give_the_rust_answers_packet_for_packet() {
        for (k, a) in [
            fq_params(0, 0, 0),
            fq_params(0, 1, 1),
            fq_params(1, 0, 1),
            fq_params(1, 1, 0),
        ]
        .iter()
        .enumerate()
        {
            let counts = fq_stream(a, 7 + k as u64);
            // Deliveries, CoDel drops, overflow drops; marks with ECN.
            assert!(
                counts[0] > 10_000 && counts[2] > 50 && counts[3] > 50,
                "{k}: {counts:?}"
            );
            assert_eq!(counts[1] > 50, a.codel.ecn == 1, "{k}: {counts:?}");
        }
    }

    #[test]
    fn fq_codel_errors_and_bad_arguments() {
        let good = fq_params(1, 0, 1);
        let cfg = |f: &dyn Fn(&mut netcond_fq_codel_params)| {
            let mut a = good;
            f(&mut a);
            let mut p = Box::new(netcond_fq_codel_profile { opaque: [0; 16] });
            // SAFETY: valid pointers.
            unsafe { netcond_fq_codel_profile_config(&mut *p, &a) }
        };
        assert_eq!(cfg(&|_| {}), 0);
        assert_eq!(cfg(&|a| a.quantum = 0), NETCOND_E_DELAY_ZERO_QUANTUM);
        assert_eq!(
            cfg(&|a| a.quantum = 1 << 31),
            NETCOND_E_DELAY_QUANTUM_TOO_LARGE
        );
        assert_eq!(cfg(&|a| a.limit = 0), NETCOND_E_DELAY_ZERO_LIMIT);
        assert_eq!(cfg(&|a| a.drop_batch = 0), NETCOND_E_DELAY_ZERO_DROP_BATCH);
        assert_eq!(
            cfg(&|a| {
                a.drop_batch = 0;
                a.overflow = 0
            }),
            0
        );
        assert_eq!(cfg(&|a| a.overflow = 2), NETCOND_E_ENUM);
        assert_eq!(cfg(&|a| a.codel.target_ns = 0), NETCOND_E_DELAY_ZERO_TARGET);
        assert_eq!(cfg(&|a| a.codel.tick_hz = 0), NETCOND_E_TICK);
        let mut p = Box::new(netcond_fq_codel_profile { opaque: [0; 16] });
        let never = Box::new(netcond_fq_codel_profile { opaque: [0; 16] });
        let mut q: Box<netcond_fq_codel> = Box::new(netcond_fq_codel { opaque: [0; 8200] });
        let null_q = core::ptr::null_mut::<netcond_fq_codel>();
        let mut flow = 7u32;
        // SAFETY: every pointer is NULL or valid.
        unsafe {
            assert_eq!(netcond_fq_codel_profile_config(&mut *p, &good), 0);
            // Unstarted (all zeros): refused like NULL.
            assert_eq!(
                netcond_fq_codel_enqueue(
                    &mut *q,
                    &*p,
                    0,
                    1,
                    100,
                    Some(drop_head),
                    core::ptr::null_mut(),
                    core::ptr::null_mut()
                ),
                NETCOND_E_NULL
            );
            assert_eq!(
                netcond_fq_codel_schedule(&mut *q, &*p, 0, &mut flow),
                NETCOND_E_NULL
            );
            assert_eq!(netcond_fq_codel_config(&mut *q, &*never, 0), NETCOND_E_NULL);
            assert_eq!(netcond_fq_codel_config(null_q, &*p, 0), NETCOND_E_NULL);
            assert_eq!(netcond_fq_codel_config(&mut *q, &*p, 0), 0);
            assert_eq!(
                netcond_fq_codel_enqueue(
                    &mut *q,
                    &*p,
                    0,
                    1,
                    100,
                    None,
                    core::ptr::null_mut(),
                    core::ptr::null_mut()
                ),
                NETCOND_E_NULL
            );
            assert_eq!(netcond_fq_codel_packets(&*q), 0);
            assert_eq!(netcond_fq_codel_schedule(&mut *q, &*p, 0, &mut flow), 0);
            assert_eq!(flow, 7);
            assert_eq!(
                netcond_fq_codel_schedule(&mut *q, &*never, 0, &mut flow),
                NETCOND_E_NULL
            );
            assert_eq!(
                netcond_fq_codel_schedule(null_q, &*p, 0, &mut flow),
                NETCOND_E_NULL
            );
            assert_eq!(
                netcond_fq_codel_on_dequeue(null_q, &*p, 0, 1, 0, 100, 0),
                DELIVER
            );
            assert_eq!(netcond_fq_codel_packets(core::ptr::null()), 0);
            assert_eq!(netcond_fq_codel_bytes(core::ptr::null()), 0);
            let mut fl = netcond_fq_codel_flow::default();
            assert_eq!(
                netcond_fq_codel_flow_get(null_q, 1, &mut fl),
                NETCOND_E_NULL
            );
            assert_eq!(
                netcond_fq_codel_flow_get(&*q, 1, core::ptr::null_mut()),
                NETCOND_E_NULL
            );
            // Flow 1025 is flow 1.
            assert_eq!(
                netcond_fq_codel_enqueue(
                    &mut *q,
                    &*p,
                    0,
                    1025,
                    100,
                    Some(drop_head),
                    core::ptr::null_mut(),
                    core::ptr::null_mut()
                ),
                0
            );
            assert_eq!(netcond_fq_codel_flow_get(&*q, 1, &mut fl), 0);
            assert_eq!(
                (fl.packets, fl.bytes, fl.list, fl.deficit),
                (1, 100, 1, 1514)
            );
            assert_eq!(netcond_fq_codel_schedule(&mut *q, &*p, 0, &mut flow), 1);
            assert_eq!(flow, 1);
        }
    }
}
