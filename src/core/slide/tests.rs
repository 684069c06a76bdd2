//! The sliding log against an in-memory store, and against a brute-force model.

use super::*;
use crate::core::test_support::{check_refund_and_block, edgy_i64, log_steps, model_binding, ModelPair};
use proptest::prelude::*;

/// A sorted-set stand-in: entries sorted by score, plus the key's expiry.
#[derive(Debug, Default, Clone)]
pub(crate) struct MemoryLog {
    entries: Vec<Entry>,
    expires_at: Option<i64>,
    /// The block marker's end.
    blocked: Option<i64>,
}

impl LogView for MemoryLog {
    fn len(&self) -> u64 {
        self.entries.len() as u64
    }

    fn newest(&mut self) -> Option<Entry> {
        self.entries.last().copied()
    }

    fn expires_at(&self) -> Option<i64> {
        self.expires_at
    }

    fn count_through(&mut self, cutoff: i64) -> u64 {
        self.entries.iter().filter(|e| e.score <= cutoff).count() as u64
    }

    fn nth_after(&mut self, cutoff: i64, n: u64) -> Option<i64> {
        self.entries.iter().filter(|e| e.score > cutoff).nth(n as usize).map(|e| e.score)
    }

    fn count_after_from_newest(&mut self, cutoff: i64, cap: u64) -> u64 {
        self.entries.iter().rev().take_while(|e| e.score > cutoff).take(cap as usize).count() as u64
    }

    fn nth_newest(&mut self, n: u64) -> Option<i64> {
        self.entries.iter().rev().nth(n as usize).map(|e| e.score)
    }

    fn count_between(&mut self, after: i64, through: i64, cap: u64) -> u64 {
        self.entries.iter().filter(|e| e.score > after && e.score <= through).take(cap as usize).count() as u64
    }

    fn nth_oldest(&mut self, n: u64) -> Option<i64> {
        self.entries.get(n as usize).map(|e| e.score)
    }

    fn blocked_until(&self) -> Option<i64> {
        self.blocked
    }
}

impl MemoryLog {
    fn with_scores(scores: &[i64]) -> Self {
        let entries = scores.iter().map(|&score| Entry { score, member: None }).collect();
        MemoryLog { entries, expires_at: None, blocked: None }
    }

    pub(crate) fn call(&mut self, now: i64, request: &SlideRequest, mode: Mode) -> Verdict {
        let plan = decide(now, request, mode, self);
        if mode == Mode::Peek {
            assert!(plan.is_noop(), "a peek must not plan writes: {plan:?}");
        }
        self.apply(&plan);
        plan.verdict
    }

    /// Carries out a plan the way the keyspace adapter does.
    fn apply(&mut self, plan: &SlidePlan) {
        if plan.discard {
            *self = MemoryLog::default();
        }
        if let Some(cutoff) = plan.trim_through {
            self.entries.retain(|e| e.score > cutoff);
        }
        if let Some(append) = plan.append {
            let mut next = append.first_member;
            for _ in 0..append.count {
                // As the adapter does: skip members that exist, never overwrite.
                while self.entries.iter().any(|e| e.member == Some(next)) {
                    next = next_member(next);
                }
                self.entries.push(Entry { score: append.score, member: Some(next) });
                next = next_member(next);
            }
            self.entries.sort_by_key(|e| (e.score, e.member));
        }
        if plan.unblock.is_some() {
            assert_eq!(plan.unblock, self.blocked, "only the stored marker is removed");
            assert!(!self.entries.is_empty(), "removing it never empties the set");
            self.blocked = None;
        }
        if plan.block.is_some() {
            assert_eq!(self.blocked, None, "a new marker replaces any old one");
            self.blocked = plan.block;
        }
        if self.entries.is_empty() && self.blocked.is_none() {
            *self = MemoryLog::default();
        } else if let Some(at) = plan.expire_at {
            self.expires_at = Some(at);
        }
    }

    /// `REFUND n` as the adapter runs it: the newest entries go, then the peek replies.
    pub(crate) fn refund(&mut self, now: i64, request: &SlideRequest, n: i64) -> Verdict {
        let take = refund_take(now, request, n, self) as usize;
        self.entries.truncate(self.entries.len() - take);
        if self.entries.is_empty() && self.blocked.is_none() {
            *self = MemoryLog::default();
        }
        decide(now, &peek_of(request), Mode::Peek, self).verdict
    }

