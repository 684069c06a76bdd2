//! Loading the module: every enabled row of the command table with its metadata and ACL
//! categories, then configuration and INFO.

use std::os::raw::c_int;

use redis_module::raw;

use crate::redis::api::{api, log, Ctx, ServerString};
use crate::redis::commands::{CommandSpec, TABLE};
use crate::redis::handler::ENTRIES;
use crate::redis::{config, info, metadata, replicate, resetstat};

/// The module's name, as `MODULE LIST` shows it.
pub const NAME: &std::ffi::CStr = c"winlimit";

/// Registers everything once `RedisModule_Init` has succeeded. A failure is logged and
/// refuses the load.
pub fn load(ctx: Ctx<'_>, argv: &[ServerString<'_>]) -> Result<(), String> {
    let args: Vec<&[u8]> = argv.iter().map(|arg| arg.bytes()).collect();
    config::from_module_args(&args)?;
    // Keys are signalled as modified only when a call writes (see Key::signal_modified).
    let options = raw::REDISMODULE_OPTION_NO_IMPLICIT_SIGNAL_MODIFIED as c_int;
    // SAFETY: the load's live context.
    unsafe { api!(RedisModule_SetModuleOptions(ctx.as_ptr(), options)) };
    // Configs first: the config file's `winlimit.cell-compat` decides which commands exist.
    if !config::register(ctx)? {
        log(Some(ctx), c"notice", "winlimit: this server has no module configs: settings are module arguments only");
    }

    // SAFETY: reading a function pointer the server set at load time.
    let has_command_handles = unsafe { raw::RedisModule_GetCommand }.is_some();
    for (spec, entry) in TABLE.iter().zip(ENTRIES).filter(|(spec, _)| (spec.enabled)()) {
        let (name, flags) = (spec.name.as_ptr(), spec.flags.as_ptr());
        // SAFETY: the load's live context, NUL-terminated name and flags, and an entry point
        // with the command signature.
        let created = unsafe { api!(RedisModule_CreateCommand(ctx.as_ptr(), name, entry, flags, 1, 1, 1)) };
        if created != raw::Status::Ok as c_int {
            return Err(format!(
                "could not create the command {}: another module (redis-cell?) already registered that name",
                spec.name.to_string_lossy()
            ));
        }
        if has_command_handles {
            // SAFETY: the load's live context and a NUL-terminated name.
            let handle = unsafe { api!(RedisModule_GetCommand(ctx.as_ptr(), name)) };
            if handle.is_null() {
                return Err(format!("could not find {:?} after creating it", spec.name));
            }
            // SAFETY: the handle GetCommand just answered for `spec`'s command.
            unsafe {
                metadata::describe(ctx, handle, spec);
                set_acl_categories(ctx, handle, spec);
            }
        }
    }
    log_missing_features(ctx, has_command_handles);

    resetstat::register(ctx)?;
    // SAFETY: the load's live context and a callback with the signature the API expects.
    // No command filter: the server would run it on every command of every client.
    unsafe { api!(RedisModule_RegisterInfoFunc(ctx.as_ptr(), Some(info::info))) };
    Ok(())
}

/// One notice per optional API this server lacks, naming what goes without it.
fn log_missing_features(ctx: Ctx<'_>, has_command_handles: bool) {
    // SAFETY: reading function pointers the server set at load time.
    let (docs, acl) = unsafe { (raw::RedisModule_SetCommandInfo, raw::RedisModule_SetCommandACLCategories) };
    if !has_command_handles {
        // Redis 6.2: no command handle, so no metadata or categories of any kind.
        log(
            Some(ctx),
            c"notice",
            "winlimit: this server has no GetCommand: no command metadata (COMMAND INFO shows arity -1 \
             and the key at 1, the module checks the arity itself) and no ACL categories (name the \
             commands in ACL rules)",
        );
    } else {
        if docs.is_none() {
            log(Some(ctx), c"notice", "winlimit: this server has no SetCommandInfo: COMMAND DOCS will be bare");
        }
        if acl.is_none() {
            log(
                Some(ctx),
                c"notice",
                "winlimit: this server has no SetCommandACLCategories: name the commands in ACL rules",
            );
        }
    }
    if !replicate::probe_set_pxat() {
        log(
            Some(ctx),
            c"notice",
            "winlimit: this server's SET has no PXAT (Redis before 6.2): a written string and its \
             expiry replicate as SET then PEXPIREAT, in the call's MULTI/EXEC",
        );
    }
    // SAFETY: as above.
    if unsafe { raw::RedisModule_GetAbsExpire }.is_none() {
        log(
            Some(ctx),
            c"notice",
            "winlimit: this server has no absolute-expiry API: expiries are set from the time left",
        );
    }
}

/// Puts the command in its ACL categories where the server can (Redis 7.2+, Valkey). On
/// older servers module commands belong to no category; ACL rules must name them.
///
/// # Safety
/// `handle` is what `RedisModule_GetCommand` answered for `spec`'s command during this load.
unsafe fn set_acl_categories(ctx: Ctx<'_>, handle: *mut raw::RedisModuleCommand, spec: &CommandSpec) {
    // SAFETY: reading a function pointer the server set at load time.
    let Some(set_categories) = (unsafe { raw::RedisModule_SetCommandACLCategories }) else {
        return;
    };
    // SAFETY: a command handle from GetCommand (the caller's promise) and a NUL-terminated
    // category list.
    if unsafe { set_categories(handle, spec.acl_categories.as_ptr()) } != raw::Status::Ok as c_int {
        log(Some(ctx), c"warning", &format!("winlimit: could not set the ACL categories of {:?}", spec.name));
    }
}
