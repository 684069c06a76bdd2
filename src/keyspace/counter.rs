//! The fixed window's home: a string holding the decimal count.

use std::os::raw::{c_int, c_longlong};

use redis_module::raw;

use super::{api, replicate, Key, KeyKind, OwnedString};
use crate::args::parse_int;
use crate::fixed::{Counter, FixedWrite};

/// The stored value is not a count (not a decimal integer, or negative).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotACounter;

/// Reads the counter, `None` when the key is missing. The caller has checked the type.
pub fn read(key: &Key) -> Result<Option<Counter>, NotACounter> {
    if key.kind() == KeyKind::Missing {
        return Ok(None);
    }
    let mut len = 0usize;
    let ptr = api!(RedisModule_StringDMA(key.handle(), &mut len, raw::REDISMODULE_READ as c_int));
    if ptr.is_null() {
        return Err(NotACounter);
    }
    // SAFETY: DMA gives `len` readable bytes at `ptr` while the key is open and unchanged.
    let value = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) };
    let count = parse_int(value).filter(|c| *c >= 0).ok_or(NotACounter)?;
    Ok(Some(Counter { count, expires_at: key.expires_at() }))
}

/// Carries out the write, replicates it and fires its keyspace events.
pub fn apply(key: &Key, write: FixedWrite) {
    match write {
        FixedWrite::Create { count, expire_at } => {
            let value = OwnedString::from_i64(key.ctx(), count);
            api!(RedisModule_StringSet(key.handle(), value.0));
            api!(RedisModule_SetAbsExpire(key.handle(), expire_at));
            // SAFETY: the format matches the arguments: strings, a long long, a C string, a long long.
            unsafe {
                replicate()(
                    key.ctx(),
                    c"SET".as_ptr(),
                    c"sscl".as_ptr(),
                    key.name(),
                    value.0,
                    c"PXAT".as_ptr(),
                    expire_at as c_longlong,
                )
            };
            key.notify(raw::REDISMODULE_NOTIFY_STRING as c_int, c"set");
            key.notify(raw::REDISMODULE_NOTIFY_GENERIC as c_int, c"expire");
        }
        FixedWrite::Increment { by, count, expire_at } => {
            overwrite_digits(key, count);
            // SAFETY: the format matches the arguments: a module string and a long long.
            unsafe { replicate()(key.ctx(), c"INCRBY".as_ptr(), c"sl".as_ptr(), key.name(), by as c_longlong) };
            key.notify(raw::REDISMODULE_NOTIFY_STRING as c_int, c"incrby");
            if let Some(at) = expire_at {
                key.expire_at(at);
            }
        }
        FixedWrite::Heal { expire_at } => key.expire_at(expire_at),
    }
    key.signal_modified();
}

/// Writes `value` into the string in place, which keeps the key's expiry.
fn overwrite_digits(key: &Key, value: i64) {
    let mut buf = [0u8; 20];
    let digits = format_i64(value, &mut buf);
    api!(RedisModule_StringTruncate(key.handle(), digits.len()));
    let mut len = 0usize;
    let ptr = api!(RedisModule_StringDMA(key.handle(), &mut len, raw::REDISMODULE_WRITE as c_int));
    assert!(!ptr.is_null() && len == digits.len(), "string DMA refused a counter write");
    // SAFETY: DMA gives `len` writable bytes at `ptr`, and `len == digits.len()`.
    unsafe { std::ptr::copy_nonoverlapping(digits.as_ptr(), ptr.cast::<u8>(), len) };
}

/// Formats a non-negative count without allocating.
fn format_i64(value: i64, buf: &mut [u8; 20]) -> &[u8] {
    let mut n = value.unsigned_abs();
    let mut start = buf.len();
    loop {
        start -= 1;
        buf[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buf[start..]
}

#[cfg(test)]
mod tests {
    use super::format_i64;

    #[test]
    fn formats_counts_like_redis() {
        for n in [0, 7, 10, 12345, i64::MAX] {
            let mut buf = [0u8; 20];
            assert_eq!(format_i64(n, &mut buf), n.to_string().as_bytes());
        }
    }
}
