//! The command table: one row per command, from which registration, `COMMAND INFO` /
//! `COMMAND DOCS`, ACL categories, INFO statistics and the handler are all derived.
//! Adding a command is adding a row.

use std::ffi::CStr;

use crate::core::parse::MAX_BLOCK_MS;
use crate::core::request::{Mode, MAX_WINDOW_MS};
use crate::core::verdict::Verdict;
use crate::core::{fixed, gcra, slide};
use crate::redis::adapters::fixed::Fixed;
use crate::redis::adapters::gcra::{Cell, Gcra};
use crate::redis::adapters::serve;
use crate::redis::adapters::slide::Slide;
#[cfg(test)]
use crate::redis::adapters::Adapter;
use crate::redis::call::{Call, CommandError};
use crate::redis::config;
use crate::redis::key::CallKey;
use crate::redis::reply::ReplyShape;

/// What `COMMAND DOCS` says of an argument, and the range its parser checks.
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
    /// An integer's range (`None` for a key, a token or a block).
    #[cfg_attr(not(test), allow(dead_code))] // read by the clients/spec generators (cargo test)
    pub range: Option<Range>,
    /// The state the key holds when this option is given, instead of the row's
    /// (`BUCKET`: the ring of counts, not the exact log).
    #[cfg_attr(not(test), allow(dead_code))] // read by the clients/spec generators (cargo test)
    pub state: Option<State>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    Key,
    Integer,
    PureToken,
    Block,
}

/// An integer argument's range, from the core's constants. `clients/spec/command_table.json`
/// exports it, and `clients/spec/limits.json`'s bounds and cases are generated from it.
#[derive(Clone, Copy)]
#[cfg_attr(not(test), allow(dead_code))] // read by the clients/spec generators (cargo test)
pub struct Range {
    pub min: i64,
    pub max: Max,
    /// A value the call accepts with the other arguments at theirs: the generated cases
    /// give it where they need a valid value.
    pub example: i64,
    /// Another maximum when the option with this keyword is given (the exact log's
    /// `limit` with `BUCKET`).
    pub max_with: Option<(&'static str, i64)>,
}

#[derive(Clone, Copy)]
#[cfg_attr(not(test), allow(dead_code))] // read by the clients/spec generators (cargo test)
pub enum Max {
    Value(i64),
    /// A module setting's value (`winlimit.max-limit`), with its default.
    Config {
        name: &'static str,
        default: i64,
    },
    /// Bounded by the other arguments too, as `rule` says; never above `most`.
    Rule {
        most: i64,
        rule: &'static str,
    },
}

/// What a key holds, which decides the memory limiters' store for a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// A log of timestamps (a sorted set): the exact sliding log.
    Log,
    /// Counts per bucket in a string ring: the sliding log with `BUCKET`.
    Ring,
    /// A counter with a time to live: the fixed window.
    Counter,
    /// A theoretical arrival time: GCRA.
    Tat,
}

#[cfg_attr(not(test), allow(dead_code))]
impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Log => "log",
            State::Ring => "ring",
            State::Counter => "counter",
            State::Tat => "tat",
        }
    }
}

impl ArgDoc {
    const fn new(name: &'static CStr, kind: ArgKind) -> Self {
        ArgDoc { name, kind, token: None, optional: false, multiple: false, block: &[], range: None, state: None }
    }

    const fn option(name: &'static CStr, kind: ArgKind, token: &'static CStr) -> Self {
        ArgDoc { token: Some(token), optional: true, ..ArgDoc::new(name, kind) }
    }

    /// A positional integer in `min..=max`.
    const fn integer(name: &'static CStr, min: i64, max: Max, example: i64) -> Self {
        let range = Range { min, max, example, max_with: None };
        ArgDoc { range: Some(range), ..ArgDoc::new(name, ArgKind::Integer) }
    }

