//! Typed replication of effects as core commands, with absolute times.
//!
//! A call never replicates itself: a replica re-running it would decide on its own clock.
//! It replicates what it changed, so replicas and AOF replays end with the same members,
//! scores, values and expiries, even on a server without the module.

use std::os::raw::{c_char, c_int, c_longlong};

use redis_module::raw;

use crate::core::parse::format_int;
use crate::redis::api::OwnedString;

/// The call's context and the key a replicated command names.
#[derive(Clone, Copy)]
pub struct Target {
    pub ctx: *mut raw::RedisModuleCtx,
    pub name: *mut raw::RedisModuleString,
}

type Replicate = unsafe extern "C" fn(*mut raw::RedisModuleCtx, *const c_char, *const c_char, ...) -> c_int;

/// `RedisModule_Replicate`, called directly because it is variadic.
fn replicate() -> Replicate {
    // SAFETY: reading a function pointer the server set at load time.
    unsafe { raw::RedisModule_Replicate }.expect("RedisModule_Replicate is not available on this server")
}

/// `PEXPIREAT key at`.
pub fn pexpireat(key: Target, at: i64) {
    // SAFETY: "sl" is a module string and a long long.
    unsafe { replicate()(key.ctx, c"PEXPIREAT".as_ptr(), c"sl".as_ptr(), key.name, at as c_longlong) };
}

/// `DEL key`.
pub fn del(key: Target) {
    // SAFETY: "s" is one module string.
    unsafe { replicate()(key.ctx, c"DEL".as_ptr(), c"s".as_ptr(), key.name) };
}

/// `SET key value PXAT at`, the value given as bytes (no module string to create).
pub fn set_bytes_pxat(key: Target, value: &[u8], at: i64) {
    // SAFETY: "sbcl" is a module string, a buffer and its length, a C string and a long long.
    unsafe {
        replicate()(
            key.ctx,
            c"SET".as_ptr(),
            c"sbcl".as_ptr(),
            key.name,
            value.as_ptr().cast::<c_char>(),
            value.len(),
            c"PXAT".as_ptr(),
            at as c_longlong,
        )
    };
}

/// `SET key value`, the value given as bytes.
pub fn set_bytes(key: Target, value: &[u8]) {
    // SAFETY: "sb" is a module string, then a buffer and its length.
    unsafe {
        replicate()(key.ctx, c"SET".as_ptr(), c"sb".as_ptr(), key.name, value.as_ptr().cast::<c_char>(), value.len())
    };
}

/// `BITFIELD key SET i64 #k value ...`: 64-bit words of a string, set in one command.
pub fn bitfield_set_i64(key: Target, words: &[(usize, i64)]) {
    let ctx = key.ctx;
    let set = OwnedString::from_bytes(ctx, b"SET");
    let i64_type = OwnedString::from_bytes(ctx, b"i64");
    let mut owned = Vec::with_capacity(2 * words.len());
    for &(k, value) in words {
        // `#k`: the k-th i64 word, formatted without allocating.
        let mut offset = [b'#'; 21];
        let len = format_int(i64::try_from(k).unwrap_or(i64::MAX), &mut offset[1..]);
        owned.push(OwnedString::from_bytes(ctx, &offset[..=len]));
        owned.push(OwnedString::from_i64(ctx, value));
    }
    let argv: Vec<*mut raw::RedisModuleString> = owned
        .chunks(2)
        .flat_map(|pair| [set.as_ptr(), i64_type.as_ptr(), pair[0].as_ptr(), pair[1].as_ptr()])
        .collect();
    with_args(key, c"BITFIELD", &argv);
}

/// `INCRBY key by`.
pub fn incrby(key: Target, by: i64) {
    // SAFETY: "sl" is a module string and a long long.
    unsafe { replicate()(key.ctx, c"INCRBY".as_ptr(), c"sl".as_ptr(), key.name, by as c_longlong) };
}

/// `ZREMRANGEBYSCORE key -inf through`.
pub fn zremrangebyscore_through(key: Target, through: i64) {
    // SAFETY: "scl" is a module string, a C string and a long long.
    unsafe {
        replicate()(
            key.ctx,
            c"ZREMRANGEBYSCORE".as_ptr(),
            c"scl".as_ptr(),
            key.name,
            c"-inf".as_ptr(),
            through as c_longlong,
        )
    };
}

/// `ZADD key score member`.
pub fn zadd_one(key: Target, score: i64, member: &OwnedString) {
    // SAFETY: "sls" is a module string, a long long and a module string.
    unsafe { replicate()(key.ctx, c"ZADD".as_ptr(), c"sls".as_ptr(), key.name, score as c_longlong, member.as_ptr()) };
}

/// `<command> key args...`, for commands whose argument list is built at run time (`ZADD`
/// with many members, `BITFIELD`).
pub fn with_args(key: Target, command: &std::ffi::CStr, args: &[*mut raw::RedisModuleString]) {
    // SAFETY: "sv" is a module string, then an array of module strings and its length.
    unsafe { replicate()(key.ctx, command.as_ptr(), c"sv".as_ptr(), key.name, args.as_ptr(), args.len()) };
}
