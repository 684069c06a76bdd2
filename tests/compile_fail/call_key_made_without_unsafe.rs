//! Nor can a second key for the call be made in safe code: only the handler makes a
//! `CallKey`, in an `unsafe` block that vouches it is the call's only one.
#![allow(unused)]

// The module's own sources, as a binary of their own (the crate is a cdylib, so no test can
// link it as a library).
#[path = "../../src/core/mod.rs"]
mod core;
#[path = "../../src/redis/mod.rs"]
mod redis;

use crate::redis::api::{Ctx, ServerString};
use crate::redis::key::CallKey;

fn another_key<'a>(ctx: Ctx<'a>, name: ServerString<'a>) -> CallKey<'a> {
    CallKey::new(ctx, name)
}

fn main() {}
