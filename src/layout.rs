//! Checks that keep the crate's shape and its docs true: no module imports one that imports
//! it back, every file under `src/` is in the layout tree of the development page
//! (docs/development.md, moved there from README), its "adding a command" checklist names
//! every place a command is listed, and the crate doc names every command.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::redis::commands::TABLE;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// The page with the layout tree and the adding a command checklist.
const DEVELOPMENT: &str = "docs/development.md";

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(path)).unwrap_or_else(|e| panic!("read {path}: {e}"))
}

/// Every `.rs` file under `dir`, as paths relative to the repository.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read src/").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.strip_prefix(ROOT).expect("under the repository").to_path_buf());
        }
    }
    out.sort();
    out
}

/// `src/core/slide.rs` -> `core::slide`, `src/redis/key/mod.rs` -> `redis::key`, `src/lib.rs` -> ``.
fn module_of(file: &Path) -> String {
    let inner = file.strip_prefix("src").expect("under src/").with_extension("");
    let parts: Vec<String> = inner.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let parts = match parts.last().map(String::as_str) {
        Some("mod" | "lib") => &parts[..parts.len() - 1],
        _ => &parts[..],
    };
    parts.join("::")
}

/// The paths a `use` statement names (its braces expanded), as written: `crate::a::{b, c::D}`
/// gives `crate::a::b` and `crate::a::c::D`.
fn used_paths(statement: &str) -> Vec<String> {
    fn expand(prefix: &str, text: &str, out: &mut Vec<String>) {
        let text = text.trim();
        match text.find('{') {
            None => out.push(format!("{prefix}{}", text.trim_end_matches("::self"))),
            Some(open) => {
                let head = &text[..open];
                let body = &text[open + 1..text.rfind('}').unwrap_or(text.len())];
                let (mut depth, mut start) = (0, 0);
                for (i, c) in body.char_indices().chain([(body.len(), ',')]) {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            let item = body[start..i.min(body.len())].trim();
                            if item == "self" {
                                out.push(format!("{prefix}{}", head.trim_end_matches("::")));
                            } else if !item.is_empty() {
                                expand(&format!("{prefix}{head}"), item, out);
                            }
                            start = i + 1;
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    let path: String = statement.split_whitespace().collect();
    expand("", &path, &mut out);
    out
}

/// A file's code without its comments (a `//` to the end of its line) and without an inline
/// module (`mod tests { ... }`, last in a file), whose `super::` is the file's own module.
fn code_of(text: &str) -> String {
    let lines = text.lines().map(|line| line.split("//").next().unwrap_or_default());
    let is_inline_mod = |line: &str| {
        let words: Vec<&str> = line.split_whitespace().collect();
        matches!(words.as_slice(), ["mod", _, "{", ..] | ["pub" | "pub(crate)", "mod", _, "{", ..])
    };
    lines.take_while(|line| !is_inline_mod(line)).collect::<Vec<_>>().join("\n")
}

/// Every path a module's code names: each `use` statement's (`pub use` included), and each
/// `crate::`, `super::` or `self::` path written in an expression or a type.
fn named_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let word_start = at == 0 || !rest.as_bytes()[at - 1].is_ascii_alphanumeric() && rest.as_bytes()[at - 1] != b'_';
        let end = rest[at..].find(';').map_or(rest.len(), |e| at + e);
        if word_start {
            paths.extend(used_paths(&rest[at + 4..end]));
        }
        rest = &rest[(at + 4).min(end)..];
    }
    for root in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(root) {
            let before = code[..at].chars().next_back().unwrap_or(' ');
            if before.is_alphanumeric() || before == '_' || before == ':' {
                continue;
            }
            let len =
                code[at..].find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(code.len() - at);
            paths.push(code[at..at + len].trim_end_matches(':').to_string());
        }
    }
    paths
}

/// The module a path names from `module` (`crate::`, `super::` and `self::` resolved, and a
/// bare path read as starting at one of `module`'s children), or None for another crate's.
fn module_named(module: &str, path: &str, modules: &[String]) -> Option<String> {
    let within = |base: &str, tail: &str| if base.is_empty() { tail.to_string() } else { format!("{base}::{tail}") };
    let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
    let absolute = if let Some(tail) = path.strip_prefix("crate::") {
        tail.to_string()
    } else if let Some(tail) = path.strip_prefix("super::") {
        within(parent, tail)
    } else if let Some(tail) = path.strip_prefix("self::") {
        within(module, tail)
    } else {
        within(module, path)
    };
    let segments: Vec<&str> = absolute.split("::").collect();
    (1..=segments.len()).rev().map(|n| segments[..n].join("::")).find(|prefix| modules.contains(prefix))
}

/// Which modules each module imports, given each module's source: every path its code names
/// (see `named_paths`), to the longest module it falls in. A parent's `pub use child::X` is an
/// import of the child; its `mod child;` declaration is not.
fn graph_of(sources: &[(String, String)]) -> BTreeMap<String, Vec<String>> {
    let modules: Vec<String> = sources.iter().map(|(m, _)| m.clone()).collect();
    let mut graph = BTreeMap::new();
    for (module, text) in sources {
        let mut targets = Vec::new();
        for path in named_paths(&code_of(text)) {
            let target = module_named(module, &path, &modules);
            if let Some(target) = target.filter(|t| t != module && !targets.contains(t)) {
                targets.push(target);
            }
        }
        graph.insert(module.clone(), targets);
    }
    graph
}

/// The crate's import graph: `graph_of` over every file under `src/`.
fn import_graph() -> BTreeMap<String, Vec<String>> {
    let files = rust_files(&Path::new(ROOT).join("src"));
    let sources: Vec<(String, String)> = files.iter().map(|f| (module_of(f), read(&f.to_string_lossy()))).collect();
    graph_of(&sources)
}

/// A cycle through `module`, if its imports lead back to it.
fn cycle_from(graph: &BTreeMap<String, Vec<String>>, path: &mut Vec<String>) -> Option<Vec<String>> {
    let last = path.last().cloned().unwrap_or_default();
    for next in graph.get(&last).into_iter().flatten() {
        if *next == path[0] {
            return Some(path.iter().cloned().chain([next.clone()]).collect());
        }
        if !path.contains(next) && next > &path[0] {
            path.push(next.clone());
            if let Some(cycle) = cycle_from(graph, path) {
                return Some(cycle);
            }
            path.pop();
        }
    }
    None
}

/// The first import cycle in a graph, if any.
fn first_cycle(graph: &BTreeMap<String, Vec<String>>) -> Option<Vec<String>> {
    graph.keys().find_map(|module| cycle_from(graph, &mut vec![module.clone()]))
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let graph = import_graph();
    assert!(graph.get("redis::handler").is_some_and(|t| t.contains(&"redis::commands".to_string())));
    if let Some(cycle) = first_cycle(&graph) {
        panic!("an import cycle in src/: {}", cycle.join(" -> "));
    }
}

#[test]
fn the_cycle_check_reads_braces_and_self() {
    assert_eq!(
        used_paths("crate::redis::{reply, api::{self, Ctx}}"),
        ["crate::redis::reply", "crate::redis::api", "crate::redis::api::Ctx"]
    );
    assert_eq!(used_paths("crate::redis::api::{self}"), ["crate::redis::api"]);
}

/// Sources of a parent module `a::key` and its children, as `graph_of` takes them.
fn sources(files: &[(&str, &str)]) -> Vec<(String, String)> {
    files.iter().map(|(m, t)| (m.to_string(), t.to_string())).collect()
}

#[test]
fn the_cycle_check_sees_a_cycle_through_a_parent_mod_rs() {
    // The parent re-exports a child that imports the parent's own type back.
    let files = sources(&[
        ("a::key", "mod view;\npub use view::View;\npub struct Key;"),
        ("a::key::view", "use crate::a::key::Key;\npub struct View(Key);"),
    ]);
    assert_eq!(first_cycle(&graph_of(&files)), Some(vec!["a::key".into(), "a::key::view".into(), "a::key".into()]));
}

#[test]
fn the_cycle_check_sees_paths_written_in_code() {
    // A child calls a sibling by `super::`, the sibling imports the parent, the parent
    // re-exports the first child: the shape the fixed counter's in-place view once had.
    let files = sources(&[
        ("a::key", "mod effects;\nmod in_place;\npub use self::in_place::View;"),
        ("a::key::effects", "use super::Key; // a comment: crate::a::nothing\n"),
        ("a::key::in_place", "fn f() { super::effects::rewrite(); }"),
    ]);
    let cycle = first_cycle(&graph_of(&files)).expect("a cycle");
    assert_eq!(cycle, ["a::key", "a::key::in_place", "a::key::effects", "a::key"]);
}

#[test]
fn a_parent_declaring_its_children_is_no_cycle() {
    let files = sources(&[("a::key", "mod view;\npub struct Key;"), ("a::key::view", "use super::Key;")]);
    assert_eq!(first_cycle(&graph_of(&files)), None);
}

/// The files README's layout tree lists: a line `  name.rs` or `  dir/` under its parent
/// directory by indentation, and `(+ dir/tests.rs)` beside a file for its tests.
fn readme_tree() -> Vec<String> {
    let readme = read(DEVELOPMENT);
    let section = &readme[readme.find("# Development").expect("the development page's heading")..];
    let block = section.split("```").nth(1).expect("the layout tree");
    let mut dirs: Vec<String> = Vec::new();
    let mut listed = Vec::new();
    // The directory of the last entry: a `(+ ...)` on a description's next line is beside it.
    let mut here = String::new();
    for line in block.lines() {
        let indent = line.len() - line.trim_start().len();
        let name = line.split_whitespace().next().unwrap_or_default();
        if indent % 2 == 0 && indent <= 8 && (name.ends_with(".rs") || name.ends_with('/')) {
            dirs.truncate(indent / 2);
            here = dirs.concat();
            if name.ends_with('/') {
                dirs.push(name.to_string());
            } else {
                listed.push(format!("{here}{name}"));
            }
        }
        for extra in line.split("(+ ").skip(1) {
            listed.push(format!("{here}{}", extra.split(')').next().unwrap_or_default()));
        }
    }
    listed
}

#[test]
fn every_file_under_src_is_in_the_readme_layout_tree() {
    let listed = readme_tree();
    for file in rust_files(&Path::new(ROOT).join("src")) {
        let file = file.to_string_lossy().into_owned();
        assert!(listed.contains(&file), "{file} is missing from README's layout tree (## Development)");
    }
    for entry in listed.iter().filter(|e| e.starts_with("src/")) {
        assert!(Path::new(ROOT).join(entry).exists(), "README's layout tree lists {entry}, which does not exist");
    }
}

/// Every place a command is written, beyond its own core, adapter, library section and
/// tests: README's checklist must name each. The generated files are rewritten by
/// `WINLIMIT_BLESS=1 cargo test --release`; the rest are checked against the table.
const PLACES: &[&str] = &[
    "src/core/mod.rs",
    "src/redis/adapters/mod.rs",
    "src/redis/commands.rs",
    "src/lib.rs",
    "clients/spec/command_table.json",
    "clients/spec/limits.json",
    "src/core/spec_cases.rs",
    "clients/spec/decisions.json",
    "lua/winlimit.lua",
    "tests/kit/commands.py",
    "clients/spec/commands.json",
    "clients/python/winlimit/_commands.py",
    "clients/python/winlimit/_methods.py",
    "clients/node/src/commands.ts",
    "clients/node/src/methods.ts",
    "clients/go/recorder.go",
    "clients/java/winlimit-core/src/main/java/io/winlimit/model/Command.java",
];

#[test]
fn the_readme_checklist_names_every_place_a_command_is_written() {
    let readme = read(DEVELOPMENT);
    let start = readme.find("Adding a command touches").expect("README's adding a command checklist");
    let end = start + readme[start..].find("\n\n`make lint`").expect("the checklist ends before `make lint`");
    let checklist = &readme[start..end];
    for place in PLACES {
        assert!(checklist.contains(place), "README's adding a command checklist does not name {place}");
        let text = read(place).to_lowercase();
        assert!(text.contains("gcra"), "{place} lists no command: not a place a command is written");
    }
}

#[test]
fn the_crate_doc_names_every_command() {
    let doc: String = read("src/lib.rs").lines().filter(|l| l.starts_with("//!")).collect::<Vec<_>>().join("\n");
    for spec in &TABLE {
        let name = spec.name.to_string_lossy().to_uppercase();
        assert!(doc.contains(&format!("`{name}`")), "the crate doc (src/lib.rs) does not name `{name}`");
    }
}
