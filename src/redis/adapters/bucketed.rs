//! `WINLIMIT.SLIDE ... BUCKET b` on Redis: the bucketed log is a hash.
//!
//! Layout, written and read only as plain hash fields, so a replica or AOF replay without
//! the module stores it identically:
//!
//! | field | value |
//! |---|---|
//! | `bucket_ms` | the bucket length `b` the key was written with |
//! | `total` | units in all stored buckets, `>= 1` |
//! | `oldest` | start of the oldest stored bucket |
//! | `newest` | start of the newest stored bucket |
//! | `<s>` (a multiple of `b`, in decimal) | units accepted in the bucket starting at `s`, `>= 1` |
//!
//! Every value is a canonical decimal integer. Effects are replicated as `HSET` (absolute
//! values: the bucket and the bookkeeping that changed, one command), `HDEL` (buckets that
//! left the largest window), `PEXPIREAT` and `DEL`.

use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

use redis_module::raw;

use crate::core::bucketed::{self, BucketPlan, BucketView, Header, StoredError};
use crate::core::parse::parse_int;
use crate::core::request::Mode;
use crate::core::slide::SlideRequest;
use crate::core::verdict::Verdict;
use crate::redis::api::{api, bytes, OwnedString};
use crate::redis::call::{Call, CommandError};
use crate::redis::key::{Key, KeyKind};
use crate::redis::replicate;

const BUCKET_MS: &CStr = c"bucket_ms";
const TOTAL: &CStr = c"total";
const OLDEST: &CStr = c"oldest";
const NEWEST: &CStr = c"newest";

/// Reads the hash, decides, writes. `request.bucket_ms` is set.
pub fn run(call: &Call, request: &SlideRequest) -> Result<Verdict, CommandError> {
    let key = call.open_key();
    if !matches!(key.kind(), KeyKind::Missing | KeyKind::Hash) {
        return Err(CommandError::WrongType);
    }
    let plan = bucketed::decide(call.now(), request, call.mode, &HashBuckets { key: &key }).map_err(|e| match e {
        StoredError::OtherBucket { stored } => CommandError::Stored(format!(
            "ERR BUCKET {} differs from the BUCKET {stored} this key was written with",
            request.bucket_ms.unwrap_or(0)
        )),
        StoredError::Invalid(what) => {
            CommandError::Stored(format!("ERR this key holds what winlimit does not write: {what}"))
        }
    })?;
    if call.mode == Mode::Record {
        apply(&key, &plan);
    }
    Ok(plan.verdict)
}

/// The hash as the core sees it.
struct HashBuckets<'k> {
    key: &'k Key,
}

impl HashBuckets<'_> {
    /// The value of one field as a canonical integer, `None` when the field is absent.
    fn get(&self, field: &CStr) -> Result<Option<i64>, StoredError> {
        let mut value: *mut raw::RedisModuleString = std::ptr::null_mut();
        api!(RedisModule_HashGet(
            self.key.handle(),
            raw::REDISMODULE_HASH_CFIELDS as c_int,
            field.as_ptr(),
            &mut value as *mut *mut raw::RedisModuleString,
            std::ptr::null::<c_char>()
        ));
        if value.is_null() {
            return Ok(None);
        }
        let value = OwnedString(value);
        integer(field, bytes(value.0)).map(Some)
    }

    /// The four bookkeeping fields, read in one call.
    fn header_fields(&self) -> Result<[i64; 4], StoredError> {
        let names = [BUCKET_MS, TOTAL, OLDEST, NEWEST];
        let mut values: [*mut raw::RedisModuleString; 4] = [std::ptr::null_mut(); 4];
        let [a, b, c, d] = &mut values;
        api!(RedisModule_HashGet(
            self.key.handle(),
            raw::REDISMODULE_HASH_CFIELDS as c_int,
            BUCKET_MS.as_ptr(),
            a as *mut *mut raw::RedisModuleString,
            TOTAL.as_ptr(),
            b as *mut *mut raw::RedisModuleString,
            OLDEST.as_ptr(),
            c as *mut *mut raw::RedisModuleString,
            NEWEST.as_ptr(),
            d as *mut *mut raw::RedisModuleString,
            std::ptr::null::<c_char>()
        ));
        // Own every returned string first, so each is freed whatever fails below.
        let owned = values.map(|v| (!v.is_null()).then(|| OwnedString(v)));
        let mut out = [0; 4];
        for ((slot, value), name) in out.iter_mut().zip(&owned).zip(names) {
            let value = value
                .as_ref()
                .ok_or_else(|| StoredError::Invalid(format!("field '{}' is missing", name.to_string_lossy())))?;
            *slot = integer(name, bytes(value.0))?;
        }
        Ok(out)
    }
}

