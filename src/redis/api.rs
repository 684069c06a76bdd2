//! Calling the module API: the `api!` macro, typed handles for what the server lends a
//! callback (its context, its argument strings), module strings we own, and the server log.
//!
//! Every function pointer the commands call on every call exists since Redis 6.2; `api!`
//! still turns a missing one into a caught panic (an error reply) rather than undefined
//! behaviour. Optional, newer APIs are looked up explicitly at load time.

use std::ffi::CStr;
use std::marker::PhantomData;
use std::os::raw::c_int;
use std::ptr::NonNull;

use redis_module::raw;

/// Calls a Redis module API function by its short name. It reads a function pointer the
/// server set at load time and calls into C, so it is only usable inside an `unsafe` block,
/// whose `SAFETY` comment says why the arguments are valid for that function.
macro_rules! api {
    ($name:ident($($arg:expr),* $(,)?)) => {
        redis_module::raw::$name.expect(concat!(stringify!($name), " is not available on this server"))($($arg),*)
    };
}
pub(crate) use api;

/// The context of the callback the server is running (a command, the load, a config):
/// valid until that callback returns, which `'a` stands for.
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    ptr: *mut raw::RedisModuleCtx,
    _callback: PhantomData<&'a mut raw::RedisModuleCtx>,
}

impl Ctx<'_> {
    /// # Safety
    /// `ptr` is the context the server passed to the callback running now, and the `Ctx` is
    /// used only until that callback returns.
    pub unsafe fn from_raw(ptr: *mut raw::RedisModuleCtx) -> Self {
        Ctx { ptr, _callback: PhantomData }
    }

    /// The pointer, for a module API call made while the callback runs.
    pub fn as_ptr(self) -> *mut raw::RedisModuleCtx {
        self.ptr
    }
}

/// A module string the server owns and keeps unchanged for `'a`: a command's argument, a
/// module argument. Its bytes are borrowed for as long.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct ServerString<'a> {
    ptr: NonNull<raw::RedisModuleString>,
    _owner: PhantomData<&'a raw::RedisModuleString>,
}

impl<'a> ServerString<'a> {
    /// The pointer, for a module API call that reads the string while `'a` lasts.
    pub fn as_ptr(self) -> *mut raw::RedisModuleString {
        self.ptr.as_ptr()
    }

    /// The string's bytes, valid for `'a`.
    pub fn bytes(self) -> &'a [u8] {
        // SAFETY: whoever made `self` vouched that the string lives, unchanged, for `'a`.
        unsafe { string_bytes(self.ptr.as_ptr()) }
    }
}

/// The argument vector the server passed to a callback, typed.
///
/// # Safety
/// `argv` points to `argc` valid, non-null module strings that the server keeps unchanged for
/// `'a` (a command's arguments while it runs), or `argc` is 0.
pub unsafe fn argv<'a>(argv: *mut *mut raw::RedisModuleString, argc: c_int) -> &'a [ServerString<'a>] {
    let len = usize::try_from(argc).unwrap_or(0);
    if argv.is_null() || len == 0 {
        return &[];
    }
    // SAFETY: `ServerString` is a transparent non-null pointer, and the caller vouches for
    // `len` non-null strings at `argv` that live for `'a`.
    unsafe { std::slice::from_raw_parts(argv.cast::<ServerString<'a>>(), len) }
}

/// A module string we created, freed on drop. Its pointer stays inside: only code that
/// hands it to the module API for the duration of a call sees it.
pub struct OwnedString(*mut raw::RedisModuleString);

impl OwnedString {
    pub fn from_i64(ctx: Ctx<'_>, value: i64) -> Self {
        // SAFETY: a live context; the server returns a new string that we now own.
        OwnedString(unsafe { api!(RedisModule_CreateStringFromLongLong(ctx.as_ptr(), value)) })
    }

    pub fn from_bytes(ctx: Ctx<'_>, bytes: &[u8]) -> Self {
        // SAFETY: a live context and `bytes.len()` readable bytes, which the server copies.
        OwnedString(unsafe { api!(RedisModule_CreateString(ctx.as_ptr(), bytes.as_ptr().cast(), bytes.len())) })
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

    /// The string's bytes, borrowed from `self`: they cannot outlive it.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: we own the string, and nothing changes it while it lives.
        unsafe { string_bytes(self.0) }
    }
}

impl Drop for OwnedString {
    fn drop(&mut self) {
        // SAFETY: we own the string and free it once; a null context is allowed here.
        unsafe { api!(RedisModule_FreeString(std::ptr::null_mut(), self.0)) };
    }
}

/// The bytes of a module string.
///
/// # Safety
/// `s` is a valid module string that lives, unchanged, for `'a`.
unsafe fn string_bytes<'a>(s: *mut raw::RedisModuleString) -> &'a [u8] {
    let mut len = 0usize;
    // SAFETY: a valid string (the caller's promise) and a length to write.
    let ptr = unsafe { api!(RedisModule_StringPtrLen(s, &mut len)) };
    if ptr.is_null() {
        return &[];
    }
    // SAFETY: Redis gives `len` readable bytes at `ptr` while the string lives unchanged,
    // which the caller promised for `'a`.
    unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) }
}

/// The server's clock in ms.
pub fn milliseconds() -> i64 {
    // SAFETY: takes no arguments.
    unsafe { api!(RedisModule_Milliseconds()) }
}

/// Writes a line to the server log, for the callback `ctx` serves (`None` outside one).
pub fn log(ctx: Option<Ctx<'_>>, level: &CStr, message: &str) {
    let line = std::ffi::CString::new(message.replace('\0', "?")).unwrap_or_default();
    // SAFETY: reading a function pointer the server set at load time.
    let Some(f) = (unsafe { raw::RedisModule_Log }) else { return };
    let ctx = ctx.map_or(std::ptr::null_mut(), Ctx::as_ptr);
    // SAFETY: a live or null context (both allowed) and "%s" with one NUL-terminated string.
    unsafe { f(ctx, level.as_ptr(), c"%s".as_ptr(), line.as_ptr()) };
}
