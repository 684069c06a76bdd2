//! winlimit: native, atomic rate-limiting commands for Redis.
//!
//! `WINLIMIT.SLIDE` keeps an exact sliding-window log in a sorted set; `WINLIMIT.FIXED`
//! keeps a fixed-window counter in a string. Both decide and record in one command on the
//! server's clock, and replicate their effects as core commands.
//!
//! Layout: [`args`] parses, [`slide`] and [`fixed`] decide (pure, no Redis types),
//! [`keyspace`] reads and writes keys and replicates, [`command`] ties them together per
//! call, [`reply`] answers, and [`module`] registers it all with [`command_info`],
//! [`config`], [`info`] and [`stats`].

mod args;
mod command;
mod command_info;
mod config;
mod fixed;
mod info;
mod keyspace;
mod module;
mod reply;
mod request;
mod slide;
mod stats;
#[cfg(test)]
mod test_support;
mod verdict;

use std::os::raw::c_int;

use redis_module::raw;

/// Module memory comes from Redis's allocator, so `INFO memory` and `maxmemory` see it.
/// Unit tests run without a server and keep the system allocator.
#[cfg(not(test))]
#[global_allocator]
static ALLOCATOR: redis_module::alloc::RedisAlloc = redis_module::alloc::RedisAlloc;

/// Module version as Redis encodes it (`MODULE LIST`): major * 10000 + minor * 100 + patch.
const VERSION: c_int = 100;

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
    let init = unsafe {
        raw::Export_RedisModule_Init(ctx, module::NAME.as_ptr(), VERSION, raw::REDISMODULE_APIVER_1 as c_int)
    };
    if init == raw::Status::Err as c_int {
        return raw::Status::Err as c_int;
    }
    let argv = if argv.is_null() {
        &[][..]
    } else {
        unsafe { std::slice::from_raw_parts(argv, usize::try_from(argc).unwrap_or(0)) }
    };
    match std::panic::catch_unwind(|| module::load(ctx, argv)) {
        Ok(Ok(())) => raw::Status::Ok as c_int,
        Ok(Err(message)) => {
            module::log(ctx, c"warning", &format!("winlimit: {message}"));
            raw::Status::Err as c_int
        }
        Err(_) => raw::Status::Err as c_int,
    }
}
