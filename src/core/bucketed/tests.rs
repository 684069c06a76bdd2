//! The bucketed log against an in-memory hash, and against a brute-force model.

use std::collections::BTreeMap;

use super::*;
use crate::core::request::Windows;
use crate::core::slide::expiry_slack;
use crate::core::test_support::{check_refund_and_block, edgy_i64, log_steps, model_binding, ModelPair};
use proptest::prelude::*;

/// A bucketed log held in memory: buckets, the header, and the key's expiry. The ring's
/// tests compare the stored layout with it.
#[derive(Debug, Default, Clone)]
pub(crate) struct MemoryHash {
    pub buckets: BTreeMap<i64, i64>,
    pub header: Option<Header>,
    pub expires_at: Option<i64>,
    pub blocked: Option<i64>,
}

impl BucketView for MemoryHash {
    fn header(&self) -> Result<Option<Header>, StoredError> {
        Ok(self.header)
    }

    fn expires_at(&self) -> Option<i64> {
        self.expires_at
    }

    fn units(&self, start: i64) -> Result<i64, StoredError> {
        Ok(self.buckets.get(&start).copied().unwrap_or(0))
    }

    fn blocked_until(&self) -> Option<i64> {
        self.blocked
    }
}

impl MemoryHash {
    pub fn call(&mut self, now: i64, request: &SlideRequest, mode: Mode) -> Verdict {
        let plan = decide(now, request, mode, self).expect("a valid state");
        if mode == Mode::Peek {
            assert!(plan.is_noop(), "a peek must not plan writes: {plan:?}");
        }
        self.apply(&plan);
        plan.verdict
    }

    /// Carries out a plan as the adapter does.
    fn apply(&mut self, plan: &BucketPlan) {
        if plan.discard {
            *self = MemoryHash::default();
        }
        // Buckets before the new oldest have left the largest window: the ring stops
        // counting them.
        if let Some(header) = plan.header {
            self.buckets.retain(|&s, _| s >= header.oldest);
        }
        if let Some((s, units)) = plan.record {
            self.buckets.insert(s, units);
        }
        if plan.block.is_some() {
            self.blocked = plan.block;
        }
        if let Some(header) = plan.header {
            self.header = Some(header);
        }
        if self.buckets.is_empty() {
            *self = MemoryHash::default();
            return;
        }
        if let Some(at) = plan.expire_at {
            self.expires_at = Some(at);
        }
        // The header stays true to the buckets.
        let h = self.header.expect("buckets need a header");
        assert_eq!(h.total, self.buckets.values().sum::<i64>(), "{self:?}");
        assert_eq!(h.oldest, *self.buckets.keys().next().unwrap());
        assert_eq!(h.newest, *self.buckets.keys().last().unwrap());
    }
}

impl MemoryHash {
    /// `REFUND n` as the adapter runs it: the buckets and header change, then the peek replies.
    pub(crate) fn refund(&mut self, now: i64, request: &SlideRequest, n: i64) -> Verdict {
        if let Some(change) = refund(now, request, n, self).expect("a valid state") {
            for (s, units) in change.buckets {
                if units == 0 {
                    self.buckets.remove(&s);
                } else {
                    self.buckets.insert(s, units);
                }
            }
            match change.header {
                None => *self = MemoryHash::default(),
                Some(h) => {
                    self.header = Some(h);
                    assert_eq!(h.total, self.buckets.values().sum::<i64>(), "{self:?}");
                    assert_eq!(
                        (h.oldest, h.newest),
                        (*self.buckets.keys().next().unwrap(), *self.buckets.keys().last().unwrap())
                    );
                }
            }
        }
        self.call(now, &crate::core::slide::peek_of(request), Mode::Peek)
    }
}

proptest! {
    /// With 1 ms buckets the bucketed log is the exact log: refunds and blocks against the
    /// same brute-force model as the exact log's.
    #[test]
    fn refund_and_block_match_the_reference_model(window in 1i64..200, limit in 1i64..6, steps in log_steps()) {
        let key = std::cell::RefCell::new(MemoryHash::default());
        let r = |cost, block_ms| SlideRequest {
            extras: crate::core::parse::Extras { refund: None, block_ms },
            ..request(&[(window, limit)], cost, 1)
        };
        check_refund_and_block(
            window,
            limit,
            steps,
            |now, cost, block_ms| key.borrow_mut().call(now, &r(cost, block_ms), Mode::Record),
            |now, n| key.borrow_mut().refund(now, &r(1, None), n),
        )?;
    }
}

fn request(pairs: &[(i64, i64)], cost: i64, bucket_ms: i64) -> SlideRequest {
    let mut windows = Windows::default();
    for &(window_ms, limit) in pairs {
        assert!(windows.insert(Window { window_ms, limit }));
    }
    SlideRequest { windows, cost, bucket_ms: Some(bucket_ms), extras: Default::default() }
}

