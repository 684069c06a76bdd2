//! The sliding log's home: a sorted set whose scores are acceptance times in ms.

use std::os::raw::{c_int, c_longlong};

use redis_module::raw;

use super::{api, bytes, replicate, Key, OwnedString};
use crate::args::parse_int;
use crate::slide::{Append, Entry, LogSummary, SlidePlan};

/// Reads what the decision needs to know besides the scores.
pub fn summary(key: &Key) -> LogSummary {
    if key.kind() == super::KeyKind::Missing {
        return LogSummary::default();
    }
    LogSummary {
        len: api!(RedisModule_ValueLength(key.handle())) as u64,
        newest: newest(key),
        expires_at: key.expires_at(),
    }
}

fn newest(key: &Key) -> Option<Entry> {
    let found = api!(RedisModule_ZsetLastInScoreRange(
        key.handle(),
        f64::NEG_INFINITY,
        f64::INFINITY,
        0,
        0
    ));
    let entry = (found == raw::Status::Ok as c_int)
        .then(|| current(key))
        .flatten()
        .map(|(score, member)| Entry { score: to_ms(score), member: parse_int(bytes(member.0)) });
    api!(RedisModule_ZsetRangeStop(key.handle()));
    entry
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

/// The stored scores, lowest first, read lazily through the key's range cursor.
pub struct ScoresAscending<'k> {
    key: &'k Key,
    started: bool,
    done: bool,
}

pub fn scores_ascending(key: &Key) -> ScoresAscending<'_> {
    let done = key.kind() == super::KeyKind::Missing;
    ScoresAscending { key, started: false, done }
}

impl Iterator for ScoresAscending<'_> {
    type Item = i64;

    fn next(&mut self) -> Option<i64> {
        if self.done {
            return None;
        }
        let handle = self.key.handle();
        let positioned = if self.started {
            api!(RedisModule_ZsetRangeNext(handle)) != 0
        } else {
            self.started = true;
            let ok = raw::Status::Ok as c_int;
            api!(RedisModule_ZsetFirstInScoreRange(handle, f64::NEG_INFINITY, f64::INFINITY, 0, 0)) == ok
        };
        let score = positioned.then(|| current(self.key)).flatten().map(|(score, _)| to_ms(score));
        self.done = score.is_none();
        score
    }
}

impl Drop for ScoresAscending<'_> {
    fn drop(&mut self) {
        if self.started {
            api!(RedisModule_ZsetRangeStop(self.key.handle()));
        }
    }
}

/// Carries out a plan: the writes, their replication and their keyspace events.
pub fn apply(key: &Key, plan: &SlidePlan) {
    if plan.discard_expired {
        key.delete();
    }
    if let Some(cutoff) = plan.trim_through {
        trim_through(key, cutoff);
    }
    if let Some(append) = plan.append {
        add(key, append);
    }
    if let Some(at) = plan.expire_at {
        if key.kind() != super::KeyKind::Missing {
            key.expire_at(at);
        }
    }
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
    // SAFETY: the format matches the arguments: a module string, a C string, a long long.
    unsafe {
        replicate()(key.ctx(), c"ZREMRANGEBYSCORE".as_ptr(), c"scl".as_ptr(), key.name(), c"-inf".as_ptr(), cutoff as c_longlong)
    };
    key.notify(raw::REDISMODULE_NOTIFY_ZSET as c_int, c"zremrangebyscore");
    if key.kind() == super::KeyKind::Missing {
        key.notify(raw::REDISMODULE_NOTIFY_GENERIC as c_int, c"del");
    }
}

/// Adds `append.count` entries with fresh members, as one `ZADD key score member ...`.
/// A member that already exists (a foreign log may hold anything) is skipped, never
/// overwritten.
fn add(key: &Key, append: Append) {
    let ctx = key.ctx();
    let score = OwnedString::from_i64(ctx, append.score);
    let mut argv: Vec<OwnedString> = Vec::with_capacity(2 * append.count as usize);
    let mut next = append.first_member;
    for _ in 0..append.count {
        loop {
            let member = OwnedString::from_i64(ctx, next);
            next = next.wrapping_add(1);
            let mut flags: c_int = raw::REDISMODULE_ZADD_NX as c_int;
            let status = api!(RedisModule_ZsetAdd(key.handle(), append.score as f64, member.0, &mut flags));
            if status != raw::Status::Ok as c_int {
                panic!("ZsetAdd refused a member");
            }
            if flags & raw::REDISMODULE_ZADD_ADDED as c_int != 0 {
                argv.push(OwnedString(api!(RedisModule_HoldString(ctx, score.0))));
                argv.push(member);
                break;
            }
        }
    }
    let pointers: Vec<*mut raw::RedisModuleString> = argv.iter().map(|s| s.0).collect();
    // SAFETY: "sv" is a module string followed by an array of module strings and its length.
    unsafe {
        replicate()(key.ctx(), c"ZADD".as_ptr(), c"sv".as_ptr(), key.name(), pointers.as_ptr(), pointers.len())
    };
    key.notify(raw::REDISMODULE_NOTIFY_ZSET as c_int, c"zadd");
}