    fn counted(&self, now: i64, window: i64) -> i64 {
        self.entries.iter().filter(|e| now - e.score < window).count() as i64
    }
}

fn request(window_ms: i64, limit: i64, cost: i64) -> SlideRequest {
    windows(&[(window_ms, limit)], cost)
}

fn windows(pairs: &[(i64, i64)], cost: i64) -> SlideRequest {
    let mut windows = crate::core::request::Windows::default();
    for &(window_ms, limit) in pairs {
        assert!(windows.insert(Window { window_ms, limit }));
    }
    SlideRequest { windows, cost, bucket_ms: None, extras: Default::default() }
}

#[test]
fn accepts_up_to_the_limit_then_rejects() {
    let mut log = MemoryLog::default();
    let r = request(1000, 3, 1);
    let replies: Vec<_> = (0..4).map(|i| log.call(10_000 + i, &r, Mode::Record).to_array()).collect();
    assert_eq!(
        replies,
        vec![
            [1, 3, 2, 0, 1000],
            [1, 3, 1, 0, 1000],
            [1, 3, 0, 0, 1000],
            // Room returns when the first entry (t=10000) leaves: 10000 + 1000 - 10003.
            [0, 3, 0, 997, 999],
        ]
    );
}

#[test]
fn an_entry_stops_counting_exactly_one_window_later() {
    let mut log = MemoryLog::with_scores(&[5000]);
    let r = request(100, 1, 1);
    assert!(!log.call(5099, &r, Mode::Peek).allowed);
    assert!(log.call(5100, &r, Mode::Peek).allowed);
}

#[test]
fn three_before_and_three_after_an_hour_boundary_are_not_all_allowed() {
    let hour = 3_600_000;
    let mut log = MemoryLog::default();
    let r = request(hour, 3, 1);
    let before = 2 * hour - 60_000; // 1:59
    let after = 2 * hour + 60_000; // 2:01
    let times = [before, before + 1, before + 2, after, after + 1, after + 2];
    let accepted = times.iter().filter(|&&t| log.call(t, &r, Mode::Record).allowed).count();
    assert_eq!(accepted, 3);
}

#[test]
fn a_rejected_call_records_nothing() {
    let mut log = MemoryLog::with_scores(&[100, 101]);
    let before = log.entries.clone();
    let v = log.call(150, &request(1000, 2, 1), Mode::Record);
    assert!(!v.allowed);
    assert_eq!(log.entries, before);
}

#[test]
fn cost_takes_several_units_at_once() {
    let mut log = MemoryLog::default();
    let v = log.call(0, &request(1000, 10, 4), Mode::Record);
    assert_eq!(v.to_array(), [1, 10, 6, 0, 1000]);
    assert_eq!(log.entries.len(), 4);
}

#[test]
fn retry_after_waits_for_as_many_entries_as_the_cost_needs() {
    let mut log = MemoryLog::with_scores(&[100, 200, 300]);
    // limit 3, all counted; a cost of 2 needs the two oldest gone: 200 + 1000.
    let v = log.call(400, &request(1000, 3, 2), Mode::Record);
    assert_eq!((v.allowed, v.retry_after_ms), (false, 800));
}

#[test]
fn cost_above_limit_can_never_succeed() {
    let mut log = MemoryLog::default();
    let v = log.call(0, &request(1000, 2, 3), Mode::Record);
    assert_eq!(v.to_array(), [0, 2, 2, NEVER, 0]);
}

#[test]
fn limit_zero_rejects_everything() {
    let mut log = MemoryLog::default();
    let v = log.call(0, &request(1000, 0, 1), Mode::Record);
    assert_eq!(v.to_array(), [0, 0, 0, NEVER, 0]);
    assert!(log.entries.is_empty());
}

#[test]
fn a_limit_lowered_below_the_count_leaves_zero_remaining() {
    let mut log = MemoryLog::with_scores(&[1, 2, 3, 4, 5]);
    let v = log.call(10, &request(1000, 2, 1), Mode::Record);
    assert_eq!(v.remaining, 0);
    // Five counted under a limit of 2: the four oldest must leave first.
    assert_eq!(v.retry_after_ms, 4 + 1000 - 10);
}

