//! `WINLIMIT.FIXED` on Redis: the counter is a string holding the decimal count, updated in
//! place (which keeps its expiry) and replicated as `SET ... PXAT` or `INCRBY`.

use crate::core::fixed::{self, Counter, FixedRequest, FixedWrite};
use crate::core::parse::{format_int, parse_int};
use crate::core::request::Mode;
use crate::core::verdict::Verdict;
use crate::redis::adapters::Adapter;
use crate::redis::call::{Call, CommandError};
use crate::redis::key::in_place::StringInPlace;
use crate::redis::key::{Key, KeyKind, Opened, WriteKey};

/// `WINLIMIT.FIXED` and `WINLIMIT.FIXED_RO`.
pub struct Fixed;

impl Adapter for Fixed {
    type Request = FixedRequest;

    fn parse(args: &[&[u8]], mode: Mode) -> Result<FixedRequest, CommandError> {
        let request = fixed::parse(args)?;
        request.extras.check_mode(mode)?;
        Ok(request)
    }

    /// Reads the counter, decides, writes.
    fn run(call: &Call, mut key: Opened<'_>, request: &FixedRequest) -> Result<Verdict, CommandError> {
        if let Some(string) = key.writer().and_then(WriteKey::string_in_place) {
            return run_in_place(call, string, request);
        }
        let stored = read(key.view())?;
        let plan = fixed::decide(call.now(), request, call.mode, stored);
        if let (Some(key), Some(write)) = (key.writer(), plan.write) {
            apply(key, write);
        }
        Ok(plan.verdict)
    }
}

/// A recording call on a counter: its digits are read and rewritten through one string
/// access.
fn run_in_place(call: &Call, string: StringInPlace<'_, '_>, request: &FixedRequest) -> Result<Verdict, CommandError> {
    let count = count_of(string.bytes())?;
    let stored = Counter { count, expires_at: string.expires_at() };
    let plan = fixed::decide(call.now(), request, call.mode, Some(stored));
    match plan.write {
        Some(FixedWrite::Increment { by, count, expire_at }) => {
            let key = string.incr_by(by, count);
            if let Some(at) = expire_at {
                key.expire_at(at);
            }
        }
        Some(FixedWrite::Refund { by, count }) => {
            string.incr_by(-by, count);
        }
        Some(write) => apply(string.into_key(), write),
        None => {}
    }
    Ok(plan.verdict)
}

/// The counter, `None` when the key is missing.
fn read(key: &Key<'_>) -> Result<Option<Counter>, CommandError> {
    match key.kind() {
        KeyKind::Missing => Ok(None),
        KeyKind::String => {
            let count = count_of(key.string_value().unwrap_or_default())?;
            // SAFETY: the key holds a string, as just read.
            let expires_at = unsafe { key.existing_expires_at() };
            Ok(Some(Counter { count, expires_at }))
        }
        _ => Err(CommandError::WrongType),
    }
}

/// A stored count is one only where `INCRBY`, whose effect is replicated, would take it too:
/// a canonical non-negative integer.
fn count_of(text: &[u8]) -> Result<i64, CommandError> {
    parse_int(text).filter(|c| *c >= 0).ok_or_else(CommandError::not_an_integer)
}

/// Carries out the write: each effect replicates itself and fires its events.
fn apply(key: &mut WriteKey<'_>, write: FixedWrite) {
    match write {
        FixedWrite::Create { count, expire_at } => {
            let mut text = [0u8; 20];
            let len = format_int(count, &mut text);
            key.set_string(&text[..len], Some(expire_at));
        }
        FixedWrite::Increment { by, count, expire_at } => {
            key.incr_by(by, count);
            if let Some(at) = expire_at {
                key.expire_at(at);
            }
        }
        FixedWrite::Heal { expire_at } => key.expire_at(expire_at),
        FixedWrite::Block { expire_at } => {
            let mut text = [0u8; 20];
            let len = format_int(fixed::BLOCKED, &mut text);
            key.set_string(&text[..len], Some(expire_at));
        }
        FixedWrite::Refund { by, count } => key.incr_by(-by, count),
    }
}
