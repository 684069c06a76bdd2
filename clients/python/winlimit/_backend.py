"""Which edition of winlimit answers a call: the module (WINLIMIT.*), the Functions library
(FCALL) or the scripts (EVALSHA), chosen per server and per cluster node, with the library
loaded where it is missing. Shared by the sync and asyncio limiters: each step here yields
the command it needs sent (a `Request`) and receives the reply, or the server's error thrown
in; the limiters only send (`drive` in each).

Nothing here replays a call whose reply did not arrive: a call is sent again only after the
server answered it with an error that says it ran nothing (function or script missing, or
the module gone).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any, Awaitable, Callable, Dict, Generator, Optional, Tuple

import redis
from redis.exceptions import NoPermissionError, NoScriptError

from ._commands import Arg, Call, translate

BACKENDS = ("auto", "module", "functions", "scripts")


def _text(name: str) -> str:
    try:
        return resources.files("winlimit").joinpath("lua", name).read_text(encoding="utf-8")
    except FileNotFoundError:  # a checkout that skipped the build step
        raise RuntimeError(f"winlimit/lua/{name} is missing: run scripts/embed-lua.py "
                           "(make itest-client does) to build the library into the package") from None


class Library:
    """The library and its script form, as built into the package (scripts/embed-lua.py)."""

    def __init__(self) -> None:
        self.text = _text("winlimit.lua")
        self.script = _text("winlimit-script.lua")
        self.sha = hashlib.sha1(self.script.encode()).hexdigest()
        found = re.search(r"^local VERSION = '([^']+)'$", self.text, re.M)
        if found is None:
            raise RuntimeError("the packaged winlimit.lua has no VERSION line")
        self.version = found.group(1)


_LIBRARY: Optional[Library] = None


def library() -> Library:
    """The packaged library, read once."""
    global _LIBRARY
    if _LIBRARY is None:
        _LIBRARY = Library()
    return _LIBRARY


def check_backend(backend: str) -> str:
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))}, not {backend!r}")
    return backend


def version_tuple(version: Any) -> Tuple[int, ...]:
    """"0.4.0" -> (0, 4, 0); anything unreadable counts as older than every version."""
    text = version.decode() if isinstance(version, bytes) else str(version)
    try:
        return tuple(int(part) for part in text.split("."))
    except ValueError:
        return ()


@dataclass(frozen=True)
class Request:
    """A command to send. `routed`: through the client, routed by the call's key (the
    module's commands); else to the server or cluster node that serves the key."""

    args: Tuple[Arg, ...]
    routed: bool = False


class Node:
    """What is known of one server (one cluster node): the backend chosen for it, and
    whether the library's version there was checked."""

    def __init__(self) -> None:
        self.backend: Optional[str] = None
        self.library_checked = False


Flow = Generator[Request, Any, Any]


class MissingPermission(redis.ResponseError):
    """The ACL user may not run a command the chosen backend needs; the message names the
    rule to add. A `redis.ResponseError`."""


def _is(error: redis.ResponseError, text: str) -> bool:
    return text in str(error).lower()


def _permission(error: redis.ResponseError, rule: str, what: str) -> MissingPermission:
    return MissingPermission(f"{error} -- {what} needs the ACL rule {rule} for this user "
                             "(see docs/guides/python.md, \"Backends: with or without the module\")")


class Chooser:
    """The backend of one limiter: `choice` as given, and what each node turned out to be."""

    def __init__(self, choice: str):
        self.choice = check_backend(choice)
        self.nodes: Dict[str, Node] = {}

    def node(self, name: str) -> Node:
        node = self.nodes.get(name)
        if node is None:
            node = self.nodes[name] = Node()
            if self.choice != "auto":
                node.backend = self.choice
        return node

    def answer(self, call: Call, node: Node) -> Flow:
        """The call answered by the node's backend: returns (reply, backend)."""
        if node.backend is None:
            node.backend = yield from _detect()
        if node.backend == "module":
            try:
                return (yield Request(call.args, routed=True)), "module"
            except redis.ResponseError as e:
                if self.choice != "auto" or not _is(e, "unknown command"):
                    raise translate(e) from e
                node.backend = yield from _detect()  # the module was unloaded: choose again
                if node.backend == "module":
                    raise translate(e) from e
        if node.backend == "functions":
            if not node.library_checked:
                yield from self._ensure_library(node)
            if node.backend == "functions":
                return (yield from self._fcall(call, node)), "functions"
        return (yield from _evalsha(call)), "scripts"

    def _fcall(self, call: Call, node: Node) -> Flow:
        name = function_name(call)
        request = Request(("FCALL_RO" if call.peek else "FCALL", name, 1, *call.args[1:]))
        try:
            return (yield request)
        except redis.ResponseError as e:
            if not _is(e, "function not found"):
                raise
        yield from self._ensure_library(node)  # FUNCTION FLUSH, or an older library
        if node.backend != "functions":
            return (yield from _evalsha(call))
        return (yield request)

    def _ensure_library(self, node: Node) -> Flow:
        """Loads the library where it is missing or older; never replaces a newer one.
        Where the user may not load it, "auto" turns to the scripts."""
        node.library_checked = True
        own = library()
        version = yield from _loaded_version()
        if version is not None and version_tuple(version) >= version_tuple(own.version):
            return
        try:
            yield from _load(own, replace=version is not None)
        except NoPermissionError as e:
            if self.choice == "auto":
                node.backend = "scripts"
                return
            raise _permission(e, "+function|load", "the \"functions\" backend loads the library, which") from e


