//! `clients/spec/decisions.json`: the shared decision cases the clients' memory limiters must
//! pass, generated here from the core itself, so they cannot drift from the module.
//!
//! Each case is a sequence of calls on one key at chosen times, each with the reply (or the
//! error) the module gives after the calls before it. The test fails when the checked-in file
//! differs from what the core answers now; `WINLIMIT_BLESS=1 cargo test --release spec_cases`
//! rewrites it.

use crate::core::bucketed::{self, tests::MemoryHash, StoredError};
use crate::core::fixed::{self, tests::MemoryCounter};
use crate::core::gcra::{self, tests::MemoryKey};
use crate::core::request::Mode;
use crate::core::slide::{self, tests::MemoryLog};

/// `winlimit.max-limit`'s default: the exact log's largest limit.
const MAX_LIMIT: i64 = 10_000;

/// 2023-11-14T22:13:20Z: calls happen at realistic epoch times, so ALIGN and bucket starts are
/// those of real clocks.
const EPOCH: i64 = 1_700_000_000_000;

/// One key as the module stores it, for each kind of command.
enum Store {
    Log(MemoryLog),
    Buckets(MemoryHash),
    Counter(MemoryCounter),
    Tat(MemoryKey),
}

/// What `command`'s key holds given `args`: its row's `state` in
/// `clients/spec/command_table.json`, or that of an option given that has its own (BUCKET).
fn state_of(command: &str, args: &[String]) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/clients/spec/command_table.json");
    let table = std::fs::read_to_string(path).expect("read clients/spec/command_table.json");
    let start = table.find(&format!("{{\"name\": \"{command}\"")).unwrap_or_else(|| panic!("no row {command}"));
    let row = &table[start..];
    let row = &row[..row[1..].find("{\"name\": ").map_or(row.len(), |end| end + 1)];
    // An option reads `{"token": "BUCKET", ... "state": "ring"}`; the row's own state
    // comes before its options.
    let options = row.split("{\"token\": \"").skip(1).map(|o| &o[..o.find('}').unwrap_or(o.len())]);
    let given = |o: &&str| args.iter().any(|a| o.split('"').next().is_some_and(|t| a.eq_ignore_ascii_case(t)));
    let option_state = options.filter(given).find_map(|o| string_field(o, "state"));
    option_state.or_else(|| string_field(row, "state")).unwrap_or_else(|| panic!("{command} has no state"))
}

/// The first `"field": "value"` in `text`.
fn string_field(text: &str, field: &str) -> Option<String> {
    let at = text.find(&format!("\"{field}\": \""))? + field.len() + 5;
    Some(text[at..at + text[at..].find('"')?].to_string())
}

impl Store {
    /// The store of what `command`'s key holds with these arguments, as
    /// `clients/spec/command_table.json` says (the core does not import the table itself).
    fn for_command(command: &str, args: &[String]) -> Store {
        match state_of(command, args).as_str() {
            "log" => Store::Log(MemoryLog::default()),
            "ring" => Store::Buckets(MemoryHash::default()),
            "counter" => Store::Counter(MemoryCounter::default()),
            "tat" => Store::Tat(MemoryKey::default()),
            other => panic!("{command}: no memory store for the state {other:?}"),
        }
    }

