//! The exact sliding-window log: parsing `WINLIMIT.SLIDE`'s arguments and deciding a call
//! from a view of the stored log.
//!
//! The log is a set of entries, one per accepted unit, each with the time (ms) it was
//! accepted. An entry at `t` counts in a window of `w` while `now - t < w`. One log serves
//! every `window_ms limit` pair of a call; entries are kept while they count in the largest.
//! Nothing here touches Redis: the keyspace adapter answers the few questions of
//! [`LogView`] from a sorted set and carries out the returned [`SlidePlan`].

use crate::core::block;
use crate::core::parse::{self, ArgError, Extras, Options};
use crate::core::request::{Mode, Window, Windows, MAX_WINDOWS, MAX_WINDOW_MS};
use crate::core::verdict::{bind, remaining, PairVerdict, Verdict, NEVER};

/// `window_ms limit [window_ms limit ...] [COST n] [BUCKET ms]`, validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlideRequest {
    pub windows: Windows,
    /// Units this request takes, `>= 1`.
    pub cost: i64,
    /// `BUCKET ms`: count per bucket of this many ms instead of one entry per unit.
    pub bucket_ms: Option<i64>,
    /// `REFUND n`, `BLOCK ms`.
    pub extras: Extras,
}

/// With `BUCKET`, a limit may be this large: the key's size does not grow with it.
pub const MAX_BUCKETED_LIMIT: i64 = 1_000_000_000_000;

/// With `BUCKET`, the largest window may span at most this many buckets.
pub const MAX_BUCKETS_PER_WINDOW: i64 = 1000;

/// Parses the arguments after the key. `max_limit` (`winlimit.max-limit`) bounds the
/// limits of the exact log; with `BUCKET` they may reach [`MAX_BUCKETED_LIMIT`].
pub fn parse(args: &[&[u8]], max_limit: i64) -> Result<SlideRequest, ArgError> {
    match parse_common(args, max_limit) {
        Some(request) => Ok(request),
        None => parse_any(args, max_limit),
    }
}

/// The common calls, one pair alone or with `BUCKET b`, without the general parser's
/// bookkeeping; `None` for any other call and for one it would refuse (the same answers: a
/// property test holds the two together).
fn parse_common(args: &[&[u8]], max_limit: i64) -> Option<SlideRequest> {
    let (window_ms, limit, bucket) = match args {
        [window_ms, limit] => (window_ms, limit, None),
        [window_ms, limit, option, bucket] if option.eq_ignore_ascii_case(b"BUCKET") => {
            (window_ms, limit, Some(bucket))
        }
        _ => return None,
    };
    let window_ms = parse::parse_int(window_ms).filter(|w| (1..=MAX_WINDOW_MS).contains(w))?;
    let bound = if bucket.is_some() { MAX_BUCKETED_LIMIT } else { max_limit };
    let limit = parse::parse_int(limit).filter(|l| (0..=bound).contains(l))?;
    let windows = Windows::one(Window { window_ms, limit });
    let bucket_ms = match bucket {
        Some(bucket) => Some(bucket_ms(bucket, &windows).ok()?),
        None => None,
    };
    Some(SlideRequest { windows, cost: 1, bucket_ms, extras: Extras::default() })
}

/// Parses any arguments after the key.
fn parse_any(args: &[&[u8]], max_limit: i64) -> Result<SlideRequest, ArgError> {
    let bucketed = |options: &[&[u8]]| options.iter().any(|o| o.eq_ignore_ascii_case(b"BUCKET"));
    let (windows, options) =
        parse::windows(args, |options| if bucketed(options) { MAX_BUCKETED_LIMIT } else { max_limit })?;
    let mut request = SlideRequest { windows, cost: 1, bucket_ms: None, extras: Extras::default() };
    let mut options = Options::new(options);
    let mut cost_given = false;
    while let Some(word) = options.next_word() {
        if word.eq_ignore_ascii_case(b"COST") {
            request.cost = parse::cost(options.value("COST")?)?;
            cost_given = true;
        } else if request.extras.take(word, &mut options)? {
            continue;
        } else if word.eq_ignore_ascii_case(b"BUCKET") {
            request.bucket_ms = Some(bucket_ms(options.value("BUCKET")?, &windows)?);
        } else if parse::looks_like_integer(word) {
            return Err(ArgError::pair_after_options(word));
        } else {
            return Err(ArgError::unknown_option(word));
        }
    }
    request.extras.check(cost_given)?;
    Ok(request)
}

