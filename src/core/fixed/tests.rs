//! The fixed counter against an in-memory key, and against a brute-force model.

use super::*;
use crate::core::test_support::edgy_i64;
use proptest::prelude::*;

/// A string key stand-in: the counter with its expiry, gone once expired.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct MemoryCounter(Option<Counter>);

impl MemoryCounter {
    pub(crate) fn call(&mut self, now: i64, request: &FixedRequest, mode: Mode) -> Verdict {
        let plan = decide(now, request, mode, self.0);
        if mode == Mode::Peek {
            assert_eq!(plan.write, None, "a peek must not write");
        }
        match plan.write {
            None => {}
            Some(FixedWrite::Create { count, expire_at }) => {
                self.0 = Some(Counter { count, expires_at: Some(expire_at) })
            }
            Some(FixedWrite::Increment { by, count, expire_at }) => {
                let c = self.0.as_mut().expect("increment needs a counter");
                c.count += by;
                assert_eq!(c.count, count, "the planned count is the stored one plus the cost");
                c.expires_at = c.expires_at.or(expire_at);
            }
            Some(FixedWrite::Heal { expire_at }) => {
                self.0.as_mut().expect("heal needs a counter").expires_at = Some(expire_at)
            }
            Some(FixedWrite::Block { expire_at }) => {
                self.0 = Some(Counter { count: BLOCKED, expires_at: Some(expire_at) })
            }
            Some(FixedWrite::Refund { by, count }) => {
                let c = self.0.as_mut().expect("a refund needs a counter");
                c.count -= by;
                assert_eq!(c.count, count, "the planned count is the stored one less the refund");
            }
        }
        plan.verdict
    }
}

fn request(window_ms: i64, limit: i64, cost: i64) -> FixedRequest {
    FixedRequest { window: Window { window_ms, limit }, cost, align: false, extras: Default::default() }
}

fn aligned(window_ms: i64, limit: i64) -> FixedRequest {
    FixedRequest { align: true, ..request(window_ms, limit, 1) }
}

#[test]
fn the_first_request_opens_a_window_of_window_ms() {
    let mut key = MemoryCounter::default();
    let v = key.call(1000, &request(500, 3, 1), Mode::Record);
    assert_eq!(v.to_array(), [1, 3, 2, 0, 500]);
    assert_eq!(key.0, Some(Counter { count: 1, expires_at: Some(1500) }));
}

#[test]
fn later_requests_share_the_window_and_are_rejected_past_the_limit() {
    let mut key = MemoryCounter::default();
    let r = request(500, 2, 1);
    key.call(1000, &r, Mode::Record);
    assert_eq!(key.call(1100, &r, Mode::Record).to_array(), [1, 2, 0, 0, 400]);
    assert_eq!(key.call(1200, &r, Mode::Record).to_array(), [0, 2, 0, 300, 300]);
    assert_eq!(key.0.map(|c| c.count), Some(2));
}

#[test]
fn three_before_and_three_after_an_aligned_hour_are_all_allowed() {
    let hour = 3_600_000;
    let mut key = MemoryCounter::default();
    let r = aligned(hour, 3);
    let times = [
        2 * hour - 60_000,
        2 * hour - 59_999,
        2 * hour - 59_998,
        2 * hour + 60_000,
        2 * hour + 60_001,
        2 * hour + 60_002,
    ];
    let accepted = times.iter().filter(|&&t| key.call(t, &r, Mode::Record).allowed).count();
    assert_eq!(accepted, 6);
}

#[test]
fn align_ends_the_window_at_the_next_multiple_of_the_window() {
    let mut key = MemoryCounter::default();
    let v = key.call(12_345, &aligned(1000, 5), Mode::Record);
    assert_eq!(v.reset_after_ms, 655);
    assert_eq!(key.0.and_then(|c| c.expires_at), Some(13_000));
}

#[test]
fn an_expiry_at_now_is_a_fresh_window() {
    let mut key = MemoryCounter(Some(Counter { count: 9, expires_at: Some(2000) }));
    let v = key.call(2000, &request(100, 9, 1), Mode::Record);
    assert_eq!(v.to_array(), [1, 9, 8, 0, 100]);
    assert_eq!(key.0, Some(Counter { count: 1, expires_at: Some(2100) }));
}