    /// The reply to `args` (after the key) at `now`, or the error text; only an accepted
    /// write changes the store.
    fn call(&mut self, now: i64, command: &str, args: &[String]) -> Answer {
        let bytes: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        let mode = if command.ends_with("_RO") { Mode::Peek } else { Mode::Record };
        let verdict = match self {
            Store::Log(log) => {
                let request = slide_request(&bytes, mode)?;
                match request.extras.refund.filter(|_| mode == Mode::Record) {
                    Some(n) => log.refund(now, &request, n),
                    None => log.call(now, &request, mode),
                }
            }
            Store::Buckets(hash) => {
                let request = slide_request(&bytes, mode)?;
                if let Err(StoredError::OtherBucket { stored }) = bucketed::decide(now, &request, mode, hash) {
                    let given = request.bucket_ms.unwrap_or(0);
                    return Err(format!(
                        "ERR BUCKET {given} differs from the BUCKET {stored} this key was written with"
                    ));
                }
                match request.extras.refund.filter(|_| mode == Mode::Record) {
                    Some(n) => hash.refund(now, &request, n),
                    None => hash.call(now, &request, mode),
                }
            }
            Store::Counter(counter) => {
                let request = fixed::parse(&bytes).map_err(|e| e.to_string())?;
                request.extras.check_mode(mode).map_err(|e| e.to_string())?;
                counter.call(now, &request, mode)
            }
            Store::Tat(key) => {
                let request = gcra::parse(&bytes).map_err(|e| e.to_string())?;
                request.extras.check_mode(mode).map_err(|e| e.to_string())?;
                key.call(now, &request, mode)
            }
        };
        Ok(verdict.to_array())
    }
}

/// A SLIDE line parsed as the module parses it, REFUND and BLOCK refused on `_RO`.
fn slide_request(bytes: &[&[u8]], mode: Mode) -> Result<slide::SlideRequest, String> {
    let request = slide::parse(bytes, MAX_LIMIT).map_err(|e| e.to_string())?;
    request.extras.check_mode(mode).map_err(|e| e.to_string())?;
    Ok(request)
}

/// The module's reply, or its error text.
type Answer = Result<[i64; 5], String>;

/// One call of a case: when, what, and (filled in by [`run`]) the answer.
struct Call {
    now: i64,
    args: Vec<String>,
    answer: Answer,
}

/// A named sequence of calls on one key.
struct Case {
    name: String,
    calls: Vec<Call>,
}

/// Answers every call of a case in order on a fresh key.
fn run(name: String, calls: Vec<(i64, Vec<String>)>) -> Case {
    let mut store: Option<Store> = None;
    let calls = calls
        .into_iter()
        .map(|(now, args)| {
            let command = args[0].trim_end_matches("_RO").to_string();
            let store = store.get_or_insert_with(|| Store::for_command(&command, &args));
            let answer = store.call(now, &args[0], &args[1..]);
            Call { now, args, answer }
        })
        .collect();
    Case { name, calls }
}

/// A small deterministic generator (xorshift64*): the same cases on every run.
struct Seeded(u64);

impl Seeded {
    fn below(&mut self, n: i64) -> i64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11;
        i64::try_from(x % u64::try_from(n.max(1)).unwrap_or(1)).unwrap_or(0)
    }
}

/// A command shape that sequences are drawn from: its arguments around the COST option,
/// the span gaps are drawn from, and the largest cost drawn.
struct Shape {
    name: &'static str,
    command: &'static str,
    before_cost: &'static [&'static str],
    after_cost: &'static [&'static str],
    span_ms: i64,
    max_cost: i64,
}

