//! Per-command counters for `INFO winlimit`, cleared by `WINLIMIT.RESETSTAT`.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::core::verdict::Verdict;
use crate::redis::call::CommandError;
use crate::redis::commands::MAX_COMMANDS;

/// Counters of one command. Relaxed atomics: Redis runs commands on one thread, INFO reads
/// them on the same thread; atomics just make the statics safe.
pub struct CommandStats {
    pub calls: AtomicU64,
    pub allowed: AtomicU64,
    pub rejected: AtomicU64,
    pub errors: AtomicU64,
}

/// One slot per row of the command table.
static STATS: [CommandStats; MAX_COMMANDS] = [const { CommandStats::new() }; MAX_COMMANDS];

impl CommandStats {
    const fn new() -> Self {
        CommandStats {
            calls: AtomicU64::new(0),
            allowed: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            errors: AtomicU64::new(0),
        }
    }

    /// The counters with their INFO field suffixes.
    pub fn fields(&self) -> [(&'static str, u64); 4] {
        [
            ("calls", self.calls.load(Relaxed)),
            ("allowed", self.allowed.load(Relaxed)),
            ("rejected", self.rejected.load(Relaxed)),
            ("errors", self.errors.load(Relaxed)),
        ]
    }

    fn reset(&self) {
        for counter in [&self.calls, &self.allowed, &self.rejected, &self.errors] {
            counter.store(0, Relaxed);
        }
    }
}

/// Counts one call of the command at `index` by its outcome.
pub fn record(index: usize, outcome: &Result<Verdict, CommandError>) {
    let Some(stats) = STATS.get(index) else { return };
    stats.calls.fetch_add(1, Relaxed);
    let counter = match outcome {
        Ok(v) if v.allowed => &stats.allowed,
        Ok(_) => &stats.rejected,
        Err(_) => &stats.errors,
    };
    counter.fetch_add(1, Relaxed);
}

/// The counters of the command at `index`.
pub fn of(index: usize) -> Option<&'static CommandStats> {
    STATS.get(index)
}

/// Clears every counter, as `CONFIG RESETSTAT` does for Redis's own statistics.
pub fn reset() {
    STATS.iter().for_each(CommandStats::reset);
}
