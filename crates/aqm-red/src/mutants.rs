//! Mutation checks: deliberately broken variants of the state machines, each
//! switched on by a number in test builds only (`cargo test`), to show that
//! the invariants the fuzz targets run catch them. In every other build
//! [`on`] is `false` and the compiler removes the broken branches.
//!
//! The switch is per thread, so the mutation tests run beside the others.
//! Which check catches which mutant: `red::tests::mutations::mutation_checks`, and
//! docs/verification.md.

#[cfg(test)]
std::thread_local! {
    static ACTIVE: core::cell::Cell<u32> = const { core::cell::Cell::new(0) };
}

/// True when mutant `id` is switched on (never outside test builds).
#[inline(always)]
pub(crate) fn on(id: u32) -> bool {
    #[cfg(test)]
    {
        ACTIVE.with(|a| a.get() == id)
    }
    #[cfg(not(test))]
    {
        let _ = id;
        false
    }
}

/// Runs `f` with mutant `id` switched on in this thread.
#[cfg(test)]
pub(crate) fn with<R>(id: u32, f: impl FnOnce() -> R) -> R {
    ACTIVE.with(|a| a.set(id));
    let r = f();
    ACTIVE.with(|a| a.set(0));
    r
}
