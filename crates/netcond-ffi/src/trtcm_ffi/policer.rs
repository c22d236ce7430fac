//! The premium (EF) policer.

use super::*;

fn policer_profile(p: &netcond_policer_params) -> Result<PremiumPolicerProfile, c_int> {
    crate::errors::reserved_zero(&[p.reserved.into()])?;
    PremiumPolicerProfile::new(
        &PremiumPolicerConfig::new(Rate::from_bytes_per_sec(p.rate), p.tbs, p.pbs, p.max_packet)
            .with_tick(tick(p.tick_hz)?),
    )
    .map_err(policer_code)
}

impl From<PolicerVerdict> for netcond_policer_verdict {
    #[inline(always)]
    fn from(v: PolicerVerdict) -> netcond_policer_verdict {
        match v {
            PolicerVerdict::Admitted => netcond_policer_verdict::NETCOND_ADMITTED,
            PolicerVerdict::PolicerDrop => netcond_policer_verdict::NETCOND_POLICER_DROP,
            PolicerVerdict::BufferDrop => netcond_policer_verdict::NETCOND_BUFFER_DROP,
        }
    }
}

// ---------------------------------------------------------------- premium policer

/// Validates `params` and writes the premium policer profile to `p`.
///
/// Returns 0, `NETCOND_E_NULL`, `NETCOND_E_TICK` or a `NETCOND_E_POLICER_*`
/// code; on error `p` is unusable.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_policer_profile_config(
    p: *mut netcond_policer_profile,
    params: *const netcond_policer_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { configure(p, params, TAG_POLICER, policer_profile) }
}

/// Starts a policer state: full bucket, empty buffer at `now`.
/// Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_policer_config(
    m: *mut netcond_policer,
    p: *const netcond_policer_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start(m, p, TAG_POLICER, now, PremiumPolicer::new) }
}

/// Polices a packet of `pkt_len` bytes arriving at `time`.
/// `NETCOND_POLICER_DROP` on a NULL or unconfigured argument.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs; `m` is used by no other
/// thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_policer_offer(
    m: *mut netcond_policer,
    p: *const netcond_policer_profile,
    time: u64,
    pkt_len: u32,
) -> netcond_policer_verdict {
    // SAFETY: caller contract, passed on.
    unsafe {
        with(
            m,
            p,
            TAG_POLICER,
            netcond_policer_verdict::NETCOND_POLICER_DROP,
            |m: &mut PremiumPolicer, p| m.offer(p, Instant::from_ticks(time), pkt_len).into(),
        )
    }
}

/// Reports that `pkt_len` bytes left the premium buffer (the backlog saturates
/// at zero). Does nothing if `m` is NULL.
///
/// # Safety
/// `m` is NULL or points to a valid state used by no other thread.
#[no_mangle]
pub unsafe extern "C" fn netcond_policer_dequeued(m: *mut netcond_policer, pkt_len: u32) {
    // SAFETY: caller contract.
    if let Some(m) = unsafe { state::<_, PremiumPolicer>(m) } {
        m.dequeued(pkt_len);
    }
}

/// Copies a policer state's tokens, backlog and last update to `out`.
/// Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `out` are NULL or point to valid structs.
#[no_mangle]
pub unsafe extern "C" fn netcond_policer_read(
    m: *const netcond_policer,
    out: *mut netcond_policer_tokens,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(s), Some(out)) = (unsafe { state_ref::<_, PremiumPolicer>(m) }, unsafe {
        out.as_mut()
    }) else {
        return NETCOND_E_NULL;
    };
    *out = netcond_policer_tokens {
        tokens: s.tokens(),
        backlog: s.backlog(),
        last: s.last().ticks(),
    };
    NETCOND_OK
}
