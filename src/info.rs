//! The `winlimit` INFO section, and `CONFIG RESETSTAT` clearing it.

use std::os::raw::c_int;

use redis_module::raw;

use crate::command::Command;
use crate::keyspace::{api, bytes};
use crate::stats;

/// Writes `# winlimit_stats` with `winlimit_<command>_{calls,allowed,rejected,errors}`.
pub extern "C" fn info(ctx: *mut raw::RedisModuleInfoCtx, _for_crash_report: c_int) {
    api!(RedisModule_InfoAddSection(ctx, c"stats".as_ptr()));
    for command in Command::ALL {
        let short = command.name().to_str().unwrap_or_default().trim_start_matches("winlimit.");
        let s = stats::of(command);
        for (field, counter) in
            [("calls", &s.calls), ("allowed", &s.allowed), ("rejected", &s.rejected), ("errors", &s.errors)]
        {
            let name = std::ffi::CString::new(format!("{short}_{field}")).unwrap_or_default();
            let value = counter.load(std::sync::atomic::Ordering::Relaxed);
            api!(RedisModule_InfoAddFieldULongLong(ctx, name.as_ptr(), value));
        }
    }
}

/// A command filter that sees `CONFIG RESETSTAT` go by and clears the module's counters
/// with the server's (Redis has no module event for it). It runs on every command, so it
/// looks at the argument count before any text.
pub extern "C" fn reset_on_resetstat(filter: *mut raw::RedisModuleCommandFilterCtx) {
    if api!(RedisModule_CommandFilterArgsCount(filter)) != 2 {
        return;
    }
    let word = |pos| bytes(api!(RedisModule_CommandFilterArgGet(filter, pos)));
    if word(0).eq_ignore_ascii_case(b"config") && word(1).eq_ignore_ascii_case(b"resetstat") {
        stats::reset();
    }
}
