//! The answer every WINLIMIT command gives, independent of the algorithm.

/// What a rate-limit call replies: the five integers of the reply array, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// The request was accepted and recorded (read-only variants: would be accepted now).
    pub allowed: bool,
    /// The limit the caller passed.
    pub limit: i64,
    /// Units still available in the current window after this call, within `0..=limit`.
    pub remaining: i64,
    /// 0 when allowed; the least wait after which the same request is accepted if nothing
    /// else arrives; [`NEVER`] when the cost exceeds the limit.
    pub retry_after_ms: i64,
    /// Time until the window holds nothing; 0 when nothing is recorded.
    pub reset_after_ms: i64,
}

/// `retry_after_ms` for a request that can never succeed (`cost > limit`).
pub const NEVER: i64 = -1;

impl Verdict {
    /// The reply array, in wire order.
    pub fn to_array(self) -> [i64; 5] {
        [i64::from(self.allowed), self.limit, self.remaining, self.retry_after_ms, self.reset_after_ms]
    }
}

/// Units left under `limit` when `used` are taken, never negative (a caller may lower the
/// limit below what is already counted).
pub(crate) fn remaining(limit: i64, used: i64) -> i64 {
    limit.saturating_sub(used).clamp(0, limit)
}
