//! Command metadata for `COMMAND INFO` and `COMMAND DOCS`, from the command table: arity,
//! key specs, summary, complexity and arguments, through `RedisModule_SetCommandInfo`.
//!
//! The raw API is used rather than redismodule-rs's `#[command]` macro, which refuses to
//! load on Redis 7.0. Where a server lacks `SetCommandInfo`, the commands still work with
//! the legacy key range (1, 1, 1) given at creation.

use std::ffi::CStr;
use std::os::raw::c_int;

use redis_module::raw;

use crate::core::request::Mode;
use crate::redis::api::{log, Ctx};
use crate::redis::commands::{ArgDoc, ArgKind, CommandSpec};

/// Describes `spec` where the server supports it; logs and goes on where it does not.
///
/// # Safety
/// `handle` is what `RedisModule_GetCommand` answered for `spec`'s command during this load.
pub unsafe fn describe(ctx: Ctx<'_>, handle: *mut raw::RedisModuleCommand, spec: &CommandSpec) {
    // SAFETY: reading a function pointer the server set at load time.
    let Some(set_info) = (unsafe { raw::RedisModule_SetCommandInfo }) else {
        return;
    };
    // Sizes from our header: an older server reads only the fields it knows.
    let version = raw::RedisModuleCommandInfoVersion {
        version: 1,
        sizeof_historyentry: size_of::<raw::RedisModuleCommandHistoryEntry>(),
        sizeof_keyspec: size_of::<raw::RedisModuleCommandKeySpec>(),
        sizeof_arg: size_of::<raw::RedisModuleCommandArg>(),
    };
    let mut key_specs = [key_spec(spec.mode), zeroed_key_spec()];
    // Blocks point into `storage`; every vector lives until SetCommandInfo has copied it.
    let mut storage = Vec::new();
    let args = arguments(spec.args, &mut storage);
    let info = raw::RedisModuleCommandInfo {
        version: &version,
        summary: spec.summary.as_ptr(),
        complexity: spec.complexity.as_ptr(),
        since: spec.since.as_ptr(),
        history: std::ptr::null_mut(),
        tips: std::ptr::null(),
        arity: spec.arity,
        key_specs: key_specs.as_mut_ptr(),
        args,
    };
    // SAFETY: a command handle (the caller's promise); `info` and everything it points to
    // outlive the call, and Redis copies what it keeps.
    if unsafe { set_info(handle, &info) } != raw::Status::Ok as c_int {
        log(Some(ctx), c"warning", &format!("winlimit: SetCommandInfo refused {:?}", spec.name));
    }
}

/// One key at argument 1, with access flags as Redis's own commands declare them.
fn key_spec(mode: Mode) -> raw::RedisModuleCommandKeySpec {
    let flags = match mode {
        // Reads the key and both adds and removes data: UPDATE, as ZADD and INCR declare
        // (INSERT, DELETE and UPDATE are mutually exclusive).
        Mode::Record => raw::REDISMODULE_CMD_KEY_RW | raw::REDISMODULE_CMD_KEY_ACCESS | raw::REDISMODULE_CMD_KEY_UPDATE,
        Mode::Peek => raw::REDISMODULE_CMD_KEY_RO | raw::REDISMODULE_CMD_KEY_ACCESS,
    };
    let mut spec = zeroed_key_spec();
    spec.flags = u64::from(flags);
    spec.begin_search_type = raw::RedisModuleKeySpecBeginSearchType_REDISMODULE_KSPEC_BS_INDEX;
    spec.bs.index.pos = 1;
    spec.find_keys_type = raw::RedisModuleKeySpecFindKeysType_REDISMODULE_KSPEC_FK_RANGE;
    spec.fk.range = raw::RedisModuleCommandKeySpec__bindgen_ty_2__bindgen_ty_1 { lastkey: 0, keystep: 1, limit: 0 };
    spec
}

/// A NULL-terminated argument array for `docs`, blocks included; returns its pointer.
fn arguments(docs: &[ArgDoc], storage: &mut Vec<Vec<raw::RedisModuleCommandArg>>) -> *mut raw::RedisModuleCommandArg {
    let mut args: Vec<raw::RedisModuleCommandArg> = docs.iter().map(|doc| argument(doc, storage)).collect();
    // SAFETY: an all-zero argument is the terminator the API expects.
    args.push(unsafe { std::mem::zeroed() });
    let pointer = args.as_mut_ptr();
    // Moving the vector into `storage` keeps its heap buffer, and so `pointer`, in place.
    storage.push(args);
    pointer
}

fn argument(doc: &ArgDoc, storage: &mut Vec<Vec<raw::RedisModuleCommandArg>>) -> raw::RedisModuleCommandArg {
    use raw::{
        RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_BLOCK as BLOCK,
        RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_INTEGER as INTEGER,
        RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_KEY as KEY,
        RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_PURE_TOKEN as PURE_TOKEN,
    };
    // SAFETY: every field is a pointer, integer or enum for which zero means "unset".
    let mut arg: raw::RedisModuleCommandArg = unsafe { std::mem::zeroed() };
    arg.name = doc.name.as_ptr();
    arg.type_ = match doc.kind {
        ArgKind::Key => KEY,
        ArgKind::Integer => INTEGER,
        ArgKind::PureToken => PURE_TOKEN,
        ArgKind::Block => BLOCK,
    };
    arg.key_spec_index = if doc.kind == ArgKind::Key { 0 } else { -1 };
    arg.token = doc.token.map_or(std::ptr::null(), CStr::as_ptr);
    let mut flags = 0;
    if doc.optional {
        flags |= raw::REDISMODULE_CMD_ARG_OPTIONAL;
    }
    if doc.multiple {
        flags |= raw::REDISMODULE_CMD_ARG_MULTIPLE;
    }
    arg.flags = flags as c_int;
    if doc.kind == ArgKind::Block {
        arg.subargs = arguments(doc.block, storage);
    }
    arg
}

fn zeroed_key_spec() -> raw::RedisModuleCommandKeySpec {
    // SAFETY: an all-zero key spec is valid and is the terminator the API expects.
    unsafe { std::mem::zeroed() }
}