def _detect() -> Flow:
    """"module" where COMMAND INFO knows WINLIMIT.SLIDE, else "functions" where it knows
    FCALL, else "scripts". (Not MODULE LIST: managed services refuse it.)"""
    try:
        # One word: redis-py's parser for "COMMAND" cannot read an unknown command's nil.
        module, fcall = yield Request(("COMMAND INFO", "WINLIMIT.SLIDE", "FCALL"))
    except NoPermissionError as e:
        raise _permission(e, "+command|info", "backend=\"auto\" asks COMMAND INFO, which") from e
    return "module" if module else "functions" if fcall else "scripts"


def _loaded_version() -> Flow:
    """winlimit_version of the library loaded, or None when there is none (or it has no
    such function: an older library)."""
    try:
        return (yield Request(("FCALL_RO", "winlimit_version", 0)))
    except redis.ResponseError as e:
        if _is(e, "function not found"):
            return None
        raise


def _load(own: Library, replace: bool) -> Flow:
    try:
        yield Request(("FUNCTION", "LOAD", *(("REPLACE",) if replace else ()), own.text))
    except redis.ResponseError as e:
        if isinstance(e, NoPermissionError) or replace or not _is(e, "already exists"):
            raise
        # Loaded by another client since we looked: replaced only if that one is older too.
        version = yield from _loaded_version()
        if version is None or version_tuple(version) < version_tuple(own.version):
            yield Request(("FUNCTION", "LOAD", "REPLACE", own.text))


def _evalsha(call: Call) -> Flow:
    own = library()
    request = Request(("EVALSHA", own.sha, 1, call.args[1], function_name(call), *call.args[2:]))
    try:
        return (yield request)
    except NoScriptError:
        pass
    try:
        yield Request(("SCRIPT", "LOAD", own.script))
    except NoPermissionError as e:
        raise _permission(e, "+script|load", "the \"scripts\" backend loads its script, which") from e
    return (yield request)


def node_of(client: Any, key: Any) -> Any:
    """The cluster node serving `key` (redis-py's ClusterNode), or None for a plain client."""
    find = getattr(client, "get_node_from_key", None)
    return None if find is None else find(key)


def function_name(call: Call) -> str:
    """WINLIMIT.SLIDE_RO -> winlimit_slide_ro: the library's name for the module command."""
    return str(call.args[0]).lower().replace(".", "_")



def _step(flow: Flow, reply: Any, error: Optional[redis.ResponseError]) -> Tuple[bool, Any]:
    """Hands `flow` the last reply (or error): (True, its result) or (False, the next request)."""
    try:
        return False, flow.throw(error) if error is not None else flow.send(reply)
    except StopIteration as done:
        return True, done.value


def drive(flow: Flow, send: Callable[[Request], Any]) -> Any:
    """Runs `flow`, sending each request it yields with `send`; its result."""
    reply, error = None, None
    while True:
        done, out = _step(flow, reply, error)
        if done:
            return out
        reply, error = None, None
        try:
            reply = send(out)
        except redis.ResponseError as e:
            error = e


async def drive_async(flow: Flow, send: Callable[[Request], Awaitable[Any]]) -> Any:
    """`drive` for the asyncio limiter."""
    reply, error = None, None
    while True:
        done, out = _step(flow, reply, error)
        if done:
            return out
        reply, error = None, None
        try:
            reply = await send(out)
        except redis.ResponseError as e:
            error = e
