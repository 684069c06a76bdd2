"""The command cases every client shares (clients/spec/commands.json): each method's command
line and policies, the methods and options each limiter has, and the builder refusing a
method the spec does not list."""

import inspect

import pytest

import winlimit
import winlimit.asyncio
from winlimit import Policy

from shared_spec import COMMANDS, UnknownMethod, build, ids

CASES = COMMANDS["cases"]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_the_call_sends_its_command_line(case):
    assert [str(arg) for arg in build(case["call"]).args] == case["args"]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_the_call_reports_its_policies(case):
    assert build(case["call"]).policies == tuple(Policy(**p) for p in case["policies"])


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_the_command_is_the_methods_own_and_ro_for_a_peek(case):
    command = COMMANDS["methods"][case["call"]["method"]]["command"]
    peek = case["call"]["options"].get("peek", False)
    assert case["args"][0] == (command + "_RO" if peek else command)


@pytest.mark.parametrize("limiter_class", [winlimit.Limiter, winlimit.asyncio.Limiter], ids=["sync", "asyncio"])
def test_each_limiter_has_exactly_the_spec_methods_and_helpers_with_their_options(limiter_class):
    public = {name for name, _ in inspect.getmembers(limiter_class, inspect.isfunction) if not name.startswith("_")}
    assert public == set(COMMANDS["methods"]) | set(COMMANDS["helpers"])
    for method, described in COMMANDS["methods"].items():
        keyword_only = [p.name for p in inspect.signature(getattr(limiter_class, method)).parameters.values()
                        if p.kind is inspect.Parameter.KEYWORD_ONLY]
        assert set(keyword_only) == set(described["options"]) | {"wait"}


def test_every_method_has_a_case_and_every_option_is_exercised():
    for method, described in COMMANDS["methods"].items():
        used = {option for case in CASES if case["call"]["method"] == method for option in case["call"]["options"]}
        assert used == set(described["options"]), method


@pytest.mark.parametrize("method", COMMANDS["unknown_methods"])
def test_a_method_the_spec_does_not_list_fails_loudly(method):
    with pytest.raises(UnknownMethod, match="lists no method"):
        build({"method": method, "args": ["k", 60_000, 10]})


def test_every_winlimit_command_of_the_server_is_a_spec_method_or_its_peek(start_server):
    # COMMAND lists what the loaded module registers: a command no spec method sends would be
    # a command neither client has, and a spec command the server lacks a stale spec. (A
    # server with the module whatever the run's backend.)
    # Administration (WINLIMIT.RESETSTAT, flagged admin as CONFIG RESETSTAT is) is no limiter's.
    commands = start_server(module=True).client.command()
    served = {str(name).upper() for name, info in commands.items()
              if str(name).lower().startswith("winlimit.") and "admin" not in info["flags"]}
    sent = {m["command"] for m in COMMANDS["methods"].values()}
    assert served == sent | {command + "_RO" for command in sent}
