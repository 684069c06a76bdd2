//! GCRA against a token bucket modelled in exact rational arithmetic.

use super::*;
use crate::core::test_support::edgy_i64;
use proptest::prelude::*;

/// A string key stand-in: the stored value and its expiry.
#[derive(Debug, Default, Clone)]
pub(crate) struct MemoryKey {
    value: Option<String>,
    expires_at: Option<i64>,
}

impl MemoryKey {
    pub(crate) fn call(&mut self, now: i64, request: &GcraRequest, mode: Mode) -> Verdict {
        let live = self.value.as_ref().filter(|_| self.expires_at.map_or(true, |at| at > now));
        let stored = live.map(|v| decode(v.as_bytes(), request.reads_cell_state).expect("a GCRA state"));
        let plan = decide(now, request, mode, stored);
        if mode == Mode::Peek {
            assert_eq!(plan.write, None, "a peek must not write");
        }
        if let Some(write) = plan.write {
            let mut buf = [0; ENCODED_MAX];
            self.value = Some(String::from_utf8(encode(write.tat, write.blocked_until, &mut buf).to_vec()).unwrap());
            self.expires_at = Some(write.expire_at);
        }
        if plan.delete {
            (self.value, self.expires_at) = (None, None);
        }
        plan.verdict
    }
}

fn gcra(period_ms: i64, limit: i64, burst: i64, cost: i64) -> GcraRequest {
    GcraRequest { period_ms, limit, burst, cost, reads_cell_state: false, extras: Extras::default() }
}

/// The bucket as tokens: `level / period_ms` units, refilling by `limit` per ms.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    level: i128,
    at: i64,
}

impl Bucket {
    fn at(self, now: i64, r: &GcraRequest) -> i128 {
        let full = i128::from(r.burst) * i128::from(r.period_ms);
        (self.level + i128::from(now - self.at) * i128::from(r.limit)).min(full)
    }
}

#[test]
fn a_burst_then_one_unit_per_interval() {
    let mut key = MemoryKey::default();
    let r = gcra(1000, 10, 3, 1); // one unit per 100 ms, 3 at once
    let replies: Vec<_> = (0..4).map(|_| key.call(5_000, &r, Mode::Record).to_array()).collect();
    assert_eq!(replies, vec![[1, 3, 2, 0, 100], [1, 3, 1, 0, 200], [1, 3, 0, 0, 300], [0, 3, 0, 100, 300]]);
    assert!(!key.call(5_099, &r, Mode::Peek).allowed);
    assert_eq!(key.call(5_100, &r, Mode::Record).to_array(), [1, 3, 0, 0, 300]);
}

#[test]
fn the_state_is_exact_fractions_of_a_millisecond() {
    let mut key = MemoryKey::default();
    let r = gcra(1000, 3, 3, 1); // one unit per 333.33... ms
    key.call(0, &r, Mode::Record);
    assert_eq!(key.value.as_deref(), Some("gcra:333:1:3"));
    assert_eq!(key.expires_at, Some(334));
    for _ in 0..2 {
        key.call(0, &r, Mode::Record);
    }
    assert_eq!(key.value.as_deref(), Some("gcra:1000:0:3"));
}

#[test]
fn a_state_written_with_another_limit_is_read_rounded_up() {
    let tat = Stored::Tat(Tat { ms: 100, rem: 1, den: 3 });
    // 100 + 1/3 ms in units of 1/2 ms is 200.67, read as 201: one unit of debt more.
    let v = decide(0, &gcra(1000, 2, 1, 1), Mode::Peek, Some(tat)).verdict;
    assert_eq!(v.reset_after_ms, 101);
}

#[test]
fn a_cost_above_the_burst_never_fits() {
    let v = decide(0, &gcra(1000, 10, 3, 4), Mode::Record, None);
    assert_eq!(v.verdict.to_array(), [0, 3, 3, NEVER, 0]);
    assert_eq!(v.write, None);
}

