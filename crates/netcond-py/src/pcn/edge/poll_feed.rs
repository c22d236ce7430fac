//! The bulk loop of the edge classes whose state is polled for what has come
//! due before each packet is fed to it: `EgressMeter`, `CleAdmission` and
//! `Egress3sm`.

use crate::pcn::mark_arg;
use netcond::base::Instant;
use pyo3::prelude::*;

/// The `ValueError` of the first mark that is no ECN codepoint (above 3), if
/// any: checked before the loop, so that a refused call changes nothing.
pub fn check_marks(marks: &[u8]) -> PyResult<()> {
    match marks.iter().find(|&&m| m > 3) {
        Some(&bad) => mark_arg(bad).map(drop),
        None => Ok(()),
    }
}

/// The loop of a bulk call, with the GIL released: for each packet `i`, at
/// `now[i]`, `poll` until it gives None, then `feed` packet `i`. Gives what
/// `poll` gave, in order, and `fed` with what `feed` gave added, one per
/// packet (`fed` is `()` to drop them, a pair of `Vec`s to split pairs).
/// What comes due after the last packet is left to the next call.
pub fn poll_then_feed<S, P, O, C>(
    py: Python<'_>,
    state: &mut S,
    now: &[u64],
    poll: impl Fn(&mut S, Instant) -> Option<P> + Sync,
    feed: impl Fn(&mut S, usize, Instant) -> O + Sync,
    mut fed: C,
) -> (Vec<P>, C)
where
    S: Send,
    P: Send,
    C: Extend<O> + Send,
{
    py.allow_threads(|| {
        let mut polled = Vec::new();
        for (i, &t) in now.iter().enumerate() {
            let at = Instant::from_ticks(t);
            while let Some(p) = poll(state, at) {
                polled.push(p);
            }
            fed.extend(core::iter::once(feed(state, i, at)));
        }
        (polled, fed)
    })
}
