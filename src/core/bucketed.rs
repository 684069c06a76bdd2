//! The bucketed sliding window (`WINLIMIT.SLIDE ... BUCKET b`): units counted per bucket of
//! `b` ms instead of one entry per unit, so memory and work per call do not grow with the
//! limit.
//!
//! Buckets start at multiples of `b` since the Unix epoch. The bucket starting at `s` counts
//! in a window of `w` while `now - (s + b - 1) < w`: a unit is held at most `b - 1` ms longer
//! than the exact log would hold it, never shorter, so given the same recorded units this
//! accepts only what the exact log would, and no span of `w` ms ever holds more than the
//! limit.
//!
//! The stored state is a set of buckets plus bookkeeping: the bucket length, the running
//! total of every stored bucket, and the oldest and newest stored bucket starts. Nothing
//! here touches Redis: the adapter answers [`BucketView`] from a ring of buckets in a string
//! ([`crate::core::bucket_ring`]) and carries out the
//! [`BucketPlan`].

use crate::core::request::{Mode, Window, MAX_WINDOWS};
use crate::core::slide::{expiry_to_set, settle, SlideRequest};
use crate::core::verdict::{bind, remaining, PairVerdict, Verdict, NEVER};

/// The bookkeeping of a stored bucketed log, as validated by the adapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub bucket_ms: i64,
    /// Units in all stored buckets, `>= 1`.
    pub total: i64,
    /// Start of the oldest stored bucket, a multiple of `bucket_ms`.
    pub oldest: i64,
    /// Start of the newest stored bucket, a multiple of `bucket_ms`, `>= oldest`.
    pub newest: i64,
}

/// Why the stored state cannot be read as a bucketed log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoredError {
    /// The key was written with another bucket length.
    OtherBucket { stored: i64 },
    /// A field or value winlimit would not write; the text says which.
    Invalid(String),
}

/// What the decision reads from the stored log. A missing key has no header.
pub trait BucketView {
    /// The bookkeeping, `None` for a missing key.
    fn header(&self) -> Result<Option<Header>, StoredError>;
    /// Absolute expiry of the key in ms, if it has one.
    fn expires_at(&self) -> Option<i64>;
    /// Units in the bucket starting at `start` (0 when there is none).
    fn units(&self, start: i64) -> Result<i64, StoredError>;
}

/// The writes that carry a decision out, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketPlan {
    pub verdict: Verdict,
    /// Nothing in the key counts any more (expired, or every bucket left the largest
    /// window): delete it first.
    pub discard: bool,
    /// Set bucket `.0` to `.1` units (absolute), with the header that follows.
    pub record: Option<(i64, i64)>,
    /// The header after the call, when it changes (written with `record` or after `remove`).
    pub header: Option<Header>,
    /// The header as stored before the call (`None` when discarded), so only changed
    /// fields are written.
    pub stored: Option<Header>,
    pub expire_at: Option<i64>,
}

impl BucketPlan {
    pub fn is_noop(&self) -> bool {
        !self.discard && self.record.is_none() && self.header.is_none() && self.expire_at.is_none()
    }
}

/// Where buckets of window `w` start counting: the least multiple of `b` with
/// `now - (s + b - 1) < w`.
fn first_counted(now: i64, window_ms: i64, b: i64) -> i64 {
    let least = now.saturating_sub(window_ms).saturating_sub(b).saturating_add(2);
    least.div_euclid(b).saturating_add(i64::from(least.rem_euclid(b) != 0)).saturating_mul(b)
}

/// The bucket holding `now`.
fn bucket_of(now: i64, b: i64) -> i64 {
    now.div_euclid(b).saturating_mul(b)
}

/// The most buckets one walk may visit. What winlimit writes spans at most
/// [`crate::core::slide::MAX_BUCKETS_PER_WINDOW`] + 1 buckets; only a server clock that
/// stepped back by several windows makes a longer span, and that is refused rather than
/// walked, so no call can stall the server.
pub const MAX_WALK: i64 = 4 * (crate::core::slide::MAX_BUCKETS_PER_WINDOW + 1);

/// The bucket starts from `from` to `to` (inclusive, multiples of `b`), bounded.
fn starts(from: i64, to: i64, b: i64) -> Result<impl Iterator<Item = i64>, StoredError> {
    let steps = if to < from { 0 } else { to.saturating_sub(from) / b + 1 };
    if steps > MAX_WALK {
        return Err(invalid("its buckets span more than winlimit writes (did the server clock step back?)"));
    }
    Ok((0..steps).map(move |i| from.saturating_add(i * b)))
}

/// Sums the stored buckets from `from` to `to` (inclusive, multiples of `b`).
fn sum(view: &impl BucketView, from: i64, to: i64, b: i64) -> Result<i64, StoredError> {
    let mut total: i64 = 0;
    for s in starts(from, to, b)? {
        total = total.checked_add(view.units(s)?).ok_or_else(|| invalid("its bucket counts overflow"))?;
    }
    Ok(total)
}

