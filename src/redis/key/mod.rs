//! Keys by type: a [`Key`] reads, a [`WriteKey`] also writes (its effects are in
//! [`effects`]), and [`Opened`] is what a call gets, so a peeking (`_RO`)
//! command never holds a writer. What a key lends out (a string in place, a range cursor)
//! borrows it, so the compiler refuses a write while a view is alive.

use std::os::raw::c_int;

use redis_module::raw;

use crate::redis::api::{api, OwnedString};
use crate::redis::replicate::Target;

mod effects;

/// What a key holds, as far as the commands care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    Missing,
    String,
    SortedSet,
    Hash,
    Other,
}

/// An open key, read-only unless it is inside a [`WriteKey`]; closed on drop. A missing key
/// opened read-only has a null handle, which every read here answers as missing.
pub struct Key {
    ctx: *mut raw::RedisModuleCtx,
    name: *mut raw::RedisModuleString,
    handle: *mut raw::RedisModuleKey,
}

/// A key opened for writing: everything a [`Key`] reads, and the effects.
pub struct WriteKey(Key);

/// The key a call opened: read-only for a peek, writable for a recording call.
pub enum Opened {
    Peek(Key),
    Record(WriteKey),
}

impl Key {
    fn open(ctx: *mut raw::RedisModuleCtx, name: *mut raw::RedisModuleString, mode: u32) -> Self {
        let handle = api!(RedisModule_OpenKey(ctx, name, mode as c_int));
        Key { ctx, name, handle }
    }

    /// Opens `name` for reading only.
    pub fn open_read(ctx: *mut raw::RedisModuleCtx, name: *mut raw::RedisModuleString) -> Self {
        Key::open(ctx, name, raw::REDISMODULE_READ)
    }

    pub fn kind(&self) -> KeyKind {
        if self.handle.is_null() {
            return KeyKind::Missing;
        }
        match api!(RedisModule_KeyType(self.handle)) as isize {
            raw::REDISMODULE_KEYTYPE_EMPTY => KeyKind::Missing,
            raw::REDISMODULE_KEYTYPE_STRING => KeyKind::String,
            raw::REDISMODULE_KEYTYPE_ZSET => KeyKind::SortedSet,
            raw::REDISMODULE_KEYTYPE_HASH => KeyKind::Hash,
            _ => KeyKind::Other,
        }
    }

    /// Absolute expiry in ms, if the key exists and has one.
    pub fn expires_at(&self) -> Option<i64> {
        // Not only cheaper: Redis 8's RM_GetAbsExpire dereferences an empty key's value.
        if self.kind() == KeyKind::Missing {
            return None;
        }
        // SAFETY: reading a function pointer the server set at load time.
        let at = if unsafe { raw::RedisModule_GetAbsExpire }.is_some() {
            api!(RedisModule_GetAbsExpire(self.handle))
        } else {
            // Redis 6.2: only the time left, from the server's clock at that instant.
            // Retried until the clock did not tick around the call, so `now + left` is
            // the stored absolute time exactly.
            let read = || {
                let before = api!(RedisModule_Milliseconds());
                let left = api!(RedisModule_GetExpire(self.handle));
                let same_ms = api!(RedisModule_Milliseconds()) == before;
                (same_ms, if left == raw::REDISMODULE_NO_EXPIRE as i64 { left } else { before + left })
            };
            let (mut exact, mut at) = read();
            for _ in 0..3 {
                if exact {
                    break;
                }
                (exact, at) = read();
            }
            at
        };
        (at != raw::REDISMODULE_NO_EXPIRE as i64).then_some(at)
    }

    /// A string key's value, read in place; the borrow of the key keeps writes away.
    pub fn string_value(&self) -> Option<&[u8]> {
        if self.handle.is_null() {
            return None;
        }
        let mut len = 0usize;
        let ptr = api!(RedisModule_StringDMA(self.handle, &mut len, raw::REDISMODULE_READ as c_int));
        // SAFETY: DMA gives `len` readable bytes at `ptr` while the key is open and unchanged,
        // and the returned slice borrows the key, which only `&mut` methods change.
        (!ptr.is_null()).then(|| unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) })
    }

    /// The number of elements of a sorted set (0 when missing).
    pub fn zset_len(&self) -> u64 {
        if self.kind() != KeyKind::SortedSet {
            return 0;
        }
        api!(RedisModule_ValueLength(self.handle)) as u64
    }

    /// A cursor on the sorted set's elements scored in `[min, max]` (`(min, max]` with
    /// `exclude_min`), on the first of them or, `from_newest`, the last; `None` when there is
    /// no such element. The cursor borrows the key and is stopped on drop.
    pub fn zset_range(&self, min: f64, max: f64, exclude_min: bool, from_newest: bool) -> Option<ZsetRange<'_>> {
        if self.kind() != KeyKind::SortedSet {
            return None;
        }
        let ok = raw::Status::Ok as c_int;
        let seek = if from_newest {
            api!(RedisModule_ZsetLastInScoreRange(self.handle, min, max, c_int::from(exclude_min), 0))
        } else {
            api!(RedisModule_ZsetFirstInScoreRange(self.handle, min, max, c_int::from(exclude_min), 0))
        };
        let range = ZsetRange { key: self };
        (seek == ok && api!(RedisModule_ZsetRangeEndReached(self.handle)) == 0).then_some(range)
    }

    /// Where replication and keyspace events name this key.
    fn target(&self) -> Target {
        Target { ctx: self.ctx, name: self.name }
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        if !self.handle.is_null() {
            api!(RedisModule_CloseKey(self.handle));
        }
    }
}

impl WriteKey {
    /// Opens `name` for reading and writing.
    pub fn open(ctx: *mut raw::RedisModuleCtx, name: *mut raw::RedisModuleString) -> Self {
        WriteKey(Key::open(ctx, name, raw::REDISMODULE_READ | raw::REDISMODULE_WRITE))
    }
}

impl std::ops::Deref for WriteKey {
    type Target = Key;

    fn deref(&self) -> &Key {
        &self.0
    }
}

impl Opened {
    /// The key, to read.
    pub fn view(&self) -> &Key {
        match self {
            Opened::Peek(key) => key,
            Opened::Record(key) => key,
        }
    }

    /// The key, to write: `None` for a peek.
    pub fn writer(&mut self) -> Option<&mut WriteKey> {
        match self {
            Opened::Peek(_) => None,
            Opened::Record(key) => Some(key),
        }
    }
}

/// A sorted set's range cursor, on one element at a time.
pub struct ZsetRange<'k> {
    key: &'k Key,
}

impl ZsetRange<'_> {
    /// Moves one element towards the oldest (lower scores) or the newest; false past the end
    /// of the range.
    pub fn step(&mut self, towards_oldest: bool) -> bool {
        if towards_oldest {
            api!(RedisModule_ZsetRangePrev(self.key.handle)) != 0
        } else {
            api!(RedisModule_ZsetRangeNext(self.key.handle)) != 0
        }
    }

    /// The element under the cursor: its score and member.
    pub fn current(&self) -> Option<(f64, OwnedString)> {
        let mut score = 0.0;
        let member = api!(RedisModule_ZsetRangeCurrentElement(self.key.handle, &mut score));
        // SAFETY: the API returns a new string the caller frees.
        (!member.is_null()).then(|| (score, unsafe { OwnedString::from_raw(member) }))
    }
}

impl Drop for ZsetRange<'_> {
    fn drop(&mut self) {
        api!(RedisModule_ZsetRangeStop(self.key.handle));
    }
}