const SHAPES: &[Shape] = &[
    Shape {
        name: "slide one window",
        command: "WINLIMIT.SLIDE",
        before_cost: &["1000", "3"],
        after_cost: &[],
        span_ms: 1000,
        max_cost: 4,
    },
    Shape {
        name: "slide two windows",
        command: "WINLIMIT.SLIDE",
        before_cost: &["1000", "4", "10000", "9"],
        after_cost: &[],
        span_ms: 6000,
        max_cost: 3,
    },
    Shape {
        name: "slide three windows",
        command: "WINLIMIT.SLIDE",
        before_cost: &["100", "2", "1000", "5", "60000", "12"],
        after_cost: &[],
        span_ms: 800,
        max_cost: 3,
    },
    Shape {
        name: "slide equal limits",
        command: "WINLIMIT.SLIDE",
        before_cost: &["500", "4", "2000", "4"],
        after_cost: &[],
        span_ms: 700,
        max_cost: 5,
    },
    Shape {
        name: "slide limit 0",
        command: "WINLIMIT.SLIDE",
        before_cost: &["1000", "0"],
        after_cost: &[],
        span_ms: 1000,
        max_cost: 2,
    },
    Shape {
        name: "bucket",
        command: "WINLIMIT.SLIDE",
        before_cost: &["1000", "10"],
        after_cost: &["BUCKET", "100"],
        span_ms: 500,
        max_cost: 6,
    },
    Shape {
        name: "bucket two windows",
        command: "WINLIMIT.SLIDE",
        before_cost: &["1000", "5", "5000", "12"],
        after_cost: &["BUCKET", "250"],
        span_ms: 1500,
        max_cost: 4,
    },
    Shape {
        name: "bucket of the whole window",
        command: "WINLIMIT.SLIDE",
        before_cost: &["1000", "4"],
        after_cost: &["BUCKET", "1000"],
        span_ms: 700,
        max_cost: 3,
    },
    Shape {
        name: "bucket of 1 ms",
        command: "WINLIMIT.SLIDE",
        before_cost: &["10", "3"],
        after_cost: &["BUCKET", "1"],
        span_ms: 6,
        max_cost: 3,
    },
    Shape {
        name: "fixed",
        command: "WINLIMIT.FIXED",
        before_cost: &["1000", "5"],
        after_cost: &[],
        span_ms: 600,
        max_cost: 3,
    },
    Shape {
        name: "fixed align",
        command: "WINLIMIT.FIXED",
        before_cost: &["1000", "5"],
        after_cost: &["ALIGN"],
        span_ms: 600,
        max_cost: 3,
    },
    Shape {
        name: "fixed align hour",
        command: "WINLIMIT.FIXED",
        before_cost: &["3600000", "3"],
        after_cost: &["ALIGN"],
        span_ms: 1_500_000,
        max_cost: 2,
    },
    Shape {
        name: "fixed limit 0",
        command: "WINLIMIT.FIXED",
        before_cost: &["1000", "0"],
        after_cost: &[],
        span_ms: 1000,
        max_cost: 1,
    },
    Shape {
        name: "gcra burst",
        command: "WINLIMIT.GCRA",
        before_cost: &["1000", "10", "BURST", "3"],
        after_cost: &[],
        span_ms: 150,
        max_cost: 4,
    },
    Shape {
        name: "gcra thirds of a ms",
        command: "WINLIMIT.GCRA",
        before_cost: &["1000", "3"],
        after_cost: &[],
        span_ms: 500,
        max_cost: 3,
    },
    Shape {
        name: "gcra slow",
        command: "WINLIMIT.GCRA",
        before_cost: &["60000", "7", "BURST", "2"],
        after_cost: &[],
        span_ms: 12000,
        max_cost: 2,
    },
    Shape {
        name: "gcra under a ms per unit",
        command: "WINLIMIT.GCRA",
        before_cost: &["7", "3", "BURST", "5"],
        after_cost: &[],
        span_ms: 4,
        max_cost: 6,
    },
];

/// Seeds per shape, and calls per sequence.
const SEEDS: u64 = 5;
const CALLS: usize = 7;

/// A sequence of calls of `shape`: gaps (often 0: the same ms), costs up to one past the
/// largest the shape takes, and about one call in four a peek.
fn sequence(shape: &Shape, seed: u64) -> Case {
    let mut random = Seeded(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut now = EPOCH + random.below(3_600_000);
    let mut calls = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        now += if random.below(3) == 0 { 0 } else { random.below(shape.span_ms) };
        let peek = random.below(4) == 0;
        let cost = 1 + random.below(shape.max_cost);
        calls.push((now, line(shape.command, peek, shape.before_cost, cost, shape.after_cost)));
    }
    run(format!("{} #{seed}", shape.name), calls)
}

/// A command line after the key, written as the clients' builders write it: COST only when
/// not 1, between the pairs (and GCRA's BURST) and the other options.
fn line(command: &str, peek: bool, before_cost: &[&str], cost: i64, after_cost: &[&str]) -> Vec<String> {
    let mut args = vec![if peek { format!("{command}_RO") } else { command.to_string() }];
    args.extend(before_cost.iter().map(|a| a.to_string()));
    if cost != 1 {
        args.extend(["COST".to_string(), cost.to_string()]);
    }
    args.extend(after_cost.iter().map(|a| a.to_string()));
    args
}

