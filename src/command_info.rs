//! Command metadata for COMMAND INFO / COMMAND DOCS (filled in below).
use redis_module::raw;
use crate::command::Command;
/// Describes `command` where the server supports it.
pub fn describe(_ctx: *mut raw::RedisModuleCtx, _command: Command) {}
