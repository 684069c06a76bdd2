//! GCRA, a token bucket kept as one number: `WINLIMIT.GCRA` and redis-cell's `CL.THROTTLE`.
//!
//! A bucket holds up to `burst` units and refills at `limit` units per `period_ms`,
//! continuously. The state is the theoretical arrival time (TAT): when the bucket is full
//! again. With `T = period_ms / limit` (the time one unit takes to come back), a request of
//! cost `c` is accepted iff `TAT - now + c * T <= burst * T`; then `TAT = max(TAT, now) + c * T`.
//!
//! Time is counted exactly in units of `1 / limit` ms, where `T` is the whole number
//! `period_ms`: no rounding drift however many calls. The stored value is a string,
//! `gcra:<ms>:<rem>:<den>`, the TAT `ms + rem / den` (`0 <= rem < den`), written with
//! `den = limit`; a state written with another limit is read rounded up, so a change can only
//! make the next decision stricter.

use crate::core::block;
use crate::core::parse::{self, parse_int, ArgError, Extras, Options};
use crate::core::request::{Mode, MAX_WINDOW_MS};
use crate::core::verdict::{Verdict, NEVER};

/// Bound of `period_ms`, `limit` and `BURST`; also `BURST * period_ms <= MAX * limit`
/// (a full refill within 10^12 ms).
pub const MAX: i64 = 1_000_000_000_000;

/// A validated call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcraRequest {
    pub period_ms: i64,
    /// Units per period, `>= 1`.
    pub limit: i64,
    /// Capacity, `>= 1`.
    pub burst: i64,
    /// Units taken; 0 only from `CL.THROTTLE` (a call that takes and writes nothing).
    pub cost: i64,
    /// `CL.THROTTLE` also reads redis-cell's own state, a TAT in ns.
    pub reads_cell_state: bool,
    /// `REFUND n`, `BLOCK ms` (not taken by `CL.THROTTLE`).
    pub extras: Extras,
}

/// Parses `period_ms limit [BURST n] [COST n]`.
pub fn parse(args: &[&[u8]]) -> Result<GcraRequest, ArgError> {
    let [period, limit, options @ ..] = args else {
        return Err(ArgError::range("period_ms", 1, MAX_WINDOW_MS));
    };
    let period_ms = in_range(period, "period_ms", 1, MAX)?;
    let limit = in_range(limit, "limit", 1, MAX)?;
    let mut burst = None;
    let mut cost = 1;
    let mut extras = Extras::default();
    let mut cost_given = false;
    let mut options = Options::new(options);
    while let Some(word) = options.next_word() {
        if word.eq_ignore_ascii_case(b"BURST") {
            burst = Some(options.value("BURST")?);
        } else if word.eq_ignore_ascii_case(b"COST") {
            cost = parse::cost(options.value("COST")?)?;
            cost_given = true;
        } else if !extras.take(word, &mut options)? {
            return Err(ArgError::unknown_option(word));
        }
    }
    extras.check(cost_given)?;
    // A full refill (`burst * period_ms / limit`) must fit in 10^12 ms.
    let max_burst = match MAX.checked_mul(limit) {
        Some(product) => (product / period_ms).min(MAX),
        None => (i128::from(MAX) * i128::from(limit) / i128::from(period_ms)).min(i128::from(MAX)) as i64,
    };
    let burst = match burst {
        None => limit.min(max_burst),
        Some(value) => in_range(value, "BURST", 1, max_burst)?,
    };
    Ok(GcraRequest { period_ms, limit, burst, cost, reads_cell_state: false, extras })
}

/// Bound of `CL.THROTTLE`'s `period_s`, and of the refill time its `max_burst` implies.
pub const MAX_PERIOD_S: i64 = 1_000_000_000;