#[test]
fn a_counter_without_expiry_is_healed_when_it_counts() {
    let mut key = MemoryCounter(Some(Counter { count: 1, expires_at: None }));
    let v = key.call(50, &request(100, 5, 1), Mode::Record);
    assert_eq!(v.to_array(), [1, 5, 3, 0, 100]);
    assert_eq!(key.0, Some(Counter { count: 2, expires_at: Some(150) }));
}

#[test]
fn a_counter_without_expiry_is_healed_when_it_rejects() {
    let mut key = MemoryCounter(Some(Counter { count: 7, expires_at: None }));
    let v = key.call(50, &request(100, 5, 1), Mode::Record);
    assert_eq!(v.to_array(), [0, 5, 0, 100, 100]);
    assert_eq!(key.0, Some(Counter { count: 7, expires_at: Some(150) }));
}

#[test]
fn an_aligned_call_heals_to_the_aligned_end() {
    let mut key = MemoryCounter(Some(Counter { count: 1, expires_at: None }));
    key.call(1234, &aligned(1000, 5), Mode::Record);
    assert_eq!(key.0.and_then(|c| c.expires_at), Some(2000));
}

#[test]
fn cost_above_limit_can_never_succeed() {
    let mut key = MemoryCounter::default();
    assert_eq!(key.call(0, &request(100, 2, 3), Mode::Record).to_array(), [0, 2, 2, NEVER, 0]);
    assert_eq!(key.0, None);
}

#[test]
fn limit_zero_rejects_everything() {
    let mut key = MemoryCounter::default();
    assert_eq!(key.call(0, &request(100, 0, 1), Mode::Record).to_array(), [0, 0, 0, NEVER, 0]);
}

#[test]
fn a_limit_lowered_below_the_count_leaves_zero_remaining() {
    let mut key = MemoryCounter(Some(Counter { count: 10, expires_at: Some(500) }));
    assert_eq!(key.call(0, &request(1000, 4, 1), Mode::Record).to_array(), [0, 4, 0, 500, 500]);
}

#[test]
fn a_peek_reports_what_is_available_without_consuming_it() {
    let mut key = MemoryCounter(Some(Counter { count: 1, expires_at: Some(300) }));
    assert_eq!(key.call(100, &request(1000, 3, 2), Mode::Peek).to_array(), [1, 3, 2, 0, 200]);
    assert_eq!(key.0, Some(Counter { count: 1, expires_at: Some(300) }));
}

#[test]
fn a_peek_does_not_heal() {
    let mut key = MemoryCounter(Some(Counter { count: 1, expires_at: None }));
    key.call(100, &request(1000, 3, 1), Mode::Peek);
    assert_eq!(key.0, Some(Counter { count: 1, expires_at: None }));
}

#[test]
fn a_huge_stored_count_saturates_instead_of_overflowing() {
    let mut key = MemoryCounter(Some(Counter { count: i64::MAX, expires_at: Some(10) }));
    let v = key.call(0, &request(10, 5, 5), Mode::Record);
    assert_eq!(v.to_array(), [0, 5, 0, 10, 10]);
}

fn with_extras(request: FixedRequest, refund: Option<i64>, block_ms: Option<i64>) -> FixedRequest {
    FixedRequest { extras: Extras { refund, block_ms }, ..request }
}

#[test]
fn a_refund_counts_down_keeps_the_expiry_and_replies_the_peek() {
    let mut key = MemoryCounter(Some(Counter { count: 4, expires_at: Some(1500) }));
    let v = key.call(1000, &with_extras(request(500, 5, 1), Some(3), None), Mode::Record);
    assert_eq!(key.0, Some(Counter { count: 1, expires_at: Some(1500) }));
    assert_eq!(v, key.call(1000, &request(500, 5, 1), Mode::Peek));
    key.call(1000, &with_extras(request(500, 5, 1), Some(9), None), Mode::Record);
    assert_eq!(key.0.map(|c| c.count), Some(0), "never below 0");
}

#[test]
fn a_refund_on_a_missing_or_blocked_counter_writes_nothing() {
    let refund = with_extras(request(500, 5, 1), Some(1), None);
    assert_eq!(decide(1000, &refund, Mode::Record, None).write, None);
    let blocked = Some(Counter { count: BLOCKED, expires_at: Some(9000) });
    let plan = decide(1000, &refund, Mode::Record, blocked);
    assert_eq!((plan.write, plan.verdict.to_array()), (None, [0, 5, 0, 8000, 8000]));
}