#[test]
fn stale_entries_are_trimmed_on_every_write_call_even_a_rejection() {
    let mut log = MemoryLog::with_scores(&[0, 1, 2000, 2001]);
    let v = log.call(2500, &request(1000, 2, 1), Mode::Record);
    assert!(!v.allowed);
    assert_eq!(log.entries.iter().map(|e| e.score).collect::<Vec<_>>(), vec![2000, 2001]);
}

#[test]
fn a_peek_reports_what_is_available_without_consuming_it() {
    let mut log = MemoryLog::with_scores(&[100]);
    let v = log.call(200, &request(1000, 3, 1), Mode::Peek);
    assert_eq!(v.to_array(), [1, 3, 2, 0, 900]);
    assert_eq!(log.entries.len(), 1);
}

#[test]
fn a_peek_on_nothing_reports_a_full_allowance() {
    let mut log = MemoryLog::default();
    assert_eq!(log.call(5, &request(1000, 3, 1), Mode::Peek).to_array(), [1, 3, 3, 0, 0]);
}

#[test]
fn a_log_whose_expiry_has_come_is_an_empty_window() {
    let mut log = MemoryLog::with_scores(&[900, 950]);
    log.expires_at = Some(1000);
    let peek = log.call(1000, &request(10_000, 2, 1), Mode::Peek);
    assert_eq!(peek.to_array(), [1, 2, 2, 0, 0]);
    let plan = decide(1000, &request(10_000, 2, 1), Mode::Record, &mut log);
    assert!(plan.discard);
    assert_eq!(plan.verdict.to_array(), [1, 2, 1, 0, 10_000]);
}

#[test]
fn the_key_expires_one_window_and_a_slack_after_its_newest_entry() {
    let mut log = MemoryLog::default();
    let slack = expiry_slack(1000);
    assert_eq!(slack, 125);
    log.call(100, &request(1000, 5, 1), Mode::Record);
    assert_eq!(log.expires_at, Some(1100 + slack));
    log.call(300, &request(1000, 5, 1), Mode::Record);
    assert_eq!(log.expires_at, Some(1300 + slack));
}

#[test]
fn the_expiry_moves_only_when_it_falls_short() {
    let mut log = MemoryLog::default();
    log.call(100, &request(1000, 5, 1), Mode::Record);
    let plan = decide(200, &request(1000, 5, 1), Mode::Record, &mut log);
    assert_eq!(plan.expire_at, None, "1225 still covers 200 + 1000");
    assert!(plan.append.is_some());
}

#[test]
fn an_expiry_beyond_the_slack_is_brought_back() {
    let mut log = MemoryLog::with_scores(&[100]);
    log.expires_at = Some(1_000_000);
    let plan = decide(200, &request(1000, 5, 1), Mode::Peek, &mut log);
    assert_eq!(plan.expire_at, None, "a peek writes nothing");
    let plan = decide(200, &request(1000, 5, 1), Mode::Record, &mut log);
    assert_eq!(plan.expire_at, Some(1200 + expiry_slack(1000)));
}

#[test]
fn the_slack_is_an_eighth_of_the_window_at_most_a_minute() {
    assert_eq!(expiry_slack(7), 0);
    assert_eq!(expiry_slack(80_000), 10_000);
    assert_eq!(expiry_slack(3_600_000), 60_000);
}

#[test]
fn a_log_without_expiry_gets_one_even_when_the_call_is_rejected() {
    let mut log = MemoryLog::with_scores(&[100, 200]);
    log.call(300, &request(1000, 2, 1), Mode::Record);
    assert_eq!(log.expires_at, Some(1200 + expiry_slack(1000)));
}

#[test]
fn an_unchanged_expiry_is_not_written_again() {
    let mut log = MemoryLog::with_scores(&[100, 200]);
    log.expires_at = Some(1200);
    let plan = decide(300, &request(1000, 2, 1), Mode::Record, &mut log);
    assert!(plan.is_noop(), "{plan:?}");
}

#[test]
fn a_log_of_nothing_but_departed_entries_is_deleted() {
    let mut log = MemoryLog::with_scores(&[0, 1, 2]);
    let plan = decide(5000, &request(1000, 0, 1), Mode::Record, &mut log);
    assert!(plan.discard);
    assert_eq!((plan.trim_through, plan.expire_at), (None, None));
    log.apply(&plan);
    assert!(log.entries.is_empty());
}

