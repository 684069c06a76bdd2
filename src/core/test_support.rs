//! Strategies shared by the property tests.

use proptest::prelude::*;

use crate::core::verdict::NEVER;

/// Integers weighted towards where arithmetic breaks: the ends of `i64`, a window's width
/// (10^12) from them, and around zero. Uniform `i64`s almost never land there.
pub fn edgy_i64() -> impl Strategy<Value = i64> {
    const NEAR: i64 = 2_000_000_000_000;
    prop_oneof![
        any::<i64>(),
        Just(i64::MIN),
        Just(i64::MAX),
        (i64::MAX - NEAR)..=i64::MAX,
        i64::MIN..=(i64::MIN + NEAR),
        -1_000i64..1_000,
    ]
}

/// The model's own answer for one pair, from the accepted units alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelPair {
    pub window: i64,
    pub limit: i64,
    pub remaining: i64,
    pub wait: i64,
    pub reset: i64,
}

/// The binding pair as the contract states it, written out plainly.
pub fn model_binding(pairs: &[ModelPair], allowed: bool) -> ModelPair {
    let longer_first = |a: &&ModelPair, b: &&ModelPair| b.window.cmp(&a.window);
    let mut candidates: Vec<&ModelPair> = pairs.iter().collect();
    candidates.sort_by(longer_first);
    if allowed {
        let least = pairs.iter().map(|p| p.remaining).min().unwrap();
        **candidates.iter().find(|p| p.remaining == least).unwrap()
    } else if let Some(never) = candidates.iter().find(|p| p.wait == NEVER) {
        **never
    } else {
        let latest = pairs.iter().map(|p| p.wait).max().unwrap();
        **candidates.iter().find(|p| p.wait == latest).unwrap()
    }
}

/// One call of the refund and block model: after `gap` ms, a refund of `n` (`cost` 0, `n`
/// from `block_ms`, default 1) or a recording call of `cost` with `BLOCK block_ms`.
pub type LogStep = (i64, i64, Option<i64>);

pub fn log_steps() -> impl Strategy<Value = Vec<LogStep>> {
    proptest::collection::vec((0i64..40, 0i64..4, proptest::option::of(1i64..300)), 1..60)
}

/// Checks a sliding log with refunds and blocks against a brute-force one (every unit's time,
/// one window of `window` ms and `limit`): a block rejects every call until it ends and is
/// not extended by rejections, a refund takes the newest counted units (none while blocked).
/// `record(now, cost, block_ms)` and `refund(now, n)` call the log under test.
pub fn check_refund_and_block(
    window: i64,
    limit: i64,
    steps: Vec<LogStep>,
    mut record: impl FnMut(i64, i64, Option<i64>) -> crate::core::verdict::Verdict,
    mut refund: impl FnMut(i64, i64) -> crate::core::verdict::Verdict,
) -> Result<(), TestCaseError> {
    let mut units: Vec<i64> = Vec::new();
    let mut blocked_until = i64::MIN;
    let mut now = 1_000;
    for (gap, cost, block_ms) in steps {
        now += gap;
        units.retain(|&t| now - t < window);
        let blocked = blocked_until > now;
        if cost == 0 {
            let n = block_ms.unwrap_or(1);
            let v = refund(now, n);
            if !blocked {
                units.truncate(units.len().saturating_sub(n as usize));
            }
            prop_assert_eq!(v.allowed, !blocked && (units.len() as i64) < limit);
            continue;
        }
        let v = record(now, cost, block_ms);
        let fits = !blocked && units.len() as i64 + cost <= limit;
        prop_assert_eq!(v.allowed, fits);
        if fits {
            units.extend(std::iter::repeat(now).take(cost as usize));
        } else if let (Some(ms), false, true) = (block_ms, blocked, cost <= limit) {
            blocked_until = now + ms;
        }
        if blocked_until > now {
            prop_assert_eq!(v.remaining, 0);
            prop_assert!(v.retry_after_ms >= blocked_until - now);
        }
    }
    Ok(())
}
