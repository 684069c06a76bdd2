//! The command table: one row per command, from which registration, `COMMAND INFO` /
//! `COMMAND DOCS`, ACL categories, INFO statistics and the handler are all derived.
//! Adding a command is adding a row.

use std::ffi::CStr;

use crate::core::request::Mode;
use crate::core::verdict::Verdict;
use crate::redis::adapters::fixed::Fixed;
use crate::redis::adapters::gcra::{Cell, Gcra};
use crate::redis::adapters::serve;
use crate::redis::adapters::slide::Slide;
use crate::redis::call::{Call, CommandError};
use crate::redis::config;
use crate::redis::key::CallKey;
use crate::redis::reply::ReplyShape;

/// What `COMMAND DOCS` says of an argument.
pub struct ArgDoc {
    pub name: &'static CStr,
    pub kind: ArgKind,
    /// The keyword before the value (`COST`), if any.
    pub token: Option<&'static CStr>,
    pub optional: bool,
    /// May be given several times (a block of pairs).
    pub multiple: bool,
    /// The members of a block.
    pub block: &'static [ArgDoc],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    Key,
    Integer,
    PureToken,
    Block,
}

impl ArgDoc {
    const fn new(name: &'static CStr, kind: ArgKind) -> Self {
        ArgDoc { name, kind, token: None, optional: false, multiple: false, block: &[] }
    }

    const fn option(name: &'static CStr, kind: ArgKind, token: &'static CStr) -> Self {
        ArgDoc { token: Some(token), optional: true, ..ArgDoc::new(name, kind) }
    }
}

