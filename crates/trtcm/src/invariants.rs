//! The invariants of every marker, as plain functions shared by the proptests and
//! the fuzz targets.
//!
//! Each `*_step` function performs one packet on a meter exactly as the caller
//! would (`input: None` for color-blind, `Some(color)` for color-aware) and checks,
//! around that one call, everything that must hold for any input:
//!
//! - no bucket ever holds more than its size;
//! - the output color is never better than the input color (color-aware), and
//!   color-blind is the same as color-aware with a green input;
//! - the buckets change exactly by the refill the views (`tc_at`, ...) predicted,
//!   minus the packet's cost in the buckets its color pays from (RFC 2697/2698/4115
//!   section 3), and a red packet pays nothing;
//! - a timestamp older than the last update creates no token and does not move
//!   the meter's clock back.
//!
//! Panics are not checked here: a panic in the fast path fails the test or fuzz
//! run that calls these functions.

use netcond_core::{Color, Instant};

use crate::{
    PolicerVerdict, PremiumPolicer, PremiumPolicerProfile, Rfc4115, Rfc4115Profile, SrTcm,
    SrTcmProfile, ThreeColorMarker, TrTcm, TrTcmProfile,
};

/// An invariant that did not hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Violation {
    /// A bucket holds more tokens than its size (or the buffer more than PBs).
    TokensAboveBucket,
    /// A color-aware call returned a better color than the input.
    Promoted,
    /// The buckets did not change by exactly refill minus the packet's cost.
    WrongDebit,
    /// A timestamp older than the last update created tokens.
    TokensFromBackwardsTime,
    /// The meter's clock moved to something other than `now` (forward) or stayed
    /// (backward).
    ClockMisplaced,
}

impl core::fmt::Display for Violation {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Violation::TokensAboveBucket => "a bucket holds more than its size",
            Violation::Promoted => "color-aware marking promoted a packet",
            Violation::WrongDebit => "bucket change differs from refill minus cost",
            Violation::TokensFromBackwardsTime => "a clock going backwards created tokens",
            Violation::ClockMisplaced => "the last-update time is wrong",
        })
    }
}

fn check(ok: bool, v: Violation) -> Result<(), Violation> {
    if ok {
        Ok(())
    } else {
        Err(v)
    }
}

/// True when the color `output` is no better than `input` (Green < Yellow < Red).
#[must_use]
pub fn never_promotes(input: Color, output: Color) -> bool {
    output >= input
}

/// Checks the clock rule: forward time moves `last` to `now`; backward time keeps
/// `last` and must not have created tokens (`created` is true if any count rose).
fn check_clock(before: Instant, after: Instant, now: Instant) -> Result<bool, Violation> {
    let backwards = now.ticks_since(before) == 0 && now != before;
    let want = if backwards { before } else { now };
    check(after == want, Violation::ClockMisplaced)?;
    Ok(backwards)
}

/// The srTCM buckets hold no more than CBS and EBS.
#[must_use]
pub fn srtcm_bounded(p: &SrTcmProfile, s: &SrTcm) -> bool {
    s.tc() <= p.committed().full() && s.te() <= p.excess().full()
}

/// The trTCM buckets hold no more than CBS and PBS.
#[must_use]
pub fn trtcm_bounded(p: &TrTcmProfile, s: &TrTcm) -> bool {
    s.tc() <= p.committed().full() && s.tp() <= p.peak().full()
}

/// The RFC 4115 buckets hold no more than CBS and EBS.
#[must_use]
pub fn rfc4115_bounded(p: &Rfc4115Profile, s: &Rfc4115) -> bool {
    s.tc() <= p.committed().full() && s.te() <= p.excess().full()
}

/// Colors one packet (color-blind where `input` is `None`) and checks the
/// rules every marker shares: a pre-colored packet is never promoted, and
/// color-aware with a green input colors as color-blind does.
fn color_checked<M: ThreeColorMarker + PartialEq>(
    p: &M::Profile,
    s: &mut M,
    now: Instant,
    len: u32,
    input: Option<Color>,
) -> Result<Color, Violation> {
    let before = *s;
    let out = match input {
        None => s.color_blind(p, now, len),
        Some(c) => s.color_aware(p, now, len, c),
    };
    if let Some(c) = input {
        check(never_promotes(c, out), Violation::Promoted)?;
        if c == Color::Green {
            let blind = before.clone().color_blind(p, now, len);
            check(blind == out, Violation::WrongDebit)?;
        }
    }
    Ok(out)
}

/// The end of a marker's step: the two buckets' counts (C's, then the
/// other's) and last update `before` and `after` the packet. The counts after
/// are the counts refilled to `now` (`refilled`) less the `debit` of its
/// color, the clock moved as [`check_clock`] allows, and a clock that stepped
/// backwards left neither count above what it was.
fn debits_checked(
    refilled: [u64; 2],
    debit: [u64; 2],
    (before, before_last): ([u64; 2], Instant),
    (after, after_last): ([u64; 2], Instant),
    now: Instant,
) -> Result<(), Violation> {
    check(
        refilled[0].checked_sub(debit[0]) == Some(after[0])
            && refilled[1].checked_sub(debit[1]) == Some(after[1]),
        Violation::WrongDebit,
    )?;
    let backwards = check_clock(before_last, after_last, now)?;
    check(
        !backwards || (after[0] <= before[0] && after[1] <= before[1]),
        Violation::TokensFromBackwardsTime,
    )
}