/// Parses `CL.THROTTLE`'s `max_burst count_per_period period_s [quantity]`.
pub fn parse_cell(args: &[&[u8]]) -> Result<GcraRequest, ArgError> {
    let (max_burst, count, period, quantity) = match args {
        [b, c, p] => (b, c, p, None),
        [b, c, p, q] => (b, c, p, Some(q)),
        _ => return Err(ArgError::new("wrong number of arguments for 'cl.throttle' command")),
    };
    let max_burst = in_range(max_burst, "max_burst", 0, MAX - 1)?;
    let count = in_range(count, "count_per_period", 1, MAX)?;
    let period_s = in_range(period, "period_s", 1, MAX_PERIOD_S)?;
    // A 64-bit division unless the product needs 128 bits (a library call ten times as long).
    let refill_s = match (max_burst + 1).checked_mul(period_s) {
        Some(product) => i128::from(product / count),
        None => (i128::from(max_burst) + 1) * i128::from(period_s) / i128::from(count),
    };
    if refill_s > i128::from(MAX_PERIOD_S) {
        return Err(ArgError::new(format_args!(
            "max_burst too large: (max_burst + 1) * period_s / count_per_period must be at most {MAX_PERIOD_S}"
        )));
    }
    let cost = match quantity {
        None => 1,
        Some(q) => {
            parse_int(q).filter(|q| *q >= 0).ok_or_else(|| ArgError::new("quantity must be a non-negative integer"))?
        }
    };
    let burst = max_burst + 1;
    Ok(GcraRequest {
        period_ms: period_s * 1000,
        limit: count,
        burst,
        cost,
        reads_cell_state: true,
        extras: Extras::default(),
    })
}

fn in_range(value: &[u8], name: &str, min: i64, max: i64) -> Result<i64, ArgError> {
    parse_int(value).filter(|v| (min..=max).contains(v)).ok_or_else(|| ArgError::range(name, min, max))
}

/// A TAT, exactly: `ms + rem / den` ms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tat {
    pub ms: i64,
    pub rem: i64,
    pub den: i64,
}

/// What a string key holds, as GCRA reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    Tat(Tat),
    /// A TAT with a block stored beside it: `BLOCK` ends at that ms (in force while later
    /// than now).
    Blocked(Tat, i64),
    /// redis-cell's TAT in ns since the epoch (read by `CL.THROTTLE` only).
    CellNanos(i64),
}

/// The key holds no GCRA state (a FIXED counter, or any other string).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotGcra;

const PREFIX: &[u8] = b"gcra:";

/// Reads a stored value, `gcra:<ms>:<rem>:<den>` or, blocked, `gcra:<ms>:<rem>:<den>:<until>`;
/// `reads_cell_state` also takes redis-cell's decimal ns.
pub fn decode(value: &[u8], reads_cell_state: bool) -> Result<Stored, NotGcra> {
    if let Some(rest) = value.strip_prefix(PREFIX) {
        let mut parts = rest.split(|&b| b == b':').map(parse_int);
        let (Some(Some(ms)), Some(Some(rem)), Some(Some(den)), until, None) =
            (parts.next(), parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(NotGcra);
        };
        let tat = Tat { ms, rem, den };
        return match until {
            _ if !(1..=MAX).contains(&den) || !(0..den).contains(&rem) => Err(NotGcra),
            None => Ok(Stored::Tat(tat)),
            Some(Some(until)) => Ok(Stored::Blocked(tat, until)),
            Some(None) => Err(NotGcra),
        };
    }
    match parse_int(value) {
        Some(ns) if reads_cell_state && ns >= 0 => Ok(Stored::CellNanos(ns)),
        _ => Err(NotGcra),
    }
}

/// The longest stored form: the prefix, four `i64`s and three separators.
pub const ENCODED_MAX: usize = PREFIX.len() + 4 * 20 + 3;

