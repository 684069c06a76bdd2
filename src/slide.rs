//! The exact sliding-window log: deciding a call from a view of the stored log.
//!
//! The log is a set of entries, one per accepted unit, each with the time (ms) it was
//! accepted. An entry at `t` counts while `now - t < window_ms`. Nothing here touches
//! Redis: the keyspace adapter answers the few questions of [`LogView`] from a sorted set
//! and carries out the returned [`SlidePlan`].

use crate::request::{Mode, Request};
use crate::verdict::{remaining, Verdict, NEVER};

/// Members are a per-key sequence of integers in this range, each unit one more than the
/// last, wrapping around at the end. Ten digits inside 32 bits: Redis keeps them as 32-bit
/// integers in small sets and in its smallest strings in large ones, and with one width
/// their string order is their numeric order, so the newest entry holds the highest member.
pub const MEMBERS: std::ops::RangeInclusive<i64> = 1_000_000_000..=2_147_483_647;

/// The member after `member` in the sequence; anything outside [`MEMBERS`] (a script's
/// member, or the end of the range) starts it over.
pub fn next_member(member: i64) -> i64 {
    if MEMBERS.contains(&member) && member < *MEMBERS.end() {
        member + 1
    } else {
        *MEMBERS.start()
    }
}

/// One stored entry as the adapter sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// Acceptance time in ms (a fractional stored score is rounded up).
    pub score: i64,
    /// The member as an integer, if it is one (logs written by scripts may hold anything).
    pub member: Option<i64>,
}

/// What the decision reads from the stored log. The keyspace adapter answers from a sorted
/// set; the tests answer from a vector. A missing key is an empty log.
pub trait LogView {
    /// Number of entries, counted or not.
    fn len(&self) -> u64;
    /// The entry with the highest score (ties: the last in Redis order).
    fn newest(&self) -> Option<Entry>;
    /// Absolute expiry of the key in ms, if it has one.
    fn expires_at(&self) -> Option<i64>;
    /// How many entries are scored at or below `cutoff`.
    fn count_through(&self, cutoff: i64) -> u64;
    /// The score of the `n`-th (from 0) oldest entry scored above `cutoff`.
    fn nth_after(&self, cutoff: i64, n: u64) -> Option<i64>;
}

/// `count` new entries, all at `score`, with members `first_member`, then each
/// [`next_member`] of the one before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Append {
    pub score: i64,
    pub count: i64,
    pub first_member: i64,
}

/// The decision for one call and the writes that carry it out, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlidePlan {
    pub verdict: Verdict,
    /// The key's expiry has passed: delete it before anything else.
    pub discard_expired: bool,
    /// Remove every entry whose score is at or below this (they no longer count).
    pub trim_through: Option<i64>,
    pub append: Option<Append>,
    /// Give the key this absolute expiry (ms). Only set when it differs from the stored one.
    pub expire_at: Option<i64>,
}

impl SlidePlan {
    /// True when carrying out the plan changes nothing.
    pub fn is_noop(&self) -> bool {
        !self.discard_expired && self.trim_through.is_none() && self.append.is_none() && self.expire_at.is_none()
    }
}

/// Decides one call at `now` against the stored log.
///
/// Reads no more of the log than the verdict needs: the entries that left the window, and
/// on a rejection the one whose departure makes room.
pub fn decide(now: i64, request: &Request, mode: Mode, log: &impl LogView) -> SlidePlan {
    let window = request.window_ms;
    let stored_expiry = log.expires_at();
    // A log whose expiry has come is an empty window, even if Redis still shows it.
    let expired = stored_expiry.is_some_and(|at| at <= now);
    let cutoff = now.saturating_sub(window);
    let (len, stale, newest) = if expired {
        (0, 0, None)
    } else {
        let len = log.len();
        let stale = if len == 0 { 0 } else { log.count_through(cutoff) };
        (len, stale, log.newest())
    };
    let counted = i64::try_from(len - stale.min(len)).unwrap_or(i64::MAX);

    let allowed = !request.can_never_fit() && counted.saturating_add(request.cost) <= request.limit;
    let retry_after_ms = if allowed {
        0
    } else if request.can_never_fit() {
        NEVER
    } else {
        // Room appears once the `need`-th oldest counted entry stops counting.
        let need = counted + request.cost - request.limit;
        let freeing = log.nth_after(cutoff, u64::try_from(need - 1).unwrap_or(0));
        // The log always holds `need` counted entries here; fall back to a full window.
        freeing.map_or(window, |t| t.saturating_add(window).saturating_sub(now))
    };

    let records = allowed && mode == Mode::Record;
    let newest_counted = newest.map(|e| e.score).filter(|_| counted > 0);
    let newest_after = if records { Some(newest_counted.map_or(now, |t| t.max(now))) } else { newest_counted };
    let reset_after_ms = newest_after.map_or(0, |t| t.saturating_add(window).saturating_sub(now));
    let used = if records { counted + request.cost } else { counted };

    let verdict = Verdict {
        allowed,
        limit: request.limit,
        remaining: remaining(request.limit, used),
        retry_after_ms,
        reset_after_ms,
    };

    if mode == Mode::Peek {
        return SlidePlan { verdict, discard_expired: false, trim_through: None, append: None, expire_at: None };
    }

    let append = records.then(|| Append {
        score: now,
        count: request.cost,
        first_member: newest.and_then(|e| e.member).map_or(*MEMBERS.start(), next_member),
    });
    let wanted_expiry = newest_after.map(|t| t.saturating_add(window));
    let current_expiry = if expired { None } else { stored_expiry };
    SlidePlan {
        verdict,
        discard_expired: expired,
        trim_through: (stale > 0).then_some(cutoff),
        append,
        expire_at: wanted_expiry.filter(|want| current_expiry != Some(*want)),
    }
}

#[cfg(test)]
mod tests;
