//! The fixed-window counter: deciding a call from the stored count and expiry.
//!
//! A window is the life of the key: it starts when the first accepted request creates the
//! counter and ends when the key expires (with `ALIGN`, at the next multiple of
//! `window_ms` since the Unix epoch). Nothing here touches Redis.

use crate::core::parse::{self, ArgError, Options};
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
            return Ok(FixedRequest { window: Window { window_ms, limit }, cost: 1, align: false });
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
    let mut request = FixedRequest { window: windows.smallest(), cost: 1, align: false };
    let mut options = Options::new(options);
    while let Some(word) = options.next_word() {
        if word.eq_ignore_ascii_case(b"COST") {
            request.cost = parse::cost(options.value("COST")?)?;
        } else if word.eq_ignore_ascii_case(b"ALIGN") {
            options.once("ALIGN")?;
            request.align = true;
        } else if parse::looks_like_integer(word) {
            return Err(ArgError::pair_after_options(word));
        } else {
            return Err(ArgError::unknown_option(word));
        }
    }
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
}

/// The decision for one call and the write that carries it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixedPlan {
    pub verdict: Verdict,
    pub write: Option<FixedWrite>,
}

/// Decides one call at `now` against the stored counter (`None`: no key).
pub fn decide(now: i64, request: &FixedRequest, mode: Mode, stored: Option<Counter>) -> FixedPlan {
    let live = stored.filter(|c| c.expires_at.map_or(true, |at| at > now));
    let window_end = live.and_then(|c| c.expires_at).unwrap_or_else(|| new_window_end(now, request));
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
