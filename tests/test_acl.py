"""ACL key permissions apply to every WINLIMIT command through its declared key."""

import pytest

from kit.server import REDIS_62
from kit.commands import call
from kit import commands, editions
from kit.keyspace import snapshot
from kit.support import W, each_writers_key
from kit.errors import error_of


COMMANDS = [c.short for c in commands.DEFAULT]
# The error is the server's own; its wording after the code differs between Redis and Valkey.
NOPERM = "NOPERM "
LIMITED = ("lim", "pw")     # ~rl:* +@all
READER = ("reader", "pw")   # %R~rl:* +@all
# Redis 6.2 has no read-only key permissions (%R~, 7.0+): a reader there is what docs/operations/index.md
# tells its users to write, a user denied the writing commands by name, and the reader tests
# assert the same of it.
DENY_WRITERS_BY_NAME = ["-" + c.name for c in commands.WRITERS]
# The library's calls are EVALSHA on 6.2: no rule by name tells its readers from its writers.
needs_a_reader = pytest.mark.skipif(REDIS_62 and editions.LIBRARY, reason="Redis 6.2 has no read-only key "
                                    "permissions, and the scripts' readers and writers are all EVALSHA")


@pytest.fixture(scope="module")
def acl_server(server):
    r = server.client
    r.execute_command("ACL", "SETUSER", LIMITED[0], "on", ">" + LIMITED[1], "~rl:*", "+@all")
    if not (REDIS_62 and editions.LIBRARY):
        reader_rules = ["~rl:*", "+@all", *DENY_WRITERS_BY_NAME] if REDIS_62 else ["%R~rl:*", "+@all"]
        r.execute_command("ACL", "SETUSER", READER[0], "on", ">" + READER[1], *reader_rules)
    return server


@pytest.fixture
def admin(acl_server):
    r = acl_server.client
    r.flushall()
    # Keys a wrongly allowed call would visibly change: one unit of 5 taken, a stale entry
    # to trim, no TTL.
    for prefix in ("other:", "rl:"):
        each_writers_key(r, prefix)
    return r


def key_for(command, prefix):
    return prefix + commands.by_short(command).writer.short


def assert_refused_and_nothing_written(server, admin, command, keys, auth):
    before = snapshot(admin, dump=True)
    for key in keys:
        error = error_of(server.port, "WINLIMIT." + command.upper(), key, W, 5, auth=auth)
        assert error is not None and error.startswith(NOPERM), error
    assert snapshot(admin, dump=True) == before


@pytest.mark.parametrize("command", COMMANDS)
def test_user_limited_to_rl_keys_gets_noperm_on_other_keys_and_nothing_is_written(
        acl_server, admin, command):
    assert_refused_and_nothing_written(
        acl_server, admin, command, [key_for(command, "other:"), "other:new"], LIMITED)


@pytest.mark.parametrize("command", COMMANDS)
def test_user_limited_to_rl_keys_can_use_rl_keys(acl_server, admin, command):
    user = acl_server.new_client(username=LIMITED[0], password=LIMITED[1])
    assert call(user, command, key_for(command, "rl:"), W, 5).allowed == 1
    assert call(user, command, "rl:new", W, 5).allowed == 1


@needs_a_reader
@pytest.mark.parametrize("command", [c.short for c in commands.READERS])
def test_read_only_key_permission_allows_the_ro_variants(acl_server, admin, command):
    user = acl_server.new_client(username=READER[0], password=READER[1])
    before = snapshot(admin, dump=True)
    assert call(user, command, key_for(command, "rl:"), W, 5)[:3] == (1, 5, 4)  # W, 5: every row's sample
    assert snapshot(admin, dump=True) == before


@needs_a_reader
@pytest.mark.parametrize("command", [c.short for c in commands.WRITERS])
def test_read_only_key_permission_refuses_the_writing_variants_and_nothing_is_written(
        acl_server, admin, command):
    assert_refused_and_nothing_written(
        acl_server, admin, command, [key_for(command, "rl:"), "rl:new"], READER)


# ---- ACL categories: Redis 7.2+ and Valkey let modules join them; Redis 7.0 does not ----

NO_WRITE = ("nowrite", "pw")  # +@all -@write (before 7.2: +@all -winlimit.slide ...)


def server_has_module_acl_categories(r):
    version = r.info("server")["redis_version"]
    return tuple(int(part) for part in version.split(".")[:2]) >= (7, 2)


def acl_categories(r, command):
    info = r.execute_command("COMMAND", "INFO", "winlimit." + command)["winlimit." + command]
    return {c.decode() if isinstance(c, bytes) else c for c in info["acl_categories"]}


@editions.module_only("ACL categories are the module's command metadata; FCALL and EVALSHA are @scripting")
@pytest.mark.parametrize("command", COMMANDS)
def test_commands_belong_to_the_acl_categories_of_the_core_commands_they_replace(server, command):
    r = server.client
    expected = set(commands.by_short(command).categories) if server_has_module_acl_categories(r) else set()
    assert acl_categories(r, command) == expected


@editions.module_only("-@write and rules by command name cover the module's commands; a library user needs "
                      "rules on FCALL and the commands it runs (docs/getting-started/managed.md, Without the module)")
@pytest.mark.parametrize("command", COMMANDS)
def test_a_user_denied_at_write_may_only_run_the_read_only_variants(server, command):
    r = server.client
    # Before Redis 7.2 module commands join no category, so -@write does not cover them
    # (see the test above); there docs/operations/index.md's rule names the writing commands instead.
    deny = ["-@write"] if server_has_module_acl_categories(r) else DENY_WRITERS_BY_NAME
    r.execute_command("ACL", "SETUSER", NO_WRITE[0], "on", ">" + NO_WRITE[1], "~*", "+@all", *deny)
    r.flushall()
    error = error_of(server.port, "WINLIMIT." + command.upper(), "rl:k", W, 5, auth=NO_WRITE)
    if command.endswith("_ro"):
        assert error is None
    else:
        assert error is not None and error.startswith("NOPERM ")
        assert r.exists("rl:k") == 0
