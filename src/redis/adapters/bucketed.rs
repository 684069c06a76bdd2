//! `WINLIMIT.SLIDE ... BUCKET ms` on Redis (in progress).

use crate::core::slide::SlideRequest;
use crate::core::verdict::Verdict;
use crate::redis::call::{Call, CommandError};

pub fn run(_call: &Call, _request: &SlideRequest) -> Result<Verdict, CommandError> {
    Err(CommandError::Stored("ERR BUCKET is not available yet".to_string()))
}
