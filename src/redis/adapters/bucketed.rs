//! `WINLIMIT.SLIDE ... BUCKET b` on Redis: the bucketed log is a string holding a ring of
//! buckets (layout in [`crate::core::bucket_ring`]), read and rewritten in place.
//!
//! Effects replicate as core commands, so a replica or AOF replay without the module stores
//! the same bytes: `BITFIELD key SET i64 #k value ...` for the words a call changed (one
//! command), `SET key ring PXAT at` for a new or grown ring, `PEXPIREAT` and `DEL`.

use crate::core::bucket_ring::{self, RingView, RingWrite};
use crate::core::bucketed::{self, BucketPlan, StoredError};
use crate::core::request::Mode;
use crate::core::slide::{self, SlideRequest};
use crate::core::verdict::Verdict;
use crate::redis::call::{Call, CommandError};
use crate::redis::key::{KeyKind, Opened, WriteKey};

/// Reads the ring, decides, writes. `request.bucket_ms` is set.
pub fn run(call: &Call, mut opened: Opened<'_>, request: &SlideRequest) -> Result<Verdict, CommandError> {
    if let (Some(n), Mode::Record) = (request.extras.refund, call.mode) {
        let now = call.now();
        refund(now, request, n, &mut opened)?;
        let key = opened.view();
        let value = if key.kind() == KeyKind::String { key.string_value() } else { None };
        let view = RingView::new(value, key.expires_at());
        let peek = slide::peek_of(request);
        return Ok(bucketed::decide(now, &peek, Mode::Peek, &view).map_err(|e| stored_error(e, request))?.verdict);
    }
    let key = opened.view();
    let exists = match key.kind() {
        KeyKind::Missing => false,
        KeyKind::String => true,
        _ => return Err(CommandError::WrongType),
    };
    let now = call.now();
    // The view borrows the value in place, so it must end before anything is written.
    let (plan, write) = {
        let (value, expires_at) = if exists {
            // SAFETY: the key holds a string, as just read.
            (key.string_value(), unsafe { key.existing_expires_at() })
        } else {
            (None, None)
        };
        let view = RingView::new(value, expires_at);
        let plan = bucketed::decide(now, request, call.mode, &view).map_err(|e| stored_error(e, request))?;
        let write = if call.mode == Mode::Record {
            let stored = if plan.stored.is_some() { view.ring().map_err(|e| stored_error(e, request))? } else { None };
            bucket_ring::write_for(&plan, stored.as_ref(), request.windows.largest().window_ms)
                .map_err(|e| stored_error(e, request))?
        } else {
            RingWrite::Nothing
        };
        (plan, write)
    };
    if let Some(key) = opened.writer() {
        apply(key, &plan, write);
    }
    Ok(plan.verdict)
}

/// `REFUND n`: the units the core takes from the newest buckets, rewritten in place
/// (`BITFIELD`), or the key deleted when none is left.
fn refund(now: i64, request: &SlideRequest, n: i64, opened: &mut Opened<'_>) -> Result<(), CommandError> {
    let key = opened.view();
    match key.kind() {
        KeyKind::Missing => return Ok(()),
        KeyKind::String => {}
        _ => return Err(CommandError::WrongType),
    }
    let words = {
        let view = RingView::new(key.string_value(), key.expires_at());
        let Some(change) = bucketed::refund(now, request, n, &view).map_err(|e| stored_error(e, request))? else {
            return Ok(());
        };
        match view.ring().map_err(|e| stored_error(e, request))? {
            Some(ring) if change.header.is_some() => Some(bucket_ring::refund_words(&ring, &change)),
            _ => None,
        }
    };
    if let Some(key) = opened.writer() {
        match words {
            Some(words) => key.set_i64_words(&words),
            None => key.delete(),
        }
    }
    Ok(())
}

fn stored_error(error: StoredError, request: &SlideRequest) -> CommandError {
    CommandError::Stored(match error {
        StoredError::OtherBucket { stored } => format!(
            "ERR BUCKET {} differs from the BUCKET {stored} this key was written with",
            request.bucket_ms.unwrap_or(0)
        ),
        StoredError::Invalid(what) => format!("ERR this key holds what winlimit does not write: {what}"),
    })
}

/// Carries out the plan: each effect replicates itself and fires its events.
fn apply(key: &mut WriteKey<'_>, plan: &BucketPlan, write: RingWrite) {
    if plan.is_noop() {
        return;
    }
    if plan.discard {
        key.delete();
    }
    let mut expire_at = plan.expire_at;
    match write {
        RingWrite::Nothing => {}
        RingWrite::Words(words) => key.set_i64_words(&words),
        // A grown ring keeps the key's expiry unless the plan moves it.
        RingWrite::Whole(bytes) => {
            let at = expire_at.take().or_else(|| key.expires_at());
            key.set_string(&bytes, at);
        }
    }
    if let Some(at) = expire_at {
        if key.kind() != KeyKind::Missing {
            key.expire_at(at);
        }
    }
}
