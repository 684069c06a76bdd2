"""Which winlimit the suite runs against, set by env WINLIMIT_EDITION:

- `module` (the default): the Rust module, loaded with --loadmodule;
- `functions`: the Functions library (lua/winlimit.lua, Redis 7.0+ and Valkey), loaded with
  FUNCTION LOAD REPLACE; a call is `FCALL winlimit_<name> 1 key args...` (`FCALL_RO` for
  the `_RO` readers);
- `scripts`: the same logic as one script (Redis 6.x), loaded with SCRIPT LOAD; a call is
  `EVALSHA <sha> 1 key winlimit_<name> args...`.

A server the kit starts "with winlimit" has the edition loaded, and the kit's clients
(RedisServer.new_client, Cluster.client) send each WINLIMIT.* call in the edition's form: the
tests are the same for every edition. What only the module has is marked `module_only`.
"""

import functools
import hashlib
import os

import pytest
import redis
from redis.cluster import ClusterPipeline, RedisCluster

from kit import commands

EDITION = os.environ.get("WINLIMIT_EDITION", "module")
if EDITION not in commands.EDITIONS:
    raise ValueError(f"WINLIMIT_EDITION={EDITION!r}: expected one of {sorted(commands.EDITIONS)}")
LIBRARY = EDITION != "module"


def module_only(reason):
    """Mark a test (or, as `pytestmark`, a file) of what only the module has: skipped when the
    suite runs against the library. `reason` says what the library lacks."""
    return pytest.mark.skipif(LIBRARY, reason=f"module only: {reason}")


def function_name(command):
    """The library's name for a row of the kit's table: winlimit_slide, winlimit_gcra_ro."""
    return "winlimit_" + command.short


@functools.cache
def script_sha():
    """The SHA1 EVALSHA names the scripts edition by: Redis's, of the script's text (read
    once per run, not once per call)."""
    return hashlib.sha1(_library().script_text().encode()).hexdigest()


def load(client, edition=EDITION):
    """Load the edition's library into the server `client` talks to (the module: nothing)."""
    if edition == "functions":
        client.execute_command("FUNCTION", "LOAD", "REPLACE", _library().library_text())
    elif edition == "scripts":
        sha = client.execute_command("SCRIPT", "LOAD", _library().script_text())
        assert (sha.decode() if isinstance(sha, bytes) else sha) == script_sha()


def translate(args, edition=EDITION):
    """A WINLIMIT.* call as the edition sends it; any other command unchanged. A row the
    edition lacks (CL.THROTTLE) is an error: its tests must be marked module_only."""
    if edition == "module" or not args or not isinstance(args[0], (str, bytes)):
        return args
    name = (args[0].decode() if isinstance(args[0], bytes) else args[0]).lower()
    row = next((c for c in commands.TABLE if c.name == name), None)
    if row is None:
        if name.startswith("winlimit."):
            raise LookupError(f"{args[0]!r}: not in the kit's command table (tests/kit/commands.py)")
        return args
    if edition not in row.editions:
        raise LookupError(f"{row.name} is not in the {edition} edition: mark its test module_only")
    key, rest = args[1:2], args[2:]
    if edition == "functions":
        return ("FCALL" if row.writes else "FCALL_RO", function_name(row), len(key), *key, *rest)
    return ("EVALSHA", script_sha(), len(key), *key, function_name(row), *rest)


def sent_command(name):
    """What a WINLIMIT.* call is sent as in the kit's edition (as SLOWLOG shows it):
    the name itself, FCALL, FCALL_RO or EVALSHA."""
    return translate((name, "key"))[0]


class _Translating:
    """Sends every command through `translate`, for `edition` (the kit's unless set)."""

    edition = EDITION

    def execute_command(self, *args, **options):
        return super().execute_command(*translate(args, self.edition), **options)


class Pipeline(_Translating, redis.client.Pipeline):
    pass


class Redis(_Translating, redis.Redis):
    """redis.Redis whose WINLIMIT.* calls, pipelined or not, reach the edition."""

    def pipeline(self, transaction=True, shard_hint=None):
        pipe = Pipeline(self.connection_pool, self.response_callbacks, transaction, shard_hint)
        pipe.edition = self.edition
        return pipe


class _ClusterPipeline(_Translating, ClusterPipeline):
    pass


class Cluster(_Translating, RedisCluster):
    """RedisCluster whose WINLIMIT.* calls, pipelined or not, reach the kit's edition."""

    def pipeline(self, transaction=None, shard_hint=None):
        pipe = super().pipeline(transaction, shard_hint)
        pipe.__class__ = _ClusterPipeline  # the same pipeline, translating
        pipe.edition = self.edition
        return pipe


def _library():
    """The library's texts (the lua branch's kit.lua_library), imported when first needed."""
    from kit import lua_library
    return lua_library
