//! A string value read in place borrows its key: it cannot outlive the key's close.
#![allow(unused)]

// The module's own sources, as a binary of their own (the crate is a cdylib, so no test can
// link it as a library).
#[path = "../../src/core/mod.rs"]
mod core;
#[path = "../../src/redis/mod.rs"]
mod redis;

use crate::core::request::Mode;
use crate::redis::key::CallKey;

fn value(key: CallKey<'_>) -> Option<&[u8]> {
    let opened = key.open(Mode::Peek);
    opened.view().string_value()
}

fn main() {}
