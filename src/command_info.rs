//! Command metadata for `COMMAND INFO` and `COMMAND DOCS`: arity, key specs, summary,
//! complexity and arguments, registered through `RedisModule_SetCommandInfo`.
//!
//! The raw API is used rather than redismodule-rs's `#[command]` macro, which refuses to
//! load on Redis 7.0. Where a server lacks `SetCommandInfo`, the commands still work with
//! the legacy key range (1, 1, 1) given at creation.

use std::ffi::CStr;
use std::os::raw::c_int;

use redis_module::raw;

use crate::command::Command;
use crate::module;

/// Every WINLIMIT command takes at least `key window_ms limit`.
const ARITY: c_int = -4;

/// Describes `command` where the server supports it; logs and goes on where it does not.
pub fn describe(ctx: *mut raw::RedisModuleCtx, handle: *mut raw::RedisModuleCommand, command: Command) {
    // SAFETY: reading a function pointer the server set at load time.
    let Some(set_info) = (unsafe { raw::RedisModule_SetCommandInfo }) else {
        module::log(ctx, c"notice", "this server has no SetCommandInfo: COMMAND DOCS will be bare");
        return;
    };
    // Sizes from our header: an older server reads only the fields it knows.
    let version = raw::RedisModuleCommandInfoVersion {
        version: 1,
        sizeof_historyentry: size_of::<raw::RedisModuleCommandHistoryEntry>(),
        sizeof_keyspec: size_of::<raw::RedisModuleCommandKeySpec>(),
        sizeof_arg: size_of::<raw::RedisModuleCommandArg>(),
    };
    let mut key_specs = [key_spec(command), zeroed_key_spec()];
    let mut args = arguments(command);
    let (summary, complexity) = text(command);
    let info = raw::RedisModuleCommandInfo {
        version: &version,
        summary: summary.as_ptr(),
        complexity: complexity.as_ptr(),
        since: c"0.1.0".as_ptr(),
        history: std::ptr::null_mut(),
        tips: std::ptr::null(),
        arity: ARITY,
        key_specs: key_specs.as_mut_ptr(),
        args: args.as_mut_ptr(),
    };
    // SAFETY: `info` and everything it points to outlive the call; Redis copies what it keeps.
    if unsafe { set_info(handle, &info) } != raw::Status::Ok as c_int {
        module::log(ctx, c"warning", &format!("winlimit: SetCommandInfo refused {:?}", command.name()));
    }
}

fn text(command: Command) -> (&'static CStr, &'static CStr) {
    match command {
        Command::Slide => (
            c"Accepts and records a request if an exact sliding window of window_ms holds room for it.",
            c"O(COST * log(N) + M) where N is the number of entries in the log and M the number that left the window since the last call.",
        ),
        Command::Fixed => (
            c"Accepts and counts a request if the fixed window's counter has room for it.",
            c"O(1)",
        ),
        Command::SlideRo => (
            c"Tells whether WINLIMIT.SLIDE would accept a request now, without recording anything.",
            c"O(log(N) + M + K) where N is the number of entries, M the number that left the window and K the number that must leave before the request fits.",
        ),
        Command::FixedRo => (
            c"Tells whether WINLIMIT.FIXED would accept a request now, without counting anything.",
            c"O(1)",
        ),
    }
}

/// One key at argument 1, with access flags as Redis's own commands declare them.
fn key_spec(command: Command) -> raw::RedisModuleCommandKeySpec {
    let flags = match command {
        // Reads the key and both adds and removes data: UPDATE, as ZADD and INCR declare
        // (INSERT, DELETE and UPDATE are mutually exclusive).
        Command::Slide | Command::Fixed => {
            raw::REDISMODULE_CMD_KEY_RW | raw::REDISMODULE_CMD_KEY_ACCESS | raw::REDISMODULE_CMD_KEY_UPDATE
        }
        Command::SlideRo | Command::FixedRo => raw::REDISMODULE_CMD_KEY_RO | raw::REDISMODULE_CMD_KEY_ACCESS,
    };
    let mut spec = zeroed_key_spec();
    spec.flags = u64::from(flags);
    spec.begin_search_type = raw::RedisModuleKeySpecBeginSearchType_REDISMODULE_KSPEC_BS_INDEX;
    spec.bs.index.pos = 1;
    spec.find_keys_type = raw::RedisModuleKeySpecFindKeysType_REDISMODULE_KSPEC_FK_RANGE;
    spec.fk.range = raw::RedisModuleCommandKeySpec__bindgen_ty_2__bindgen_ty_1 { lastkey: 0, keystep: 1, limit: 0 };
    spec
}

/// `key window_ms limit [COST cost]`, and `[ALIGN]` for the fixed window; NULL-terminated.
fn arguments(command: Command) -> Vec<raw::RedisModuleCommandArg> {
    use raw::{
        RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_INTEGER as INTEGER,
        RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_KEY as KEY,
        RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_PURE_TOKEN as PURE_TOKEN,
    };
    let optional = raw::REDISMODULE_CMD_ARG_OPTIONAL as c_int;
    let mut args = vec![
        argument(c"key", KEY, None, 0),
        argument(c"window_ms", INTEGER, None, 0),
        argument(c"limit", INTEGER, None, 0),
        argument(c"cost", INTEGER, Some(c"COST"), optional),
    ];
    if matches!(command, Command::Fixed | Command::FixedRo) {
        args.push(argument(c"align", PURE_TOKEN, Some(c"ALIGN"), optional));
    }
    // SAFETY: an all-zero argument is the terminator the API expects.
    args.push(unsafe { std::mem::zeroed() });
    args
}

fn argument(
    name: &'static CStr,
    kind: raw::RedisModuleCommandArgType,
    token: Option<&'static CStr>,
    flags: c_int,
) -> raw::RedisModuleCommandArg {
    // SAFETY: every field is a pointer, integer or enum for which zero means "unset".
    let mut arg: raw::RedisModuleCommandArg = unsafe { std::mem::zeroed() };
    arg.name = name.as_ptr();
    arg.type_ = kind;
    arg.key_spec_index = if kind == raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_KEY { 0 } else { -1 };
    arg.token = token.map_or(std::ptr::null(), CStr::as_ptr);
    arg.flags = flags;
    arg
}

fn zeroed_key_spec() -> raw::RedisModuleCommandKeySpec {
    // SAFETY: an all-zero key spec is valid and is the terminator the API expects.
    unsafe { std::mem::zeroed() }
}
