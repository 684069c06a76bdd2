//! One adapter per algorithm: parse with the core, read the stored state from its Redis
//! type, decide with the core, carry out the plan with replication and keyspace events.

pub mod bucketed;
pub mod fixed;
pub mod gcra;
pub mod slide;