#[test]
fn cost_zero_answers_and_writes_nothing() {
    let plan = decide(0, &GcraRequest { reads_cell_state: true, ..gcra(1000, 10, 3, 0) }, Mode::Record, None);
    assert_eq!((plan.verdict.allowed, plan.verdict.remaining, plan.write), (true, 3, None));
}

#[test]
fn values_winlimit_does_not_write_are_not_gcra_states() {
    for bad in [
        "5",
        "gcra:1:2",
        "gcra:1:3:3",
        "gcra:1:-1:3",
        "gcra:1:0:0",
        "gcra:01:0:3",
        "gcra:1:0:3:x",
        "gcra:1:0:3:4:5",
        "GCRA:1:0:3",
        "",
    ] {
        assert_eq!(decode(bad.as_bytes(), false), Err(NotGcra), "{bad:?}");
    }
    assert_eq!(decode(b"gcra:-5:2:3", false), Ok(Stored::Tat(Tat { ms: -5, rem: 2, den: 3 })));
}

#[test]
fn only_cl_throttle_reads_redis_cell_nanoseconds() {
    assert_eq!(decode(b"1700000000000000000", true), Ok(Stored::CellNanos(1_700_000_000_000_000_000)));
    assert_eq!(decode(b"1700000000000000000", false), Err(NotGcra));
    assert_eq!(decode(b"-5", true), Err(NotGcra));
}

#[test]
fn a_redis_cell_tat_is_rounded_up_to_a_unit() {
    // 1 ns past 1000 ms, at 1000 units per second (1 unit = 1 ms): read as 1001 ms.
    let stored = Some(Stored::CellNanos(1_000_000_001));
    let v = decide(1000, &GcraRequest { reads_cell_state: true, ..gcra(1000, 1000, 5, 1) }, Mode::Peek, stored);
    assert_eq!(v.verdict.reset_after_ms, 1);
}

fn parsed(args: &[&str]) -> Result<GcraRequest, String> {
    let bytes: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
    parse(&bytes).map_err(|e| e.to_string())
}

fn parsed_cell(args: &[&str]) -> Result<GcraRequest, String> {
    let bytes: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
    parse_cell(&bytes).map_err(|e| e.to_string())
}

#[test]
fn parse_defaults_burst_to_limit_and_cost_to_one() {
    assert_eq!(parsed(&["60000", "100"]), Ok(gcra(60000, 100, 100, 1)));
    assert_eq!(parsed(&["60000", "100", "cost", "3", "BURST", "10"]), Ok(gcra(60000, 100, 10, 3)));
}

#[test]
fn parse_names_the_argument_out_of_range() {
    assert_eq!(parsed(&["0", "1"]), Err("ERR period_ms must be an integer between 1 and 1000000000000".into()));
    assert_eq!(parsed(&["10", "0"]), Err("ERR limit must be an integer between 1 and 1000000000000".into()));
    assert_eq!(
        parsed(&["10", "1", "BURST", "0"]),
        Err("ERR BURST must be an integer between 1 and 100000000000".into())
    );
    assert_eq!(
        parsed(&["1000000000000", "1", "BURST", "2"]),
        Err("ERR BURST must be an integer between 1 and 1".into())
    );
    assert_eq!(parsed(&["10", "1", "COST", "0"]), Err("ERR COST must be a positive integer".into()));
    assert_eq!(parsed(&["10", "1", "ALIGN"]), Err("ERR unknown option 'ALIGN'".into()));
    assert!(parsed(&["10", "1", "COST", "9223372036854775807"]).is_ok());
}

