"""The command reference page, generated from clients/spec/command_table.json (the module's own
command table, checked against src/redis/commands.rs by `cargo test spec_table`).

The site's build (scripts/mkdocs_hooks.py) renders it as reference/commands.md on every build,
so the page cannot drift from the table; tests/test_docs_reference.py sends every out-of-range
argument the page documents to a real server and compares the error text the page prints.

Run alone, it prints the page: `python3 scripts/command_reference.py`.
"""

import json
import pathlib

TABLE = pathlib.Path(__file__).resolve().parent.parent / "clients" / "spec" / "command_table.json"
INT64_MAX = "9223372036854775807"

# What each argument means. A table argument missing here stops the build (KeyError): a new
# argument must be documented before the site builds again.
MEANING = {
    "window_ms": "window length in milliseconds",
    "period_ms": "the time in which `limit` units refill, in milliseconds",
    "limit": "units allowed per window (0 rejects everything)",
    "cost": "units this request takes; default 1",
    "refund": "give back up to this many units instead of taking any",
    "block_ms": "a rejection blocks the key for this many milliseconds",
    "bucket_ms": "count per bucket of this many milliseconds instead of one entry per unit",
    "burst": "units that may arrive at once; default `limit`",
    "align": "windows start at multiples of `window_ms` since the Unix epoch (UTC)",
    "max_burst": "redis-cell's burst: the capacity is `max_burst + 1`",
    "count_per_period": "units that refill per period",
    "period_s": "the period in seconds",
    "quantity": "units this request takes; default 1, 0 answers and writes nothing",
}

REPLY_WINLIMIT = """An array of five integers: `allowed` (1 or 0), `limit`, `remaining`, `retry_after_ms`
(0 when allowed, -1 when the cost exceeds the limit) and `reset_after_ms`; see
[Replies and errors](replies-and-errors.md)."""

REPLY_CELL = """redis-cell's array of five integers: `limited` (1 when rejected), `max_burst + 1`,
`remaining`, `retry_after_s` (-1 when allowed) and `reset_after_s`, times in whole seconds
rounded up; see [From redis-cell](../migration/redis-cell.md)."""

COMMON_ERRORS = [
    ("an unknown option", "ERR unknown option 'NAME'"),
    ("an option given twice", "ERR option 'COST' given more than once"),
    ("a key of another type", "WRONGTYPE Operation against a key holding the wrong kind of value"),
]


def load_table(path=TABLE):
    return json.loads(pathlib.Path(path).read_text())["commands"]


def synopsis(command):
    """The command line as the README has always written it: key, positionals, options."""
    parts = [command["name"], "key", *command["positional"]]
    if command["several_windows"]:
        parts.append("[window_ms limit ...]")
    tokens = {o["token"]: o for o in command["options"]}
    if "COST" in tokens and "REFUND" in tokens:
        parts.append("[COST n | REFUND n]")
    for option in command["options"]:
        if option["token"] == "REFUND" or (option["token"] == "COST" and "REFUND" in tokens):
            continue
        parts.append(f"[{option['token']}]" if option["value"] == "none" else f"[{option['token']} n]")
    parts += [f"[{name}]" for name in command["ranges"] if name not in command["positional"]
              and name not in {o["argument"] for o in command["options"]}]
    return " ".join(parts)


def range_text(name, bounds):
    """The range of one integer argument, as the table gives it."""
    if bounds["max"] is None:
        text = f"{bounds['min']} to `winlimit.{bounds['max_config']}` (default {bounds['max_config_default']})"
    else:
        text = f"{bounds['min']} to {bounds['max']}"
    for option, maximum in bounds.get("max_with", {}).items():
        text += f"; with `{option}`: {bounds['min']} to {maximum}"
    if "max_rule" in bounds:
        text += f"; {bounds['max_rule']}"
    return text


def argument_rows(command):
    """(argument as written, meaning, range) for every argument of the command."""
    options = {o["argument"]: o for o in command["options"]}
    rows = [(f"`{name}`", MEANING[name], range_text(name, command["ranges"][name])) for name in command["positional"]]
    for argument, option in options.items():
        written = f"`{option['token']}`" if option["value"] == "none" else f"`{option['token']} n`"
        bounds = command["ranges"].get(argument)
        rows.append((written, MEANING[argument], range_text(argument, bounds) if bounds else "no value"))
    rows += [(f"`{name}`", MEANING[name], range_text(name, bounds)) for name, bounds in command["ranges"].items()
             if name not in command["positional"] and name not in options]
    return rows


def range_error(command, argument):
    """The error text the module replies for an out-of-range value of a WINLIMIT.* argument
    whose range is fixed, or None where the text depends on other arguments or settings."""
    bounds = command["ranges"][argument]
    if not command["name"].startswith("WINLIMIT.") or bounds["max"] is None or "max_rule" in bounds \
            or bounds.get("max_with"):
        return None
    option = next((o for o in command["options"] if o["argument"] == argument), None)
    name = option["token"] if option else argument
    if bounds["min"] == "1" and bounds["max"] == INT64_MAX:
        return f"ERR {name} must be a positive integer"
    return f"ERR {name} must be an integer between {bounds['min']} and {bounds['max']}"


def command_section(command):
    kind = "Records" if command["records"] else "Reads only (writes nothing, runs on replicas)"
    lines = [f"## {command['name']}", "", "```", synopsis(command), "```", ""]
    about = [kind]
    if command["partner"]:
        about.append(f"its partner is [`{command['partner']}`](#{command['partner'].lower().replace('.', '')})")
    if command["function"]:
        about.append(f"the library's function is `{command['function']}`")
    else:
        about.append("the module's alone (not in the library)")
    if command["method"]:
        peek = " with `peek`" if not command["records"] else ""
        about.append(f"the clients' method is `{command['method']}`{peek}")
    if command["several_windows"]:
        about.append("up to 8 `window_ms limit` pairs in one call")
    lines += ["; ".join(about) + ".", "", "| argument | meaning | range |", "|---|---|---|"]
    lines += [f"| {a} | {m} | {r} |" for a, m, r in argument_rows(command)]
    lines += ["", "**Reply.** " + (REPLY_WINLIMIT if command["name"].startswith("WINLIMIT.") else REPLY_CELL), ""]
    written = {o["argument"]: o["token"] for o in command["options"]}
    errors = [(f"`{written.get(a, a)}` out of range", e) for a in command["ranges"] if (e := range_error(command, a))]
    if command["name"].startswith("WINLIMIT."):
        errors += COMMON_ERRORS
    if errors:
        lines += ["**Errors.** Every error leaves the keyspace untouched.", "", "| input | reply |", "|---|---|"]
        lines += [f"| {what} | `{text}` |" for what, text in errors]
        lines.append("")
    return lines


def render(commands=None):
    commands = load_table() if commands is None else commands
    lines = ["# Commands", "",
             "Generated from [`clients/spec/command_table.json`](https://github.com/winlimit/winlimit/blob/main/"
             "clients/spec/command_table.json), the module's own command table, on every build of this site.",
             "Integers are written as Redis writes them (`7`, not `07` or `+7`). Options are case-insensitive,",
             "in any order, each at most once. Every error of every command is in",
             "[Replies and errors](replies-and-errors.md).", ""]
    for command in commands:
        lines += command_section(command)
    return "\n".join(lines)


if __name__ == "__main__":
    print(render())