#[test]
fn a_few_departed_entries_wait_for_a_batch() {
    let scores: Vec<i64> = (0..20).map(|i| 4000 + i * 10).collect();
    let mut log = MemoryLog::with_scores(&scores);
    // At 5005 the entries at 4000 and 4000 + 10 have left; 2 of 20 is under an eighth.
    let plan = decide(5010, &request(1000, 100, 1), Mode::Record, &mut log);
    assert_eq!(plan.trim_through, None);
    assert_eq!(plan.verdict.remaining, 100 - 18 - 1);
    let plan = decide(5030, &request(1000, 100, 1), Mode::Record, &mut log);
    assert_eq!(plan.trim_through, Some(4030), "4 of 20 is a batch");
}

#[test]
fn a_large_trim_is_done_in_steps() {
    let mut scores: Vec<i64> = (0..3000).collect();
    scores.push(10_000);
    let mut log = MemoryLog::with_scores(&scores);
    let r = request(1000, 5000, 1);
    let plan = decide(10_500, &r, Mode::Record, &mut log);
    assert_eq!(plan.trim_through, Some(TRIM_STEP as i64 - 1));
    log.apply(&plan);
    assert_eq!(log.entries.len(), 3001 - TRIM_STEP as usize + 1);
    for _ in 0..2 {
        let plan = decide(10_500, &r, Mode::Record, &mut log);
        log.apply(&plan);
    }
    assert_eq!(log.entries.iter().filter(|e| e.score < 10_000).count(), 0);
}

const FIRST: i64 = *MEMBERS.start();
const LAST: i64 = *MEMBERS.end();

#[test]
fn members_are_a_sequence_continuing_after_the_newest_member() {
    let mut log = MemoryLog::default();
    log.call(7, &request(1000, 10, 2), Mode::Record);
    log.call(7, &request(1000, 10, 1), Mode::Record);
    log.call(9, &request(1000, 10, 1), Mode::Record);
    let members: Vec<_> = log.entries.iter().map(|e| e.member).collect();
    assert_eq!(members, vec![Some(FIRST), Some(FIRST + 1), Some(FIRST + 2), Some(FIRST + 3)]);
}

#[test]
fn members_are_unique_when_the_clock_steps_back() {
    let mut log = MemoryLog::default();
    log.call(500, &request(1000, 10, 1), Mode::Record);
    log.call(400, &request(1000, 10, 1), Mode::Record);
    log.call(450, &request(1000, 10, 1), Mode::Record);
    let mut members: Vec<_> = log.entries.iter().filter_map(|e| e.member).collect();
    members.sort_unstable();
    members.dedup();
    assert_eq!(members.len(), 3);
}

#[test]
fn members_wrap_around_at_the_end_of_their_range() {
    assert_eq!(next_member(LAST - 1), LAST);
    assert_eq!(next_member(LAST), FIRST);
    let mut log = MemoryLog::default();
    log.entries.push(Entry { score: 5, member: Some(LAST) });
    let plan = decide(10, &request(1000, 5, 2), Mode::Record, &mut log);
    assert_eq!(plan.append.map(|a| a.first_member), Some(FIRST));
}

#[test]
fn members_start_over_after_a_scripts_member() {
    let mut log = MemoryLog::default();
    for member in [None, Some(1_732_252_800_123), Some(-4), Some(i64::MAX)] {
        log.entries = vec![Entry { score: 5, member }];
        let plan = decide(10, &request(1000, 5, 1), Mode::Record, &mut log);
        assert_eq!(plan.append.map(|a| a.first_member), Some(FIRST), "after {member:?}");
    }
}

#[test]
fn the_sequence_skips_members_that_exist() {
    let entries = vec![Entry { score: 1, member: Some(FIRST) }, Entry { score: 2, member: Some(LAST) }];
    let mut log = MemoryLog { entries, expires_at: None, blocked: None };
    log.call(10, &request(1000, 5, 2), Mode::Record);
    let mut members: Vec<_> = log.entries.iter().filter_map(|e| e.member).collect();
    members.sort_unstable();
    assert_eq!(members, vec![FIRST, FIRST + 1, FIRST + 2, LAST]);
}

