//! `clients/spec/limits.json`: every argument's range and every error text the parsers give,
//! generated here from the command table: each portable recording row's ranges
//! ([`ArgDoc::range`]) and its own parser (the row's `check`, its adapter's parse), so the
//! library and the clients' memory limiters are tested against the module's own words, and
//! a new row needs no edit here.
//!
//! Each bound gives four calls (one below, the least, the most, one above); each other
//! error has a call that meets it. The expected answer of every call is the parser's: its
//! error text, or `null` for a call it accepts. The test fails when the checked-in file
//! differs; `WINLIMIT_BLESS=1 cargo test --release spec_limits` rewrites it.

use crate::core::request::{Mode, MAX_WINDOWS};
use crate::redis::call::CommandError;
use crate::redis::commands::{ArgDoc, ArgKind, CommandSpec, Max, TABLE};

/// The rows the library and the clients answer too, that record (a `_RO` reader shares
/// its writer's parser; `CL.THROTTLE` is the module's alone).
fn portable_writers() -> impl Iterator<Item = &'static CommandSpec> {
    TABLE.iter().filter(|s| s.mode == Mode::Record && s.name.to_string_lossy().starts_with("winlimit."))
}

fn upper_name(spec: &CommandSpec) -> String {
    spec.name.to_string_lossy().to_uppercase()
}

/// The parser's answer to `command args...` (the key left out): its error text, or `None`.
fn answer(command: &str, args: &[String]) -> Option<String> {
    let spec = TABLE.iter().find(|s| upper_name(s) == command).unwrap_or_else(|| panic!("no row {command}"));
    let bytes: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
    match (spec.check)(&bytes, spec.mode) {
        Ok(()) => None,
        Err(CommandError::Args(e)) => Some(e.to_string()),
        Err(other) => panic!("{command} {args:?}: {other:?} from a parser"),
    }
}

/// The integers every call gives before the options, a block's members in order.
fn positional(spec: &CommandSpec) -> Vec<&'static ArgDoc> {
    let required = spec.args.iter().skip(1).filter(|a| !a.optional);
    required.flat_map(|a| if a.kind == ArgKind::Block { a.block } else { std::slice::from_ref(a) }).collect()
}

fn example(arg: &ArgDoc) -> String {
    arg.range.unwrap_or_else(|| panic!("{:?} has no range", arg.name)).example.to_string()
}

/// The positional integers at their examples: a call every parser accepts.
fn base_call(spec: &CommandSpec) -> Vec<String> {
    positional(spec).into_iter().map(example).collect()
}

/// One argument's range: the calls around it are `before`, the value, `after`.
struct Bound {
    command: String,
    argument: String,
    min: i64,
    max: i64,
    before: Vec<String>,
    after: Vec<String>,
}

impl Bound {
    fn call(&self, value: i64) -> Vec<String> {
        self.before.iter().cloned().chain([value.to_string()]).chain(self.after.iter().cloned()).collect()
    }