#[test]
fn units_in_one_bucket_accumulate_up_to_the_limit() {
    let mut key = MemoryHash::default();
    let r = request(&[(1000, 3)], 1, 100);
    let replies: Vec<_> = (0..4).map(|i| key.call(5_000 + i, &r, Mode::Record).to_array()).collect();
    // The bucket [5000, 5100) counts until 5000 + 99 + 1000.
    assert_eq!(replies[0], [1, 3, 2, 0, 1099]);
    assert_eq!(replies[3], [0, 3, 0, 1099 - 3, 1099 - 3]);
    assert_eq!(key.buckets, BTreeMap::from([(5000, 3)]));
}

#[test]
fn a_bucket_is_held_b_minus_one_ms_longer_than_the_exact_log() {
    let mut key = MemoryHash::default();
    let r = request(&[(1000, 1)], 1, 100);
    key.call(5_050, &r, Mode::Record);
    // The exact log would free the unit at 6050; its bucket [5000, 5100) counts until 6099.
    assert!(!key.clone().call(6_098, &r, Mode::Peek).allowed);
    assert!(key.clone().call(6_099, &r, Mode::Peek).allowed);
}

#[test]
fn retry_after_names_the_bucket_whose_departure_frees_room() {
    let mut key = MemoryHash::default();
    let r = request(&[(1000, 3)], 1, 100);
    key.call(5_000, &r, Mode::Record);
    key.call(5_150, &r, Mode::Record);
    key.call(5_160, &r, Mode::Record);
    let v = key.call(5_500, &request(&[(1000, 3)], 2, 100), Mode::Record);
    // Room for 2 once [5000, 5100) and [5100, 5200) have both left: 5100 + 99 + 1000.
    assert_eq!((v.allowed, v.retry_after_ms), (false, 6199 - 5500));
}

#[test]
fn departed_buckets_are_removed_and_the_total_follows() {
    let mut key = MemoryHash::default();
    let r = request(&[(1000, 100)], 1, 100);
    key.call(5_000, &r, Mode::Record);
    key.call(5_500, &r, Mode::Record);
    key.call(6_150, &r, Mode::Record);
    assert_eq!(key.buckets, BTreeMap::from([(5500, 1), (6100, 1)]));
    assert_eq!(key.header.map(|h| (h.total, h.oldest, h.newest)), Some((2, 5500, 6100)));
}

#[test]
fn a_key_where_nothing_counts_is_discarded() {
    let mut key = MemoryHash::default();
    let r = request(&[(1000, 100)], 1, 100);
    key.call(5_000, &r, Mode::Record);
    let plan = decide(9_000, &request(&[(1000, 0)], 1, 100), Mode::Record, &key).unwrap();
    assert!(plan.discard);
    assert_eq!(plan.verdict.to_array(), [0, 0, 0, NEVER, 0]);
}

#[test]
fn another_bucket_length_is_refused() {
    let mut key = MemoryHash::default();
    key.call(5_000, &request(&[(1000, 100)], 1, 100), Mode::Record);
    let refused = decide(5_001, &request(&[(1000, 100)], 1, 50), Mode::Record, &key);
    assert_eq!(refused, Err(StoredError::OtherBucket { stored: 100 }));
}

#[test]
fn cost_up_to_the_limit_is_one_bucket_write() {
    let mut key = MemoryHash::default();
    let r = request(&[(60_000, 1_000_000_000_000)], 1_000_000_000_000, 1000);
    assert_eq!(key.call(5_000, &r, Mode::Record).to_array(), [1, 1_000_000_000_000, 0, 0, 60_999 - 5_000 + 5_000]);
    assert_eq!(key.buckets.len(), 1);
}

#[test]
fn the_key_lives_until_the_newest_bucket_leaves_the_largest_window_plus_a_slack() {
    let mut key = MemoryHash::default();
    key.call(5_050, &request(&[(100, 5), (1000, 50)], 1, 100), Mode::Record);
    assert_eq!(key.expires_at, Some(5000 + 99 + 1000 + expiry_slack(1000)));
}

#[test]
fn a_clock_step_back_records_into_the_newest_bucket() {
    let mut key = MemoryHash::default();
    let r = request(&[(1000, 100)], 1, 100);
    key.call(5_000, &r, Mode::Record);
    key.call(4_800, &r, Mode::Record);
    assert_eq!(key.buckets, BTreeMap::from([(5000, 2)]));
}

#[test]
fn a_span_wider_than_winlimit_writes_is_refused_not_walked() {
    let mut key = MemoryHash::default();
    key.buckets.insert(0, 1);
    key.buckets.insert(1_000_000_000, 5);
    key.header = Some(Header { bucket_ms: 100, total: 6, oldest: 0, newest: 1_000_000_000 });
    // The short window is full and its retry would walk 10^7 empty buckets.
    let r = request(&[(100, 5), (1000, 50)], 1, 100);
    assert!(matches!(decide(1_000, &r, Mode::Record, &key), Err(StoredError::Invalid(_))));
}

