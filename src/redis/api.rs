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

/// A module string we created, freed on drop. Its pointer stays inside: only code that
/// hands it to the module API for the duration of a call sees it.
pub struct OwnedString(*mut raw::RedisModuleString);

impl OwnedString {
    pub fn from_i64(ctx: *mut raw::RedisModuleCtx, value: i64) -> Self {
        OwnedString(api!(RedisModule_CreateStringFromLongLong(ctx, value)))
    }

    pub fn from_bytes(ctx: *mut raw::RedisModuleCtx, bytes: &[u8]) -> Self {
        OwnedString(api!(RedisModule_CreateString(ctx, bytes.as_ptr().cast(), bytes.len())))
    }

    /// Takes ownership of a string the module API returned to us to free.
    ///
    /// # Safety
    /// `ptr` is a valid module string that nothing else frees.
    pub unsafe fn from_raw(ptr: *mut raw::RedisModuleString) -> Self {
        OwnedString(ptr)
    }

    /// The pointer, for a module API call that reads the string while `self` lives.
    pub fn as_ptr(&self) -> *mut raw::RedisModuleString {
        self.0
    }

    /// The string's bytes, valid while `self` lives.
    pub fn bytes(&self) -> &[u8] {
        string_bytes(&self.0)
    }
}

impl Drop for OwnedString {
    fn drop(&mut self) {
        api!(RedisModule_FreeString(std::ptr::null_mut(), self.0));
    }
}

/// The bytes of a module string the server owns (a command's argument, a filter's word),
/// borrowed as long as the reference to its pointer: an argument vector's slice, say.
pub fn string_bytes(s: &*mut raw::RedisModuleString) -> &[u8] {
    let mut len = 0usize;
    let ptr = api!(RedisModule_StringPtrLen(*s, &mut len));
    if ptr.is_null() {
        return &[];
    }
    // SAFETY: Redis guarantees `len` readable bytes at `ptr` while the string lives, which
    // its holder (the argument vector, the owner) outlives the borrow of.
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