/// The stored form of a TAT, with the block's end when one is set, written into `buf`
/// without allocating.
pub fn encode(tat: Tat, blocked_until: Option<i64>, buf: &mut [u8; ENCODED_MAX]) -> &[u8] {
    buf[..PREFIX.len()].copy_from_slice(PREFIX);
    let mut len = PREFIX.len();
    for (i, part) in [Some(tat.ms), Some(tat.rem), Some(tat.den), blocked_until].into_iter().flatten().enumerate() {
        if i > 0 {
            buf[len] = b':';
            len += 1;
        }
        len += parse::format_int(part, &mut buf[len..]);
    }
    &buf[..len]
}

/// The digits of `ms` in a value [`encode`] wrote for a TAT of `ms` whole ms: their length
/// is counted, not searched for.
pub fn encoded_ms(encoded: &[u8], ms: i64) -> &[u8] {
    let len = usize::from(ms < 0) + ms.unsigned_abs().checked_ilog10().map_or(1, |log| log as usize + 1);
    encoded.get(PREFIX.len()..PREFIX.len() + len).unwrap_or_default()
}

/// The write a call makes: the new TAT, the block's end when it sets one, and the key's
/// expiry (the TAT rounded up to the ms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcraWrite {
    pub tat: Tat,
    pub blocked_until: Option<i64>,
    pub expire_at: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcraPlan {
    pub verdict: Verdict,
    pub write: Option<GcraWrite>,
    /// A refund left the bucket full: the key goes (a missing key is a full bucket).
    pub delete: bool,
}

/// `x.div_euclid(d)` and `x.rem_euclid(d)`, for `d > 0`: one unsigned machine division when
/// `x` is not negative and both fit in 64 bits, as they do unless the limit is in the
/// millions or a stored state is hostile (a 128-bit division is a library call some ten
/// times as long, and a signed one adds its sign fix-ups).
fn div_rem(x: i128, d: i128) -> (i128, i128) {
    match (u64::try_from(x), u64::try_from(d)) {
        (Ok(x), Ok(d)) if d > 0 => (i128::from(x / d), i128::from(x % d)),
        _ => (x.div_euclid(d), x.rem_euclid(d)),
    }
}

/// `x / d` rounded up, for `d > 0`.
fn div_ceil(x: i128, d: i128) -> i128 {
    let (quotient, remainder) = div_rem(x, d);
    quotient + i128::from(remainder != 0)
}