/// `BUCKET b`: `1..=` the smallest window, and the largest window spans at most
/// [`MAX_BUCKETS_PER_WINDOW`] buckets (so at most one more is ever stored).
fn bucket_ms(value: &[u8], windows: &Windows) -> Result<i64, ArgError> {
    let smallest = windows.smallest().window_ms;
    let largest = windows.largest().window_ms;
    let fits = |b: &i64| (1..=smallest).contains(b) && (largest + b - 1) / b <= MAX_BUCKETS_PER_WINDOW;
    parse::parse_int(value).filter(fits).ok_or_else(|| {
        let least = (largest + MAX_BUCKETS_PER_WINDOW - 1) / MAX_BUCKETS_PER_WINDOW;
        if least > smallest {
            ArgError::new(format_args!(
                "BUCKET cannot serve these windows: the largest needs buckets of at least {least} ms, \
                 the smallest allows at most {smallest} ms"
            ))
        } else {
            ArgError::range("BUCKET", least, smallest)
        }
    })
}

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
/// set; the tests answer from a vector. A missing key is an empty log. The walks take
/// `&mut self`: the sorted set's walks move its one range cursor.
pub trait LogView {
    /// Number of entries, counted or not.
    fn len(&self) -> u64;
    /// The entry with the highest score (ties: the last in Redis order).
    fn newest(&mut self) -> Option<Entry>;
    /// Absolute expiry of the key in ms, if it has one.
    fn expires_at(&self) -> Option<i64>;
    /// How many entries are scored at or below `cutoff`, walking from the oldest.
    fn count_through(&mut self, cutoff: i64) -> u64;
    /// The score of the `n`-th (from 0) oldest entry scored above `cutoff`.
    fn nth_after(&mut self, cutoff: i64, n: u64) -> Option<i64>;
    /// How many entries are scored above `cutoff`, walking from the newest and stopping at
    /// `cap`: a short window costs its own size, not the log's.
    fn count_after_from_newest(&mut self, cutoff: i64, cap: u64) -> u64;
    /// How many entries are scored in `(after, through]`, walking from the oldest of them and
    /// stopping at `cap`.
    fn count_between(&mut self, after: i64, through: i64, cap: u64) -> u64;
    /// The score of the `n`-th (from 0) newest entry.
    fn nth_newest(&mut self, n: u64) -> Option<i64>;
    /// The score of the `n`-th (from 0) oldest entry.
    fn nth_oldest(&mut self, n: u64) -> Option<i64>;
    /// The end of the stored block (the marker), in force or not; not an entry.
    fn blocked_until(&self) -> Option<i64>;
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
    /// Nothing in the key counts any more (its expiry has passed, or every entry left the
    /// largest window): delete it before anything else.
    pub discard: bool,
    /// Remove every entry whose score is at or below this (they no longer count).
    pub trim_through: Option<i64>,
    pub append: Option<Append>,
    /// Give the key this absolute expiry (ms).
    pub expire_at: Option<i64>,
    /// `BLOCK`: store the marker of a block ending then.
    pub block: Option<i64>,
    /// The marker of a block that has ended, removed after the entries are written (so the
    /// set never empties on the way).
    pub unblock: Option<i64>,
}

impl SlidePlan {
    /// True when carrying out the plan changes nothing.
    pub fn is_noop(&self) -> bool {
        !self.discard
            && self.trim_through.is_none()
            && self.append.is_none()
            && self.expire_at.is_none()
            && self.block.is_none()
    }

    fn nothing(verdict: Verdict) -> Self {
        SlidePlan {
            verdict,
            discard: false,
            trim_through: None,
            append: None,
            expire_at: None,
            block: None,
            unblock: None,
        }
    }
}

/// The member of the marker a block is stored as (`block:<until>`), scored `+inf`: after
/// every entry, and never in a window.
pub fn block_member(until: i64, buf: &mut [u8; 26]) -> &[u8] {
    buf[..6].copy_from_slice(BLOCK_PREFIX);
    let len = 6 + parse::format_int(until, &mut buf[6..]);
    &buf[..len]
}

const BLOCK_PREFIX: &[u8] = b"block:";

/// The block's end from a member scored `+inf`; `None` when it is not a marker.
pub fn parse_block_member(member: &[u8]) -> Option<i64> {
    member.strip_prefix(BLOCK_PREFIX).and_then(parse::parse_int)
}

/// `REFUND n`: how many of the newest entries go, at most those the largest window counts;
/// none while a block is in force (a refund never lifts one). The reply is the peek of cost
/// 1 that follows.
pub fn refund_take(now: i64, request: &SlideRequest, n: i64, log: &mut impl LogView) -> u64 {
    if block::in_force(log.blocked_until(), now).is_some() || log.expires_at().is_some_and(|at| at <= now) {
        return 0;
    }
    let len = log.len();
    let stale = if len == 0 { 0 } else { log.count_through(now.saturating_sub(request.windows.largest().window_ms)) };
    (len - stale.min(len)).min(u64::try_from(n).unwrap_or(0))
}

/// The request a refund replies as: a peek of cost 1.
pub fn peek_of(request: &SlideRequest) -> SlideRequest {
    SlideRequest { cost: 1, extras: Extras::default(), ..*request }
}

