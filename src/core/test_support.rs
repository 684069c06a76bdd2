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
