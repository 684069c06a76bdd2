//! The `winlimit` INFO section (`WINLIMIT.RESETSTAT` clears its counters).

use std::os::raw::c_int;

use redis_module::raw;

use crate::redis::api::api;
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