/// Clamps an `i128` into `i64` (only hostile stored states come near the ends).
fn to_i64(x: i128) -> i64 {
    x.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// The stored TAT in units of `1 / limit` ms, rounded up when written with another limit.
fn tat_units(stored: Stored, l: i128) -> i128 {
    match stored {
        Stored::Tat(t) | Stored::Blocked(t, _) if i128::from(t.den) == l => i128::from(t.ms) * l + i128::from(t.rem),
        Stored::Tat(t) | Stored::Blocked(t, _) => {
            i128::from(t.ms) * l + div_ceil(i128::from(t.rem) * l, i128::from(t.den))
        }
        Stored::CellNanos(ns) => div_ceil(i128::from(ns) * l, 1_000_000),
    }
}

/// The write storing a TAT of `tat_u` units of `1 / limit` ms.
fn write_of(tat_u: i128, request: &GcraRequest, blocked_until: Option<i64>) -> GcraWrite {
    let (ms, rem) = div_rem(tat_u, i128::from(request.limit));
    GcraWrite {
        tat: Tat { ms: to_i64(ms), rem: to_i64(rem), den: request.limit },
        blocked_until,
        expire_at: to_i64(ms + i128::from(rem != 0)),
    }
}

/// Decides one call at `now` against the stored state (`None`: no key, or expired).
pub fn decide(now: i64, request: &GcraRequest, mode: Mode, stored: Option<Stored>) -> GcraPlan {
    let blocked = match stored {
        Some(Stored::Blocked(_, until)) => block::in_force(Some(until), now),
        _ => None,
    };
    if let Some(n) = request.extras.refund.filter(|_| mode == Mode::Record) {
        return refund(now, request, n, stored, blocked);
    }
    let mut plan = bucket(now, request, mode, stored);
    if let Some(until) = blocked {
        return GcraPlan { verdict: block::while_blocked(plan.verdict, now, until), write: None, delete: false };
    }
    if let Some(until) = block::starts(&plan.verdict, mode, request.extras.block_ms, false, now) {
        // The TAT pushed so that the next unit arrives when the block ends.
        let (l, p) = (i128::from(request.limit), i128::from(request.period_ms));
        let pushed = i128::from(until) * l + (i128::from(request.burst) - 1) * p;
        let tat_u = stored.map_or(pushed, |s| tat_units(s, l).max(pushed));
        let write = write_of(tat_u, request, Some(until));
        let state = Stored::Blocked(write.tat, until);
        let peek = GcraRequest { extras: Extras::default(), ..*request };
        plan = GcraPlan {
            verdict: decide(now, &peek, Mode::Peek, Some(state)).verdict,
            write: Some(write),
            delete: false,
        };
    }
    plan
}

/// `REFUND n`: the TAT moves back by `n` emission intervals, never before now (a full
/// bucket, stored as no key); a block in force is left as it is. The reply is the peek of
/// cost 1 that follows.
fn refund(now: i64, request: &GcraRequest, n: i64, stored: Option<Stored>, blocked: Option<i64>) -> GcraPlan {
    let peek = GcraRequest { cost: 1, extras: Extras::default(), ..*request };
    let (l, p) = (i128::from(request.limit), i128::from(request.period_ms));
    let now_u = i128::from(now) * l;
    let before = stored.filter(|_| blocked.is_none()).map(|s| tat_units(s, l)).filter(|&t| t > now_u);
    let Some(before) = before else {
        return GcraPlan { verdict: decide(now, &peek, Mode::Peek, stored).verdict, write: None, delete: false };
    };
    let after = (before - i128::from(n) * p).max(now_u);
    if after == now_u {
        return GcraPlan { verdict: decide(now, &peek, Mode::Peek, None).verdict, write: None, delete: true };
    }
    let write = write_of(after, request, None);
    GcraPlan {
        verdict: decide(now, &peek, Mode::Peek, Some(Stored::Tat(write.tat))).verdict,
        write: Some(write),
        delete: false,
    }
}

/// The bucket's own decision.
fn bucket(now: i64, request: &GcraRequest, mode: Mode, stored: Option<Stored>) -> GcraPlan {
    let l = i128::from(request.limit);
    let p = i128::from(request.period_ms);
    let capacity = i128::from(request.burst) * p;
    let now_u = i128::from(now) * l;
    let tat_u = stored.map_or(now_u, |s| tat_units(s, l)).max(now_u);
    let debt = tat_u - now_u;
    let whole_units = |debt: i128| to_i64(div_rem((capacity - debt).max(0), p).0);

    if request.cost > request.burst {
        let verdict = Verdict {
            allowed: false,
            limit: request.burst,
            remaining: whole_units(debt).min(request.burst),
            retry_after_ms: NEVER,
            reset_after_ms: to_i64(div_ceil(debt, l)),
        };
        return GcraPlan { verdict, write: None, delete: false };
    }
    let cost = i128::from(request.cost) * p;
    let allowed = debt + cost <= capacity;
    let records = allowed && mode == Mode::Record && request.cost > 0;
    let debt_after = if records { debt + cost } else { debt };
    let verdict = Verdict {
        allowed,
        limit: request.burst,
        remaining: whole_units(debt_after).min(request.burst),
        retry_after_ms: if allowed { 0 } else { to_i64(div_ceil(debt + cost - capacity, l)) },
        reset_after_ms: to_i64(div_ceil(debt_after, l)),
    };
    GcraPlan { verdict, write: records.then(|| write_of(tat_u + cost, request, None)), delete: false }
}

#[cfg(test)]
pub(crate) mod tests;