/// One srTCM packet with every invariant checked. Returns the color.
pub fn srtcm_step(
    p: &SrTcmProfile,
    s: &mut SrTcm,
    now: Instant,
    len: u32,
    input: Option<Color>,
) -> Result<Color, Violation> {
    check(srtcm_bounded(p, s), Violation::TokensAboveBucket)?;
    let before = *s;
    let refilled = [s.tc_at(p, now), s.te_at(p, now)];
    let out = color_checked(p, s, now, len, input)?;
    check(srtcm_bounded(p, s), Violation::TokensAboveBucket)?;
    let cost = p.committed().cost(p.units(len));
    let debit = match out {
        Color::Green => [cost, 0],
        Color::Yellow => [0, cost],
        Color::Red => [0, 0],
    };
    debits_checked(
        refilled,
        debit,
        ([before.tc(), before.te()], before.last()),
        ([s.tc(), s.te()], s.last()),
        now,
    )?;
    Ok(out)
}

/// One trTCM packet with every invariant checked, including RFC 2698's debit rule:
/// red touches no bucket, yellow takes from P only, green from both.
pub fn trtcm_step(
    p: &TrTcmProfile,
    s: &mut TrTcm,
    now: Instant,
    len: u32,
    input: Option<Color>,
) -> Result<Color, Violation> {
    check(trtcm_bounded(p, s), Violation::TokensAboveBucket)?;
    let before = *s;
    let refilled = [s.tc_at(p, now), s.tp_at(p, now)];
    let out = color_checked(p, s, now, len, input)?;
    check(trtcm_bounded(p, s), Violation::TokensAboveBucket)?;
    let len = p.units(len);
    let (cc, cp) = (p.committed().cost(len), p.peak().cost(len));
    let debit = match out {
        Color::Green => [cc, cp],
        Color::Yellow => [0, cp],
        Color::Red => [0, 0],
    };
    debits_checked(
        refilled,
        debit,
        ([before.tc(), before.tp()], before.last()),
        ([s.tc(), s.tp()], s.last()),
        now,
    )?;
    Ok(out)
}

/// One RFC 4115 packet with every invariant checked: green takes from C only,
/// yellow from E only, red from neither.
pub fn rfc4115_step(
    p: &Rfc4115Profile,
    s: &mut Rfc4115,
    now: Instant,
    len: u32,
    input: Option<Color>,
) -> Result<Color, Violation> {
    check(rfc4115_bounded(p, s), Violation::TokensAboveBucket)?;
    let before = *s;
    let refilled = [s.tc_at(p, now), s.te_at(p, now)];
    let out = color_checked(p, s, now, len, input)?;
    check(rfc4115_bounded(p, s), Violation::TokensAboveBucket)?;
    let len = p.units(len);
    let debit = match out {
        Color::Green => [p.committed().cost(len), 0],
        Color::Yellow => [0, p.excess().cost(len)],
        Color::Red => [0, 0],
    };
    debits_checked(
        refilled,
        debit,
        ([before.tc(), before.te()], before.last()),
        ([s.tc(), s.te()], s.last()),
        now,
    )?;
    Ok(out)
}

/// One premium-policer packet with its invariants checked: tokens within TBs,
/// backlog within PBs, a policer drop spends nothing, an admitted packet adds its
/// length to the backlog, and backward time creates no token.
pub fn policer_step(
    p: &PremiumPolicerProfile,
    s: &mut PremiumPolicer,
    now: Instant,
    len: u32,
) -> Result<PolicerVerdict, Violation> {
    let bounded = |s: &PremiumPolicer| s.tokens() <= p.committed().full() && s.backlog() <= p.pbs();
    check(bounded(s), Violation::TokensAboveBucket)?;
    let before = *s;
    let tokens0 = s.tokens_at(p, now);
    let v = s.offer(p, now, len);
    check(bounded(s), Violation::TokensAboveBucket)?;
    let cost = p.committed().cost(len);
    let (spent, added) = match v {
        PolicerVerdict::Admitted => (cost, u64::from(len)),
        PolicerVerdict::BufferDrop => (cost, 0),
        PolicerVerdict::PolicerDrop => (0, 0),
    };
    check(
        tokens0.checked_sub(spent) == Some(s.tokens())
            && before.backlog().checked_add(added) == Some(s.backlog()),
        Violation::WrongDebit,
    )?;
    let backwards = check_clock(before.last(), s.last(), now)?;
    check(
        !backwards || s.tokens() <= before.tokens(),
        Violation::TokensFromBackwardsTime,
    )?;
    Ok(v)
}
