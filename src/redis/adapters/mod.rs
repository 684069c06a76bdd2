//! One adapter per algorithm: parse with the core, read the stored state from its Redis
//! type, decide with the core, carry out the plan with replication and keyspace events.

use crate::core::verdict::Verdict;
use crate::redis::call::{Call, CommandError};
use crate::redis::key::Opened;

pub mod bucketed;
pub mod fixed;
pub mod gcra;
pub mod slide;

/// What the handler runs for a command: [`Adapter::parse`] first, so a refused call leaves
/// its key untouched (as Redis's own commands parse before their lookup), then
/// [`Adapter::run`] with the key the handler opened, once, for the call.
pub trait Adapter {
    type Request;

    fn parse(args: &[&[u8]]) -> Result<Self::Request, CommandError>;

    fn run(call: &Call, key: Opened<'_>, request: &Self::Request) -> Result<Verdict, CommandError>;
}
