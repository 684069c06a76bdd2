//! The thin adapter between the pure core and Redis: opening keys through the low-level
//! keyspace API, reading the stored state, and carrying out plans with their replication
//! and keyspace events.
//!
//! Every function pointer used here exists since Redis 6.2, so it is present on every
//! server the module loads on; `api!` still turns a missing one into a caught panic
//! (an error reply) rather than undefined behaviour.

pub mod counter;
pub mod sorted_set;

use std::ffi::CStr;
use std::os::raw::{c_int, c_longlong};

use redis_module::raw;

/// Calls a Redis module API function by its short name.
macro_rules! api {
    ($name:ident($($arg:expr),* $(,)?)) => {{
        #[allow(unused_unsafe)]
        let f = unsafe { redis_module::raw::$name }
            .expect(concat!(stringify!($name), " is not available on this server"));
        #[allow(unused_unsafe)]
        unsafe { f($($arg),*) }
    }};
}
pub(crate) use api;

/// What a key holds, as far as the commands care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    Missing,
    String,
    SortedSet,
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
            _ => KeyKind::Other,
        }
    }

    /// Absolute expiry in ms, if the key exists and has one.
    pub fn expires_at(&self) -> Option<i64> {
        if self.kind() == KeyKind::Missing {
            return None;
        }
        let at = api!(RedisModule_GetAbsExpire(self.handle));
        (at != raw::REDISMODULE_NO_EXPIRE as i64).then_some(at)
    }

    /// Sets the absolute expiry and replicates it as `PEXPIREAT`.
    pub fn expire_at(&self, at: i64) {
        api!(RedisModule_SetAbsExpire(self.handle, at));
        // SAFETY: the format matches the arguments: a module string and a long long.
        unsafe { replicate()(self.ctx, c"PEXPIREAT".as_ptr(), c"sl".as_ptr(), self.name, at as c_longlong) };
        self.notify(raw::REDISMODULE_NOTIFY_GENERIC, c"expire");
    }

    /// Deletes the key and replicates `DEL`.
    pub fn delete(&self) {
        api!(RedisModule_DeleteKey(self.handle));
        // SAFETY: the format matches the argument: one module string.
        unsafe { replicate()(self.ctx, c"DEL".as_ptr(), c"s".as_ptr(), self.name) };
        self.notify(raw::REDISMODULE_NOTIFY_GENERIC, c"del");
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

    pub(crate) fn ctx(&self) -> *mut raw::RedisModuleCtx {
        self.ctx
    }

    pub(crate) fn name(&self) -> *mut raw::RedisModuleString {
        self.name
    }

    pub(crate) fn handle(&self) -> *mut raw::RedisModuleKey {
        self.handle
    }
}

/// `RedisModule_Replicate`, called directly because it is variadic. Replication carries
/// effects with absolute times, never the command, so replicas and AOF replays end with the
/// same data without the module and on their own clocks.
pub fn replicate() -> unsafe extern "C" fn(
    *mut raw::RedisModuleCtx,
    *const std::os::raw::c_char,
    *const std::os::raw::c_char,
    ...
) -> c_int {
    // SAFETY: reading a function pointer the server set at load time.
    unsafe { raw::RedisModule_Replicate }.expect("RedisModule_Replicate is not available on this server")
}

impl Drop for Key {
    fn drop(&mut self) {
        if !self.handle.is_null() {
            api!(RedisModule_CloseKey(self.handle));
        }
    }
}

/// A module string we created and must free.
pub struct OwnedString(pub *mut raw::RedisModuleString);

impl OwnedString {
    pub fn from_i64(ctx: *mut raw::RedisModuleCtx, value: i64) -> Self {
        OwnedString(api!(RedisModule_CreateStringFromLongLong(ctx, value)))
    }
}

impl Drop for OwnedString {
    fn drop(&mut self) {
        api!(RedisModule_FreeString(std::ptr::null_mut(), self.0));
    }
}

/// The bytes of a module string (argument or element), valid while the string lives.
pub fn bytes<'a>(s: *const raw::RedisModuleString) -> &'a [u8] {
    let mut len = 0usize;
    let ptr = api!(RedisModule_StringPtrLen(s, &mut len));
    if ptr.is_null() {
        return &[];
    }
    // SAFETY: Redis guarantees `len` readable bytes at `ptr` while the string lives.
    unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) }
}
