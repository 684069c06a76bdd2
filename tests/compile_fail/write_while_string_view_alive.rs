//! A string key's value is read in place; no write may happen while that view is alive
//! (`incr_by` may reallocate the string under it).
#![allow(unused)]

// The module's own sources, as a binary of their own (the crate is a cdylib, so no test can
// link it as a library).
#[path = "../../src/core/mod.rs"]
mod core;
#[path = "../../src/redis/mod.rs"]
mod redis;

use crate::redis::key::Opened;

fn adapter(mut opened: Opened<'_>) {
    let value = opened.view().string_value();
    if let Some(key) = opened.writer() {
        key.incr_by(1, 8);
    }
    println!("{value:?}");
}

fn main() {}
