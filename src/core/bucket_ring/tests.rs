//! The ring against the bucketed log's in-memory stand-in (a map of buckets): the same calls
//! decide the same, and the ring always holds exactly the map's buckets.

use std::collections::BTreeMap;

use super::*;
use crate::core::bucketed::decide;
use crate::core::bucketed::tests::MemoryHash;
use crate::core::request::{Mode, Window, Windows};
use crate::core::slide::SlideRequest;
use crate::core::test_support::edgy_i64;
use crate::core::verdict::Verdict;
use proptest::prelude::*;

fn request(pairs: &[(i64, i64)], cost: i64, bucket_ms: i64) -> SlideRequest {
    let mut windows = Windows::default();
    for &(window_ms, limit) in pairs {
        assert!(windows.insert(Window { window_ms, limit }));
    }
    SlideRequest { windows, cost, bucket_ms: Some(bucket_ms), extras: Default::default() }
}

/// A key stored as a ring, written as the adapter writes it.
#[derive(Debug, Default, Clone)]
struct RingKey {
    bytes: Option<Vec<u8>>,
    expires_at: Option<i64>,
}

impl RingKey {
    fn call(&mut self, now: i64, request: &SlideRequest) -> Result<Verdict, StoredError> {
        let view = RingView::new(self.bytes.as_deref(), self.expires_at);
        let plan = decide(now, request, Mode::Record, &view)?;
        let stored = if plan.stored.is_some() { view.ring()? } else { None };
        let write = write_for(&plan, stored.as_ref(), request.windows.largest().window_ms)?;
        if plan.discard {
            *self = RingKey::default();
        }
        match write {
            RingWrite::Nothing => {}
            RingWrite::Words(words) => set_words(self.bytes.as_mut().expect("words of a stored ring"), &words),
            RingWrite::Whole(bytes) => self.bytes = Some(bytes),
        }
        if plan.expire_at.is_some() && self.bytes.is_some() {
            self.expires_at = plan.expire_at;
        }
        Ok(plan.verdict)
    }

    /// Every bucket the ring counts, by start.
    fn buckets(&self) -> BTreeMap<i64, i64> {
        let Some(bytes) = &self.bytes else { return BTreeMap::new() };
        let ring = Ring::parse(bytes).unwrap();
        let h = ring.header().unwrap();
        let span = (h.newest - h.oldest) / h.bucket_ms + 1;
        (0..span)
            .map(|i| h.oldest + i * h.bucket_ms)
            .map(|s| (s, ring.units(&h, s).unwrap()))
            .filter(|&(_, units)| units != 0)
            .collect()
    }
}

fn word(bytes: &[u8], k: usize) -> i64 {
    i64::from_be_bytes(bytes[k * 8..k * 8 + 8].try_into().unwrap())
}

#[test]
fn a_new_key_is_the_marker_the_header_and_one_slot() {
    let mut key = RingKey::default();
    key.call(5_050, &request(&[(1000, 10)], 3, 100)).unwrap();
    let bytes = key.bytes.clone().unwrap();
    assert_eq!(&bytes[..8], b"wlbucket");
    assert_eq!(bytes.len(), (5 + 2) * 8);
    assert_eq!((1..7).map(|k| word(&bytes, k)).collect::<Vec<_>>(), [100, 3, 5000, 5000, 5000, 3]);
}

#[test]
fn the_ring_doubles_as_buckets_open_up_to_every_bucket_of_the_window() {
    let mut key = RingKey::default();
    let r = request(&[(1000, 100)], 1, 100);
    let mut sizes = Vec::new();
    for now in (5_000..7_000).step_by(100) {
        key.call(now, &r).unwrap();
        sizes.push(Ring::parse(key.bytes.as_ref().unwrap()).unwrap().slots());
    }
    sizes.dedup();
    assert_eq!(sizes, [1, 2, 4, 8, 11]);
    // A bucket counts until its last ms leaves the window: 11 of 100 ms count in 1000 ms.
    assert_eq!(key.buckets().len(), 11);
}