#[test]
fn parse_cell_maps_to_a_bucket_of_max_burst_plus_one() {
    let r = parsed_cell(&["14", "30", "60"]).unwrap();
    assert_eq!((r.burst, r.limit, r.period_ms, r.cost, r.reads_cell_state), (15, 30, 60_000, 1, true));
    assert_eq!(parsed_cell(&["14", "30", "60", "0"]).map(|r| r.cost), Ok(0));
    assert_eq!(parsed_cell(&["14", "30", "60", "-1"]), Err("ERR quantity must be a non-negative integer".into()));
    assert_eq!(
        parsed_cell(&["-1", "30", "60"]),
        Err("ERR max_burst must be an integer between 0 and 999999999999".into())
    );
    assert_eq!(
        parsed_cell(&["1", "0", "60"]),
        Err("ERR count_per_period must be an integer between 1 and 1000000000000".into())
    );
    assert_eq!(parsed_cell(&["1", "1", "0"]), Err("ERR period_s must be an integer between 1 and 1000000000".into()));
    assert!(parsed_cell(&["999999999", "1", "1000000000"]).unwrap_err().starts_with("ERR max_burst too large"));
}

proptest! {
    /// `(max_burst + 1) * period_s` can need 128 bits; the refill bound holds either way.
    #[test]
    fn parse_cell_bounds_the_refill_exactly(
        max_burst in 0i64..1_000_000_000_000,
        count in 1i64..=1_000_000_000_000,
        period_s in 1i64..=1_000_000_000,
    ) {
        let refill_s = (i128::from(max_burst) + 1) * i128::from(period_s) / i128::from(count);
        let args = [max_burst.to_string(), count.to_string(), period_s.to_string()];
        let parsed = parsed_cell(&[&args[0], &args[1], &args[2]]);
        prop_assert_eq!(parsed.is_ok(), refill_s <= 1_000_000_000, "{:?}", parsed);
    }

    /// Every reply field equals the token bucket's, retries are exact, and no span of `t`
    /// ms admits more than `burst + limit * t / period_ms` units.
    #[test]
    fn matches_the_token_bucket_model(
        period_ms in 1i64..2000,
        limit in 1i64..20,
        burst in 1i64..8,
        arrivals in proptest::collection::vec((0i64..300, 1i64..5, any::<bool>()), 1..40),
    ) {
        let mut key = MemoryKey::default();
        let mut bucket = Bucket { level: i128::from(burst) * i128::from(period_ms), at: 0 };
        let mut accepted: Vec<(i64, i64)> = Vec::new();
        let mut now = 10_000;
        for (gap, cost, peek) in arrivals {
            now += gap;
            let r = gcra(period_ms, limit, burst, cost);
            let mode = if peek { Mode::Peek } else { Mode::Record };
            let p = i128::from(period_ms);
            let level = bucket.at(now, &r);
            let need = i128::from(cost) * p;
            let fits = cost <= burst && level >= need;
            let before = key.clone();
            let v = key.call(now, &r, mode);
            prop_assert_eq!(v.allowed, fits);
            let level_after = if fits && !peek { level - need } else { level };
            if fits && !peek {
                bucket = Bucket { level: level_after, at: now };
                accepted.push((now, cost));
            }
            let full = i128::from(burst) * p;
            let div_ceil = |x: i128, d: i128| (x + d - 1).div_euclid(d);
            let retry = if fits { 0 } else if cost > burst { NEVER } else { div_ceil(need - level, i128::from(limit)) as i64 };
            let expected = [i64::from(fits), burst, (level_after / p) as i64, retry,
                            div_ceil(full - level_after, i128::from(limit)) as i64];
            prop_assert_eq!(v.to_array(), expected);
            if retry > 0 {
                prop_assert!(before.clone().call(now + retry, &r, Mode::Peek).allowed);
                prop_assert!(!before.clone().call(now + retry - 1, &r, Mode::Peek).allowed);
            }
            // The key vanishes exactly when the bucket is full again.
            if let Some(at) = key.expires_at.filter(|_| !accepted.is_empty()) {
                let last = bucket.at;
                prop_assert_eq!(at, last + div_ceil(full - bucket.level, i128::from(limit)) as i64);
            }
        }
        for &(start, _) in &accepted {
            for &(end, _) in &accepted {
                if end < start { continue; }
                let units: i64 = accepted.iter().filter(|(t, _)| (start..=end).contains(t)).map(|(_, c)| c).sum();
                let bound = i128::from(burst) * i128::from(period_ms) + i128::from(limit) * i128::from(end - start);
                prop_assert!(i128::from(units) * i128::from(period_ms) <= bound);
            }
        }
    }

    /// Why the adapter need not read the expiry: at the millisecond a written state expires
    /// (Redis still holds the key then), deciding from it is deciding from no key at all.
    #[test]
    fn a_state_read_at_its_expiry_decides_as_no_key(
        period_ms in 1i64..=MAX,
        limit in 1i64..=MAX,
        burst in 1i64..1000,
        cost in 1i64..1000,
        first in 0i64..2_000_000_000_000,
        mode in prop_oneof![Just(Mode::Record), Just(Mode::Peek)],
    ) {
        let r = gcra(period_ms, limit, burst, cost);
        let Some(write) = decide(first, &r, Mode::Record, None).write else { return Ok(()) };
        let now = write.expire_at;
        prop_assert_eq!(decide(now, &r, mode, Some(Stored::Tat(write.tat))), decide(now, &r, mode, None));
    }

    #[test]
    fn div_rem_is_euclidean_division(x in any::<i128>(), d in 1i128..=i128::MAX, small in any::<i64>(), d64 in 1i64..=i64::MAX) {
        prop_assert_eq!(div_rem(x, d), (x.div_euclid(d), x.rem_euclid(d)));
        let (x, d) = (i128::from(small), i128::from(d64));
        prop_assert_eq!(div_rem(x, d), (x.div_euclid(d), x.rem_euclid(d)));
    }

    #[test]
    fn fuzz_decide_never_panics(
        now in edgy_i64(),
        period_ms in 1i64..=MAX,
        limit in 1i64..=MAX,
        burst in 1i64..=MAX,
        cost in 0i64..=i64::MAX,
        ms in edgy_i64(),
        den in 1i64..=MAX,
        rem_frac in 0.0f64..1.0,
        cell in proptest::option::of(0i64..=i64::MAX),
        mode in prop_oneof![Just(Mode::Record), Just(Mode::Peek)],
    ) {
        let rem = ((den as f64) * rem_frac) as i64 % den;
        let stored = Some(cell.map_or(Stored::Tat(Tat { ms, rem, den }), Stored::CellNanos));
        let r = GcraRequest { period_ms, limit, burst, cost, reads_cell_state: true, extras: Extras::default() };
        let plan = decide(now, &r, mode, stored);
        prop_assert!((0..=burst).contains(&plan.verdict.remaining));
        prop_assert!(plan.verdict.retry_after_ms >= NEVER && plan.verdict.reset_after_ms >= 0);
        if let Some(write) = plan.write {
            prop_assert!((0..write.tat.den).contains(&write.tat.rem));
        }
    }
}

