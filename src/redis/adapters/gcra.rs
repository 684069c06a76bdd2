//! `WINLIMIT.GCRA` and `CL.THROTTLE` on Redis: the TAT is a string, `gcra:<ms>:<rem>:<den>`
//! (see [`crate::core::gcra`]), expiring when the bucket is full again; each accepted call
//! replicates one `SET key value PXAT at`.

use std::os::raw::c_int;

use redis_module::raw;

use crate::core::gcra::{self, GcraRequest, GcraWrite};
use crate::core::request::Mode;
use crate::core::verdict::Verdict;
use crate::redis::api::{api, OwnedString};
use crate::redis::call::{Call, CommandError};
use crate::redis::key::{Key, KeyKind};
use crate::redis::replicate;

/// `WINLIMIT.GCRA key period_ms limit [BURST n] [COST n]`.
pub fn run(call: &Call) -> Result<Verdict, CommandError> {
    decide(call, &gcra::parse(call.args)?)
}

/// `CL.THROTTLE key max_burst count_per_period period_s [quantity]`.
pub fn run_cell(call: &Call) -> Result<Verdict, CommandError> {
    decide(call, &gcra::parse_cell(call.args)?)
}

fn decide(call: &Call, request: &GcraRequest) -> Result<Verdict, CommandError> {
    let key = call.open_key();
    let now = call.now();
    let stored = match key.kind() {
        KeyKind::Missing => None,
        // A key whose expiry has come is a full bucket, whatever it holds.
        KeyKind::String if key.expires_at().is_some_and(|at| at <= now) => None,
        KeyKind::String => {
            let value = key.string_value().unwrap_or_default();
            let stored = gcra::decode(value, request.reads_cell_state)
                .map_err(|_| CommandError::Stored("ERR this key holds no GCRA state".to_string()))?;
            Some(stored)
        }
        _ => return Err(CommandError::WrongType),
    };
    let plan = gcra::decide(now, request, call.mode, stored);
    if let (Mode::Record, Some(write)) = (call.mode, plan.write) {
        apply(&key, write);
    }
    Ok(plan.verdict)
}

/// Writes the TAT with its expiry, replicated as one `SET ... PXAT`. An existing string is
/// rewritten in place, which allocates nothing on the server.
fn apply(key: &Key, write: GcraWrite) {
    let mut buf = [0; gcra::ENCODED_MAX];
    let encoded = gcra::encode(write.tat, &mut buf);
    if key.kind() == KeyKind::String {
        key.overwrite_string(encoded);
    } else {
        let value = OwnedString::from_bytes(key.ctx(), encoded);
        api!(RedisModule_StringSet(key.handle(), value.0));
    }
    key.set_expiry(write.expire_at);
    replicate::set_bytes_pxat(key, encoded, write.expire_at);
    key.notify(raw::REDISMODULE_NOTIFY_STRING as c_int, c"set");
    key.notify(raw::REDISMODULE_NOTIFY_GENERIC as c_int, c"expire");
    key.signal_modified();
}
