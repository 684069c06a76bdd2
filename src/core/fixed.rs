//! The fixed-window counter: deciding a call from the stored count and expiry.
//!
//! A window is the life of the key: it starts when the first accepted request creates the
//! counter and ends when the key expires (with `ALIGN`, at the next multiple of
//! `window_ms` since the Unix epoch). Nothing here touches Redis.

use crate::core::block;
use crate::core::parse::{self, ArgError, Extras, Options};
use crate::core::request::{Mode, Window, MAX_WINDOW_MS};
use crate::core::verdict::{remaining, Verdict, NEVER};

/// `window_ms limit [COST n] [ALIGN]`, validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixedRequest {
    pub window: Window,
    /// Units this request takes, `>= 1`.
    pub cost: i64,
    /// Windows start at multiples of `window_ms` since the Unix epoch.
    pub align: bool,
    /// `REFUND n`, `BLOCK ms`.
    pub extras: Extras,
}

impl FixedRequest {
    /// A request larger than the limit can never be accepted, however long it waits.
    pub fn can_never_fit(&self) -> bool {
        self.cost > self.window.limit
    }
}

/// The largest limit: a counter is one number whatever the limit, so `winlimit.max-limit`
/// (which bounds what grows with the limit) does not apply.
pub const MAX_LIMIT: i64 = 1_000_000_000_000;

/// Parses the arguments after the key.
pub fn parse(args: &[&[u8]]) -> Result<FixedRequest, ArgError> {
    // The common call, a valid pair and no option, without the general parser's bookkeeping
    // (the same answer: a property test holds the two together).
    if let [window_ms, limit] = args {
        let window_ms = parse::parse_int(window_ms).filter(|w| (1..=MAX_WINDOW_MS).contains(w));
        let limit = parse::parse_int(limit).filter(|l| (0..=MAX_LIMIT).contains(l));
        if let (Some(window_ms), Some(limit)) = (window_ms, limit) {
            let window = Window { window_ms, limit };
            return Ok(FixedRequest { window, cost: 1, align: false, extras: Extras::default() });
        }
    }
    parse_any(args)
}

/// Parses any arguments after the key.
fn parse_any(args: &[&[u8]]) -> Result<FixedRequest, ArgError> {
    let (windows, options) = parse::windows(args, |_| MAX_LIMIT)?;
    if windows.len() > 1 {
        return Err(ArgError::new("WINLIMIT.FIXED takes one window_ms limit pair"));
    }
    let mut request = FixedRequest { window: windows.smallest(), cost: 1, align: false, extras: Extras::default() };
    let mut options = Options::new(options);
    let mut cost_given = false;
    while let Some(word) = options.next_word() {
        if word.eq_ignore_ascii_case(b"COST") {
            request.cost = parse::cost(options.value("COST")?)?;
            cost_given = true;
        } else if request.extras.take(word, &mut options)? {
            continue;
        } else if word.eq_ignore_ascii_case(b"ALIGN") {
            options.once("ALIGN")?;
            request.align = true;
        } else if parse::looks_like_integer(word) {
            return Err(ArgError::pair_after_options(word));
        } else {
            return Err(ArgError::unknown_option(word));
        }
    }
    request.extras.check(cost_given)?;
    Ok(request)
}

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
    /// `BLOCK`: the counter becomes [`BLOCKED`], expiring at `expire_at`.
    Block { expire_at: i64 },
    /// `REFUND`: take `by` from the live counter, making it `count` (expiry kept).
    Refund { by: i64, count: i64 },
}

/// The count of a blocked counter: above every limit, so every call is rejected until the
/// key expires, and told apart from a full window (a rejection does not block it again, a
/// refund does not lift it). Any stored count above [`MAX_LIMIT`] reads as a block.
pub const BLOCKED: i64 = MAX_LIMIT + 1;

/// The decision for one call and the write that carries it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixedPlan {
    pub verdict: Verdict,
    pub write: Option<FixedWrite>,
}

/// Decides one call at `now` against the stored counter (`None`: no key).
pub fn decide(now: i64, request: &FixedRequest, mode: Mode, stored: Option<Counter>) -> FixedPlan {
    let live = stored.filter(|c| c.expires_at.map_or(true, |at| at > now));
    if let Some(n) = request.extras.refund.filter(|_| mode == Mode::Record) {
        return refund(now, request, n, live);
    }
    let window_end = live.and_then(|c| c.expires_at).unwrap_or_else(|| new_window_end(now, request));
    let mut plan = count(now, request, mode, live, window_end);
    let blocked = live.is_some_and(|c| c.count > MAX_LIMIT);
    if blocked {
        plan.verdict = block::while_blocked(plan.verdict, now, window_end);
    } else if let Some(until) = block::starts(&plan.verdict, mode, request.extras.block_ms, blocked, now) {
        // One expiry holds the block and the window: the later end.
        let expire_at = until.max(window_end);
        plan = FixedPlan {
            verdict: block::while_blocked(plan.verdict, now, expire_at),
            write: Some(FixedWrite::Block { expire_at }),
        };
    }
    plan
}

/// The counter's own decision, in a window ending at `window_end`.
fn count(now: i64, request: &FixedRequest, mode: Mode, live: Option<Counter>, window_end: i64) -> FixedPlan {
    let count = live.map_or(0, |c| c.count);
    let allowed = !request.can_never_fit() && count.saturating_add(request.cost) <= request.window.limit;
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
        limit: request.window.limit,
        remaining: remaining(request.window.limit, count_after),
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

/// `REFUND n` on the live counter: down by `n`, not below 0, expiry kept; a blocked or
/// missing counter is left as it is. The reply is the peek of cost 1 that follows.
fn refund(now: i64, request: &FixedRequest, n: i64, live: Option<Counter>) -> FixedPlan {
    let peek = FixedRequest { cost: 1, extras: Extras::default(), ..*request };
    let taken = live.filter(|c| c.count > 0 && c.count <= MAX_LIMIT).map(|c| {
        let count = c.count.saturating_sub(n).max(0);
        (Counter { count, ..c }, FixedWrite::Refund { by: c.count - count, count })
    });
    let after = taken.map_or(live, |(counter, _)| Some(counter));
    FixedPlan { verdict: decide(now, &peek, Mode::Peek, after).verdict, write: taken.map(|(_, write)| write) }
}

/// Where a window starting now ends: one window later, or with `ALIGN` at the next
/// multiple of the window since the epoch.
fn new_window_end(now: i64, request: &FixedRequest) -> i64 {
    let window = request.window.window_ms;
    if request.align {
        now.div_euclid(window).saturating_add(1).saturating_mul(window)
    } else {
        now.saturating_add(window)
    }
}

#[cfg(test)]
pub(crate) mod tests;