/// Calls at chosen edges, and the errors a memory limiter must give too: a name, then each
/// call's time (ms after [`EPOCH`]) and command line.
type Edge = (&'static str, &'static [(i64, &'static [&'static str])]);

const HOUR: i64 = 3_600_000;
const ALIGNED_HOUR: &[&str] = &["WINLIMIT.FIXED", "3600000", "1", "ALIGN"];
const ONE_IN_100: &[&str] = &["WINLIMIT.SLIDE", "100", "1"];
const ONE_IN_100_PEEK: &[&str] = &["WINLIMIT.SLIDE_RO", "100", "1"];
const BUCKETED_ONE: &[&str] = &["WINLIMIT.SLIDE", "1000", "1", "BUCKET", "100"];

const EDGES: &[Edge] = &[
    (
        "fixed align: the window ends at the next multiple",
        &[(HOUR - 1, ALIGNED_HOUR), (HOUR - 1, ALIGNED_HOUR), (HOUR, ALIGNED_HOUR)],
    ),
    (
        "slide: an entry stops counting one window later",
        &[(0, ONE_IN_100), (99, ONE_IN_100_PEEK), (100, ONE_IN_100_PEEK), (100, ONE_IN_100)],
    ),
    ("bucket: held until its last ms leaves", &[(50, BUCKETED_ONE), (1098, BUCKETED_ONE), (1099, BUCKETED_ONE)]),
    (
        "bucket: another BUCKET is refused",
        &[
            (0, &["WINLIMIT.SLIDE", "1000", "10", "BUCKET", "100"]),
            (1, &["WINLIMIT.SLIDE", "1000", "10", "BUCKET", "200"]),
        ],
    ),
    (
        "gcra: a cost above the burst",
        &[
            (0, &["WINLIMIT.GCRA", "1000", "10", "BURST", "3"]),
            (0, &["WINLIMIT.GCRA", "1000", "10", "BURST", "3", "COST", "4"]),
        ],
    ),
    ("slide: a cost above a limit", &[(0, &["WINLIMIT.SLIDE", "1000", "2", "60000", "50", "COST", "3"])]),
    (
        "errors: slide",
        &[
            (0, &["WINLIMIT.SLIDE", "0", "1"]),
            (0, &["WINLIMIT.SLIDE", "1000", "10001"]),
            (0, &["WINLIMIT.SLIDE", "1000", "-1"]),
            (0, &["WINLIMIT.SLIDE", "1000", "1", "COST", "0"]),
            (0, &["WINLIMIT.SLIDE", "1000", "1", "1000", "2"]),
            (0, &["WINLIMIT.SLIDE", "1000", "1", "BUCKET", "2000"]),
            (0, &["WINLIMIT.SLIDE", "100", "1", "1000000", "5", "BUCKET", "10"]),
        ],
    ),
    ("errors: a large limit needs BUCKET", &[(0, &["WINLIMIT.SLIDE", "60000", "1000000000000", "BUCKET", "1000"])]),
    (
        "errors: fixed",
        &[
            (0, &["WINLIMIT.FIXED", "1000000000001", "1"]),
            (0, &["WINLIMIT.FIXED", "1000", "1000000000001"]),
            (0, &["WINLIMIT.FIXED", "1000", "1", "COST", "-2"]),
        ],
    ),
    (
        "errors: gcra",
        &[
            (0, &["WINLIMIT.GCRA", "1000", "0"]),
            (0, &["WINLIMIT.GCRA", "0", "5"]),
            (0, &["WINLIMIT.GCRA", "1000", "1", "BURST", "0"]),
            (0, &["WINLIMIT.GCRA", "1000000000000", "1", "BURST", "2"]),
        ],
    ),
];

