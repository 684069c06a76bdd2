//! Strategies shared by the property tests.

use proptest::prelude::*;

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
