//! A string read and rewritten in place holds its key's only borrow: no other read or write
//! of the key until its effect gives the key back (a write could reallocate the bytes).
#![allow(unused)]

// The module's own sources, as a binary of their own (the crate is a cdylib, so no test can
// link it as a library).
#[path = "../../src/core/mod.rs"]
mod core;
#[path = "../../src/redis/mod.rs"]
mod redis;

use crate::redis::key::WriteKey;

fn adapter(key: &mut WriteKey<'_>) {
    if let Some(string) = key.string_in_place() {
        key.expire_at(1);
        let count = string.bytes().len();
        string.incr_by(1, 8);
    }
}

fn main() {}
