//! Keys by type: a [`Key`] reads, a [`WriteKey`] also writes (its effects are in
//! [`effects`]), and [`Opened`] is what a call gets, so a peeking (`_RO`) command never
//! holds a writer.
//!
//! What the types promise, each shown refused by a compile-fail test (`tests/compile_fail/`):
//! - a call opens its key once: the [`CallKey`] the handler is given is consumed by opening;
//! - what a key lends out (a string in place, a range cursor) borrows it, so no write, and
//!   no second cursor, can happen while it is alive: a cursor borrows the key mutably, as
//!   the server keeps one range iterator per key and starting another ends the first.

use std::marker::PhantomData;
use std::os::raw::c_int;

use redis_module::raw;

use crate::core::request::Mode;
use crate::redis::api::{self, api, Ctx, OwnedString, ServerString};
use crate::redis::replicate::Target;

mod effects;
pub mod in_place;

/// What a key holds, as far as the commands care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    Missing,
    String,
    SortedSet,
    Hash,
    Other,
}

/// The key a command names, not opened yet. Opening consumes it, so a call holds one handle
/// on its key: a view from one handle cannot outlive a write through another.
pub struct CallKey<'a> {
    ctx: Ctx<'a>,
    name: ServerString<'a>,
}

impl<'a> CallKey<'a> {
    /// # Safety
    /// `name` is the key argument of the command that `ctx` serves, and this is the only
    /// `CallKey` made for that call.
    pub unsafe fn new(ctx: Ctx<'a>, name: ServerString<'a>) -> Self {
        CallKey { ctx, name }
    }

    /// Opens the key: a writer only for the recording commands, so a peek holds none.
    pub fn open(self, mode: Mode) -> Opened<'a> {
        match mode {
            Mode::Record => Opened::Record(WriteKey(Key::open(self, raw::REDISMODULE_READ | raw::REDISMODULE_WRITE))),
            Mode::Peek => Opened::Peek(Key::open(self, raw::REDISMODULE_READ)),
        }
    }
}

/// An open key, read-only unless it is inside a [`WriteKey`]; closed on drop. A missing key
/// opened read-only has a null handle, which every read here answers as missing.
pub struct Key<'a> {
    ctx: Ctx<'a>,
    name: ServerString<'a>,
    handle: *mut raw::RedisModuleKey,
}

/// A key opened for writing: everything a [`Key`] reads, and the effects.
pub struct WriteKey<'a>(Key<'a>);

/// The key a call opened: read-only for a peek, writable for a recording call.
pub enum Opened<'a> {
    Peek(Key<'a>),
    Record(WriteKey<'a>),
}

impl<'a> Key<'a> {
    fn open(key: CallKey<'a>, mode: u32) -> Self {
        // SAFETY: the call's live context and its key argument; `CallKey` makes this the
        // call's only handle on the key.
        let handle = unsafe { api!(RedisModule_OpenKey(key.ctx.as_ptr(), key.name.as_ptr(), mode as c_int)) };
        Key { ctx: key.ctx, name: key.name, handle }
    }

    pub fn kind(&self) -> KeyKind {
        if self.handle.is_null() {
            return KeyKind::Missing;
        }
        // SAFETY: a non-null handle is this key, open until `self` drops.
        match unsafe { api!(RedisModule_KeyType(self.handle)) } as isize {
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
        // SAFETY: the key exists, as just read.
        unsafe { self.existing_expires_at() }
    }

    /// [`Key::expires_at`] without asking the server for the key's type again.
    ///
    /// # Safety
    /// The key exists: the caller has just read a kind other than [`KeyKind::Missing`] and
    /// written nothing since (Redis 8's RM_GetAbsExpire dereferences an empty key's value).
    #[inline]
    pub unsafe fn existing_expires_at(&self) -> Option<i64> {
        // SAFETY: reading a function pointer the server set at load time.
        let at = if unsafe { raw::RedisModule_GetAbsExpire }.is_some() {
            // SAFETY: the key exists, so its handle is open and not null.
            unsafe { api!(RedisModule_GetAbsExpire(self.handle)) }
        } else {
            // SAFETY: as above (the caller's promise).
            unsafe { self.expires_at_from_time_left() }
        };
        (at != raw::REDISMODULE_NO_EXPIRE as i64).then_some(at)
    }

    /// Redis 6.2: only the time left, from the server's clock at that instant. Retried until
    /// the clock did not tick around the call, so `now + left` is the stored absolute time
    /// exactly. Out of line: the common path stays a single call.
    ///
    /// # Safety
    /// As [`Key::existing_expires_at`].
    #[cold]
    #[inline(never)]
    unsafe fn expires_at_from_time_left(&self) -> i64 {
        let read = || {
            let before = api::milliseconds();
            // SAFETY: the key exists (the caller's promise), so its handle is open and not null.
            let left = unsafe { api!(RedisModule_GetExpire(self.handle)) };
            let same_ms = api::milliseconds() == before;
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
    }

    /// A string key's value, read in place; the borrow of the key keeps writes away.
    pub fn string_value(&self) -> Option<&[u8]> {
        if self.handle.is_null() {
            return None;
        }
        let mut len = 0usize;
        // SAFETY: an open handle and a length to write; DMA answers null for a non-string.
        let ptr = unsafe { api!(RedisModule_StringDMA(self.handle, &mut len, raw::REDISMODULE_READ as c_int)) };
        if ptr.is_null() {
            return None;
        }
        // SAFETY: DMA gives `len` readable bytes at `ptr` while the key is open and unchanged,
        // and the returned slice borrows the key, which only `&mut` methods change.
        Some(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) })
    }

    /// The number of elements of a sorted set (0 when missing).
    pub fn zset_len(&self) -> u64 {
        if self.kind() != KeyKind::SortedSet {
            return 0;
        }
        // SAFETY: the key holds a sorted set, so its handle is open and not null.
        unsafe { api!(RedisModule_ValueLength(self.handle)) as u64 }
    }

    /// A cursor on the sorted set's elements scored from `min` (included or not, as `lower`
    /// says) to `max`, on the element at the range's `start` end, stepping away from it;
    /// `None` when there is no such element. The cursor borrows the key mutably (the server
    /// keeps one range per key, which a second would restart) and is stopped on drop.
    pub fn zset_range(&mut self, min: f64, max: f64, lower: LowerBound, start: End) -> Option<ZsetRange<'_>> {
        if self.kind() != KeyKind::SortedSet {
            return None;
        }
        let ok = raw::Status::Ok as c_int;
        let exclude_min = c_int::from(lower == LowerBound::Excluded);
        // SAFETY: the key holds a sorted set, so its handle is open and not null; no other
        // range is active on it (a range borrows the key mutably until it is stopped).
        let seek = unsafe {
            if start == End::Newest {
                api!(RedisModule_ZsetLastInScoreRange(self.handle, min, max, exclude_min, 0))
            } else {
                api!(RedisModule_ZsetFirstInScoreRange(self.handle, min, max, exclude_min, 0))
            }
        };
        // Made before the end check, so its drop stops the range either way.
        let range = ZsetRange { handle: self.handle, start, _key: PhantomData };
        // SAFETY: as above, with the range just started.
        (seek == ok && unsafe { api!(RedisModule_ZsetRangeEndReached(self.handle)) } == 0).then_some(range)
    }

    /// Where replication and keyspace events name this key.
    fn target(&self) -> Target<'a> {
        Target { ctx: self.ctx, name: self.name }
    }
}

