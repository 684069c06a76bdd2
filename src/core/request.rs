//! What every validated call is made of: its mode and its `window_ms limit` pairs.

/// Whether the call records what it accepts or only looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The write commands: accept and record, tidy the key.
    Record,
    /// The `_RO` variants: answer the same question, write nothing.
    Peek,
}

/// The largest accepted window: 10^12 ms (about 31.7 years). It keeps `now + window`,
/// aligned window ends and member numbers far inside `i64`.
pub const MAX_WINDOW_MS: i64 = 1_000_000_000_000;

/// The most `window_ms limit` pairs one call may check.
pub const MAX_WINDOWS: usize = 8;

/// One `window_ms limit` pair: at most `limit` units in any `window_ms` ms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Window {
    /// `1..=MAX_WINDOW_MS`.
    pub window_ms: i64,
    /// `0..=` the bound that applied when parsing.
    pub limit: i64,
}

/// One to [`MAX_WINDOWS`] pairs with distinct windows, shortest first. A fixed array: a
/// call's request lives on the stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Windows {
    pairs: [Window; MAX_WINDOWS],
    len: usize,
}

impl Windows {
    /// One pair.
    pub fn one(window: Window) -> Self {
        let mut pairs = [Window::default(); MAX_WINDOWS];
        pairs[0] = window;
        Windows { pairs, len: 1 }
    }

    /// Adds a pair in window order; false when its window is already there or the set is full.
    pub fn insert(&mut self, window: Window) -> bool {
        if self.len == MAX_WINDOWS || self.iter().any(|w| w.window_ms == window.window_ms) {
            return false;
        }
        let at = self.iter().position(|w| w.window_ms > window.window_ms).unwrap_or(self.len);
        self.pairs.copy_within(at..self.len, at + 1);
        self.pairs[at] = window;
        self.len += 1;
        true
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Window> + ExactSizeIterator {
        self.pairs[..self.len].iter()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The longest window: entries are kept while they count in it.
    pub fn largest(&self) -> Window {
        self.pairs[self.len.saturating_sub(1)]
    }

    /// The shortest window.
    pub fn smallest(&self) -> Window {
        self.pairs[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(window_ms: i64) -> Window {
        Window { window_ms, limit: 1 }
    }

    #[test]
    fn pairs_are_kept_shortest_window_first() {
        let mut windows = Windows::default();
        for ms in [500, 100, 300] {
            assert!(windows.insert(w(ms)));
        }
        let order: Vec<i64> = windows.iter().map(|w| w.window_ms).collect();
        assert_eq!(order, [100, 300, 500]);
        assert_eq!((windows.smallest().window_ms, windows.largest().window_ms), (100, 500));
    }

    #[test]
    fn a_window_is_taken_once_and_the_set_is_bounded() {
        let mut windows = Windows::default();
        assert!(windows.insert(w(100)));
        assert!(!windows.insert(w(100)));
        for ms in 2..=8 {
            assert!(windows.insert(w(ms)));
        }
        assert!(!windows.insert(w(9)));
        assert_eq!(windows.len(), MAX_WINDOWS);
    }
}
