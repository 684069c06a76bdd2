//! `WINLIMIT.SLIDE` on Redis: the exact log is a sorted set whose scores are acceptance
//! times in ms, read through the key's range cursor and replicated as `ZADD`,
//! `ZREMRANGEBYSCORE`, `PEXPIREAT` and `DEL`.

use std::os::raw::c_int;

use redis_module::raw;

use crate::core::parse::parse_int;
use crate::core::request::Mode;
use crate::core::slide::{self, next_member, Append, Entry, LogView, SlidePlan};
use crate::core::verdict::Verdict;
use crate::redis::api::{api, bytes, OwnedString};
use crate::redis::call::{Call, CommandError};
use crate::redis::config;
use crate::redis::key::{Key, KeyKind};
use crate::redis::replicate;

/// Parses, reads the log, decides, writes. With `BUCKET` the bucketed log takes the call.
pub fn run(call: &Call) -> Result<Verdict, CommandError> {
    let request = slide::parse(call.args, config::max_limit())?;
    if request.bucket_ms.is_some() {
        return crate::redis::adapters::bucketed::run(call, &request);
    }
    let key = call.open_key();
    if !matches!(key.kind(), KeyKind::Missing | KeyKind::SortedSet) {
        return Err(CommandError::WrongType);
    }
    let plan = slide::decide(call.now(), &request, call.mode, &SortedSetLog::new(&key));
    if call.mode == Mode::Record {
        apply(&key, &plan);
    }
    Ok(plan.verdict)
}

/// The log as the core sees it, read through the key's range cursor. Counting walks the
/// cursor without materialising members; only single elements are ever read out.
pub struct SortedSetLog<'k> {
    key: &'k Key,
}

impl<'k> SortedSetLog<'k> {
    /// The caller has checked the key is missing or a sorted set.
    pub fn new(key: &'k Key) -> Self {
        SortedSetLog { key }
    }

    fn exists(&self) -> bool {
        self.key.kind() == KeyKind::SortedSet
    }

    /// Positions the cursor on the first element scored in `(min, max]` or `[min, max]`;
    /// false when there is none.
    fn seek_first(&self, min: f64, max: f64, exclude_min: bool) -> bool {
        let ok = raw::Status::Ok as c_int;
        api!(RedisModule_ZsetFirstInScoreRange(self.key.handle(), min, max, c_int::from(exclude_min), 0)) == ok
            && api!(RedisModule_ZsetRangeEndReached(self.key.handle())) == 0
    }

    /// Positions the cursor on the last element scored in `(min, max]` or `[min, max]`.
    fn seek_last(&self, min: f64, max: f64, exclude_min: bool) -> bool {
        let ok = raw::Status::Ok as c_int;
        api!(RedisModule_ZsetLastInScoreRange(self.key.handle(), min, max, c_int::from(exclude_min), 0)) == ok
            && api!(RedisModule_ZsetRangeEndReached(self.key.handle())) == 0
    }

    fn stop(&self) {
        api!(RedisModule_ZsetRangeStop(self.key.handle()));
    }
}

impl SortedSetLog<'_> {
    /// Counts the elements scored in the range, stepping from its oldest or newest end and
    /// stopping at `cap`.
    fn count_range(&self, (min, max, exclude_min): (f64, f64, bool), from_newest: bool, cap: u64) -> u64 {
        if !self.exists() || cap == 0 {
            return 0;
        }
        let mut count = 0;
        if self.seek(min, max, exclude_min, from_newest) {
            count = 1;
            while count < cap && self.step(from_newest) {
                count += 1;
            }
        }
        self.stop();
        count
    }

    /// The score of the `n`-th (from 0) element of the range from its oldest or newest end.
    fn nth_in_range(&self, (min, max, exclude_min): (f64, f64, bool), from_newest: bool, n: u64) -> Option<i64> {
        if !self.exists() {
            return None;
        }
        let mut found = self.seek(min, max, exclude_min, from_newest);
        for _ in 0..n {
            if !found {
                break;
            }
            found = self.step(from_newest);
        }
        let score = found.then(|| current(self.key)).flatten().map(|(score, _)| to_ms(score));
        self.stop();
        score
    }

    fn seek(&self, min: f64, max: f64, exclude_min: bool, from_newest: bool) -> bool {
        if from_newest {
            self.seek_last(min, max, exclude_min)
        } else {
            self.seek_first(min, max, exclude_min)
        }
    }

    fn step(&self, towards_oldest: bool) -> bool {
        if towards_oldest {
            api!(RedisModule_ZsetRangePrev(self.key.handle())) != 0
        } else {
            api!(RedisModule_ZsetRangeNext(self.key.handle())) != 0
        }
    }
}

const EVERYTHING: (f64, f64, bool) = (f64::NEG_INFINITY, f64::INFINITY, false);