#[test]
fn a_rejection_with_block_blocks_until_the_later_of_block_and_window() {
    let full = Some(Counter { count: 5, expires_at: Some(1500) });
    let plan = decide(1000, &with_extras(request(500, 5, 1), None, Some(2000)), Mode::Record, full);
    assert_eq!(plan.write, Some(FixedWrite::Block { expire_at: 3000 }));
    assert_eq!(plan.verdict.to_array(), [0, 5, 0, 2000, 2000]);
    let plan = decide(1000, &with_extras(request(500, 5, 1), None, Some(100)), Mode::Record, full);
    assert_eq!(plan.write, Some(FixedWrite::Block { expire_at: 1500 }));
}

#[test]
fn a_cost_above_the_limit_blocks_nothing() {
    let plan = decide(1000, &with_extras(request(500, 5, 6), None, Some(2000)), Mode::Record, None);
    assert_eq!((plan.write, plan.verdict.retry_after_ms), (None, NEVER));
}

/// One call of the model tests: record `cost` (with `BLOCK` when given), or refund.
#[derive(Debug, Clone, Copy)]
enum Step {
    Record { cost: i64, block_ms: Option<i64> },
    Refund(i64),
}

fn steps() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (1i64..4, proptest::option::of(1i64..400)).prop_map(|(cost, block_ms)| Step::Record { cost, block_ms }),
        1 => (1i64..5).prop_map(Step::Refund),
    ]
}

proptest! {
    /// Refunds and blocks against the definition: a block rejects everything until the later
    /// of its end and the window's, rejections do not extend it, a refund takes back at most
    /// what is counted and never lifts a block, and its reply is the peek that follows.
    #[test]
    fn refund_and_block_match_the_reference_model(
        window in 1i64..200,
        limit in 1i64..8,
        calls in proptest::collection::vec((0i64..60, steps()), 1..60),
    ) {
        let mut key = MemoryCounter::default();
        let (mut used, mut end, mut blocked) = (0, i64::MIN, false);
        let mut now = 1_000;
        for (gap, step) in calls {
            now += gap;
            if now >= end {
                (used, blocked) = (0, false);
            }
            match step {
                Step::Record { cost, block_ms } => {
                    let r = with_extras(request(window, limit, cost), None, block_ms);
                    let v = key.call(now, &r, Mode::Record);
                    let fits = !blocked && used + cost <= limit;
                    prop_assert_eq!(v.allowed, fits);
                    if fits {
                        if used == 0 && end <= now {
                            end = now + window;
                        }
                        used += cost;
                    } else if let (Some(ms), false, true) = (block_ms, blocked, cost <= limit) {
                        (blocked, end) = (true, end.max(now + ms));
                    }
                    if blocked {
                        prop_assert_eq!(v.to_array(), [0, limit, 0, end - now, end - now]);
                    }
                }
                Step::Refund(n) => {
                    let v = key.call(now, &with_extras(request(window, limit, 1), Some(n), None), Mode::Record);
                    if !blocked {
                        used = (used - n).max(0);
                    }
                    prop_assert_eq!(v, key.call(now, &request(window, limit, 1), Mode::Peek));
                    prop_assert_eq!(v.allowed, !blocked && used < limit);
                }
            }
            prop_assert_eq!(key.0.filter(|c| c.expires_at > Some(now)).map_or(0, |c| c.count.min(limit)), if blocked { limit } else { used });
        }
    }
}

