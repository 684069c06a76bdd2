"""The cases every client shares (clients/spec/*.json), read once, and the one builder that
turns a spec call into the command line the limiter sends. The Node client's tests read the
same files (clients/node/test/support/spec.mjs)."""

import json
import os

from winlimit import _commands

SPEC_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "spec")


def load(name):
    with open(os.path.join(SPEC_DIR, name), encoding="utf-8") as f:
        return json.load(f)


COMMANDS = load("commands.json")
CONSTANTS = load("constants.json")


class UnknownMethod(LookupError):
    """A spec call names a method commands.json does not list."""


def build(call, key=None):
    """The `_commands.Call` of a spec call: its method's builder, which takes the limiter
    method's own arguments, with the call's arguments and options. `key` replaces the call's
    key (cases that vary it). A method the spec does not list fails: no default method."""
    method = call["method"]
    if method not in COMMANDS["methods"]:
        raise UnknownMethod(f"commands.json lists no method {method!r}")
    args = list(call["args"])
    if key is not None:
        args[0] = key
    return getattr(_commands, method)(*args, **call.get("options", {}))


def ids(cases):
    return [case["name"] for case in cases]