/// Entries that left the window are removed once they are at least this fraction
/// (1/`TRIM_FRACTION`) of the log, so a busy key replicates a trim now and then instead of
/// on every call, and holds at most `limit * 8 / 7` entries. Counting skips them exactly.
pub const TRIM_FRACTION: u64 = 8;

/// One call removes at most about this many entries (more only where they share the last
/// removed score), so tidying a large log never stalls the server; the rest goes later.
pub const TRIM_STEP: u64 = 1024;

/// How much longer than needed the key's expiry may be set: it then moves once per slack
/// instead of on every call. The key outlives its newest entry's window by at most this.
pub fn expiry_slack(largest_window_ms: i64) -> i64 {
    (largest_window_ms / 8).min(60_000)
}

/// The expiry to give a key whose newest unit counts until `newest_end + window_ms`, or
/// `None` when `current` already lies within the slack above that.
pub fn expiry_to_set(newest_end: i64, window_ms: i64, current: Option<i64>) -> Option<i64> {
    let needed = newest_end.saturating_add(window_ms);
    let slack = expiry_slack(window_ms);
    let fine = current.is_some_and(|at| (needed..=needed.saturating_add(slack)).contains(&at));
    (!fine).then(|| needed.saturating_add(slack))
}

/// Completes each pair's answer: what remains after recording `recorded` units, and when
/// nothing counts in its window any more, given that the newest unit counts until
/// `newest_end + window_ms`.
pub fn settle(pairs: &mut [PairVerdict], windows: &Windows, recorded: Option<i64>, newest_end: Option<i64>, now: i64) {
    for (pair, window) in pairs.iter_mut().zip(windows.iter()) {
        if let Some(cost) = recorded {
            // Exact: an accepted pair had `limit - remaining + cost <= limit`.
            pair.remaining -= cost;
        }
        pair.reset_after_ms = newest_end
            .map(|t| t.saturating_add(window.window_ms).saturating_sub(now))
            .filter(|&left| left > 0)
            .unwrap_or(0);
    }
}

/// Decides one call at `now` against the stored log and its block.
pub fn decide(now: i64, request: &SlideRequest, mode: Mode, log: &mut impl LogView) -> SlidePlan {
    let stored_block = log.blocked_until();
    let mut plan = decide_log(now, request, mode, log);
    if let Some(until) = block::in_force(stored_block, now) {
        return SlidePlan::nothing(block::while_blocked(plan.verdict, now, until));
    }
    if let Some(until) = block::starts(&plan.verdict, mode, request.extras.block_ms, false, now) {
        plan.verdict = block::while_blocked(plan.verdict, now, until);
        plan.block = Some(until);
        // The key lives at least until the block ends.
        let expiry = plan.expire_at.or(log.expires_at());
        if expiry.map_or(true, |at| at < until) {
            plan.expire_at = Some(until);
        }
    }
    // A marker whose block has ended goes with the next write (a delete takes it anyway).
    if !plan.is_noop() && !plan.discard {
        plan.unblock = stored_block;
    }
    plan
}

/// Decides one call at `now` against the stored log alone.
///
/// Reads no more of the log than the verdict needs: the entries that left the largest
/// window, for each shorter window at most its limit counted from the newest end, and on a
/// rejection the entry whose departure makes room, reached from the nearer end.
fn decide_log(now: i64, request: &SlideRequest, mode: Mode, log: &mut impl LogView) -> SlidePlan {
    let largest = request.windows.largest();
    let stored_expiry = log.expires_at();
    // A log whose expiry has come is an empty window, even if Redis still shows it.
    let expired = stored_expiry.is_some_and(|at| at <= now);
    let cutoff = now.saturating_sub(largest.window_ms);
    let (len, stale, newest_entry) = if expired {
        (0, 0, None)
    } else {
        let len = log.len();
        let stale = if len == 0 { 0 } else { log.count_through(cutoff) };
        // One read of the newest entry serves its score and, when recording, its member.
        (len, stale, if len == 0 { None } else { log.newest() })
    };
    let newest = newest_entry.map(|e| e.score);
    let counted_in_largest = len - stale.min(len);

    let cost = request.cost;
    let largest_remaining = remaining(largest.limit, i64::try_from(counted_in_largest).unwrap_or(i64::MAX));
    let mut pairs = [PairVerdict::default(); MAX_WINDOWS];
    for (pair, window) in pairs.iter_mut().zip(request.windows.iter()) {
        *pair = check(now, window, cost, largest.window_ms, counted_in_largest, largest_remaining, log);
    }
    let pairs = &mut pairs[..request.windows.len()];
    let allowed = pairs.iter().all(|p| p.wait_ms == 0);
    let records = allowed && mode == Mode::Record;

    let newest_counted = newest.filter(|_| counted_in_largest > 0);
    let newest_after = if records { Some(newest_counted.map_or(now, |t| t.max(now))) } else { newest_counted };
    settle(pairs, &request.windows, records.then_some(cost), newest_after, now);
    let verdict = bind(pairs);

    if mode == Mode::Peek {
        return SlidePlan::nothing(verdict);
    }
    let discard = expired || (len > 0 && stale == len);
    let trim_through = (!discard && stale > 0 && stale * TRIM_FRACTION >= len).then(|| {
        if stale <= TRIM_STEP {
            cutoff
        } else {
            log.nth_oldest(TRIM_STEP - 1).map_or(cutoff, |score| score.min(cutoff))
        }
    });
    let append = records.then(|| Append {
        score: now,
        count: cost,
        first_member: newest_entry.and_then(|e| e.member).map_or(*MEMBERS.start(), next_member),
    });
    // The key must live until its newest entry leaves the largest window; it may live up
    // to the slack longer, so the expiry moves once per slack, not on every call.
    let current_expiry = if discard { None } else { stored_expiry };
    let expire_at = newest_after.and_then(|t| expiry_to_set(t, largest.window_ms, current_expiry));
    SlidePlan { verdict, discard, trim_through, append, expire_at, block: None, unblock: None }
}

