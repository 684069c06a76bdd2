//! The parsed, validated arguments of a WINLIMIT call.

/// Whether the call records what it accepts or only looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// WINLIMIT.SLIDE / WINLIMIT.FIXED: accept and record, tidy the key.
    Record,
    /// The `_RO` variants: answer the same question, write nothing.
    Peek,
}

/// One validated call: a window, the limit within it, and what this request costs.
///
/// All fields are in range by construction (see [`crate::args`]), so the algorithms do
/// plain arithmetic on them; they still saturate where stored data takes part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// Window length in milliseconds, `1..=MAX_WINDOW_MS`.
    pub window_ms: i64,
    /// Units allowed per window, `0..=max-limit`.
    pub limit: i64,
    /// Units this request takes, `>= 1`.
    pub cost: i64,
    /// FIXED only: windows start at multiples of `window_ms` since the Unix epoch.
    pub align: bool,
}

impl Request {
    /// A request larger than the limit can never be accepted, however long it waits.
    pub fn can_never_fit(&self) -> bool {
        self.cost > self.limit
    }
}