fn with_extras(request: GcraRequest, refund: Option<i64>, block_ms: Option<i64>) -> GcraRequest {
    GcraRequest { extras: Extras { refund, block_ms }, ..request }
}

#[test]
fn a_block_pushes_the_tat_so_the_next_unit_arrives_when_it_ends() {
    let mut key = MemoryKey::default();
    let r = gcra(1000, 10, 2, 1); // one unit per 100 ms, 2 at once
    key.call(0, &r, Mode::Record);
    key.call(0, &r, Mode::Record);
    let v = key.call(0, &with_extras(r, None, Some(5000)), Mode::Record);
    assert_eq!(v.to_array(), [0, 2, 0, 5000, 5100]);
    assert_eq!(key.value.as_deref(), Some("gcra:5100:0:10:5000"));
    assert_eq!(key.call(3000, &with_extras(r, None, Some(5000)), Mode::Record).retry_after_ms, 2000, "not extended");
    assert!(key.call(5000, &r, Mode::Record).allowed);
    assert!(!key.call(5000, &r, Mode::Record).allowed, "one unit, then the refill");
}

#[test]
fn a_refund_moves_the_tat_back_never_before_now() {
    let mut key = MemoryKey::default();
    let r = gcra(1000, 10, 5, 1);
    for _ in 0..3 {
        key.call(0, &r, Mode::Record);
    }
    let v = key.call(0, &with_extras(r, Some(2), None), Mode::Record);
    assert_eq!((v.to_array(), key.value.as_deref()), ([1, 5, 4, 0, 100], Some("gcra:100:0:10")));
    assert_eq!(key.call(0, &with_extras(r, Some(9), None), Mode::Record).remaining, 5);
    assert_eq!(key.value, None, "a full bucket is no key");
}

