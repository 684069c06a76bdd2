//! Per-command counters for `INFO winlimit`, cleared by `CONFIG RESETSTAT`.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::command::{Command, CommandError};
use crate::verdict::Verdict;

/// Counters of one command. Relaxed atomics: Redis runs commands on one thread, INFO reads
/// them on the same thread; atomics just make the statics safe.
#[derive(Default)]
pub struct CommandStats {
    pub calls: AtomicU64,
    pub allowed: AtomicU64,
    pub rejected: AtomicU64,
    pub errors: AtomicU64,
}

static STATS: [CommandStats; 4] = [const { CommandStats::new() }; 4];

impl CommandStats {
    const fn new() -> Self {
        CommandStats {
            calls: AtomicU64::new(0),
            allowed: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            errors: AtomicU64::new(0),
        }
    }

    fn reset(&self) {
        for counter in [&self.calls, &self.allowed, &self.rejected, &self.errors] {
            counter.store(0, Relaxed);
        }
    }
}

/// Counts one call by its outcome.
pub fn record(command: Command, outcome: &Result<Verdict, CommandError>) {
    let stats = of(command);
    stats.calls.fetch_add(1, Relaxed);
    let counter = match outcome {
        Ok(v) if v.allowed => &stats.allowed,
        Ok(_) => &stats.rejected,
        Err(_) => &stats.errors,
    };
    counter.fetch_add(1, Relaxed);
}

pub fn of(command: Command) -> &'static CommandStats {
    &STATS[command as usize]
}

/// Clears every counter, as `CONFIG RESETSTAT` does for Redis's own statistics.
pub fn reset() {
    STATS.iter().for_each(CommandStats::reset);
}