fn invalid(what: &str) -> StoredError {
    StoredError::Invalid(what.to_string())
}

/// The stored log as this call counts it: read once, then shared by every pair's check and
/// by the plan.
struct Count {
    /// The bucket length.
    b: i64,
    /// The bookkeeping; `None` for a missing key or one whose expiry has come.
    header: Option<Header>,
    expired: bool,
    stored_expiry: Option<i64>,
    largest_window_ms: i64,
    /// Where the largest window's buckets start counting.
    first_in_largest: i64,
    /// Units the largest window counts.
    in_largest: i64,
    /// What the largest pair has left before the call.
    largest_remaining: i64,
}

/// The verdict, and what the plan needs of it.
struct Decision {
    verdict: Verdict,
    /// Accepted, by a recording call.
    records: bool,
    /// The last ms of the newest bucket that counts after the call, if any does.
    newest_end: Option<i64>,
}

/// Decides one call at `now`. `request.bucket_ms` is set (and valid) by the parser.
pub fn decide(now: i64, request: &SlideRequest, mode: Mode, view: &impl BucketView) -> Result<BucketPlan, StoredError> {
    let count = count(now, request, view)?;
    let decision = verdict(now, request, mode, &count, view)?;
    if mode == Mode::Peek {
        let verdict = decision.verdict;
        return Ok(BucketPlan { verdict, discard: false, record: None, header: None, stored: None, expire_at: None });
    }
    plan(now, request.cost, &count, &decision, view)
}

/// The count step: the bookkeeping, checked against the request, and the units the largest
/// window counts (the running total less the buckets that left it).
fn count(now: i64, request: &SlideRequest, view: &impl BucketView) -> Result<Count, StoredError> {
    let b = request.bucket_ms.unwrap_or(1).max(1);
    let largest = request.windows.largest();
    let stored_expiry = view.expires_at();
    let expired = stored_expiry.is_some_and(|at| at <= now);
    let header = if expired { None } else { view.header()? };
    if let Some(h) = header {
        if h.bucket_ms != b {
            return Err(StoredError::OtherBucket { stored: h.bucket_ms });
        }
    }
    let first_in_largest = first_counted(now, largest.window_ms, b);
    let in_largest = match header {
        None => 0,
        Some(h) if h.oldest >= first_in_largest => h.total,
        Some(h) => {
            let departed = sum(view, h.oldest, first_in_largest.saturating_sub(b).min(h.newest), b)?;
            let counted = h.total.checked_sub(departed).filter(|c| *c >= 0);
            counted.ok_or_else(|| invalid("its total is less than its buckets hold"))?
        }
    };
    Ok(Count {
        b,
        header,
        expired,
        stored_expiry,
        largest_window_ms: largest.window_ms,
        first_in_largest,
        in_largest,
        largest_remaining: remaining(largest.limit, in_largest),
    })
}

/// The verdict step: every pair's answer, settled for what the call records and bound into
/// the reply.
fn verdict(
    now: i64,
    request: &SlideRequest,
    mode: Mode,
    count: &Count,
    view: &impl BucketView,
) -> Result<Decision, StoredError> {
    let cost = request.cost;
    let mut pairs = [PairVerdict::default(); MAX_WINDOWS];
    for (pair, window) in pairs.iter_mut().zip(request.windows.iter()) {
        *pair = check(now, window, cost, count, view)?;
    }
    let pairs = &mut pairs[..request.windows.len()];
    let records = pairs.iter().all(|p| p.wait_ms == 0) && mode == Mode::Record;

    let b = count.b;
    let newest = count.header.map(|h| h.newest).filter(|_| count.in_largest > 0);
    let current = bucket_of(now, b);
    let newest_after = if records { Some(newest.map_or(current, |n| n.max(current))) } else { newest };
    // A bucket's units count until its last ms, `s + b - 1`, has left the window.
    let newest_end = newest_after.map(|s| s.saturating_add(b - 1));
    settle(pairs, &request.windows, records.then_some(cost), newest_end, now);
    Ok(Decision { verdict: bind(pairs), records, newest_end })
}

