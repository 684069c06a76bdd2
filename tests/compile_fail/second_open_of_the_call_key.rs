//! A call opens its key once: opening consumes the call's key, so a second handle (whose
//! writes could change what a view from the first still reads) cannot be made.
#![allow(unused)]

// The module's own sources, as a binary of their own (the crate is a cdylib, so no test can
// link it as a library).
#[path = "../../src/core/mod.rs"]
mod core;
#[path = "../../src/redis/mod.rs"]
mod redis;

use crate::redis::key::CallKey;
use crate::core::request::Mode;

fn serve(key: CallKey<'_>) {
    let first = key.open(Mode::Peek);
    let second = key.open(Mode::Record);
}

fn main() {}
