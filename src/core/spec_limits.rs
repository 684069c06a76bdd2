//! `clients/spec/limits.json`: every argument's range and every error text the parsers give,
//! generated here from the core's parsers and bounds, so the library and the clients' memory
//! limiters are tested against the module's own words.
//!
//! Each bound gives four calls (one below, the least, the most, one above); each other
//! error has a call that meets it. The expected answer of every call is the parser's: its
//! error text, or `null` for a call it accepts. The test fails when the checked-in file
//! differs; `WINLIMIT_BLESS=1 cargo test --release spec_limits` rewrites it.

use crate::core::parse::MAX_BLOCK_MS;
use crate::core::request::{Mode, MAX_WINDOWS, MAX_WINDOW_MS};
use crate::core::{fixed, gcra, slide};

/// `winlimit.max-limit`'s default: the exact log's largest limit.
const MAX_LIMIT: i64 = 10_000;

/// The parser's answer to `command args...` (the key left out): its error text, or `None`.
fn answer(command: &str, args: &[String]) -> Option<String> {
    let bytes: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
    let mode = if command.ends_with("_RO") { Mode::Peek } else { Mode::Record };
    let extras = match command.trim_end_matches("_RO") {
        "WINLIMIT.SLIDE" => slide::parse(&bytes, MAX_LIMIT).map(|r| r.extras),
        "WINLIMIT.FIXED" => fixed::parse(&bytes).map(|r| r.extras),
        "WINLIMIT.GCRA" => gcra::parse(&bytes).map(|r| r.extras),
        other => panic!("spec_limits has no parser for {other}"),
    };
    extras.and_then(|e| e.check_mode(mode)).err().map(|e| e.to_string())
}

/// One argument's range: the calls around it are `before`, the value, `after`.
struct Bound {
    command: &'static str,
    argument: &'static str,
    min: i64,
    max: i64,
    before: &'static [&'static str],
    after: &'static [&'static str],
}

const I64_MAX: i64 = i64::MAX;

const BOUNDS: &[Bound] = &[
    Bound { command: "WINLIMIT.SLIDE", argument: "window_ms", min: 1, max: MAX_WINDOW_MS, before: &[], after: &["5"] },
    Bound { command: "WINLIMIT.SLIDE", argument: "limit", min: 0, max: MAX_LIMIT, before: &["1000"], after: &[] },
    Bound {
        command: "WINLIMIT.SLIDE",
        argument: "limit with BUCKET",
        min: 0,
        max: slide::MAX_BUCKETED_LIMIT,
        before: &["1000"],
        after: &["BUCKET", "10"],
    },
    Bound {
        command: "WINLIMIT.SLIDE",
        argument: "BUCKET",
        min: 1,
        max: 1000,
        before: &["1000", "5", "BUCKET"],
        after: &[],
    },
    Bound {
        command: "WINLIMIT.SLIDE",
        argument: "COST",
        min: 1,
        max: I64_MAX,
        before: &["1000", "5", "COST"],
        after: &[],
    },
    Bound {
        command: "WINLIMIT.SLIDE",
        argument: "REFUND",
        min: 1,
        max: I64_MAX,
        before: &["1000", "5", "REFUND"],
        after: &[],
    },
    Bound {
        command: "WINLIMIT.SLIDE",
        argument: "BLOCK",
        min: 1,
        max: MAX_BLOCK_MS,
        before: &["1000", "5", "BLOCK"],
        after: &[],
    },
    Bound { command: "WINLIMIT.FIXED", argument: "window_ms", min: 1, max: MAX_WINDOW_MS, before: &[], after: &["5"] },
    Bound {
        command: "WINLIMIT.FIXED",
        argument: "limit",
        min: 0,
        max: fixed::MAX_LIMIT,
        before: &["1000"],
        after: &[],
    },
    Bound {
        command: "WINLIMIT.FIXED",
        argument: "COST",
        min: 1,
        max: I64_MAX,
        before: &["1000", "5", "COST"],
        after: &[],
    },
    Bound {
        command: "WINLIMIT.FIXED",
        argument: "REFUND",
        min: 1,
        max: I64_MAX,
        before: &["1000", "5", "REFUND"],
        after: &[],
    },
    Bound {
        command: "WINLIMIT.FIXED",
        argument: "BLOCK",
        min: 1,
        max: MAX_BLOCK_MS,
        before: &["1000", "5", "BLOCK"],
        after: &[],
    },
    Bound { command: "WINLIMIT.GCRA", argument: "period_ms", min: 1, max: gcra::MAX, before: &[], after: &["5"] },
    Bound { command: "WINLIMIT.GCRA", argument: "limit", min: 1, max: gcra::MAX, before: &["1000"], after: &[] },
    Bound {
        command: "WINLIMIT.GCRA",
        argument: "BURST",
        min: 1,
        max: 5_000_000_000,
        before: &["1000", "5", "BURST"],
        after: &[],
    },
    Bound {
        command: "WINLIMIT.GCRA",
        argument: "COST",
        min: 1,
        max: I64_MAX,
        before: &["1000", "5", "COST"],
        after: &[],
    },
    Bound {
        command: "WINLIMIT.GCRA",
        argument: "REFUND",
        min: 1,
        max: I64_MAX,
        before: &["1000", "5", "REFUND"],
        after: &[],
    },
    Bound {
        command: "WINLIMIT.GCRA",
        argument: "BLOCK",
        min: 1,
        max: MAX_BLOCK_MS,
        before: &["1000", "5", "BLOCK"],
        after: &[],
    },
];

