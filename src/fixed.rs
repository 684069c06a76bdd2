//! The fixed-window counter: deciding a call from the stored count and expiry.
//!
//! A window is the life of the key: it starts when the first accepted request creates the
//! counter and ends when the key expires (with `ALIGN`, at the next multiple of
//! `window_ms` since the Unix epoch). Nothing here touches Redis.

use crate::request::{Mode, Request};
use crate::verdict::{remaining, Verdict, NEVER};

/// The stored counter as the adapter reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counter {
    /// Units counted in the current window (validated non-negative by the adapter).
    pub count: i64,
    /// Absolute expiry of the key in ms, if it has one.
    pub expires_at: Option<i64>,
}

/// The single write a call makes, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixedWrite {
    /// Start a new window: the counter becomes `count`, expiring at `expire_at`
    /// (replaces whatever expired key was there).
    Create { count: i64, expire_at: i64 },
    /// Add `by` to the live counter, making it `count`; give it `expire_at` if it had no
    /// expiry.
    Increment { by: i64, count: i64, expire_at: Option<i64> },
    /// A rejected call on a counter without expiry: give it one so it cannot live forever.
    Heal { expire_at: i64 },
}

/// The decision for one call and the write that carries it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixedPlan {
    pub verdict: Verdict,
    pub write: Option<FixedWrite>,
}

/// Decides one call at `now` against the stored counter (`None`: no key).
pub fn decide(now: i64, request: &Request, mode: Mode, stored: Option<Counter>) -> FixedPlan {
    let live = stored.filter(|c| c.expires_at.map_or(true, |at| at > now));
    let window_end = live.and_then(|c| c.expires_at).unwrap_or_else(|| new_window_end(now, request));
    let count = live.map_or(0, |c| c.count);

    let allowed = !request.can_never_fit() && count.saturating_add(request.cost) <= request.limit;
    let records = allowed && mode == Mode::Record;
    let count_after = if records { count + request.cost } else { count };
    let time_left = window_end.saturating_sub(now);

    let retry_after_ms = if allowed {
        0
    } else if request.can_never_fit() {
        NEVER
    } else {
        time_left
    };
    let verdict = Verdict {
        allowed,
        limit: request.limit,
        remaining: remaining(request.limit, count_after),
        retry_after_ms,
        reset_after_ms: if count_after > 0 { time_left } else { 0 },
    };

    let missing_expiry = live.is_some_and(|c| c.expires_at.is_none()).then_some(window_end);
    let write = match (mode, live) {
        (Mode::Peek, _) => None,
        (Mode::Record, None) if records => Some(FixedWrite::Create { count: request.cost, expire_at: window_end }),
        (Mode::Record, Some(_)) if records => {
            Some(FixedWrite::Increment { by: request.cost, count: count_after, expire_at: missing_expiry })
        }
        (Mode::Record, _) => missing_expiry.map(|expire_at| FixedWrite::Heal { expire_at }),
    };
    FixedPlan { verdict, write }
}

/// Where a window starting now ends: one window later, or with `ALIGN` at the next
/// multiple of the window since the epoch.
fn new_window_end(now: i64, request: &Request) -> i64 {
    let window = request.window_ms;
    if request.align {
        now.div_euclid(window).saturating_add(1).saturating_mul(window)
    } else {
        now.saturating_add(window)
    }
}

#[cfg(test)]
mod tests;