    /// The largest value in `min..=most` the parser takes in this call: a maximum the
    /// other arguments narrow (its rule), found by bisection as the parser is monotone.
    fn narrowed(mut self, most: i64) -> Bound {
        let (mut low, mut high) = (self.min, most);
        while low < high {
            let mid = low + (high - low) / 2 + (high - low) % 2;
            if answer(&self.command, &self.call(mid)).is_none() {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        self.max = low;
        self
    }
}

fn bound(spec: &CommandSpec, arg: &ArgDoc, argument: String, before: Vec<String>, after: Vec<String>) -> Bound {
    let range = arg.range.unwrap_or_else(|| panic!("{argument} has no range"));
    let bound = Bound { command: upper_name(spec), argument, min: range.min, max: 0, before, after };
    match range.max {
        Max::Value(max) => Bound { max, ..bound },
        // The setting at its default, as a server loaded without it has it.
        Max::Config { default, .. } => Bound { max: default, ..bound },
        Max::Rule { most, .. } => bound.narrowed(most),
    }
}

/// The option row with keyword `token`.
fn option_arg(spec: &CommandSpec, token: &str) -> &'static ArgDoc {
    let found = spec.args.iter().find(|a| a.token.is_some_and(|t| t.to_string_lossy() == token));
    found.unwrap_or_else(|| panic!("{} has no option {token}", upper_name(spec)))
}

/// A row's bounds: each positional integer's (and its maximum with the option that
/// changes it), then each integer option's, the other arguments at their examples.
fn bounds_of(spec: &'static CommandSpec) -> Vec<Bound> {
    let base = base_call(spec);
    let mut out = Vec::new();
    for (i, arg) in positional(spec).into_iter().enumerate() {
        let name = arg.name.to_string_lossy().into_owned();
        let (before, after) = (base[..i].to_vec(), base[i + 1..].to_vec());
        out.push(bound(spec, arg, name.clone(), before.clone(), after.clone()));
        if let Some((token, max)) = arg.range.and_then(|r| r.max_with) {
            let with: Vec<String> =
                after.into_iter().chain([token.to_string(), example(option_arg(spec, token))]).collect();
            let argument = format!("{name} with {token}");
            out.push(Bound { max, ..bound(spec, arg, argument, before, with) });
        }
    }
    for arg in spec.args.iter().filter(|a| a.range.is_some()) {
        if let Some(token) = arg.token.map(|t| t.to_string_lossy().into_owned()) {
            let before: Vec<String> = base.iter().cloned().chain([token.clone()]).collect();
            out.push(bound(spec, arg, token, before, Vec::new()));
        }
    }
    out
}

fn every_bound() -> Vec<Bound> {
    portable_writers().flat_map(bounds_of).collect()
}

/// A keyword of another portable row this one does not take: its "unknown option" case,
/// so a new command answers every other command's options as its parser does.
fn foreign_options() -> Vec<(String, Vec<String>)> {
    let tokens = |spec: &CommandSpec| -> Vec<String> {
        spec.args.iter().filter_map(|a| a.token.map(|t| t.to_string_lossy().into_owned())).collect()
    };
    let mut every: Vec<String> = Vec::new();
    for token in portable_writers().flat_map(tokens) {
        if !every.contains(&token) {
            every.push(token);
        }
    }
    let mut out = Vec::new();
    for spec in portable_writers() {
        let own = tokens(spec);
        for token in every.iter().filter(|t| !own.contains(t)) {
            out.push((upper_name(spec), base_call(spec).into_iter().chain([token.clone()]).collect()));
        }
    }
    out
}

/// The rows' own other errors, each met by one call. Each call has the key and two
/// arguments: fewer is the handler's arity error, before any parser (tests/test_errors.py).
/// A new row may add its own; the generic ones ([`foreign_options`]) it has without.
const ERRORS: &[(&str, &[&str])] = &[
    ("WINLIMIT.SLIDE", &["1000", "5", "COST"]),
    ("WINLIMIT.SLIDE", &["1000", "5", "COST", "1", "cost", "2"]),
    ("WINLIMIT.SLIDE", &["1000", "5", "NOPE"]),
    ("WINLIMIT.SLIDE", &["1000", "5", "COST", "1", "2000", "3"]),
    ("WINLIMIT.SLIDE", &["1000", "5", "2000"]),
    ("WINLIMIT.SLIDE", &["1000", "5", "2000", "COST", "1"]),
    ("WINLIMIT.SLIDE", &["1000", "5", "1000", "3"]),
    (
        "WINLIMIT.SLIDE",
        &[
            "1000", "5", "2000", "5", "3000", "5", "4000", "5", "5000", "5", "6000", "5", "7000", "5", "8000", "5",
            "9000", "5",
        ],
    ),
    ("WINLIMIT.SLIDE", &["10", "5", "1000000", "5", "BUCKET", "10"]),
    ("WINLIMIT.SLIDE", &["1000000", "5", "BUCKET", "999"]),
    ("WINLIMIT.SLIDE", &["1000", "5", "COST", "2", "REFUND", "1"]),
    ("WINLIMIT.SLIDE", &["1000", "5", "REFUND", "1", "BLOCK", "10"]),
    ("WINLIMIT.SLIDE_RO", &["1000", "5", "REFUND", "1"]),
    ("WINLIMIT.SLIDE_RO", &["1000", "5", "BLOCK", "10"]),
    ("WINLIMIT.SLIDE", &["1000", "x"]),
    ("WINLIMIT.SLIDE", &["1000", "007"]),
    ("WINLIMIT.FIXED", &["1000", "5", "2000", "5"]),
    ("WINLIMIT.FIXED", &["1000", "5", "ALIGN", "ALIGN"]),
    ("WINLIMIT.FIXED", &["1000", "5", "COST", "ALIGN"]),
    ("WINLIMIT.FIXED", &["1000", "5", "NOPE"]),
    ("WINLIMIT.FIXED", &["1000", "5", "COST", "1", "2000"]),
    ("WINLIMIT.FIXED", &["1000", "5", "COST", "2", "REFUND", "1"]),
    ("WINLIMIT.FIXED", &["1000", "5", "REFUND", "1", "BLOCK", "10"]),
    ("WINLIMIT.FIXED_RO", &["1000", "5", "REFUND", "1"]),
    ("WINLIMIT.FIXED_RO", &["1000", "5", "BLOCK", "10"]),
    ("WINLIMIT.GCRA", &["1000", "5", "BURST"]),
    ("WINLIMIT.GCRA", &["1000", "5", "BURST", "2", "BURST", "2"]),
    ("WINLIMIT.GCRA", &["1000", "5", "NOPE"]),
    ("WINLIMIT.GCRA", &["1000", "5", "COST", "2", "REFUND", "1"]),
    ("WINLIMIT.GCRA", &["1000", "5", "REFUND", "1", "BLOCK", "10"]),
    ("WINLIMIT.GCRA_RO", &["1000", "5", "REFUND", "1"]),
    ("WINLIMIT.GCRA_RO", &["1000", "5", "BLOCK", "10"]),
    ("WINLIMIT.GCRA", &["1000000000000", "1", "BURST", "2"]),
];

/// One call and the parser's answer to it.
struct Case {
    name: String,
    command: String,
    args: Vec<String>,
    error: Option<String>,
}

fn case(name: String, command: String, args: Vec<String>) -> Case {
    let error = answer(&command, &args);
    Case { name, command, args, error }
}

fn bound_cases(bound: &Bound) -> Vec<Case> {
    let values = [
        ("below", bound.min.checked_sub(1).map(|v| v.to_string()).unwrap_or_default()),
        ("the least", bound.min.to_string()),
        ("the most", bound.max.to_string()),
        // i64::MAX + 1: not an integer to Redis either.
        ("above", bound.max.checked_add(1).map_or("9223372036854775808".to_string(), |v| v.to_string())),
    ];
    values
        .into_iter()
        .map(|(which, value)| {
            let args = bound.before.iter().cloned().chain([value]).chain(bound.after.iter().cloned());
            let name = format!("{} {}: {which}", bound.command, bound.argument);
            case(name, bound.command.clone(), args.collect())
        })
        .collect()
}

/// The calls that must be errors: each row's own, then the other rows' options.
fn error_calls() -> Vec<(String, Vec<String>)> {
    let own = ERRORS.iter().map(|(command, args)| (command.to_string(), args.iter().map(|s| s.to_string()).collect()));
    own.chain(foreign_options()).collect()
}

fn every_case() -> Vec<Case> {
    let mut cases: Vec<Case> = every_bound().iter().flat_map(bound_cases).collect();
    for (command, args) in error_calls() {
        let name = format!("{command} {}", args.join(" "));
        cases.push(case(name, command, args));
    }
    cases
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn render() -> String {
    let about: Vec<String> = ABOUT.iter().map(|line| format!("    {}", quote(line))).collect();
    let bounds: Vec<String> = every_bound()
        .iter()
        .map(|b| {
            format!(
                "    {{\"command\": {}, \"argument\": {}, \"min\": {}, \"max\": {}}}",
                quote(&b.command),
                quote(&b.argument),
                quote(&b.min.to_string()),
                quote(&b.max.to_string())
            )
        })
        .collect();
    let cases: Vec<String> = every_case()
        .iter()
        .map(|c| {
            let args: Vec<String> = c.args.iter().map(|a| quote(a)).collect();
            let error = c.error.as_deref().map_or("null".to_string(), quote);
            format!(
                "    {{\"name\": {}, \"command\": {}, \"args\": [{}], \"error\": {error}}}",
                quote(&c.name),
                quote(&c.command),
                args.join(", ")
            )
        })
        .collect();
    format!(
        "{{\n  \"about\": [\n{}\n  ],\n  \"max_windows\": {MAX_WINDOWS},\n  \"bounds\": [\n{}\n  ],\n  \"cases\": [\n{}\n  ]\n}}\n",
        about.join(",\n"),
        bounds.join(",\n"),
        cases.join(",\n")
    )
}

const ABOUT: &[&str] = &[
    "Every argument's range and every error text of the module's parsers, generated from the module's command table (the ranges of src/redis/commands.rs, each row's own parser) by src/redis/spec_limits.rs (WINLIMIT_BLESS=1 cargo test --release spec_limits rewrites this file; the test fails when it differs). Read by tests/test_limits.py (the module, the Functions library and the scripts), clients/python/tests/test_spec_limits.py, clients/node/test/spec-limits.test.mjs, clients/go/limits_spec_test.go and clients/java/winlimit-core/src/test/java/io/winlimit/memory/SpecLimitsTest.java (the memory limiters): every edition must give every answer.",
    "'bounds' are the ranges (integers as decimal strings: some exceed 2^53); a BUCKET's range is that of the windows it is given, a BURST's that of its period and limit. Each 'case' is one call on a fresh key: 'args' the command line after the key, 'error' the exact error reply, or null when the call is accepted (any reply). The exact log's limits are bounded by winlimit.max-limit's default, 10000.",
];

#[test]
fn limits_json_is_what_the_parsers_answer() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/clients/spec/limits.json");
    let generated = render();
    if std::env::var("WINLIMIT_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(path, &generated).expect("write clients/spec/limits.json");
    }
    let stored = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        stored == generated,
        "clients/spec/limits.json differs from the core's parsers: run WINLIMIT_BLESS=1 cargo test --release spec_limits"
    );
}

#[test]
fn each_bound_accepts_its_ends_and_refuses_beyond_them() {
    for bound in &every_bound() {
        let answers: Vec<bool> = bound_cases(bound).iter().map(|c| c.error.is_none()).collect();
        assert_eq!(answers, [false, true, true, false], "{} {}", bound.command, bound.argument);
    }
}

#[test]
fn every_other_case_is_an_error() {
    let cases = every_case();
    for case in &cases[cases.len() - error_calls().len()..] {
        assert!(case.error.is_some(), "{} is accepted", case.name);
    }
}