impl BucketView for HashBuckets<'_> {
    fn header(&self) -> Result<Option<Header>, StoredError> {
        if self.key.kind() != KeyKind::Hash {
            return Ok(None);
        }
        let [bucket_ms, total, oldest, newest] = self.header_fields()?;
        let invalid = |what: &str| Err(StoredError::Invalid(what.to_string()));
        if bucket_ms < 1 {
            return invalid("bucket_ms is not positive");
        }
        if total < 1 {
            return invalid("total is not positive");
        }
        if oldest.rem_euclid(bucket_ms) != 0 || newest.rem_euclid(bucket_ms) != 0 || oldest > newest {
            return invalid("oldest and newest are not bucket starts in order");
        }
        Ok(Some(Header { bucket_ms, total, oldest, newest }))
    }

    fn expires_at(&self) -> Option<i64> {
        self.key.expires_at()
    }

    fn units(&self, start: i64) -> Result<i64, StoredError> {
        let mut name = [0u8; 24];
        let field = decimal_cstr(start, &mut name);
        match self.get(field)? {
            None => Ok(0),
            Some(units) if units >= 1 => Ok(units),
            Some(units) => Err(StoredError::Invalid(format!("bucket {start} holds {units}, not a positive count"))),
        }
    }
}

/// A field's value as a canonical integer.
fn integer(field: &CStr, text: &[u8]) -> Result<i64, StoredError> {
    parse_int(text).ok_or_else(|| {
        StoredError::Invalid(format!(
            "field '{}' holds '{}', not an integer",
            field.to_string_lossy(),
            crate::core::parse::printable(text)
        ))
    })
}

/// `value` in decimal as a NUL-terminated field name, in `buf`.
fn decimal_cstr(value: i64, buf: &mut [u8; 24]) -> &CStr {
    let len = crate::core::parse::format_int(value, &mut buf[..]);
    buf[len] = 0;
    CStr::from_bytes_with_nul(&buf[..=len]).unwrap_or(c"0")
}

/// Carries out the plan: `DEL`, `HDEL`, one `HSET`, `PEXPIREAT`, with their events.
fn apply(key: &Key, plan: &BucketPlan) {
    if plan.is_noop() {
        return;
    }
    let ctx = key.ctx();
    if plan.discard {
        key.delete();
    }
    if !plan.remove.is_empty() {
        let fields: Vec<OwnedString> = plan.remove.iter().map(|&s| OwnedString::from_i64(ctx, s)).collect();
        for field in &fields {
            api!(RedisModule_HashSet(
                key.handle(),
                raw::REDISMODULE_HASH_NONE as c_int,
                field.0,
                raw::REDISMODULE_HASH_DELETE,
                std::ptr::null::<c_char>()
            ));
        }
        let argv: Vec<*mut raw::RedisModuleString> = fields.iter().map(|f| f.0).collect();
        replicate::with_args(key, c"HDEL", &argv);
        key.notify(raw::REDISMODULE_NOTIFY_HASH as c_int, c"hdel");
    }
    let mut pairs: Vec<(OwnedString, OwnedString)> = Vec::with_capacity(5);
    if let Some((start, units)) = plan.record {
        pairs.push((OwnedString::from_i64(ctx, start), OwnedString::from_i64(ctx, units)));
    }
    if let Some(header) = plan.header {
        let before = plan.stored;
        let fields = [
            (TOTAL, header.total, before.map(|h| h.total)),
            (OLDEST, header.oldest, before.map(|h| h.oldest)),
            (NEWEST, header.newest, before.map(|h| h.newest)),
            (BUCKET_MS, header.bucket_ms, before.map(|h| h.bucket_ms)),
        ];
        for (name, value, stored) in fields {
            if stored != Some(value) {
                let name = OwnedString::from_bytes(ctx, name.to_bytes());
                pairs.push((name, OwnedString::from_i64(ctx, value)));
            }
        }
    }
    if !pairs.is_empty() {
        for (field, value) in &pairs {
            api!(RedisModule_HashSet(
                key.handle(),
                raw::REDISMODULE_HASH_NONE as c_int,
                field.0,
                value.0,
                std::ptr::null::<c_char>()
            ));
        }
        let argv: Vec<*mut raw::RedisModuleString> = pairs.iter().flat_map(|(f, v)| [f.0, v.0]).collect();
        replicate::with_args(key, c"HSET", &argv);
        key.notify(raw::REDISMODULE_NOTIFY_HASH as c_int, c"hset");
    }
    if let Some(at) = plan.expire_at {
        if key.kind() != KeyKind::Missing {
            key.expire_at(at);
        }
    }
    key.signal_modified();
}

#[cfg(test)]
mod tests {
    use super::decimal_cstr;

    #[test]
    fn field_names_are_decimal() {
        for n in [0, 7, -15, 1_763_812_345_000, i64::MIN, i64::MAX] {
            let mut buf = [0u8; 24];
            assert_eq!(decimal_cstr(n, &mut buf).to_str().unwrap(), n.to_string());
        }
    }
}