#[test]
fn extreme_scores_saturate_instead_of_overflowing() {
    let mut log = MemoryLog::with_scores(&[i64::MIN, i64::MAX]);
    let plan = decide(10, &request(1000, 5, 1), Mode::Record, &mut log);
    assert!(plan.verdict.allowed);
    assert_eq!(plan.expire_at, Some(i64::MAX));
    log.apply(&plan);
    assert_eq!(log.entries.len(), 2);
}

/// Accepted units (time, cost) as a brute-force reference keeps them.
fn units_in_window(accepted: &[(i64, i64)], now: i64, window: i64) -> i64 {
    accepted.iter().filter(|(t, _)| now - t < window && *t <= now).map(|(_, c)| c).sum()
}

proptest! {
    /// The core against the definition: a request is accepted exactly when accepting it keeps
    /// every window of `window_ms` at or under the limit; retry_after and reset_after are the
    /// least waits that make them true.
    #[test]
    fn matches_the_reference_model(
        window in 1i64..200,
        limit in 0i64..8,
        arrivals in proptest::collection::vec((0i64..60, 1i64..4), 1..60),
    ) {
        let mut log = MemoryLog::default();
        let mut accepted: Vec<(i64, i64)> = Vec::new();
        let mut now = 1_000;
        for (gap, cost) in arrivals {
            now += gap;
            let r = request(window, limit, cost);
            let in_window = units_in_window(&accepted, now, window);
            let fits = in_window + cost <= limit;
            let before = log.clone();
            let v = log.call(now, &r, Mode::Record);
            prop_assert_eq!(v.allowed, fits);
            if v.allowed {
                accepted.push((now, cost));
                prop_assert_eq!(v.remaining, limit - in_window - cost);
            } else {
                prop_assert_eq!(v.remaining, (limit - in_window).max(0));
                if cost > limit {
                    prop_assert_eq!(v.retry_after_ms, NEVER);
                } else {
                    prop_assert!(v.retry_after_ms >= 1);
                    let mut later = before.clone();
                    prop_assert!(later.call(now + v.retry_after_ms, &r, Mode::Peek).allowed);
                    prop_assert!(!before.clone().call(now + v.retry_after_ms - 1, &r, Mode::Peek).allowed);
                }
            }
            let counted_after = units_in_window(&accepted, now, window);
            prop_assert_eq!(log.counted(now, window), counted_after);
            if counted_after == 0 {
                prop_assert_eq!(v.reset_after_ms, 0);
            } else {
                prop_assert_eq!(log.counted(now + v.reset_after_ms, window), 0);
                prop_assert!(log.counted(now + v.reset_after_ms - 1, window) > 0);
                let expires_at = log.expires_at.unwrap();
                prop_assert!(expires_at >= now + v.reset_after_ms);
                prop_assert!(expires_at <= now + v.reset_after_ms + expiry_slack(window));
            }
            // No window ever holds more than the limit.
            for &(t, _) in &accepted {
                prop_assert!(units_in_window(&accepted, t, window) <= limit);
            }
        }
    }

    /// A peek answers what a recording call would, without changing the log.
    #[test]
    fn a_peek_predicts_the_recording_call(
        scores in proptest::collection::vec(0i64..500, 0..20),
        now in 400i64..900,
        window in 1i64..400,
        limit in 0i64..10,
        cost in 1i64..4,
    ) {
        let mut sorted = scores.clone();
        sorted.sort_unstable();
        let log = MemoryLog::with_scores(&sorted);
        let r = request(window, limit, cost);
        let peek = log.clone().call(now, &r, Mode::Peek);
        let record = log.clone().call(now, &r, Mode::Record);
        prop_assert_eq!(peek.allowed, record.allowed);
        prop_assert_eq!(peek.retry_after_ms, record.retry_after_ms);
        if !record.allowed {
            prop_assert_eq!(peek, record);
        }
    }

    #[test]
    fn fuzz_decide_never_panics(
        now in edgy_i64(),
        window in 1i64..=crate::core::request::MAX_WINDOW_MS,
        limit in 0i64..=i64::MAX,
        cost in 1i64..=i64::MAX,
        mut scores in proptest::collection::vec(edgy_i64(), 0..16),
        member in proptest::option::of(edgy_i64()),
        expires_at in proptest::option::of(edgy_i64()),
        mode in prop_oneof![Just(Mode::Record), Just(Mode::Peek)],
    ) {
        scores.sort_unstable();
        let mut log = MemoryLog::with_scores(&scores);
        if let Some(last) = log.entries.last_mut() {
            last.member = member;
        }
        log.expires_at = expires_at;
        let v = decide(now, &request(window, limit, cost), mode, &mut log).verdict;
        prop_assert!((0..=limit).contains(&v.remaining));
        prop_assert!(v.retry_after_ms >= NEVER && v.reset_after_ms >= 0);
    }
}