/// Units counted in a window of `w` at `now`: a bucket at `s` counts while `now - (s + b - 1) < w`.
fn counted(accepted: &[(i64, i64, i64)], now: i64, w: i64, b: i64) -> i64 {
    accepted.iter().filter(|(_, s, _)| now - (s + b - 1) < w).map(|(_, _, c)| c).sum()
}

proptest! {
    /// Against a brute-force model of the bucket semantics: every reply field, the binding
    /// pair, exact retries, and no span of any window ever holding more than its limit.
    #[test]
    fn matches_the_reference_model(
        pairs in proptest::collection::btree_map(20i64..150, 0i64..8, 1..4),
        bucket_divisor in 1i64..6,
        arrivals in proptest::collection::vec((0i64..40, 1i64..4), 1..50),
        peek_every in 2usize..5,
    ) {
        let pairs: Vec<(i64, i64)> = pairs.into_iter().collect();
        let b = (pairs[0].0 / bucket_divisor).max(1);
        let mut key = MemoryHash::default();
        // (time, bucket start, cost) of every accepted call.
        let mut accepted: Vec<(i64, i64, i64)> = Vec::new();
        let mut now = 1_000;
        for (i, (gap, cost)) in arrivals.into_iter().enumerate() {
            now += gap;
            let r = request(&pairs, cost, b);
            let mode = if i % peek_every == 0 { Mode::Peek } else { Mode::Record };
            let fits = pairs.iter().all(|&(w, l)| counted(&accepted, now, w, b) + cost <= l);
            let before = key.clone();
            let v = key.call(now, &r, mode);
            prop_assert_eq!(v.allowed, fits);
            if fits && mode == Mode::Record {
                accepted.push((now, now.div_euclid(b) * b, cost));
            }
            let model: Vec<ModelPair> = pairs.iter().map(|&(w, l)| {
                let used = counted(&accepted, now, w, b);
                let wait = if cost > l {
                    NEVER
                } else if fits {
                    0
                } else {
                    (0..=w + b).find(|d| counted(&accepted, now + d, w, b) + cost <= l).unwrap()
                };
                let reset = (0..=w + b).find(|d| counted(&accepted, now + d, w, b) == 0).unwrap();
                ModelPair { window: w, limit: l, remaining: (l - used).max(0), wait, reset }
            }).collect();
            let expected = model_binding(&model, fits);
            prop_assert_eq!(
                v.to_array(),
                [i64::from(fits), expected.limit, expected.remaining, expected.wait, expected.reset]
            );
            if !fits && expected.wait != NEVER {
                prop_assert!(before.clone().call(now + v.retry_after_ms, &r, Mode::Peek).allowed);
                prop_assert!(!before.clone().call(now + v.retry_after_ms - 1, &r, Mode::Peek).allowed);
            }
            // Never more than the exact log would allow, in any span of any window.
            for &(w, l) in &pairs {
                for &(t, _, _) in &accepted {
                    let in_span: i64 = accepted.iter().filter(|(u, _, _)| *u <= t && t - u < w).map(|(_, _, c)| c).sum();
                    prop_assert!(in_span <= l);
                }
            }
            if let Some(at) = key.expires_at {
                let newest = accepted.last().map(|(_, s, _)| *s).unwrap();
                let largest = pairs.last().unwrap().0;
                prop_assert!(at >= newest + b - 1 + largest);
                prop_assert!(at <= newest + b - 1 + largest + expiry_slack(largest));
            }
        }
    }

    #[test]
    fn fuzz_decide_never_panics(
        now in edgy_i64(),
        window in 1i64..=crate::core::request::MAX_WINDOW_MS,
        limit in 0i64..=1_000_000_000_000,
        cost in 1i64..=i64::MAX,
        bucket in 1i64..=1_000_000_000_000,
        total in 1i64..=i64::MAX,
        oldest in edgy_i64(),
        span in 0i64..3000,
        units in proptest::collection::vec(1i64..=i64::MAX, 0..8),
        expires_at in proptest::option::of(edgy_i64()),
        exists in any::<bool>(),
        mode in prop_oneof![Just(Mode::Record), Just(Mode::Peek)],
    ) {
        let b = bucket.min(window);
        let oldest = oldest.div_euclid(b).saturating_mul(b);
        let newest = oldest.saturating_add(span.saturating_mul(b));
        let mut key = MemoryHash { expires_at, ..MemoryHash::default() };
        if exists {
            key.header = Some(Header { bucket_ms: b, total, oldest, newest });
            for (i, u) in units.iter().enumerate() {
                key.buckets.insert(oldest.saturating_add(i as i64 * b), *u);
            }
        }
        if let Ok(plan) = decide(now, &request(&[(window, limit)], cost, b), mode, &key) {
            prop_assert!((0..=limit).contains(&plan.verdict.remaining));
            prop_assert!(plan.verdict.retry_after_ms >= NEVER && plan.verdict.reset_after_ms >= 0);
        }
    }
}
