//! `BLOCK ms`, shared by every algorithm: when a recording call with `BLOCK` is rejected with
//! a wait (not [`NEVER`]: a cost above the limit blocks nothing), the key is blocked for `ms`.
//! While blocked every recording call is rejected and records nothing, and peeks report the
//! same; a rejection during a block does not extend it. Each algorithm stores the block in
//! its own key (see docs/concepts/refunds-and-peeks.md, "REFUND n and BLOCK ms").

use crate::core::request::Mode;
use crate::core::verdict::{Verdict, NEVER};

/// The reply while the key is blocked until `until` (> `now`): rejected, nothing remaining,
/// the wait the larger of the time left in the block and the algorithm's own (`verdict`),
/// and the key not back to its full budget before the block ends either.
pub fn while_blocked(verdict: Verdict, now: i64, until: i64) -> Verdict {
    let left = until.saturating_sub(now);
    Verdict {
        allowed: false,
        remaining: 0,
        retry_after_ms: verdict.retry_after_ms.max(left),
        reset_after_ms: verdict.reset_after_ms.max(left),
        ..verdict
    }
}

/// When the call's own `verdict` starts a block: the block's end, for a recording call with
/// `BLOCK ms` rejected with a wait, on a key not blocked already.
pub fn starts(verdict: &Verdict, mode: Mode, block_ms: Option<i64>, blocked: bool, now: i64) -> Option<i64> {
    let rejected_with_wait = !verdict.allowed && verdict.retry_after_ms != NEVER;
    let ms = block_ms.filter(|_| rejected_with_wait && mode == Mode::Record && !blocked)?;
    Some(now.saturating_add(ms))
}

/// A block still in force at `now`, from a stored end (`None`: no block stored).
pub fn in_force(until: Option<i64>, now: i64) -> Option<i64> {
    until.filter(|&until| until > now)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(retry_after_ms: i64) -> Verdict {
        Verdict { allowed: false, limit: 5, remaining: 1, retry_after_ms, reset_after_ms: 300 }
    }

    #[test]
    fn a_block_replies_the_larger_wait_and_nothing_remaining() {
        let v = while_blocked(rejected(200), 1000, 1500);
        assert_eq!(v.to_array(), [0, 5, 0, 500, 500]);
        assert_eq!(while_blocked(rejected(900), 1000, 1500).retry_after_ms, 900);
    }

    #[test]
    fn only_a_recording_rejection_with_a_wait_starts_a_block() {
        assert_eq!(starts(&rejected(200), Mode::Record, Some(50), false, 1000), Some(1050));
        assert_eq!(starts(&rejected(NEVER), Mode::Record, Some(50), false, 1000), None);
        assert_eq!(starts(&rejected(200), Mode::Peek, Some(50), false, 1000), None);
        assert_eq!(starts(&rejected(200), Mode::Record, None, false, 1000), None);
        assert_eq!(starts(&rejected(200), Mode::Record, Some(50), true, 1000), None, "no extension");
        let accepted = Verdict { allowed: true, retry_after_ms: 0, ..rejected(0) };
        assert_eq!(starts(&accepted, Mode::Record, Some(50), false, 1000), None);
    }
}