fn edges() -> Vec<Case> {
    let line = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
    EDGES
        .iter()
        .map(|(name, calls)| run(name.to_string(), calls.iter().map(|(at, words)| (EPOCH + at, line(words))).collect()))
        .collect()
}

/// The command line of each algorithm the REFUND and BLOCK cases run, with a limit of 2.
const EXTRA_BASES: &[(&str, &[&str])] = &[
    ("slide", &["WINLIMIT.SLIDE", "1000", "2"]),
    ("slide two windows", &["WINLIMIT.SLIDE", "100", "1", "1000", "2"]),
    ("bucket", &["WINLIMIT.SLIDE", "1000", "2", "BUCKET", "100"]),
    ("fixed", &["WINLIMIT.FIXED", "1000", "2"]),
    ("gcra", &["WINLIMIT.GCRA", "1000", "2"]),
    ("gcra burst", &["WINLIMIT.GCRA", "1000", "4", "BURST", "2"]),
];

/// `base` with `extra` options after it; `peek` makes it the `_RO` command.
fn with(base: &[&str], peek: bool, extra: &[&str]) -> Vec<String> {
    let mut line: Vec<String> = base.iter().chain(extra).map(|w| w.to_string()).collect();
    if peek {
        line[0].push_str("_RO");
    }
    line
}

/// REFUND: after accepted units, beyond what the key holds, on a missing key.
fn refund_cases(name: &str, base: &[&str]) -> Vec<Case> {
    let call = |at: i64, extra: &[&str]| (EPOCH + at, with(base, false, extra));
    let peek = |at: i64| (EPOCH + at, with(base, true, &[]));
    vec![
        run(
            format!("{name} refund: after accepted units, then beyond what is held"),
            vec![
                call(0, &[]),
                call(10, &[]),
                call(20, &[]),
                call(30, &["REFUND", "1"]),
                call(40, &[]),
                call(50, &["REFUND", "5"]),
                peek(60),
                call(70, &["COST", "2"]),
            ],
        ),
        run(format!("{name} refund: on a missing key"), vec![call(0, &["REFUND", "1"]), peek(0), call(5, &[])]),
    ]
}

/// BLOCK: started by a rejection, calls during it (any cost, a refund, a peek), retries
/// not extending it, the budget after it; a cost above the limit blocks nothing.
fn block_cases(name: &str, base: &[&str]) -> Vec<Case> {
    let call = |at: i64, extra: &[&str]| (EPOCH + at, with(base, false, extra));
    let block: &[&str] = &["BLOCK", "3000"];
    vec![
        run(
            format!("{name} block: started by a rejection, held, not extended, then over"),
            vec![
                call(0, block),
                call(10, block),
                call(20, block),
                call(30, &[]),
                call(40, &["COST", "3"]),
                call(50, block),
                (EPOCH + 60, with(base, true, &[])),
                call(70, &["REFUND", "2"]),
                call(3019, &[]),
                call(3020, &[]),
                call(3020, &[]),
                call(3021, &[]),
            ],
        ),
        run(
            format!("{name} block: a cost above the limit blocks nothing"),
            vec![call(0, &["COST", "3", "BLOCK", "3000"]), call(1, &[])],
        ),
        run(
            format!("{name} errors: refund and block"),
            vec![
                call(0, &["COST", "2", "REFUND", "1"]),
                call(0, &["REFUND", "1", "BLOCK", "10"]),
                (EPOCH, with(base, true, &["REFUND", "1"])),
                (EPOCH, with(base, true, &["BLOCK", "10"])),
                call(0, &["REFUND", "0"]),
                call(0, &["BLOCK", "0"]),
                call(0, &["BLOCK", "1000000000001"]),
            ],
        ),
    ]
}

