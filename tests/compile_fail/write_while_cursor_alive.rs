//! A sorted set's range cursor holds the key: no write (a delete here) while it is alive.
#![allow(unused)]

// The module's own sources, as a binary of their own (the crate is a cdylib, so no test can
// link it as a library).
#[path = "../../src/core/mod.rs"]
mod core;
#[path = "../../src/redis/mod.rs"]
mod redis;

use crate::redis::key::{End, LowerBound, Opened};

fn adapter(mut opened: Opened<'_>) {
    let mut range = opened.view_mut().zset_range(f64::NEG_INFINITY, f64::INFINITY, LowerBound::Included, End::Oldest);
    if let Some(key) = opened.writer() {
        key.delete();
    }
    if let Some(range) = &mut range {
        range.step();
    }
}

fn main() {}
