//! One adapter per algorithm: parse with the core, read the stored state from its Redis
//! type, decide with the core, carry out the plan with replication and keyspace events.

use crate::core::request::Mode;
use crate::core::verdict::Verdict;
use crate::redis::call::{Call, CommandError};
use crate::redis::key::{CallKey, Opened};

pub mod bucketed;
pub mod fixed;
pub mod gcra;
pub mod slide;

/// What the handler runs for a command: [`Adapter::parse`] first, so a refused call leaves
/// its key untouched (as Redis's own commands parse before their lookup), then
/// [`Adapter::run`] with the key the handler opened, once, for the call.
pub trait Adapter {
    type Request;

    /// `mode` refuses what only a recording command takes (`REFUND`, `BLOCK`).
    fn parse(args: &[&[u8]], mode: Mode) -> Result<Self::Request, CommandError>;

    fn run(call: &Call, key: Opened<'_>, request: &Self::Request) -> Result<Verdict, CommandError>;
}

/// Runs a call through adapter `A`: its arguments first, so a refused call leaves the key
/// untouched (no lookup, no lazy expiry, no keyspace hit or miss, as with Redis's own
/// commands), then the call's key, opened here once, then the adapter.
pub fn serve<A: Adapter>(call: &Call, key: CallKey<'_>) -> Result<Verdict, CommandError> {
    let request = A::parse(call.args, call.mode)?;
    A::run(call, key.open(call.mode), &request)
}