/// A FIXED block shorter than the rest of the window lasts until the window ends.
fn fixed_block_in_a_long_window() -> Case {
    let call = |at: i64, extra: &[&str]| (EPOCH + at, with(&["WINLIMIT.FIXED", "10000", "1"], false, extra));
    run(
        "fixed block: shorter than the window, held until it ends".to_string(),
        vec![call(0, &[]), call(10, &["BLOCK", "100"]), call(200, &[]), call(9999, &[]), call(10000, &[])],
    )
}

fn every_case() -> Vec<Case> {
    let mut cases: Vec<Case> =
        SHAPES.iter().flat_map(|shape| (1..=SEEDS).map(move |seed| sequence(shape, seed))).collect();
    cases.extend(edges());
    for (name, base) in EXTRA_BASES {
        cases.extend(refund_cases(name, base));
        cases.extend(block_cases(name, base));
    }
    cases.push(fixed_block_in_a_long_window());
    cases
}

/// The file: one line per call, so a change shows as a small diff.
fn render(cases: &[Case]) -> String {
    let quote = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    let mut out = String::from("{\n  \"about\": [\n");
    for line in ABOUT {
        out.push_str(&format!(
            "    {}{}\n",
            quote(line),
            if std::ptr::eq(line, ABOUT.last().unwrap_or(&"")) { "" } else { "," }
        ));
    }
    out.push_str("  ],\n  \"cases\": [\n");
    for (i, case) in cases.iter().enumerate() {
        out.push_str(&format!("    {{\"name\": {}, \"calls\": [\n", quote(&case.name)));
        for (j, call) in case.calls.iter().enumerate() {
            let args: Vec<String> = call.args.iter().map(|a| quote(a)).collect();
            let answer = match &call.answer {
                Ok(reply) => format!("\"reply\": [{}]", reply.map(|x| x.to_string()).join(", ")),
                Err(text) => format!("\"error\": {}", quote(text)),
            };
            let comma = if j + 1 < case.calls.len() { "," } else { "" };
            out.push_str(&format!(
                "      {{\"now\": {}, \"args\": [{}], {answer}}}{comma}\n",
                call.now,
                args.join(", ")
            ));
        }
        out.push_str(&format!("    ]}}{}\n", if i + 1 < cases.len() { "," } else { "" }));
    }
    out.push_str("  ]\n}\n");
    out
}

const ABOUT: &[&str] = &[
    "Decisions of the module, generated from its Rust core by src/core/spec_cases.rs (WINLIMIT_BLESS=1 cargo test --release spec_cases rewrites this file; the test fails when it differs). Read by clients/python/tests/test_spec_decisions.py and clients/node/test/spec-decisions.test.mjs: both memory limiters must give every answer.",
    "Each case is a sequence of calls on one fresh key: 'now' is the clock in ms since the epoch, 'args' the command line without the key, and 'reply' the five integers the module answers after the calls before it (an accepted write records, a _RO call and a rejection record nothing), or 'error' its error text (nothing recorded). The exact log's limits are bounded by winlimit.max-limit's default, 10000.",
];

#[test]
fn decisions_json_is_what_the_core_decides() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/clients/spec/decisions.json");
    let generated = render(&every_case());
    if std::env::var("WINLIMIT_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(path, &generated).expect("write clients/spec/decisions.json");
    }
    let stored = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        stored == generated,
        "clients/spec/decisions.json differs from the core's decisions: run WINLIMIT_BLESS=1 cargo test --release spec_cases"
    );
}

#[test]
fn the_cases_cover_acceptances_rejections_never_and_errors() {
    let cases = every_case();
    let answers: Vec<&Answer> = cases.iter().flat_map(|c| c.calls.iter().map(|call| &call.answer)).collect();
    let count = |f: &dyn Fn(&Answer) -> bool| answers.iter().filter(|a| f(a)).count();
    assert!(count(&|a| matches!(a, Ok([1, ..]))) >= 200);
    assert!(count(&|a| matches!(a, Ok([0, _, _, r, _]) if *r > 0)) >= 100);
    assert!(count(&|a| matches!(a, Ok([0, _, _, -1, _]))) >= 10);
    assert!(count(&|a| a.is_err()) >= 12);
}
