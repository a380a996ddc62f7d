//! Memory handed back between the run's stages (issue 5: peak resident
//! memory). glibc's malloc keeps what a stage freed in its arenas, often
//! in pages no later request reuses (the parse's blocks, the tables'
//! frames), so resident memory only grows and the peak is the sum of the
//! stages, not the largest. [`give_back`] returns those free pages to the
//! system; [`limit_arenas`] keeps threads from each holding an arena of
//! their own. Both do nothing where the allocator is not glibc's.

/// Returns the free pages of every malloc arena to the system (glibc's
/// `malloc_trim(0)`: milliseconds, no effect on live data). Called
/// between stages, once a stage's temporaries are dropped.
pub fn give_back() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory of the allocator's own
    // arenas; it is thread-safe and touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Caps the number of malloc arenas at `n` (glibc's `M_ARENA_MAX`; by
/// default 8 per core, each keeping its own free memory). Called once,
/// before any thread starts.
pub fn limit_arenas(n: usize) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; called before any
    // other thread exists.
    unsafe {
        libc::mallopt(
            libc::M_ARENA_MAX,
            i32::try_from(n.max(1)).unwrap_or(i32::MAX),
        );
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = n;
}
