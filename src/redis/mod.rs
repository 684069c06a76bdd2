//! The Redis side: keys through the low-level keyspace API, typed replication, one adapter
//! per algorithm, and the command table from which registration, metadata, INFO and the
//! handler are derived.

pub mod adapters;
pub mod api;
pub mod call;
pub mod commands;
pub mod config;
pub mod events;
pub mod handler;
pub mod info;
pub mod key;
pub mod load;
pub mod metadata;
pub mod panics;
pub mod replicate;
pub mod reply;
pub mod resetstat;
#[cfg(test)]
mod spec_limits;
#[cfg(test)]
mod spec_table;
pub mod stats;