#[test]
fn a_unit_in_the_newest_bucket_rewrites_its_count_and_the_total_only() {
    let mut key = RingKey::default();
    let r = request(&[(1000, 10)], 1, 100);
    key.call(5_050, &r).unwrap();
    let ring_bytes = key.bytes.clone().unwrap();
    let ring = Ring::parse(&ring_bytes).unwrap();
    let view = RingView::new(Some(&ring_bytes), key.expires_at);
    let plan = decide(5_060, &r, Mode::Record, &view).unwrap();
    let RingWrite::Words(words) = write_for(&plan, Some(&ring), 1000).unwrap() else { panic!("words expected") };
    assert_eq!(*words, [(2, 2), (6, 2)]);
}

#[test]
fn a_larger_window_grows_the_ring_and_keeps_every_bucket() {
    let mut key = RingKey::default();
    for now in [5_000, 5_300, 5_900] {
        key.call(now, &request(&[(1000, 10)], 1, 100)).unwrap();
    }
    assert_eq!(Ring::parse(key.bytes.as_ref().unwrap()).unwrap().slots(), 11);
    key.call(6_400, &request(&[(5000, 10)], 1, 100)).unwrap();
    // Buckets 5000 to 6400 span 15 slots: the ring doubles to 16.
    assert_eq!(Ring::parse(key.bytes.as_ref().unwrap()).unwrap().slots(), 16);
    assert_eq!(key.buckets(), BTreeMap::from([(5000, 1), (5300, 1), (5900, 1), (6400, 1)]));
}

#[test]
fn a_bucket_that_left_the_window_no_longer_counts_though_its_slot_still_holds_it() {
    let mut key = RingKey::default();
    let r = request(&[(1000, 10)], 1, 100);
    key.call(5_000, &r).unwrap();
    key.call(5_500, &r).unwrap();
    key.call(6_200, &r).unwrap();
    assert_eq!(key.buckets(), BTreeMap::from([(5500, 1), (6200, 1)]));
}

#[test]
fn strings_winlimit_did_not_write_are_refused() {
    let mut good = RingKey::default();
    good.call(5_000, &request(&[(1000, 10)], 1, 100)).unwrap();
    let good = good.bytes.unwrap();
    let with_word = |k: usize, v: i64| {
        let mut b = good.clone();
        set_words(&mut b, &[(k, v)]);
        b
    };
    let cases: [(&str, Vec<u8>); 8] = [
        ("a counter", b"12".to_vec()),
        ("no marker", [b"wlbuckex".as_slice(), &good[8..]].concat()),
        ("a torn slot", good[..good.len() - 8].to_vec()),
        ("no slot", good[..40].to_vec()),
        ("zero bucket_ms", with_word(1, 0)),
        ("zero total", with_word(2, 0)),
        ("oldest after newest", with_word(3, 5100)),
        ("a span beyond the ring", with_word(4, 5000 + 100 * 11)),
    ];
    for (what, bytes) in cases {
        let refused = Ring::parse(&bytes).and_then(|ring| ring.header());
        assert!(matches!(refused, Err(StoredError::Invalid(_))), "{what}: {refused:?}");
    }
    let negative = with_word(6, -1);
    let ring = Ring::parse(&negative).unwrap();
    assert!(ring.units(&ring.header().unwrap(), 5000).is_err());
}

proptest! {
    /// Through any calls, windows growing or not, gaps longer than the window, clock steps
    /// back: the ring decides as the map does and counts exactly the map's buckets.
    #[test]
    fn the_ring_decides_and_stores_as_a_map_of_buckets(
        bucket_ms in 1i64..50,
        calls in proptest::collection::vec((-300i64..3000, 1i64..6, 0usize..4, 1i64..4), 1..80),
    ) {
        let windows = [bucket_ms, bucket_ms * 7, bucket_ms * 20 + 13, bucket_ms * 60];
        let mut ring = RingKey::default();
        let mut map = MemoryHash::default();
        let mut now = 1_000_000i64;
        for (step, limit, largest, cost) in calls {
            now += step;
            let pairs: Vec<(i64, i64)> = windows[..=largest].iter().enumerate().map(|(i, &w)| (w, limit * (i as i64 + 1))).collect();
            let r = request(&pairs, cost, bucket_ms);
            let expected = map.call(now, &r, Mode::Record);
            prop_assert_eq!(ring.call(now, &r).unwrap(), expected);
            prop_assert_eq!(ring.buckets(), map.buckets.clone());
            prop_assert_eq!(ring.expires_at, map.expires_at);
        }
    }
}

