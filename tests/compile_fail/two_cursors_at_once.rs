//! The server keeps one range per key, and starting a second stops the first: a cursor
//! borrows the key mutably, so two cannot be alive at once.
#![allow(unused)]

// The module's own sources, as a binary of their own (the crate is a cdylib, so no test can
// link it as a library).
#[path = "../../src/core/mod.rs"]
mod core;
#[path = "../../src/redis/mod.rs"]
mod redis;

use crate::redis::key::{End, Key, LowerBound};

fn walk(key: &mut Key<'_>) {
    let oldest = key.zset_range(f64::NEG_INFINITY, f64::INFINITY, LowerBound::Included, End::Oldest);
    let newest = key.zset_range(f64::NEG_INFINITY, f64::INFINITY, LowerBound::Included, End::Newest);
    drop(oldest);
}

fn main() {}
