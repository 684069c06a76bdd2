//! Loading the module: commands, their metadata, INFO, configuration.

use std::os::raw::c_int;

use redis_module::raw;

use crate::command::Command;
use crate::keyspace::{api, bytes};
use crate::{command_info, config, info};

/// The module's name, as `MODULE LIST` shows it.
pub const NAME: &std::ffi::CStr = c"winlimit";

/// Registers everything once `RedisModule_Init` has succeeded. A failure is logged and
/// refuses the load.
pub fn load(ctx: *mut raw::RedisModuleCtx, argv: &[*mut raw::RedisModuleString]) -> Result<(), String> {
    // A panic is caught by the command handler and answered with an error; its message
    // belongs in the server log, wherever that is, not on stderr.
    std::panic::set_hook(Box::new(|panic| log(std::ptr::null_mut(), c"warning", &format!("winlimit: {panic}"))));
    let args: Vec<&[u8]> = argv.iter().map(|&a| bytes(a)).collect();
    config::from_module_args(&args)?;
    // Keys are signalled as modified only when a call writes (see Key::signal_modified).
    api!(RedisModule_SetModuleOptions(ctx, raw::REDISMODULE_OPTION_NO_IMPLICIT_SIGNAL_MODIFIED as c_int));

    for command in Command::ALL {
        let created = api!(RedisModule_CreateCommand(
            ctx,
            command.name().as_ptr(),
            command.handler(),
            command.flags().as_ptr(),
            1,
            1,
            1
        ));
        if created != raw::Status::Ok as c_int {
            return Err(format!("could not create {:?}", command.name()));
        }
        let handle = api!(RedisModule_GetCommand(ctx, command.name().as_ptr()));
        if handle.is_null() {
            return Err(format!("could not find {:?} after creating it", command.name()));
        }
        command_info::describe(ctx, handle, command);
        set_acl_categories(ctx, handle, command);
    }

    if !config::register(ctx) {
        log(ctx, c"notice", "this server has no module configs: set max-limit as a module argument");
    }
    api!(RedisModule_RegisterInfoFunc(ctx, Some(info::info)));
    api!(RedisModule_RegisterCommandFilter(
        ctx,
        Some(info::reset_on_resetstat),
        raw::REDISMODULE_CMDFILTER_NOSELF as c_int
    ));
    Ok(())
}

/// Puts the command in its ACL categories where the server can (Redis 7.2+, Valkey). On
/// Redis 7.0 module commands belong to no category; ACL rules must name them.
fn set_acl_categories(ctx: *mut raw::RedisModuleCtx, handle: *mut raw::RedisModuleCommand, command: Command) {
    // SAFETY: reading a function pointer the server set at load time.
    let Some(set_categories) = (unsafe { raw::RedisModule_SetCommandACLCategories }) else {
        return;
    };
    // SAFETY: a command handle from GetCommand and a NUL-terminated category list.
    if unsafe { set_categories(handle, command.acl_categories().as_ptr()) } != raw::Status::Ok as c_int {
        log(ctx, c"warning", &format!("winlimit: could not set the ACL categories of {:?}", command.name()));
    }
}

/// Writes a line to the server log (`ctx` may be null outside a command).
pub fn log(ctx: *mut raw::RedisModuleCtx, level: &std::ffi::CStr, message: &str) {
    let line = std::ffi::CString::new(message.replace('\0', "?")).unwrap_or_default();
    // SAFETY: "%s" with one NUL-terminated string.
    if let Some(f) = unsafe { raw::RedisModule_Log } {
        unsafe { f(ctx, level.as_ptr(), c"%s".as_ptr(), line.as_ptr()) };
    }
}