/// One pair's answer before anything is recorded: `remaining` is what the window has left
/// now, `wait_ms` when it has room for `cost`. The largest window's count is known already;
/// a shorter one is counted by [`count_shorter`], unless it surely has room and cannot bind.
fn check(
    now: i64,
    window: &Window,
    cost: i64,
    largest_window_ms: i64,
    counted_in_largest: u64,
    largest_remaining: i64,
    log: &mut impl LogView,
) -> PairVerdict {
    let is_largest = window.window_ms == largest_window_ms;
    let limit = window.limit;
    let cutoff = now.saturating_sub(window.window_ms);
    let counted_in_largest_i64 = i64::try_from(counted_in_largest).unwrap_or(i64::MAX);
    // A shorter window counts no more than the largest. When even that leaves it room, and
    // at least as much left as the largest pair has, it cannot be the one the reply
    // describes (an accepted call binds the least `remaining`, ties to the longer window,
    // and the largest is the longest), so its exact count changes nothing: skip counting it.
    // Equal limits, the common shape (10 a second and 10 a minute), skip too.
    let surely_room = counted_in_largest_i64.saturating_add(cost) <= limit;
    if !is_largest && surely_room && limit - counted_in_largest_i64 >= largest_remaining {
        return PairVerdict {
            window_ms: window.window_ms,
            limit,
            remaining: limit - counted_in_largest_i64,
            wait_ms: 0,
            reset_after_ms: 0,
        };
    }
    let counted = if is_largest || counted_in_largest == 0 {
        counted_in_largest
    } else {
        let largest_cutoff = now.saturating_sub(largest_window_ms);
        count_shorter(log, largest_cutoff, cutoff, counted_in_largest, limit)
    };
    let counted = i64::try_from(counted).unwrap_or(i64::MAX);
    let wait_ms = if cost > limit {
        NEVER
    } else if counted.saturating_add(cost) <= limit {
        0
    } else {
        // Room appears once the entry `limit - cost` places from the newest leaves; from the
        // oldest end that is the `counted + cost - limit`-th, cheaper to reach in the largest
        // window, whose count is exact.
        let from_oldest = counted + cost - limit - 1;
        let from_newest = limit - cost;
        let freeing = if is_largest && from_oldest <= from_newest {
            log.nth_after(cutoff, u64::try_from(from_oldest).unwrap_or(0))
        } else {
            log.nth_newest(u64::try_from(from_newest).unwrap_or(0))
        };
        // The log always holds that entry here; fall back to a full window.
        freeing.map_or(window.window_ms, |t| t.saturating_add(window.window_ms).saturating_sub(now).max(1))
    };
    PairVerdict { window_ms: window.window_ms, limit, remaining: remaining(limit, counted), wait_ms, reset_after_ms: 0 }
}

/// The entries a shorter window counts, with cutoff `cutoff` inside the largest window's
/// `largest_cutoff`. When every counted entry is inside it (one look at the oldest counted
/// entry), that is the largest window's count; otherwise they are counted from the newest
/// end, never more than one past the limit, beyond which the answer is the same. Each step
/// of a walk reads a score, so one walk beats several shorter ones.
fn count_shorter(log: &mut impl LogView, largest_cutoff: i64, cutoff: i64, counted_in_largest: u64, limit: i64) -> u64 {
    if log.count_between(largest_cutoff, cutoff, 1) == 0 {
        return counted_in_largest;
    }
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    log.count_after_from_newest(cutoff, cap)
}

#[cfg(test)]
pub(crate) mod tests;
