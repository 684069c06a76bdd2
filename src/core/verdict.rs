//! The answer every command gives, and which of several windows it describes.

/// What a rate-limit call replies: the five integers of the reply array, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// The request was accepted and recorded (read-only variants: would be accepted now).
    pub allowed: bool,
    /// The limit of the pair described.
    pub limit: i64,
    /// Units still available after this call, within `0..=limit`.
    pub remaining: i64,
    /// 0 when allowed; the least wait after which the same request is accepted if nothing
    /// else arrives; [`NEVER`] when the cost exceeds the limit.
    pub retry_after_ms: i64,
    /// Time until nothing counts any more; 0 when nothing does.
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
pub fn remaining(limit: i64, used: i64) -> i64 {
    limit.saturating_sub(used).clamp(0, limit)
}

/// One pair's own answer, before the binding pair is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PairVerdict {
    pub window_ms: i64,
    pub limit: i64,
    /// Units left in this pair after the call (before it, when the call records nothing).
    pub remaining: i64,
    /// 0 when this pair has room now, [`NEVER`] when the cost exceeds its limit, else the
    /// least wait after which it has room.
    pub wait_ms: i64,
    pub reset_after_ms: i64,
}

/// The reply for a call checked against several pairs, shortest window first.
///
/// Accepted: the pair with the least `remaining`. Rejected because the cost exceeds a
/// limit: that pair, with [`NEVER`]. Otherwise rejected: the pair whose room comes last;
/// its wait is the least after which every pair has room (each pair's room only grows
/// while nothing arrives). Ties go to the longer window.
pub fn bind(pairs: &[PairVerdict]) -> Verdict {
    let allowed = pairs.iter().all(|p| p.wait_ms == 0);
    // Pairs are shortest first, so `max_by_key` (last of equals) breaks ties to the longer.
    let binding = if allowed {
        pairs.iter().max_by_key(|p| std::cmp::Reverse(p.remaining))
    } else if pairs.iter().any(|p| p.wait_ms == NEVER) {
        pairs.iter().rfind(|p| p.wait_ms == NEVER)
    } else {
        pairs.iter().max_by_key(|p| p.wait_ms)
    };
    let Some(pair) = binding else {
        return Verdict { allowed, limit: 0, remaining: 0, retry_after_ms: 0, reset_after_ms: 0 };
    };
    Verdict {
        allowed,
        limit: pair.limit,
        remaining: pair.remaining,
        retry_after_ms: pair.wait_ms,
        reset_after_ms: pair.reset_after_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(window_ms: i64, remaining: i64, wait_ms: i64) -> PairVerdict {
        PairVerdict { window_ms, limit: window_ms / 10, remaining, wait_ms, reset_after_ms: window_ms }
    }

    #[test]
    fn accepted_binds_to_the_least_remaining() {
        let v = bind(&[pair(1000, 5, 0), pair(60000, 2, 0)]);
        assert_eq!(v.to_array(), [1, 6000, 2, 0, 60000]);
    }

    #[test]
    fn ties_go_to_the_longer_window() {
        assert_eq!(bind(&[pair(1000, 2, 0), pair(60000, 2, 0)]).limit, 6000);
        assert_eq!(bind(&[pair(1000, 0, 40), pair(60000, 0, 40)]).limit, 6000);
    }

    #[test]
    fn a_cost_above_a_limit_binds_to_the_longest_such_window() {
        let v = bind(&[pair(1000, 0, NEVER), pair(2000, 0, NEVER), pair(60000, 0, 500)]);
        assert_eq!((v.limit, v.retry_after_ms), (200, NEVER));
    }

    #[test]
    fn rejected_binds_to_the_pair_whose_room_comes_last() {
        let v = bind(&[pair(1000, 0, 700), pair(60000, 0, 300), pair(90000, 4, 0)]);
        assert_eq!((v.allowed, v.limit, v.retry_after_ms), (false, 100, 700));
    }
}