    /// `TOKEN n` with `n` in `min..=max`.
    const fn integer_option(name: &'static CStr, token: &'static CStr, min: i64, max: Max, example: i64) -> Self {
        ArgDoc { token: Some(token), optional: true, ..ArgDoc::integer(name, min, max, example) }
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
    /// What its key holds (an option's [`ArgDoc::state`] may say otherwise).
    #[cfg_attr(not(test), allow(dead_code))] // read by the clients/spec generators (cargo test)
    pub state: State,
    /// The row's adapter's parser alone, as [`serve`] runs it first: the generated limits
    /// cases ask it. Test builds only: a second caller of each parser in the module would
    /// cost the hot path its inlining (FIXED measured 57 instructions more per call).
    #[cfg(test)]
    pub check: fn(&[&[u8]], Mode) -> Result<(), CommandError>,
}

/// [`Adapter::parse`] of `A`, its request dropped: a row's `check`.
#[cfg(test)]
fn check<A: Adapter>(args: &[&[u8]], mode: Mode) -> Result<(), CommandError> {
    A::parse(args, mode).map(drop)
}

fn always() -> bool {
    true
}

const I64_MAX: i64 = i64::MAX;
const KEY: ArgDoc = ArgDoc::new(c"key", ArgKind::Key);
const COST: ArgDoc = ArgDoc::integer_option(c"cost", c"COST", 1, Max::Value(I64_MAX), 1);
const WINDOW_PAIR: [ArgDoc; 2] = [WINDOW_MS, SLIDE_LIMIT];
const WINDOWS: ArgDoc = ArgDoc { multiple: true, block: &WINDOW_PAIR, ..ArgDoc::new(c"window", ArgKind::Block) };
// The recording commands' `REFUND n` (not with COST) and `BLOCK ms`.
const REFUND: ArgDoc = ArgDoc::integer_option(c"refund", c"REFUND", 1, Max::Value(I64_MAX), 1);
const BLOCK: ArgDoc = ArgDoc::integer_option(c"block_ms", c"BLOCK", 1, Max::Value(MAX_BLOCK_MS), 1);
const BUCKET_RULE: &str = "at most the smallest window_ms, and the largest window_ms in at most 1000 buckets";
const BUCKET: ArgDoc = ArgDoc {
    state: Some(State::Ring),
    ..ArgDoc::integer_option(c"bucket_ms", c"BUCKET", 1, Max::Rule { most: MAX_WINDOW_MS, rule: BUCKET_RULE }, 10)
};
const SLIDE_ARGS: [ArgDoc; 6] = [KEY, WINDOWS, COST, REFUND, BLOCK, BUCKET];
const SLIDE_RO_ARGS: [ArgDoc; 4] = [KEY, WINDOWS, COST, BUCKET];
const WINDOW_MS: ArgDoc = ArgDoc::integer(c"window_ms", 1, Max::Value(MAX_WINDOW_MS), 1000);
// The exact log's limit: winlimit.max-limit's; with BUCKET, the bucketed log's.
const SLIDE_LIMIT_RANGE: Range = Range {
    min: 0,
    max: Max::Config { name: "max-limit", default: config::DEFAULT_MAX_LIMIT },
    example: 5,
    max_with: Some(("BUCKET", slide::MAX_BUCKETED_LIMIT)),
};
const SLIDE_LIMIT: ArgDoc = ArgDoc { range: Some(SLIDE_LIMIT_RANGE), ..ArgDoc::new(c"limit", ArgKind::Integer) };
const LIMIT: ArgDoc = ArgDoc::integer(c"limit", 0, Max::Value(fixed::MAX_LIMIT), 5);
const ALIGN: ArgDoc = ArgDoc::option(c"align", ArgKind::PureToken, c"ALIGN");
const FIXED_ARGS: [ArgDoc; 7] = [KEY, WINDOW_MS, LIMIT, COST, REFUND, BLOCK, ALIGN];
const FIXED_RO_ARGS: [ArgDoc; 5] = [KEY, WINDOW_MS, LIMIT, COST, ALIGN];

const PERIOD_MS: ArgDoc = ArgDoc::integer(c"period_ms", 1, Max::Value(gcra::MAX), 1000);
const GCRA_LIMIT: ArgDoc = ArgDoc::integer(c"limit", 1, Max::Value(gcra::MAX), 5);
const BURST_RULE: &str = "BURST * period_ms at most 1000000000000 * limit";
const BURST: ArgDoc = ArgDoc::integer_option(c"burst", c"BURST", 1, Max::Rule { most: gcra::MAX, rule: BURST_RULE }, 1);
const GCRA_ARGS: [ArgDoc; 7] = [KEY, PERIOD_MS, GCRA_LIMIT, BURST, COST, REFUND, BLOCK];
const GCRA_RO_ARGS: [ArgDoc; 5] = [KEY, PERIOD_MS, GCRA_LIMIT, BURST, COST];
const CELL_ARGS: [ArgDoc; 5] = [
    KEY,
    ArgDoc::integer(c"max_burst", 0, Max::Value(gcra::MAX - 1), 4),
    ArgDoc::integer(c"count_per_period", 1, Max::Value(gcra::MAX), 5),
    ArgDoc::integer(c"period_s", 1, Max::Value(gcra::MAX_PERIOD_S), 60),
    ArgDoc { optional: true, ..ArgDoc::integer(c"quantity", 0, Max::Value(I64_MAX), 1) },
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
        state: State::Log,
        #[cfg(test)]
        check: check::<Slide>,
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
        state: State::Counter,
        #[cfg(test)]
        check: check::<Fixed>,
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
        state: State::Log,
        #[cfg(test)]
        check: check::<Slide>,
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
        state: State::Counter,
        #[cfg(test)]
        check: check::<Fixed>,
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
        state: State::Tat,
        #[cfg(test)]
        check: check::<Gcra>,
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
        state: State::Tat,
        #[cfg(test)]
        check: check::<Gcra>,
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
        state: State::Tat,
        #[cfg(test)]
        check: check::<Cell>,
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
    use super::{BUCKET_RULE, BURST_RULE, TABLE};
    use crate::core::{gcra, slide};

    #[test]
    fn names_are_unique_and_lower_case() {
        let names: Vec<String> = TABLE.iter().map(|c| c.name.to_string_lossy().into_owned()).collect();
        for (i, name) in names.iter().enumerate() {
            assert_eq!(name, &name.to_lowercase());
            assert!(!names[..i].contains(name), "{name} twice");
        }
    }

    #[test]
    fn the_rules_name_the_cores_bounds() {
        assert!(BUCKET_RULE.contains(&format!(" {} buckets", slide::MAX_BUCKETS_PER_WINDOW)));
        assert!(BURST_RULE.contains(&format!(" {} * limit", gcra::MAX)));
    }

    #[test]
    fn stats_names_drop_the_module_prefix() {
        assert_eq!(TABLE[2].stats_name(), "slide_ro");
    }
}
