//! `WINLIMIT.GCRA` and `CL.THROTTLE` on Redis: the TAT is a string, `gcra:<ms>:<rem>:<den>`
//! (see [`crate::core::gcra`]), expiring when the bucket is full again; each accepted call
//! replicates one `SET key value PXAT at`.

use crate::core::gcra::{self, GcraRequest};
use crate::core::request::Mode;
use crate::core::verdict::Verdict;
use crate::redis::adapters::Adapter;
use crate::redis::call::{Call, CommandError};
use crate::redis::key::{KeyKind, Opened};

/// `WINLIMIT.GCRA key period_ms limit [BURST n] [COST n]`, and its `_RO` peek.
pub struct Gcra;

/// `CL.THROTTLE key max_burst count_per_period period_s [quantity]`.
pub struct Cell;

impl Adapter for Gcra {
    type Request = GcraRequest;

    fn parse(args: &[&[u8]], mode: Mode) -> Result<GcraRequest, CommandError> {
        let request = gcra::parse(args)?;
        request.extras.check_mode(mode)?;
        Ok(request)
    }

    fn run(call: &Call, mut opened: Opened<'_>, request: &GcraRequest) -> Result<Verdict, CommandError> {
        let key = opened.view();
        let now = call.now();
        let stored = match key.kind() {
            KeyKind::Missing => None,
            // The expiry is not read: written as the TAT rounded up, it has come only when
            // the TAT has, and a TAT in the past is a full bucket already. A key whose TTL
            // was changed by hand is read as Redis still holds it.
            KeyKind::String => {
                let value = key.string_value().unwrap_or_default();
                let stored = gcra::decode(value, request.reads_cell_state)
                    .map_err(|_| CommandError::Stored("ERR this key holds no GCRA state".to_string()))?;
                Some(stored)
            }
            _ => return Err(CommandError::WrongType),
        };
        let plan = gcra::decide(now, request, call.mode, stored);
        if let Some(key) = opened.writer() {
            if let Some(write) = plan.write {
                // One `SET ... PXAT`: a TAT of the stored length is rewritten in place. An
                // expiry on the TAT's whole ms is replicated with the digits the value holds.
                let mut text = [0; gcra::ENCODED_MAX];
                let value = gcra::encode(write.tat, write.blocked_until, &mut text);
                if write.expire_at == write.tat.ms {
                    key.set_string_expiring(value, write.expire_at, gcra::encoded_ms(value, write.tat.ms));
                } else {
                    key.set_string(value, Some(write.expire_at));
                }
            }
            if plan.delete {
                key.delete();
            }
        }
        Ok(plan.verdict)
    }
}

/// The same state and decision as [`Gcra`]; only the arguments differ.
impl Adapter for Cell {
    type Request = GcraRequest;

    fn parse(args: &[&[u8]], _mode: Mode) -> Result<GcraRequest, CommandError> {
        Ok(gcra::parse_cell(args)?)
    }

    fn run(call: &Call, opened: Opened<'_>, request: &GcraRequest) -> Result<Verdict, CommandError> {
        Gcra::run(call, opened, request)
    }
}