#[test]
fn a_new_ring_in_the_last_bucket_before_the_end_of_i64_is_written() {
    let mut key = RingKey::default();
    assert!(key.call(i64::MAX, &request(&[(1000, 10)], 1, 100)).unwrap().allowed);
    assert_eq!(key.buckets(), BTreeMap::from([(i64::MAX / 100 * 100, 1)]));
}

#[test]
fn counts_near_the_top_of_i64_answer_or_refuse_without_overflowing() {
    let mut key = RingKey::default();
    key.call(5_000_000, &request(&[(60_000, 10)], 1, 1000)).unwrap();
    let mut bytes = key.bytes.clone().unwrap();
    set_words(&mut bytes, &[(2, i64::MAX), (6, i64::MAX)]);
    key.bytes = Some(bytes);
    let rejected = key.clone().call(5_000_100, &request(&[(1000, 2), (60_000, 10)], 2, 1000)).unwrap();
    assert!(!rejected.allowed);
    assert!(key.call(5_000_100, &request(&[(60_000, i64::MAX)], 1, 1000)).is_err());
}

proptest! {
    /// Any words after the marker, any call: an answer or an error, never a panic; and what
    /// a call writes is a ring that reads back valid.
    #[test]
    fn fuzz_a_ring_of_any_words_never_panics(
        words in proptest::collection::vec(prop_oneof![edgy_i64(), 0i64..5, 1_000_000i64..1_000_100], 4..20),
        marked in any::<bool>(),
        aligned in any::<bool>(),
        now in edgy_i64(),
        window in 1i64..=crate::core::request::MAX_WINDOW_MS,
        limit in 0i64..=1_000_000_000_000,
        cost in 1i64..=i64::MAX,
        bucket in 1i64..=1_000_000_000_000,
        expires_at in proptest::option::of(edgy_i64()),
        record in any::<bool>(),
    ) {
        let b = bucket.min(window);
        let mut words = words;
        if aligned {
            // A header of this bucket length with oldest and newest on its grid, and slots
            // holding starts near them: what gets past the first checks.
            words[0] = b;
            words[2] = words[2].div_euclid(b).saturating_mul(b);
            words[3] = words[2].saturating_add(words[3].rem_euclid(8).saturating_mul(b));
            for j in (4..words.len()).step_by(2) {
                words[j] = words[2].saturating_add((words[j].rem_euclid(8)).saturating_mul(b));
            }
        }
        let mut bytes: Vec<u8> = if marked { MAGIC.to_vec() } else { Vec::new() };
        bytes.extend(words.iter().flat_map(|w| w.to_be_bytes()));
        let r = request(&[(window, limit)], cost, b);
        let mode = if record { Mode::Record } else { Mode::Peek };
        let view = RingView::new(Some(&bytes), expires_at);
        if let Ok(plan) = decide(now, &r, mode, &view) {
            let stored = if plan.stored.is_some() { view.ring().ok().flatten() } else { None };
            let written = match write_for(&plan, stored.as_ref(), window) {
                Ok(RingWrite::Whole(whole)) => Some(whole),
                Ok(RingWrite::Words(words)) if !plan.discard => {
                    let mut after = bytes.clone();
                    set_words(&mut after, &words);
                    Some(after)
                }
                _ => None,
            };
            if let Some(after) = written {
                let ring = Ring::parse(&after);
                prop_assert!(ring.is_ok());
                prop_assert!(ring.unwrap().header().is_ok());
            }
        }
    }
}
