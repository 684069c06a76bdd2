//! Calling the module API: the `api!` macro, module strings and the server log.
//!
//! Every function pointer the commands call on every call exists since Redis 6.2; `api!`
//! still turns a missing one into a caught panic (an error reply) rather than undefined
//! behaviour. Optional, newer APIs are looked up explicitly at load time.

use std::ffi::CStr;

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

/// A module string we created and must free.
pub struct OwnedString(pub *mut raw::RedisModuleString);

impl OwnedString {
    pub fn from_i64(ctx: *mut raw::RedisModuleCtx, value: i64) -> Self {
        OwnedString(api!(RedisModule_CreateStringFromLongLong(ctx, value)))
    }

    pub fn from_bytes(ctx: *mut raw::RedisModuleCtx, bytes: &[u8]) -> Self {
        OwnedString(api!(RedisModule_CreateString(ctx, bytes.as_ptr().cast(), bytes.len())))
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

/// Writes a line to the server log (`ctx` may be null outside a command).
pub fn log(ctx: *mut raw::RedisModuleCtx, level: &CStr, message: &str) {
    let line = std::ffi::CString::new(message.replace('\0', "?")).unwrap_or_default();
    // SAFETY: "%s" with one NUL-terminated string.
    if let Some(f) = unsafe { raw::RedisModule_Log } {
        unsafe { f(ctx, level.as_ptr(), c"%s".as_ptr(), line.as_ptr()) };
    }
}