impl Drop for Key<'_> {
    fn drop(&mut self) {
        if !self.handle.is_null() {
            // SAFETY: an open handle, closed once, while the call's context lives.
            unsafe { api!(RedisModule_CloseKey(self.handle)) };
        }
    }
}

impl<'a> WriteKey<'a> {
    /// The key, to walk with a range cursor (which borrows it, so no write meanwhile).
    pub fn view_mut(&mut self) -> &mut Key<'a> {
        &mut self.0
    }

    /// The call's context, to make strings for the effects.
    pub fn ctx(&self) -> Ctx<'a> {
        self.0.ctx
    }
}

impl<'a> std::ops::Deref for WriteKey<'a> {
    type Target = Key<'a>;

    fn deref(&self) -> &Key<'a> {
        &self.0
    }
}

impl<'a> Opened<'a> {
    /// The key, to read.
    pub fn view(&self) -> &Key<'a> {
        match self {
            Opened::Peek(key) => key,
            Opened::Record(key) => key,
        }
    }

    /// The key, to walk with a range cursor (which borrows it mutably).
    pub fn view_mut(&mut self) -> &mut Key<'a> {
        match self {
            Opened::Peek(key) => key,
            Opened::Record(key) => &mut key.0,
        }
    }

    /// The key, to write: `None` for a peek.
    pub fn writer(&mut self) -> Option<&mut WriteKey<'a>> {
        match self {
            Opened::Peek(_) => None,
            Opened::Record(key) => Some(key),
        }
    }
}

/// Whether a score range holds elements scored exactly its `min`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LowerBound {
    Included,
    Excluded,
}

/// The end of a score range a cursor starts on: the oldest (lowest score) or the newest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Oldest,
    Newest,
}

/// A sorted set's range cursor, on one element at a time. It holds the key's `&mut` borrow:
/// no write and no second cursor while it lives.
pub struct ZsetRange<'k> {
    handle: *mut raw::RedisModuleKey,
    /// The end it started on; it steps away from it.
    start: End,
    _key: PhantomData<&'k mut ()>,
}

impl ZsetRange<'_> {
    /// Moves one element away from the end it started on (towards the oldest, lower scores,
    /// from the newest); false past the other end of the range.
    pub fn step(&mut self) -> bool {
        // SAFETY: the handle of a sorted set whose range this cursor started and owns.
        unsafe {
            if self.start == End::Newest {
                api!(RedisModule_ZsetRangePrev(self.handle)) != 0
            } else {
                api!(RedisModule_ZsetRangeNext(self.handle)) != 0
            }
        }
    }

    /// The element under the cursor: its score and member.
    pub fn current(&self) -> Option<(f64, OwnedString)> {
        let mut score = 0.0;
        // SAFETY: as in `step`, and a score to write.
        let member = unsafe { api!(RedisModule_ZsetRangeCurrentElement(self.handle, &mut score)) };
        // SAFETY: the API returns a new string the caller frees.
        (!member.is_null()).then(|| (score, unsafe { OwnedString::from_raw(member) }))
    }
}

impl Drop for ZsetRange<'_> {
    fn drop(&mut self) {
        // SAFETY: as in `step`; the range is stopped once.
        unsafe { api!(RedisModule_ZsetRangeStop(self.handle)) };
    }
}
