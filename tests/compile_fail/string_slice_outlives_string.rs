//! A module string's bytes borrow the string: they cannot be read once it is dropped (and freed).
#![allow(unused)]

// The module's own sources, as a binary of their own (the crate is a cdylib, so no test can
// link it as a library).
#[path = "../../src/core/mod.rs"]
mod core;
#[path = "../../src/redis/mod.rs"]
mod redis;

use crate::redis::api::{Ctx, OwnedString};

fn member_bytes(ctx: Ctx<'_>) {
    let bytes = {
        let member = OwnedString::from_i64(ctx, 7);
        member.bytes()
    };
    println!("{bytes:?}");
}

fn main() {}
