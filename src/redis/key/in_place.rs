//! A string key's bytes read and rewritten through one string access: a recording call that
//! reads a counter and then increments it asks the server for the string once, not twice.
//!
//! The view borrows its key mutably, so nothing else reads or writes the key while it lives;
//! its effect consumes it, and the key is the caller's again.

use std::os::raw::c_int;

use redis_module::raw;

use crate::core::counter_text::rewrite_count;
use crate::redis::api::api;
use crate::redis::key::{KeyKind, WriteKey};

/// The bytes of a string key opened for writing, read and rewritten in place.
pub struct StringInPlace<'k, 'a> {
    key: &'k mut WriteKey<'a>,
    ptr: *mut u8,
    len: usize,
}

impl<'a> WriteKey<'a> {
    /// The string's bytes, to read now and rewrite later; `None` unless the key holds a
    /// string. Access for writing unshares the string, which reading an encoded string does
    /// too (`RM_StringDMA`): only a raw string another reference shares is copied first.
    pub fn string_in_place(&mut self) -> Option<StringInPlace<'_, 'a>> {
        let mut len = 0usize;
        // SAFETY: a key open for writing and a length to write.
        let ptr = unsafe { api!(RedisModule_StringDMA(self.0.handle, &mut len, raw::REDISMODULE_WRITE as c_int)) };
        // DMA answers null for another type, and no bytes for a missing key as for an empty
        // string: only then is the key's type asked.
        if ptr.is_null() || (len == 0 && self.kind() == KeyKind::Missing) {
            return None;
        }
        Some(StringInPlace { key: self, ptr: ptr.cast(), len })
    }
}

impl<'k, 'a> StringInPlace<'k, 'a> {
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: DMA gave `len` bytes at `ptr`, valid while the key is open and unchanged;
        // `self` holds the key's only (mutable) borrow, so nothing changes it meanwhile.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    /// The key's absolute expiry in ms, if it has one.
    pub fn expires_at(&self) -> Option<i64> {
        // SAFETY: the key exists: it holds the string these bytes are, unchanged since.
        unsafe { self.key.existing_expires_at() }
    }

    /// `INCRBY key by`, leaving the counter at `count`, through these bytes: see
    /// [`WriteKey::incr_by`]. Gives the key back.
    pub fn incr_by(self, by: i64, count: i64) -> &'k mut WriteKey<'a> {
        // SAFETY: as in `bytes`, and writable: DMA gave them for writing, and `self` is
        // consumed here, so this is the only view of them.
        let bytes = unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) };
        let written = rewrite_count(bytes, by, count);
        self.key.finish_incr_by(by, count, written);
        self.key
    }

    /// The key, for any other effect.
    pub fn into_key(self) -> &'k mut WriteKey<'a> {
        self.key
    }
}
