//! Writing replies: the verdict array and error lines.

use std::ffi::CString;
use std::os::raw::c_int;

use redis_module::raw;

use crate::core::verdict::{Verdict, NEVER};
use crate::redis::api::{api, Ctx};
use crate::redis::call::CommandError;

/// How the verdict is written back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyShape {
    /// `allowed limit remaining retry_after_ms reset_after_ms`.
    Verdict,
    /// redis-cell's `limited limit remaining retry_after_s reset_after_s`.
    Cell,
}

/// The verdict in the command's reply shape.
pub fn verdict(ctx: Ctx<'_>, shape: ReplyShape, verdict: Verdict) -> c_int {
    let fields = match shape {
        ReplyShape::Verdict => verdict.to_array(),
        ReplyShape::Cell => cell_fields(verdict),
    };
    // SAFETY: the live context of the command being answered.
    unsafe { api!(RedisModule_ReplyWithArray(ctx.as_ptr(), fields.len() as _)) };
    for field in fields {
        // SAFETY: as above.
        unsafe { api!(RedisModule_ReplyWithLongLong(ctx.as_ptr(), field)) };
    }
    raw::Status::Ok as c_int
}

/// redis-cell's `[limited, capacity, remaining, retry_after_s, reset_after_s]`: times in
/// whole seconds rounded up, `retry_after_s` -1 when allowed or never.
fn cell_fields(v: Verdict) -> [i64; 5] {
    let seconds = |ms: i64| ms.div_euclid(1000) + i64::from(ms.rem_euclid(1000) != 0);
    let retry = if v.allowed || v.retry_after_ms == NEVER { -1 } else { seconds(v.retry_after_ms) };
    [i64::from(!v.allowed), v.limit, v.remaining, retry, seconds(v.reset_after_ms)]
}

/// An error reply in Redis's own words where Redis has them.
pub fn error(ctx: Ctx<'_>, error: &CommandError) -> c_int {
    let text = match error {
        // SAFETY: the live context of the command being answered.
        CommandError::Arity => return unsafe { api!(RedisModule_WrongArity(ctx.as_ptr())) },
        CommandError::Args(e) => e.to_string(),
        CommandError::WrongType => "WRONGTYPE Operation against a key holding the wrong kind of value".to_string(),
        CommandError::Stored(text) => text.clone(),
        CommandError::Internal => "ERR winlimit internal error, see the server log".to_string(),
    };
    let line = CString::new(text.replace('\0', "?")).unwrap_or_default();
    // SAFETY: the live context of the command being answered and a NUL-terminated line.
    unsafe { api!(RedisModule_ReplyWithError(ctx.as_ptr(), line.as_ptr())) };
    raw::Status::Ok as c_int
}