/// The plan step, for a recording call: discard what no longer counts, drop the buckets
/// that left the largest window, record the accepted units, move the expiry.
fn plan(
    now: i64,
    cost: i64,
    count: &Count,
    decision: &Decision,
    view: &impl BucketView,
) -> Result<BucketPlan, StoredError> {
    let b = count.b;
    let discard = count.expired || (count.header.is_some() && count.in_largest == 0);
    let live = if discard { None } else { count.header };
    let mut next = live;
    if let Some(h) = live.filter(|h| h.oldest < count.first_in_largest) {
        // What left the largest window is dropped by moving `oldest` past it (already
        // subtracted from the total).
        next = Some(Header { total: count.in_largest, oldest: oldest_left(h, count, view)?, ..h });
    }
    let mut record = None;
    if decision.records {
        // Never into a bucket older than the newest (the clock stepped back): a unit is then
        // held longer, never shorter.
        let current = bucket_of(now, b);
        let into = live.map_or(current, |h| h.newest.max(current));
        let units = match live {
            Some(_) => view.units(into)?,
            None => 0,
        };
        let units = units.checked_add(cost).ok_or_else(|| invalid("its bucket counts overflow"))?;
        record = Some((into, units));
        next = Some(match next {
            None => Header { bucket_ms: b, total: cost, oldest: into, newest: into },
            Some(h) => Header {
                total: h.total.checked_add(cost).ok_or_else(|| invalid("its total overflows"))?,
                newest: into,
                ..h
            },
        });
    }
    let current_expiry = if discard { None } else { count.stored_expiry };
    Ok(BucketPlan {
        verdict: decision.verdict,
        discard,
        record,
        header: next.filter(|n| Some(*n) != live),
        stored: live,
        expire_at: decision.newest_end.and_then(|end| expiry_to_set(end, count.largest_window_ms, current_expiry)),
    })
}

/// The oldest bucket left once those before the largest window's first are dropped: the
/// first stored bucket at or after that one (the newest when none holds units before it).
fn oldest_left(h: Header, count: &Count, view: &impl BucketView) -> Result<i64, StoredError> {
    for s in starts(count.first_in_largest, h.newest, count.b)? {
        if view.units(s)? > 0 {
            return Ok(s);
        }
    }
    Ok(h.newest)
}

/// One pair's answer before anything is recorded.
fn check(
    now: i64,
    window: &Window,
    cost: i64,
    count: &Count,
    view: &impl BucketView,
) -> Result<PairVerdict, StoredError> {
    let limit = window.limit;
    // As for the exact log: a shorter window that surely has room and at least as much left
    // as the largest pair cannot be the one the reply describes (ties go to the longer
    // window); its exact count changes nothing.
    let is_largest = window.window_ms == count.largest_window_ms;
    let in_largest = count.in_largest;
    if !is_largest && in_largest.saturating_add(cost) <= limit && limit - in_largest >= count.largest_remaining {
        let remaining = limit - in_largest;
        return Ok(PairVerdict { window_ms: window.window_ms, limit, remaining, wait_ms: 0, reset_after_ms: 0 });
    }
    let first = first_counted(now, window.window_ms, count.b);
    let counted = count_in(window.window_ms, first, count, view)?;
    let wait_ms = if cost > limit {
        NEVER
    } else if counted.saturating_add(cost) <= limit {
        0
    } else {
        wait_until_room(now, window.window_ms, counted.saturating_add(cost) - limit, first, count, view)?
    };
    Ok(PairVerdict {
        window_ms: window.window_ms,
        limit,
        remaining: remaining(limit, counted),
        wait_ms,
        reset_after_ms: 0,
    })
}

/// The units a window of `window_ms` counts, its buckets starting at `first`.
fn count_in(window_ms: i64, first: i64, count: &Count, view: &impl BucketView) -> Result<i64, StoredError> {
    let b = count.b;
    Ok(match count.header {
        None => 0,
        Some(_) if window_ms == count.largest_window_ms || count.in_largest == 0 => count.in_largest,
        Some(h) if h.newest < first => 0,
        Some(h) => {
            // From whichever side spans fewer buckets: the window itself, or the buckets of
            // the largest window that are not in it.
            let first_in_largest = count.first_in_largest.max(h.oldest);
            let inside = h.newest.saturating_sub(first) / b + 1;
            let outside = first.saturating_sub(first_in_largest) / b;
            if inside <= outside {
                sum(view, first, h.newest, b)?
            } else {
                count.in_largest - sum(view, first_in_largest, first - b, b)?
            }
        }
    })
}

/// How long until enough buckets left the window (which starts at bucket `first`) to free
/// `need` units: buckets leave oldest first.
fn wait_until_room(
    now: i64,
    window_ms: i64,
    need: i64,
    first: i64,
    count: &Count,
    view: &impl BucketView,
) -> Result<i64, StoredError> {
    let b = count.b;
    let mut freed: i64 = 0;
    let mut freeing = first;
    for s in starts(first, count.header.map_or(first, |h| h.newest), b)? {
        freeing = s;
        freed = freed.saturating_add(view.units(s)?);
        if freed >= need {
            break;
        }
    }
    Ok(freeing.saturating_add(b - 1).saturating_add(window_ms).saturating_sub(now).max(1))
}

#[cfg(test)]
pub(crate) mod tests;
