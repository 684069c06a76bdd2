//! winlimit: native, atomic rate-limiting commands for Redis.
//!
//! `WINLIMIT.SLIDE` keeps a sliding-window log (exact, in a sorted set, or counted per
//! bucket); `WINLIMIT.FIXED` a fixed-window counter in a string; `WINLIMIT.GCRA` a token
//! bucket (GCRA) as one time in a string. Each decides and records in one command on the
//! server's clock, and replicates its effects as core commands. `WINLIMIT.SLIDE_RO`,
//! `WINLIMIT.FIXED_RO` and `WINLIMIT.GCRA_RO` tell what the recording command would answer,
//! writing nothing; `CL.THROTTLE` answers redis-cell's command (with `cell-compat yes`).
//!
//! Layout: [`core`] parses and decides (pure, no Redis types, one file per algorithm);
//! [`redis`] reads and writes keys, replicates, and registers the command table
//! (`redis/commands.rs`, from which `clients/spec/command_table.json` is generated).

// Each unsafe operation sits in its own `unsafe` block with a `SAFETY` comment, unsafe
// functions' bodies included (`make lint` checks the comments).
#![deny(unsafe_op_in_unsafe_fn)]

mod core;
#[cfg(test)]
mod layout;
mod redis;

use std::os::raw::c_int;

use redis_module::raw;

/// Module memory comes from Redis's allocator, so `INFO memory` and `maxmemory` see it.
/// Unit tests run without a server and keep the system allocator.
#[cfg(not(test))]
#[global_allocator]
static ALLOCATOR: redis_module::alloc::RedisAlloc = redis_module::alloc::RedisAlloc;

/// Module version as Redis encodes it (`MODULE LIST`): major * 10000 + minor * 100 + patch,
/// from `Cargo.toml`'s, so the two cannot disagree.
const VERSION: c_int = encode_version(env!("CARGO_PKG_VERSION"));

/// `"major.minor.patch"` as `major * 10000 + minor * 100 + patch`; a build error, not a
/// wrong number, for anything else (a pre-release suffix, a part over 99).
const fn encode_version(version: &str) -> c_int {
    let bytes = version.as_bytes();
    let (mut parts, mut part, mut count, mut i) = ([0 as c_int; 3], 0 as c_int, 0, 0);
    while i <= bytes.len() {
        if i == bytes.len() || bytes[i] == b'.' {
            assert!(
                count < 3 && (count == 0 || part < 100),
                "version must be major.minor.patch, minor and patch < 100"
            );
            parts[count] = part;
            (part, count) = (0, count + 1);
        } else {
            assert!(bytes[i].is_ascii_digit(), "version must be major.minor.patch");
            part = part * 10 + (bytes[i] - b'0') as c_int;
        }
        i += 1;
    }
    assert!(count == 3, "version must be major.minor.patch");
    parts[0] * 10000 + parts[1] * 100 + parts[2]
}

/// Entry point called by `loadmodule` / `MODULE LOAD`.
///
/// # Safety
/// Called by Redis with a valid context and `argc` argument strings.
#[no_mangle]
pub unsafe extern "C" fn RedisModule_OnLoad(
    ctx: *mut raw::RedisModuleCtx,
    argv: *mut *mut raw::RedisModuleString,
    argc: c_int,
) -> c_int {
    // Nothing may allocate before Init: the allocator is Redis's.
    // SAFETY: the context Redis passed, and a NUL-terminated module name.
    let init = unsafe {
        raw::Export_RedisModule_Init(ctx, redis::load::NAME.as_ptr(), VERSION, raw::REDISMODULE_APIVER_1 as c_int)
    };
    if init == raw::Status::Err as c_int {
        return raw::Status::Err as c_int;
    }
    // SAFETY: Redis passes the load's live context and `argc` module arguments (or none),
    // valid and unchanged while the load runs; neither is kept past it.
    let (ctx, argv) = unsafe { (redis::api::Ctx::from_raw(ctx), redis::api::argv(argv, argc)) };
    let loaded = redis::panics::catch(
        c"loading",
        || Err("a bug stopped the load (see the line above)".to_string()),
        || redis::load::load(ctx, argv),
    );
    match loaded {
        Ok(()) => raw::Status::Ok as c_int,
        Err(message) => {
            redis::api::log(Some(ctx), c"warning", &format!("winlimit: {message}"));
            raw::Status::Err as c_int
        }
    }
}

#[cfg(test)]
mod tests {
    use super::encode_version;

    #[test]
    fn versions_encode_as_redis_module_list_shows_them() {
        assert_eq!(encode_version("0.4.0"), 400);
        assert_eq!(encode_version("1.2.3"), 10203);
        assert_eq!(encode_version("12.0.99"), 120099);
    }

    /// What the key layer forbids, each case refused by the compiler (tests/compile_fail/:
    /// a write while a view, a string in place or a cursor is alive, a second open of the call's key, a slice
    /// outliving its string, two cursors at once). The cases build the module's sources as
    /// binaries of their own, so the crate stays a cdylib; `.stderr` holds each expected
    /// error, rewritten by `TRYBUILD=overwrite cargo test`.
    #[test]
    fn the_compiler_refuses_what_the_key_layer_forbids() {
        trybuild::TestCases::new().compile_fail("tests/compile_fail/*.rs");
    }
}