#[test]
fn ten_per_second_and_twenty_per_minute_reject_the_eleventh_in_a_second() {
    let mut log = MemoryLog::default();
    let r = windows(&[(1000, 10), (60_000, 20)], 1);
    let accepted = (0..11).filter(|i| log.call(5000 + i, &r, Mode::Record).allowed).count();
    assert_eq!(accepted, 10);
    // The eleventh waits for the first to leave the second-long window.
    let v = log.call(5011, &r, Mode::Peek);
    assert_eq!(v.to_array(), [0, 10, 0, 5000 + 1000 - 5011, 1000 - 11 + 9]);
}

#[test]
fn a_rejection_in_one_pair_records_nothing_in_any() {
    let mut log = MemoryLog::with_scores(&[100, 200]);
    let before = log.entries.clone();
    let v = log.call(300, &windows(&[(1000, 2), (60_000, 100)], 1), Mode::Record);
    assert!(!v.allowed);
    assert_eq!(log.entries, before);
}

#[test]
fn entries_are_kept_and_the_key_lives_for_the_largest_window() {
    let mut log = MemoryLog::default();
    let r = windows(&[(100, 5), (10_000, 50)], 1);
    log.call(1000, &r, Mode::Record);
    log.call(2000, &r, Mode::Record);
    assert_eq!(log.entries.len(), 2);
    let expires_at = log.expires_at.unwrap();
    assert!((12_000..=12_000 + expiry_slack(10_000)).contains(&expires_at), "{expires_at}");
}

#[test]
fn the_longer_window_binds_when_both_have_as_little_room() {
    let mut log = MemoryLog::default();
    let v = log.call(0, &windows(&[(1000, 3), (60_000, 3)], 1), Mode::Record);
    assert_eq!((v.limit, v.remaining, v.reset_after_ms), (3, 2, 60_000));
}

#[test]
fn a_cost_above_one_limit_binds_to_that_pair_with_never() {
    let mut log = MemoryLog::default();
    let v = log.call(0, &windows(&[(1000, 2), (60_000, 100)], 5), Mode::Record);
    assert_eq!(v.to_array(), [0, 2, 2, NEVER, 0]);
}

