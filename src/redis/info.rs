//! The `winlimit` INFO section, and `CONFIG RESETSTAT` clearing it.

use std::os::raw::c_int;

use redis_module::raw;

use crate::redis::api::{api, ServerString};
use crate::redis::commands::TABLE;
use crate::redis::panics::catch;
use crate::redis::stats;

/// The module's version as `INFO winlimit` prints it (`winlimit_version:0.4.0`).
const VERSION: &std::ffi::CStr =
    match std::ffi::CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(version) => version,
        Err(_) => panic!("the package version has no NUL"),
    };

/// Writes `# winlimit` with `winlimit_version`, then `# winlimit_stats` with
/// `winlimit_<command>_{calls,allowed,rejected,errors}` for every registered command.
///
/// # Safety
/// Called by the server, with the live context of the INFO it is answering.
pub unsafe extern "C" fn info(ctx: *mut raw::RedisModuleInfoCtx, _for_crash_report: c_int) {
    // SAFETY: a live INFO context (the caller's promise), used only until we return.
    catch(c"INFO", || (), || unsafe { write_sections(ctx) });
}

/// # Safety
/// `ctx` is the live context of the INFO callback running now.
unsafe fn write_sections(ctx: *mut raw::RedisModuleInfoCtx) {
    // SAFETY: a live INFO context (the caller's promise); a null name is the module's own
    // section, and field names and values are NUL-terminated.
    unsafe {
        api!(RedisModule_InfoAddSection(ctx, std::ptr::null_mut()));
        api!(RedisModule_InfoAddFieldCString(ctx, c"version".as_ptr(), VERSION.as_ptr()));
        api!(RedisModule_InfoAddSection(ctx, c"stats".as_ptr()));
    }
    for (index, spec) in TABLE.iter().enumerate().filter(|(_, spec)| (spec.enabled)()) {
        let Some(counters) = stats::of(index) else { continue };
        let short = spec.stats_name();
        for (field, value) in counters.fields() {
            let name = std::ffi::CString::new(format!("{short}_{field}")).unwrap_or_default();
            // SAFETY: as above.
            unsafe { api!(RedisModule_InfoAddFieldULongLong(ctx, name.as_ptr(), value)) };
        }
    }
}

/// A command filter that sees `CONFIG RESETSTAT` go by and clears the module's counters
/// with the server's (Redis has no module event for it). It runs on every command, so it
/// looks at the argument count before any text.
///
/// # Safety
/// Called by the server, with the live context of the command being filtered.
pub unsafe extern "C" fn reset_on_resetstat(filter: *mut raw::RedisModuleCommandFilterCtx) {
    // SAFETY: a live filter context (the caller's promise), used only until we return.
    catch(c"the CONFIG RESETSTAT filter", || (), || unsafe { clear_on_resetstat(filter) });
}

/// # Safety
/// `filter` is the live context of the command filter running now.
unsafe fn clear_on_resetstat(filter: *mut raw::RedisModuleCommandFilterCtx) {
    // SAFETY: a live filter context (the caller's promise).
    if unsafe { api!(RedisModule_CommandFilterArgsCount(filter)) } != 2 {
        return;
    }
    // SAFETY: a live filter context and an index below its count; the filter's words live,
    // unchanged, while it runs, longer than these locals.
    let word = |i| unsafe { ServerString::from_raw(api!(RedisModule_CommandFilterArgGet(filter, i))) };
    if !word(0).is_some_and(|first| first.bytes().eq_ignore_ascii_case(b"config")) {
        return;
    }
    if word(1).is_some_and(|second| second.bytes().eq_ignore_ascii_case(b"resetstat")) {
        stats::reset();
    }
}