/// The other errors, each met by one call. Each call has the key and two arguments: fewer is
/// the handler's arity error, before any parser (tests/test_errors.py).
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
    command: &'static str,
    args: Vec<String>,
    error: Option<String>,
}

fn case(name: String, command: &'static str, args: Vec<String>) -> Case {
    let error = answer(command, &args);
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
            let args = bound
                .before
                .iter()
                .map(|s| s.to_string())
                .chain([value])
                .chain(bound.after.iter().map(|s| s.to_string()));
            case(format!("{} {}: {which}", bound.command, bound.argument), bound.command, args.collect())
        })
        .collect()
}

fn every_case() -> Vec<Case> {
    let mut cases: Vec<Case> = BOUNDS.iter().flat_map(bound_cases).collect();
    for (command, args) in ERRORS {
        let name = format!("{command} {}", args.join(" "));
        cases.push(case(name, command, args.iter().map(|s| s.to_string()).collect()));
    }
    cases
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn render() -> String {
    let about: Vec<String> = ABOUT.iter().map(|line| format!("    {}", quote(line))).collect();
    let bounds: Vec<String> = BOUNDS
        .iter()
        .map(|b| {
            format!(
                "    {{\"command\": {}, \"argument\": {}, \"min\": {}, \"max\": {}}}",
                quote(b.command),
                quote(b.argument),
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
                quote(c.command),
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
    "Every argument's range and every error text of the module's parsers, generated from its Rust core by src/core/spec_limits.rs (WINLIMIT_BLESS=1 cargo test --release spec_limits rewrites this file; the test fails when it differs). Read by tests/test_limits.py (the module, the Functions library and the scripts), clients/python/tests/test_spec_limits.py and clients/node/test/spec-limits.test.mjs (the memory limiters): every edition must give every answer.",
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
    for bound in BOUNDS {
        let answers: Vec<bool> = bound_cases(bound).iter().map(|c| c.error.is_none()).collect();
        assert_eq!(answers, [false, true, true, false], "{} {}", bound.command, bound.argument);
    }
}

#[test]
fn every_other_case_is_an_error() {
    let cases = every_case();
    for case in &cases[cases.len() - ERRORS.len()..] {
        assert!(case.error.is_some(), "{} is accepted", case.name);
    }
}
