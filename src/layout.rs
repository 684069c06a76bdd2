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

/// The paths a `use crate::...;` statement names (its braces expanded), without `crate::`.
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
    expand("", path.trim_start_matches("crate::"), &mut out);
    out
}

/// Which modules each module's `use crate::` statements import (the longest module prefix
/// of each path named).
fn import_graph() -> BTreeMap<String, Vec<String>> {
    let files = rust_files(&Path::new(ROOT).join("src"));
    let modules: Vec<String> = files.iter().map(|f| module_of(f)).collect();
    let mut graph = BTreeMap::new();
    for (file, module) in files.iter().zip(&modules) {
        let text = read(&file.to_string_lossy());
        let mut targets = Vec::new();
        for (start, _) in text.match_indices("use crate::") {
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            if text[line_start..start].contains("//") {
                continue;
            }
            let statement = &text[start + 4..start + text[start..].find(';').unwrap_or(0)];
            for path in used_paths(statement) {
                let segments: Vec<&str> = path.split("::").collect();
                let target = (1..=segments.len())
                    .rev()
                    .map(|n| segments[..n].join("::"))
                    .find(|prefix| modules.contains(prefix));
                if let Some(target) = target.filter(|t| t != module && !targets.contains(t)) {
                    targets.push(target);
                }
            }
        }
        graph.insert(module.clone(), targets);
    }
    graph
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

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let graph = import_graph();
    assert!(graph.get("redis::handler").is_some_and(|t| t.contains(&"redis::commands".to_string())));
    for module in graph.keys() {
        if let Some(cycle) = cycle_from(&graph, &mut vec![module.clone()]) {
            panic!("an import cycle in src/: {}", cycle.join(" -> "));
        }
    }
}

#[test]
fn the_cycle_check_reads_braces_and_self() {
    assert_eq!(
        used_paths("crate::redis::{reply, api::{self, Ctx}}"),
        ["redis::reply", "redis::api", "redis::api::Ctx"]
    );
    assert_eq!(used_paths("crate::redis::api::{self}"), ["redis::api"]);
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