proptest! {
    /// Against the definition: within one window, accepted units never pass the limit, a
    /// request is refused only when it would, and retrying after retry_after succeeds.
    #[test]
    fn matches_the_reference_model(
        window in 1i64..200,
        limit in 0i64..8,
        align in any::<bool>(),
        arrivals in proptest::collection::vec((0i64..60, 1i64..4), 1..60),
    ) {
        let r = |cost| FixedRequest { align, ..request(window, limit, cost) };
        let mut key = MemoryCounter::default();
        let mut window_end = i64::MIN;
        let mut used = 0;
        let mut now = 1_000;
        for (gap, cost) in arrivals {
            now += gap;
            if now >= window_end {
                used = 0;
            }
            let fits = used + cost <= limit;
            let before = key;
            let v = key.call(now, &r(cost), Mode::Record);
            prop_assert_eq!(v.allowed, fits);
            if fits {
                // A window opens with the first accepted request.
                if used == 0 {
                    window_end = if align { (now / window + 1) * window } else { now + window };
                }
                used += cost;
            } else if cost <= limit {
                prop_assert_eq!(v.retry_after_ms, window_end - now);
                prop_assert!(before.clone().call(now + v.retry_after_ms, &r(cost), Mode::Peek).allowed);
            } else {
                prop_assert_eq!(v.retry_after_ms, NEVER);
            }
            prop_assert_eq!(v.remaining, limit - used.min(limit));
            prop_assert_eq!(v.reset_after_ms, if used > 0 { window_end - now } else { 0 });
            prop_assert!(used <= limit);
        }
    }

    #[test]
    fn fuzz_decide_never_panics(
        now in edgy_i64(),
        window in 1i64..=crate::core::request::MAX_WINDOW_MS,
        limit in 0i64..=i64::MAX,
        cost in 1i64..=i64::MAX,
        align in any::<bool>(),
        count in 0i64..=i64::MAX,
        expires_at in proptest::option::of(edgy_i64()),
        exists in any::<bool>(),
        mode in prop_oneof![Just(Mode::Record), Just(Mode::Peek)],
    ) {
        let stored = exists.then_some(Counter { count, expires_at });
        let v = decide(now, &FixedRequest { align, ..request(window, limit, cost) }, mode, stored).verdict;
        prop_assert!((0..=limit).contains(&v.remaining));
        prop_assert!(v.retry_after_ms >= NEVER && v.reset_after_ms >= 0);
    }
}

fn parsed(args: &[&str]) -> Result<FixedRequest, String> {
    let bytes: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
    parse(&bytes).map_err(|e| e.to_string())
}

#[test]
fn parse_takes_cost_and_align_in_any_order_and_case() {
    let expected = Ok(FixedRequest { align: true, ..request(60, 5, 2) });
    assert_eq!(parsed(&["60", "5", "align", "cost", "2"]), expected);
    assert_eq!(parsed(&["60", "5", "CoSt", "2", "ALIGN"]), expected);
    assert_eq!(parsed(&["60", "5"]), Ok(request(60, 5, 1)));
}

#[test]
fn parse_refuses_a_second_window() {
    assert_eq!(parsed(&["60", "5", "120", "9"]), Err("ERR WINLIMIT.FIXED takes one window_ms limit pair".into()));
}

#[test]
fn parse_refuses_bad_options() {
    assert_eq!(parsed(&["60", "5", "ALIGN", "align"]), Err("ERR option 'ALIGN' given more than once".into()));
    assert_eq!(parsed(&["60", "5", "BUCKET", "10"]), Err("ERR unknown option 'BUCKET'".into()));
    assert_eq!(parsed(&["60", "5", "COST", "0"]), Err("ERR COST must be a positive integer".into()));
    assert_eq!(parsed(&["60", "5", "COST"]), Err("ERR COST needs a value".into()));
}

/// Integers around the edges of what `window_ms` and `limit` accept, and text that is not one.
fn pair_arg() -> impl Strategy<Value = String> {
    prop_oneof![
        (-2i64..=2).prop_map(|n| n.to_string()),
        (MAX_LIMIT - 2..=MAX_LIMIT + 2).prop_map(|n| n.to_string()),
        (crate::core::request::MAX_WINDOW_MS - 2..=crate::core::request::MAX_WINDOW_MS + 2).prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        "[0-9+-]{0,4}",
        Just("COST".to_string()),
    ]
}

proptest! {
    /// The two-argument fast path answers as the general parser, errors included.
    #[test]
    fn a_bare_pair_parses_as_the_general_parser_does(window_ms in pair_arg(), limit in pair_arg()) {
        let args: [&[u8]; 2] = [window_ms.as_bytes(), limit.as_bytes()];
        prop_assert_eq!(
            parse(&args).map_err(|e| e.to_string()),
            parse_any(&args).map_err(|e| e.to_string())
        );
    }
}
