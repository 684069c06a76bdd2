//! `WINLIMIT.FIXED` on Redis: the counter is a string holding the decimal count, updated in
//! place (which keeps its expiry) and replicated as `SET ... PXAT` or `INCRBY`.

use std::os::raw::c_int;

use redis_module::raw;

use crate::core::fixed::{self, Counter, FixedWrite};
use crate::core::parse::{format_int, parse_int};
use crate::core::request::Mode;
use crate::core::verdict::Verdict;
use crate::redis::api::OwnedString;
use crate::redis::call::{Call, CommandError};
use crate::redis::key::{Key, KeyKind};
use crate::redis::replicate;

/// Parses, reads the counter, decides, writes.
pub fn run(call: &Call) -> Result<Verdict, CommandError> {
    let request = fixed::parse(call.args)?;
    let key = call.open_key();
    let stored = read(&key)?;
    let plan = fixed::decide(call.now(), &request, call.mode, stored);
    if let (Mode::Record, Some(write)) = (call.mode, plan.write) {
        apply(&key, write);
    }
    Ok(plan.verdict)
}

/// The counter, `None` when the key is missing. A value is a count only where `INCRBY`,
/// whose effect is replicated, would take it too: a canonical non-negative integer.
fn read(key: &Key) -> Result<Option<Counter>, CommandError> {
    match key.kind() {
        KeyKind::Missing => Ok(None),
        KeyKind::String => {
            let count = key.string_value().and_then(parse_int).filter(|c| *c >= 0);
            let count = count.ok_or_else(CommandError::not_an_integer)?;
            Ok(Some(Counter { count, expires_at: key.expires_at() }))
        }
        _ => Err(CommandError::WrongType),
    }
}

/// Carries out the write, replicates it and fires its keyspace events.
fn apply(key: &Key, write: FixedWrite) {
    match write {
        FixedWrite::Create { count, expire_at } => {
            let value = OwnedString::from_i64(key.ctx(), count);
            crate::redis::api::api!(RedisModule_StringSet(key.handle(), value.0));
            key.set_expiry(expire_at);
            replicate::set_pxat(key, value.0, expire_at);
            key.notify(raw::REDISMODULE_NOTIFY_STRING as c_int, c"set");
            key.notify(raw::REDISMODULE_NOTIFY_GENERIC as c_int, c"expire");
        }
        FixedWrite::Increment { by, count, expire_at } => {
            let mut buf = [0u8; 20];
            let len = format_int(count, &mut buf);
            key.overwrite_string(&buf[..len]);
            replicate::incrby(key, by);
            key.notify(raw::REDISMODULE_NOTIFY_STRING as c_int, c"incrby");
            if let Some(at) = expire_at {
                key.expire_at(at);
            }
        }
        FixedWrite::Heal { expire_at } => key.expire_at(expire_at),
    }
    key.signal_modified();
}
