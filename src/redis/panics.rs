//! No panic crosses into C: every `extern "C"` function the server calls runs its body
//! through [`catch`]. Unwinding out of an `extern "C"` function aborts the server (and before
//! Rust 1.81 is undefined behaviour), and a panic is always a bug of ours, so it becomes the
//! entry point's own way of failing: an error reply, a refused setting, a logged line.
//!
//! The process's panic hook is left alone: the default one still prints to stderr, and the
//! message reaches the server log here, whatever Redis does with stderr.

use std::any::Any;
use std::ffi::CStr;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::redis::api::log;

/// Runs `body`; a panic is logged as `winlimit: panic in <place>: <message>` and answered
/// with `fallback`.
pub fn catch<T>(place: &CStr, fallback: impl FnOnce() -> T, body: impl FnOnce() -> T) -> T {
    // AssertUnwindSafe: what a panicking body leaves half-done is module state the next call
    // reads afresh (keys are closed on unwind, statistics are counters).
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(value) => value,
        Err(payload) => {
            log(None, c"warning", &format!("winlimit: panic in {}: {}", place.to_string_lossy(), message(&*payload)));
            fallback()
        }
    }
}

/// The text a panic was raised with (`panic!("...")`, `expect`, arithmetic overflow).
fn message(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_that_returns_gives_its_value() {
        assert_eq!(catch(c"test", || 0, || 7), 7);
    }

    #[test]
    fn a_panicking_body_gives_the_fallback() {
        let overflow = catch(c"test", || -1, || i64::MAX.checked_add(std::hint::black_box(1)).expect("overflow"));
        assert_eq!(overflow, -1);
    }

    #[test]
    fn panic_messages_are_read_from_str_and_string_payloads() {
        assert_eq!(message(&"static"), "static");
        assert_eq!(message(&String::from("formatted")), "formatted");
        assert_eq!(message(&7_u8), "(no message)");
    }
}