impl LogView for SortedSetLog<'_> {
    fn len(&self) -> u64 {
        if !self.exists() {
            return 0;
        }
        api!(RedisModule_ValueLength(self.key.handle())) as u64
    }

    fn newest(&self) -> Option<Entry> {
        if !self.exists() {
            return None;
        }
        let found = self.seek_last(f64::NEG_INFINITY, f64::INFINITY, false);
        let entry = found
            .then(|| current(self.key))
            .flatten()
            .map(|(score, member)| Entry { score: to_ms(score), member: parse_int(bytes(member.0)) });
        self.stop();
        entry
    }

    fn expires_at(&self) -> Option<i64> {
        self.key.expires_at()
    }

    fn count_through(&self, cutoff: i64) -> u64 {
        self.count_range((f64::NEG_INFINITY, cutoff as f64, false), false, u64::MAX)
    }

    fn nth_after(&self, cutoff: i64, n: u64) -> Option<i64> {
        self.nth_in_range((cutoff as f64, f64::INFINITY, true), false, n)
    }

    fn count_between(&self, after: i64, through: i64, cap: u64) -> u64 {
        if through <= after {
            return 0;
        }
        self.count_range((after as f64, through as f64, true), false, cap)
    }

    fn nth_oldest(&self, n: u64) -> Option<i64> {
        self.nth_in_range(EVERYTHING, false, n)
    }

    fn count_after_from_newest(&self, cutoff: i64, cap: u64) -> u64 {
        self.count_range((cutoff as f64, f64::INFINITY, true), true, cap)
    }

    fn nth_newest(&self, n: u64) -> Option<i64> {
        self.nth_in_range(EVERYTHING, true, n)
    }
}

/// The element under the key's range cursor.
fn current(key: &Key) -> Option<(f64, OwnedString)> {
    let mut score = 0.0;
    let member = api!(RedisModule_ZsetRangeCurrentElement(key.handle(), &mut score));
    (!member.is_null()).then(|| (score, OwnedString(member)))
}

/// A stored score as a whole ms. A fractional score counts until its ceiling, which keeps
/// `now - t < window` exact for integer `now`; `as` saturates infinities and maps NaN to 0.
fn to_ms(score: f64) -> i64 {
    score.ceil() as i64
}

/// Carries out a plan: the writes, their replication and their keyspace events.
fn apply(key: &Key, plan: &SlidePlan) {
    if plan.is_noop() {
        return;
    }
    if plan.discard {
        key.delete();
    }
    if let Some(cutoff) = plan.trim_through {
        trim_through(key, cutoff);
    }
    if let Some(append) = plan.append {
        add(key, append);
    }
    if let Some(at) = plan.expire_at {
        if key.kind() != KeyKind::Missing {
            key.expire_at(at);
        }
    }
    key.signal_modified();
}

/// Removes every entry scored at or below `cutoff`, as `ZREMRANGEBYSCORE key -inf cutoff`.
fn trim_through(key: &Key, cutoff: i64) {
    let handle = key.handle();
    let mut stale = Vec::new();
    let ok = raw::Status::Ok as c_int;
    if api!(RedisModule_ZsetFirstInScoreRange(handle, f64::NEG_INFINITY, cutoff as f64, 0, 0)) == ok {
        loop {
            match current(key) {
                Some((_, member)) => stale.push(member),
                None => break,
            }
            if api!(RedisModule_ZsetRangeNext(handle)) == 0 {
                break;
            }
        }
    }
    api!(RedisModule_ZsetRangeStop(handle));
    if stale.is_empty() {
        return;
    }
    for member in &stale {
        let mut deleted: c_int = 0;
        api!(RedisModule_ZsetRem(handle, member.0, &mut deleted));
    }
    replicate::zremrangebyscore_through(key, cutoff);
    key.notify(raw::REDISMODULE_NOTIFY_ZSET as c_int, c"zremrangebyscore");
    if key.kind() == KeyKind::Missing {
        key.notify(raw::REDISMODULE_NOTIFY_GENERIC as c_int, c"del");
    }
}

/// Members per replicated `ZADD`: a large `COST` is replicated as several commands (all in
/// the call's MULTI/EXEC), so neither this call nor a replica holds one huge argument list.
const MEMBERS_PER_ZADD: i64 = 1024;

/// Adds `append.count` entries with fresh members, replicated as `ZADD key score member ...`.
/// A member that already exists (a script's log, or the sequence after a clock step or a
/// wrap) is skipped, never overwritten.
fn add(key: &Key, append: Append) {
    let ctx = key.ctx();
    let mut next = append.first_member;
    let mut fresh_member = || loop {
        let member = OwnedString::from_i64(ctx, next);
        next = next_member(next);
        let mut flags = raw::REDISMODULE_ZADD_NX as c_int;
        let status = api!(RedisModule_ZsetAdd(key.handle(), append.score as f64, member.0, &mut flags));
        assert!(status == raw::Status::Ok as c_int, "ZsetAdd refused a member");
        if flags & raw::REDISMODULE_ZADD_ADDED as c_int != 0 {
            return member;
        }
    };

    if append.count == 1 {
        // The common case, without building an argument vector.
        let member = fresh_member();
        replicate::zadd_one(key, append.score, member.0);
    } else {
        let score = OwnedString::from_i64(ctx, append.score);
        let mut left = append.count;
        while left > 0 {
            let chunk = left.min(MEMBERS_PER_ZADD);
            left -= chunk;
            let members: Vec<OwnedString> = (0..chunk).map(|_| fresh_member()).collect();
            let argv: Vec<*mut raw::RedisModuleString> = members.iter().flat_map(|m| [score.0, m.0]).collect();
            replicate::with_args(key, c"ZADD", &argv);
        }
    }
    key.notify(raw::REDISMODULE_NOTIFY_ZSET as c_int, c"zadd");
}