/// One command.
pub struct CommandSpec {
    /// As clients type it; the INFO field prefix is derived from it.
    pub name: &'static CStr,
    pub mode: Mode,
    /// The row's adapter, as [`serve`] runs it.
    pub run: fn(&Call, CallKey<'_>) -> Result<Verdict, CommandError>,
    pub reply: ReplyShape,
    /// Redis command flags; `fast` only where a call's work is O(1).
    pub flags: &'static CStr,
    /// ACL categories, as the core commands they replace have them, so rules such as
    /// `-@write` cover the module's commands too.
    pub acl_categories: &'static CStr,
    pub arity: i32,
    pub summary: &'static CStr,
    pub complexity: &'static CStr,
    pub since: &'static CStr,
    /// Arguments after the command name, the key first.
    pub args: &'static [ArgDoc],
    /// Whether this server registers the command (a load-time setting may leave it out).
    pub enabled: fn() -> bool,
}

fn always() -> bool {
    true
}

const KEY: ArgDoc = ArgDoc::new(c"key", ArgKind::Key);
const COST: ArgDoc = ArgDoc::option(c"cost", ArgKind::Integer, c"COST");
const WINDOW_PAIR: [ArgDoc; 2] = [WINDOW_MS, LIMIT];
const WINDOWS: ArgDoc = ArgDoc { multiple: true, block: &WINDOW_PAIR, ..ArgDoc::new(c"window", ArgKind::Block) };
// The recording commands' `REFUND n` (not with COST) and `BLOCK ms`.
const REFUND: ArgDoc = ArgDoc::option(c"refund", ArgKind::Integer, c"REFUND");
const BLOCK: ArgDoc = ArgDoc::option(c"block_ms", ArgKind::Integer, c"BLOCK");
const BUCKET: ArgDoc = ArgDoc::option(c"bucket_ms", ArgKind::Integer, c"BUCKET");
const SLIDE_ARGS: [ArgDoc; 6] = [KEY, WINDOWS, COST, REFUND, BLOCK, BUCKET];
const SLIDE_RO_ARGS: [ArgDoc; 4] = [KEY, WINDOWS, COST, BUCKET];
const WINDOW_MS: ArgDoc = ArgDoc::new(c"window_ms", ArgKind::Integer);
const LIMIT: ArgDoc = ArgDoc::new(c"limit", ArgKind::Integer);
const ALIGN: ArgDoc = ArgDoc::option(c"align", ArgKind::PureToken, c"ALIGN");
const FIXED_ARGS: [ArgDoc; 7] = [KEY, WINDOW_MS, LIMIT, COST, REFUND, BLOCK, ALIGN];
const FIXED_RO_ARGS: [ArgDoc; 5] = [KEY, WINDOW_MS, LIMIT, COST, ALIGN];

const PERIOD_MS: ArgDoc = ArgDoc::new(c"period_ms", ArgKind::Integer);
const BURST: ArgDoc = ArgDoc::option(c"burst", ArgKind::Integer, c"BURST");
const GCRA_ARGS: [ArgDoc; 7] = [KEY, PERIOD_MS, LIMIT, BURST, COST, REFUND, BLOCK];
const GCRA_RO_ARGS: [ArgDoc; 5] = [KEY, PERIOD_MS, LIMIT, BURST, COST];
const CELL_ARGS: [ArgDoc; 5] = [
    KEY,
    ArgDoc::new(c"max_burst", ArgKind::Integer),
    ArgDoc::new(c"count_per_period", ArgKind::Integer),
    ArgDoc::new(c"period_s", ArgKind::Integer),
    ArgDoc { optional: true, ..ArgDoc::new(c"quantity", ArgKind::Integer) },
];

/// How many rows the table may have: the size of the handler's entry points and of the
/// statistics, both indexed by row.
pub const MAX_COMMANDS: usize = 16;
const _: () = assert!(TABLE.len() <= MAX_COMMANDS, "raise MAX_COMMANDS (and add entry points) for the new rows");

/// Every command the module can register. The handler finds a row by its index.
pub static TABLE: [CommandSpec; 7] = [
    CommandSpec {
        name: c"winlimit.slide",
        mode: Mode::Record,
        run: serve::<Slide>,
        reply: ReplyShape::Verdict,
        flags: c"write deny-oom",
        acl_categories: c"write sortedset slow",
        arity: -4,
        summary: c"Accepts and records a request if every sliding window of window_ms holds room for it: an exact log, or counts per bucket with BUCKET.",
        complexity: c"O(COST * log(N) + M + P * L) for the exact log, where N is the number of entries, M the number that left the largest window since the last call, and P * L the limits of the shorter windows; O(P) with BUCKET.",
        since: c"0.1.0",
        args: &SLIDE_ARGS,
        enabled: always,
    },
    CommandSpec {
        name: c"winlimit.fixed",
        mode: Mode::Record,
        run: serve::<Fixed>,
        reply: ReplyShape::Verdict,
        flags: c"write deny-oom fast",
        acl_categories: c"write string fast",
        arity: -4,
        summary: c"Accepts and counts a request if the fixed window's counter has room for it.",
        complexity: c"O(1)",
        since: c"0.1.0",
        args: &FIXED_ARGS,
        enabled: always,
    },
    CommandSpec {
        name: c"winlimit.slide_ro",
        mode: Mode::Peek,
        run: serve::<Slide>,
        reply: ReplyShape::Verdict,
        flags: c"readonly",
        acl_categories: c"read sortedset slow",
        arity: -4,
        summary: c"Tells whether WINLIMIT.SLIDE would accept a request now, without recording anything.",
        complexity: c"O(log(N) + M + K + P * L) for the exact log, where N is the number of entries, M the number that left the largest window, K the number that must leave before the request fits and P * L the limits of the shorter windows; O(P) with BUCKET.",
        since: c"0.1.0",
        args: &SLIDE_RO_ARGS,
        enabled: always,
    },
    CommandSpec {
        name: c"winlimit.fixed_ro",
        mode: Mode::Peek,
        run: serve::<Fixed>,
        reply: ReplyShape::Verdict,
        flags: c"readonly fast",
        acl_categories: c"read string fast",
        arity: -4,
        summary: c"Tells whether WINLIMIT.FIXED would accept a request now, without counting anything.",
        complexity: c"O(1)",
        since: c"0.1.0",
        args: &FIXED_RO_ARGS,
        enabled: always,
    },
    CommandSpec {
        name: c"winlimit.gcra",
        mode: Mode::Record,
        run: serve::<Gcra>,
        reply: ReplyShape::Verdict,
        flags: c"write deny-oom fast",
        acl_categories: c"write string fast",
        arity: -4,
        summary: c"Accepts a request if a token bucket of BURST units, refilled at limit units per period_ms, holds its cost (GCRA).",
        complexity: c"O(1)",
        since: c"0.2.0",
        args: &GCRA_ARGS,
        enabled: always,
    },
    CommandSpec {
        name: c"winlimit.gcra_ro",
        mode: Mode::Peek,
        run: serve::<Gcra>,
        reply: ReplyShape::Verdict,
        flags: c"readonly fast",
        acl_categories: c"read string fast",
        arity: -4,
        summary: c"Tells whether WINLIMIT.GCRA would accept a request now, without taking anything.",
        complexity: c"O(1)",
        since: c"0.2.0",
        args: &GCRA_RO_ARGS,
        enabled: always,
    },
    CommandSpec {
        name: c"cl.throttle",
        mode: Mode::Record,
        run: serve::<Cell>,
        reply: ReplyShape::Cell,
        flags: c"write deny-oom fast",
        acl_categories: c"write string fast",
        arity: -5,
        summary: c"redis-cell's GCRA rate limiter, answered by winlimit (loaded with cell-compat yes).",
        complexity: c"O(1)",
        since: c"0.2.0",
        args: &CELL_ARGS,
        enabled: config::cell_compat,
    },
];

impl CommandSpec {
    /// The name in INFO fields: `winlimit.slide_ro` -> `slide_ro`, `cl.throttle` -> `cl_throttle`.
    pub fn stats_name(&self) -> String {
        let name = self.name.to_string_lossy();
        name.strip_prefix("winlimit.").unwrap_or(&name).replace('.', "_")
    }
}

#[cfg(test)]
mod tests {
    use super::TABLE;

    #[test]
    fn names_are_unique_and_lower_case() {
        let names: Vec<String> = TABLE.iter().map(|c| c.name.to_string_lossy().into_owned()).collect();
        for (i, name) in names.iter().enumerate() {
            assert_eq!(name, &name.to_lowercase());
            assert!(!names[..i].contains(name), "{name} twice");
        }
    }

    #[test]
    fn stats_names_drop_the_module_prefix() {
        assert_eq!(TABLE[2].stats_name(), "slide_ro");
    }
}