proptest! {
    /// Refunds and blocks against the token bucket: a block empties it until its end and
    /// leaves one unit then, rejections do not extend it, a refund adds units up to full
    /// (none while blocked) and replies the peek of cost 1.
    #[test]
    fn refund_and_block_match_the_token_bucket_model(
        limit in 1i64..20,
        burst in 1i64..8,
        steps in proptest::collection::vec((0i64..300, 0i64..5, proptest::option::of(1i64..2000)), 1..40),
    ) {
        let period_ms = 1000;
        let p = i128::from(period_ms);
        let mut key = MemoryKey::default();
        let mut bucket = Bucket { level: i128::from(burst) * p, at: 0 };
        let mut blocked_until = i64::MIN;
        let mut now = 10_000;
        for (gap, cost, extra) in steps {
            now += gap;
            let r = gcra(period_ms, limit, burst, cost.max(1));
            let blocked = blocked_until > now;
            let level = bucket.at(now, &r);
            if cost == 0 {
                let n = extra.unwrap_or(1);
                let v = key.call(now, &with_extras(r, Some(n), None), Mode::Record);
                if !blocked {
                    bucket = Bucket { level: (level + i128::from(n) * p).min(i128::from(burst) * p), at: now };
                }
                let level = bucket.at(now, &r);
                prop_assert_eq!(v.allowed, !blocked && level >= p);
                prop_assert_eq!(v.remaining, if blocked { 0 } else { (level / p) as i64 });
                continue;
            }
            let v = key.call(now, &with_extras(r, None, extra), Mode::Record);
            let need = i128::from(cost) * p;
            let fits = !blocked && cost <= burst && level >= need;
            prop_assert_eq!(v.allowed, fits);
            if fits {
                bucket = Bucket { level: level - need, at: now };
            } else if let (Some(ms), false, true) = (extra, blocked, cost <= burst) {
                blocked_until = now + ms;
                // One unit when the block ends: level(until) = p, refilling at `limit` a ms.
                bucket = Bucket { level: level.min(p - i128::from(ms) * i128::from(limit)), at: now };
            }
            if blocked_until > now {
                prop_assert_eq!(v.remaining, 0);
                prop_assert!(v.retry_after_ms >= blocked_until - now);
            }
        }
    }
}

#[test]
fn encoded_ms_reads_the_tat_whole_ms_back() {
    let mut buf = [0; ENCODED_MAX];
    let tat = Tat { ms: 1_763_812_345_678, rem: 3, den: 7 };
    assert_eq!(encoded_ms(encode(tat, None, &mut buf), tat.ms), b"1763812345678");
    assert_eq!(encoded_ms(encode(tat, Some(1_763_812_400_000), &mut buf), tat.ms), b"1763812345678");
    let zero = Tat { ms: 0, rem: 0, den: 1 };
    assert_eq!(encoded_ms(encode(zero, None, &mut buf), 0), b"0");
    let negative = Tat { ms: -42, rem: 0, den: 1 };
    assert_eq!(encoded_ms(encode(negative, None, &mut buf), -42), b"-42");
}
