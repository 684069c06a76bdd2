//! `WINLIMIT.RESETSTAT`: clears the counters of `INFO winlimit`. A command of the module's
//! own, so the server decides whether it runs as it does for any command (ACL, `MULTI` ...
//! `DISCARD`, scripts), and no other command pays for it: a command filter watching for
//! `CONFIG RESETSTAT` ran on every command of every client, before the server had decided.

use std::os::raw::c_int;

use redis_module::raw;

use crate::redis::api::{api, Ctx};
use crate::redis::panics::catch;
use crate::redis::stats;

/// As clients type it.
pub const NAME: &std::ffi::CStr = c"winlimit.resetstat";

/// `admin`, as `CONFIG RESETSTAT`: ACL categories @admin and @dangerous; no key.
const FLAGS: &std::ffi::CStr = c"admin";

/// Registers the command; an error text when the server refuses it.
pub fn register(ctx: Ctx<'_>) -> Result<(), String> {
    // SAFETY: the load's live context, NUL-terminated name and flags, an entry point with the
    // command signature, and no key (first, last and step 0).
    let created =
        unsafe { api!(RedisModule_CreateCommand(ctx.as_ptr(), NAME.as_ptr(), Some(entry), FLAGS.as_ptr(), 0, 0, 0)) };
    if created != raw::Status::Ok as c_int {
        return Err(format!("could not create the command {}", NAME.to_string_lossy()));
    }
    Ok(())
}

/// # Safety
/// Called by the server, with the command's live context and `argc` argument strings.
unsafe extern "C" fn entry(
    ctx: *mut raw::RedisModuleCtx,
    _argv: *mut *mut raw::RedisModuleString,
    argc: c_int,
) -> c_int {
    // SAFETY: the command's live context (the caller's promise), used only until we return.
    let ctx = unsafe { Ctx::from_raw(ctx) };
    catch(c"WINLIMIT.RESETSTAT", || raw::Status::Err as c_int, || reset(ctx, argc))
}

fn reset(ctx: Ctx<'_>, argc: c_int) -> c_int {
    if argc != 1 {
        // SAFETY: the live context of the command being answered.
        return unsafe { api!(RedisModule_WrongArity(ctx.as_ptr())) };
    }
    stats::reset();
    // SAFETY: as above, and a NUL-terminated status.
    unsafe { api!(RedisModule_ReplyWithSimpleString(ctx.as_ptr(), c"OK".as_ptr())) }
}
