//! The module's settings, each a module argument (`loadmodule libwinlimit.so max-limit 5000`)
//! and, on servers with module configs (Redis 7.0+), a `winlimit.*` config:
//!
//! - `max-limit`: the largest limit an exact-log call may pass, so that one careless call
//!   cannot grow a sorted set without bound or stall the server; `CONFIG SET` changes it.
//! - `cell-compat`: also register redis-cell's `CL.THROTTLE`; fixed at load time.

use std::ffi::c_void;
use std::os::raw::{c_char, c_int, c_longlong};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering::Relaxed};

use redis_module::raw;

use crate::core::parse::parse_int;
use crate::redis::api::Ctx;
use crate::redis::panics::catch;

/// Default for `winlimit.max-limit`: the largest `COST` on a fresh exact log (one member
/// per unit) then takes a few ms (3.4 ms measured), well inside the 10 ms any single call
/// may take. Larger limits belong to `BUCKET`, whose cost does not grow with the limit.
pub const DEFAULT_MAX_LIMIT: i64 = 10_000;
/// Bounds of `winlimit.max-limit`.
pub const MAX_LIMIT_RANGE: (i64, i64) = (1, 1_000_000_000_000);

static MAX_LIMIT: AtomicI64 = AtomicI64::new(DEFAULT_MAX_LIMIT);
static CELL_COMPAT: AtomicBool = AtomicBool::new(false);

/// Whether `CL.THROTTLE` is registered (`cell-compat yes`).
pub fn cell_compat() -> bool {
    CELL_COMPAT.load(Relaxed)
}

/// The current `winlimit.max-limit`.
pub fn max_limit() -> i64 {
    MAX_LIMIT.load(Relaxed)
}

/// Reads `max-limit N` and `cell-compat yes|no` from the module arguments. Unknown names are
/// an error so a typo fails loudly at load time.
pub fn from_module_args(args: &[&[u8]]) -> Result<(), String> {
    for pair in args.chunks(2) {
        match pair {
            [name, value] if name.eq_ignore_ascii_case(b"max-limit") => {
                let (min, max) = MAX_LIMIT_RANGE;
                let limit = parse_int(value)
                    .filter(|v| (min..=max).contains(v))
                    .ok_or_else(|| format!("max-limit must be an integer between {min} and {max}"))?;
                MAX_LIMIT.store(limit, Relaxed);
            }
            [name, value] if name.eq_ignore_ascii_case(b"cell-compat") => {
                let on = match value.to_ascii_lowercase().as_slice() {
                    b"yes" => true,
                    b"no" => false,
                    _ => return Err("cell-compat must be yes or no".to_string()),
                };
                CELL_COMPAT.store(on, Relaxed);
            }
            [name] => return Err(format!("module argument '{}' needs a value", String::from_utf8_lossy(name))),
            [name, _] => return Err(format!("unknown module argument '{}'", String::from_utf8_lossy(name))),
            _ => {}
        }
    }
    Ok(())
}

/// Registers the `winlimit.*` configs and applies the config file's values, where the server
/// has module configs; returns `Ok(false)` where it does not (Redis 6.2: module arguments
/// still work there). Runs before the commands are created: `cell-compat` decides whether
/// `CL.THROTTLE` is.
///
/// # Errors
/// When the server refuses a config, e.g. a config file's value out of range (the server
/// logs which): the load fails, as the server expects of a module that could not load its
/// configs.
pub fn register(ctx: Ctx<'_>) -> Result<bool, String> {
    // SAFETY: reading function pointers the server set at load time.
    let apis = unsafe {
        (raw::RedisModule_RegisterNumericConfig, raw::RedisModule_RegisterBoolConfig, raw::RedisModule_LoadConfigs)
    };
    let (Some(numeric), Some(boolean), Some(load)) = apis else {
        return Ok(false);
    };
    let (min, max) = MAX_LIMIT_RANGE;
    let ctx = ctx.as_ptr();
    // SAFETY: the load's live context, NUL-terminated names, callbacks with the documented signatures.
    let registered = unsafe {
        numeric(
            ctx,
            c"max-limit".as_ptr(),
            max_limit(),
            raw::REDISMODULE_CONFIG_DEFAULT,
            min,
            max,
            Some(get_max_limit),
            Some(set_max_limit),
            None,
            std::ptr::null_mut(),
        ) == raw::Status::Ok as c_int
            && boolean(
                ctx,
                c"cell-compat".as_ptr(),
                c_int::from(cell_compat()),
                raw::REDISMODULE_CONFIG_IMMUTABLE,
                Some(get_cell_compat),
                Some(set_cell_compat),
                None,
                std::ptr::null_mut(),
            ) == raw::Status::Ok as c_int
            && load(ctx) == raw::Status::Ok as c_int
    };
    if registered {
        Ok(true)
    } else {
        Err("could not apply the winlimit.* configs (the server logged which value it refused)".to_string())
    }
}

// The callbacks below cannot panic today; `catch` keeps it so whatever they grow into.

extern "C" fn get_cell_compat(_name: *const c_char, _privdata: *mut c_void) -> c_int {
    catch(c"CONFIG GET winlimit.cell-compat", || 0, || c_int::from(cell_compat()))
}

extern "C" fn set_cell_compat(
    _name: *const c_char,
    value: c_int,
    _privdata: *mut c_void,
    _err: *mut *mut raw::RedisModuleString,
) -> c_int {
    catch(c"CONFIG SET winlimit.cell-compat", refused, || {
        CELL_COMPAT.store(value != 0, Relaxed);
        raw::Status::Ok as c_int
    })
}

extern "C" fn get_max_limit(_name: *const c_char, _privdata: *mut c_void) -> c_longlong {
    catch(c"CONFIG GET winlimit.max-limit", || DEFAULT_MAX_LIMIT, max_limit)
}

extern "C" fn set_max_limit(
    _name: *const c_char,
    value: c_longlong,
    _privdata: *mut c_void,
    _err: *mut *mut raw::RedisModuleString,
) -> c_int {
    catch(c"CONFIG SET winlimit.max-limit", refused, || {
        MAX_LIMIT.store(value, Relaxed);
        raw::Status::Ok as c_int
    })
}

/// A setting refused: the server keeps the old value and says so.
fn refused() -> c_int {
    raw::Status::Err as c_int
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_arguments_reject_unknown_names_and_bad_values() {
        assert!(from_module_args(&[b"burst", b"3"]).is_err());
        assert!(from_module_args(&[b"max-limit", b"0"]).is_err());
        assert!(from_module_args(&[b"max-limit", b"many"]).is_err());
        assert!(from_module_args(&[b"max-limit"]).is_err());
        assert!(from_module_args(&[b"cell-compat", b"maybe"]).is_err());
        assert_eq!(max_limit(), DEFAULT_MAX_LIMIT);
    }
}
