//! An open key: its type, its expiry, deleting it, string values in place, and the
//! signals (keyspace events, WATCH) a write owes.

use std::ffi::CStr;
use std::os::raw::c_int;

use redis_module::raw;

use crate::redis::api::api;
use crate::redis::replicate;

/// What a key holds, as far as the commands care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    Missing,
    String,
    SortedSet,
    Hash,
    Other,
}

/// An open key, closed on drop.
pub struct Key {
    ctx: *mut raw::RedisModuleCtx,
    name: *mut raw::RedisModuleString,
    handle: *mut raw::RedisModuleKey,
}

impl Key {
    /// Opens `name` for reading, or for reading and writing.
    pub fn open(ctx: *mut raw::RedisModuleCtx, name: *mut raw::RedisModuleString, writable: bool) -> Self {
        let mode = raw::REDISMODULE_READ | if writable { raw::REDISMODULE_WRITE } else { 0 };
        let handle = api!(RedisModule_OpenKey(ctx, name, mode as c_int));
        Key { ctx, name, handle }
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

    /// Sets the absolute expiry without replicating it (the caller replicates a command
    /// that carries it).
    pub fn set_expiry(&self, at: i64) {
        // SAFETY: reading a function pointer the server set at load time.
        if unsafe { raw::RedisModule_SetAbsExpire }.is_some() {
            api!(RedisModule_SetAbsExpire(self.handle, at));
            return;
        }
        // Redis 6.2: only a time from now; retried until the clock did not tick around the
        // call, so the stored absolute time is exactly `at`, as on replicas.
        for _ in 0..4 {
            let before = api!(RedisModule_Milliseconds());
            api!(RedisModule_SetExpire(self.handle, (at - before).max(1)));
            if api!(RedisModule_Milliseconds()) == before {
                break;
            }
        }
    }

    /// Sets the absolute expiry, replicated as `PEXPIREAT`.
    pub fn expire_at(&self, at: i64) {
        self.set_expiry(at);
        replicate::pexpireat(self, at);
        self.notify(raw::REDISMODULE_NOTIFY_GENERIC as c_int, c"expire");
    }

    /// Deletes the key, replicated as `DEL`.
    pub fn delete(&self) {
        api!(RedisModule_DeleteKey(self.handle));
        replicate::del(self);
        self.notify(raw::REDISMODULE_NOTIFY_GENERIC as c_int, c"del");
    }

    /// A string key's value, read in place; valid until the key is written or closed.
    pub fn string_value(&self) -> Option<&[u8]> {
        let mut len = 0usize;
        let ptr = api!(RedisModule_StringDMA(self.handle, &mut len, raw::REDISMODULE_READ as c_int));
        // SAFETY: DMA gives `len` readable bytes at `ptr` while the key is open and unchanged.
        (!ptr.is_null()).then(|| unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) })
    }

    /// Replaces a string key's value in place, which keeps its expiry (`StringSet` would
    /// drop it).
    pub fn overwrite_string(&self, value: &[u8]) {
        api!(RedisModule_StringTruncate(self.handle, value.len()));
        // `copy_from_slice` checks the lengths agree (a panic the handler turns into an error).
        self.write_string_in_place(|bytes| bytes.copy_from_slice(value));
    }

    /// Rewrites bytes of a string key's value in place, keeping its length and expiry.
    pub fn write_string_in_place(&self, write: impl FnOnce(&mut [u8])) {
        let mut len = 0usize;
        let ptr = api!(RedisModule_StringDMA(self.handle, &mut len, raw::REDISMODULE_WRITE as c_int));
        assert!(!ptr.is_null(), "string DMA refused a write");
        // SAFETY: DMA gives `len` writable bytes at `ptr` while the key is open, and nothing
        // else reads or writes them during `write`.
        write(unsafe { std::slice::from_raw_parts_mut(ptr.cast::<u8>(), len) });
    }

    /// Tells WATCH and client-side caching that the key changed. The module turns off
    /// Redis's implicit signal on closing a writable key, so a call that writes nothing
    /// (a rejection on a tidy key) leaves watchers alone, as core commands do.
    pub fn signal_modified(&self) {
        api!(RedisModule_SignalModifiedKey(self.ctx, self.name));
    }

    /// Fires a keyspace event for this key, as the equivalent core command would.
    pub fn notify(&self, class: c_int, event: &CStr) {
        api!(RedisModule_NotifyKeyspaceEvent(self.ctx, class, event.as_ptr(), self.name));
    }

    pub fn ctx(&self) -> *mut raw::RedisModuleCtx {
        self.ctx
    }

    pub fn name(&self) -> *mut raw::RedisModuleString {
        self.name
    }

    pub fn handle(&self) -> *mut raw::RedisModuleKey {
        self.handle
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        if !self.handle.is_null() {
            api!(RedisModule_CloseKey(self.handle));
        }
    }
}