proptest! {
    /// Several pairs against the definition: accepted exactly when every pair has room,
    /// every field equal to the model's binding pair, retries exact, and no span of any
    /// window ever holding more than its limit.
    #[test]
    fn several_windows_match_the_reference_model(
        pairs in proptest::collection::btree_map(1i64..150, 0i64..8, 1..4),
        arrivals in proptest::collection::vec((0i64..40, 1i64..4), 1..50),
        peek_every in 2usize..5,
    ) {
        let pairs: Vec<(i64, i64)> = pairs.into_iter().collect();
        let mut log = MemoryLog::default();
        let mut accepted: Vec<(i64, i64)> = Vec::new();
        let mut now = 1_000;
        for (i, (gap, cost)) in arrivals.into_iter().enumerate() {
            now += gap;
            let r = windows(&pairs, cost);
            let mode = if i % peek_every == 0 { Mode::Peek } else { Mode::Record };
            let fits = pairs.iter().all(|&(w, l)| units_in_window(&accepted, now, w) + cost <= l);
            let records = fits && mode == Mode::Record;
            let before = log.clone();
            let v = log.call(now, &r, mode);
            prop_assert_eq!(v.allowed, fits);
            if records {
                accepted.push((now, cost));
            }
            let model: Vec<ModelPair> = pairs.iter().map(|&(w, l)| {
                let used = units_in_window(&accepted, now, w);
                let wait = if cost > l {
                    NEVER
                } else {
                    (0..=w).find(|d| units_in_window(&accepted, now + d, w) + cost <= l).unwrap()
                };
                let wait = if fits { 0 } else { wait };
                let reset = (0..=w).find(|d| units_in_window(&accepted, now + d, w) == 0).unwrap();
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
            for &(w, l) in &pairs {
                for &(t, _) in &accepted {
                    prop_assert!(units_in_window(&accepted, t, w) <= l);
                }
            }
        }
    }
}

fn with_extras(request: SlideRequest, block_ms: Option<i64>) -> SlideRequest {
    SlideRequest { extras: Extras { refund: None, block_ms }, ..request }
}

fn with_block(request: SlideRequest, block_ms: i64) -> SlideRequest {
    with_extras(request, Some(block_ms))
}

#[test]
fn a_refund_takes_the_newest_entries_and_replies_the_peek() {
    let mut log = MemoryLog::with_scores(&[100, 200, 300]);
    let r = request(1000, 3, 1);
    let v = log.refund(400, &r, 2);
    assert_eq!(log.entries.iter().map(|e| e.score).collect::<Vec<_>>(), [100]);
    assert_eq!(v, log.clone().call(400, &r, Mode::Peek));
    assert_eq!(v.to_array(), [1, 3, 2, 0, 700]);
}

#[test]
fn a_refund_takes_no_entry_that_left_the_window() {
    let mut log = MemoryLog::with_scores(&[100, 1500]);
    log.refund(1600, &request(1000, 3, 1), 5);
    assert_eq!(log.entries.iter().map(|e| e.score).collect::<Vec<_>>(), [100]);
}

#[test]
fn a_block_rejects_everything_until_it_ends_and_is_not_extended() {
    let mut log = MemoryLog::with_scores(&[100, 200]);
    let r = with_block(request(1000, 2, 1), 5000);
    assert_eq!(log.call(300, &r, Mode::Record).to_array(), [0, 2, 0, 5000, 5000]);
    assert_eq!((log.blocked, log.expires_at), (Some(5300), Some(5300)));
    assert_eq!(log.call(2000, &r, Mode::Record).to_array(), [0, 2, 0, 3300, 3300], "not extended");
    assert_eq!(log.call(2000, &request(1000, 2, 1), Mode::Peek).retry_after_ms, 3300);
    assert!(!log.refund(2000, &request(1000, 2, 1), 1).allowed, "a refund never lifts it");
    assert_eq!(log.call(5300, &r, Mode::Record).to_array(), [1, 2, 1, 0, 1000]);
    assert_eq!(log.blocked, None, "the ended block's marker goes with the next write");
}

proptest! {
    /// Refunds and blocks against a brute-force log (test_support::check_refund_and_block).
    #[test]
    fn refund_and_block_match_the_reference_model(window in 1i64..200, limit in 1i64..6, steps in log_steps()) {
        let log = std::cell::RefCell::new(MemoryLog::default());
        check_refund_and_block(
            window,
            limit,
            steps,
            |now, cost, block_ms| {
                log.borrow_mut().call(now, &with_extras(request(window, limit, cost), block_ms), Mode::Record)
            },
            |now, n| log.borrow_mut().refund(now, &request(window, limit, 1), n),
        )?;
    }
}

/// Integers around the edges of what a pair and `BUCKET` accept, and text that is not one.
fn common_arg() -> impl Strategy<Value = String> {
    prop_oneof![
        (-2i64..=12).prop_map(|n| n.to_string()),
        (990i64..=1010).prop_map(|n| n.to_string()),
        (MAX_BUCKETED_LIMIT - 2..=MAX_BUCKETED_LIMIT + 2).prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        "[0-9+-]{0,4}",
        Just("BUCKET".to_string()),
    ]
}

proptest! {
    /// The fast path of the common calls (a pair, alone or with `BUCKET b`) answers as the
    /// general parser, errors included.
    #[test]
    fn common_calls_parse_as_the_general_parser_does(
        window_ms in common_arg(),
        limit in common_arg(),
        option in prop_oneof![Just("BUCKET"), Just("bucket"), Just("COST"), Just("5")],
        bucket in common_arg(),
        with_option: bool,
        max_limit in 0i64..2000,
    ) {
        let mut args: Vec<&[u8]> = vec![window_ms.as_bytes(), limit.as_bytes()];
        if with_option {
            args.extend([option.as_bytes(), bucket.as_bytes()]);
        }
        prop_assert_eq!(
            parse(&args, max_limit).map_err(|e| e.to_string()),
            parse_any(&args, max_limit).map_err(|e| e.to_string())
        );
    }
}
