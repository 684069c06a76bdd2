"""COMMAND INFO / COMMAND DOCS / COMMAND LIST describe every WINLIMIT command."""

import pytest
import redis

from kit import commands, editions
from kit.server import REDIS_62

pytestmark = editions.module_only("COMMAND INFO, DOCS and LIST describe the module's commands; the library's calls are FCALL or EVALSHA")


COMMANDS = [c.name for c in commands.DEFAULT]
WRITERS = [c.name for c in commands.WRITERS]
READERS = [c.name for c in commands.READERS]


# Redis 6.2 has no COMMAND DOCS, key specs or module arity: a module command there shows
# arity -1 and the legacy key range (1, 1, 1), which is what routes it.
needs_command_docs = pytest.mark.skipif(REDIS_62, reason="Redis 6 (6.0, 6.2) has no command metadata for modules")


@pytest.fixture(scope="module")
def rd(server):
    """A client decoding replies to str (COMMAND replies are text)."""
    client = redis.Redis(host="127.0.0.1", port=server.port, decode_responses=True)
    yield client
    client.close()


def info(rd, name):
    return rd.execute_command("COMMAND", "INFO", name)[name]


def docs(rd, name):
    return rd.execute_command("COMMAND DOCS", name)[name]


def test_command_list_filtered_by_module_gives_the_kits_table(rd):
    if REDIS_62:  # no COMMAND LIST (7.0+): the six are the winlimit.* names of COMMAND
        names = [name for name in rd.execute_command("COMMAND") if name.startswith("winlimit.")]
    else:
        names = rd.execute_command("COMMAND LIST", "FILTERBY", "MODULE", "winlimit")
    assert sorted(names) == sorted(COMMANDS + list(commands.ADMIN))


@pytest.mark.parametrize("name", COMMANDS)
def test_arity_is_the_rows(rd, name):
    assert info(rd, name)["arity"] == (-1 if REDIS_62 else commands.by_name(name).arity)


@pytest.mark.parametrize("name", COMMANDS)
def test_key_is_argument_one_first_last_step(rd, name):
    i = info(rd, name)
    assert (i["first_key_pos"], i["last_key_pos"], i["step_count"]) == (1, 1, 1)
    assert "movablekeys" not in i["flags"]


@pytest.mark.parametrize("name", COMMANDS)
def test_command_getkeys_gives_the_key(rd, name):
    """What cluster clients and proxies ask to route a call: also on Redis 6.2, from the
    legacy key range alone."""
    assert rd.command_getkeys(name, "rl:{user42}:sms", 60000, 5, "COST", 2) == ["rl:{user42}:sms"]


@pytest.mark.parametrize("name", WRITERS)
def test_writing_variants_are_flagged_write_and_denyoom(rd, name):
    flags = info(rd, name)["flags"]
    assert "write" in flags and "denyoom" in flags and "readonly" not in flags


@pytest.mark.parametrize("name", READERS)
def test_ro_variants_are_flagged_readonly_only(rd, name):
    flags = info(rd, name)["flags"]
    assert "readonly" in flags and "write" not in flags and "denyoom" not in flags


@pytest.mark.parametrize("name", COMMANDS)
def test_fast_only_where_a_call_is_constant_work(rd, name):
    assert ("fast" in info(rd, name)["flags"]) == ("@fast" in commands.by_name(name).categories)


@needs_command_docs
@pytest.mark.parametrize("name", COMMANDS)
def test_one_key_spec_at_index_one_with_a_range_of_one_key(rd, name):
    [spec] = info(rd, name)["key_specifications"]
    assert spec["begin_search"] == {"type": "index", "spec": {"index": 1}}
    assert spec["find_keys"] == {"type": "range", "spec": {"lastkey": 0, "keystep": 1, "limit": 0}}


@needs_command_docs
@pytest.mark.parametrize("name", WRITERS)
def test_writing_variants_key_spec_is_rw_access_update(rd, name):
    """Redis's rule: INSERT, DELETE and UPDATE are mutually exclusive, and a write that is
    not purely one of the first two is UPDATE (ZADD and INCRBY declare RW ... UPDATE)."""
    [spec] = info(rd, name)["key_specifications"]
    assert sorted(spec["flags"]) == sorted(["RW", "access", "update"])


@needs_command_docs
@pytest.mark.parametrize("name", READERS)
def test_ro_variants_key_spec_is_ro_access(rd, name):
    [spec] = info(rd, name)["key_specifications"]
    assert sorted(spec["flags"]) == sorted(["RO", "access"])


@needs_command_docs
@pytest.mark.parametrize("name", COMMANDS)
def test_docs_give_summary_complexity_and_module(rd, name):
    d = docs(rd, name)
    assert d["summary"].strip() and d["complexity"].strip()
    assert d["module"] == "winlimit" and d["group"] == "module"


@needs_command_docs
@pytest.mark.parametrize("name", COMMANDS)
def test_docs_list_the_arguments_of_the_kits_row(rd, name):
    key = {"name": "key", "type": "key", "key_spec_index": 0}
    expected = [key, *(a.docs() for a in commands.by_name(name).arguments)]
    assert without_default_display_text(docs(rd, name)["arguments"]) == expected


def without_default_display_text(arguments):
    """Newer servers add a display_text that defaults to the name; Redis 7.0 has none."""
    return [{k: (without_default_display_text(v) if k == "arguments" else v)
             for k, v in arg.items() if (k, v) != ("display_text", arg["name"])}
            for arg in arguments]
