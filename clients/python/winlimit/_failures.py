"""Which errors of a Redis call count against the breaker: the connection failing, no answer
in time, or a server error that says the server cannot serve now (clients/spec/breaker.json's
counted kinds). An error that is the caller's (WRONGTYPE, a bad argument) is an answer from
a working server."""

from __future__ import annotations

import asyncio
import re

import redis
from redis import exceptions

UNAVAILABLE_REPLIES = frozenset({"LOADING", "BUSY", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN", "READONLY"})

# redis-py raises these for a reply's first word, and drops the word from the text.
_REPLY_CLASSES = (
    (exceptions.BusyLoadingError, "LOADING"),
    (exceptions.MasterDownError, "MASTERDOWN"),
    (exceptions.ClusterDownError, "CLUSTERDOWN"),
    (exceptions.TryAgainError, "TRYAGAIN"),
    (exceptions.ReadOnlyError, "READONLY"),
)
_CODE = re.compile(r"^[A-Z][A-Z_]*(?= |$)")


def kind(error: BaseException) -> str:
    """'connection', 'timeout', or a server error reply's first word (redis-py drops ERR)."""
    for cls, word in _REPLY_CLASSES:
        if isinstance(error, cls):
            return word
    if isinstance(error, (redis.TimeoutError, TimeoutError, asyncio.TimeoutError)):
        return "timeout"
    if isinstance(error, (redis.ConnectionError, OSError)):
        return "connection"
    found = _CODE.match(str(error))
    return found.group(0) if found else "ERR"


def counts(error: BaseException) -> bool:
    """Whether `error` says Redis is unavailable."""
    return kind(error) in COUNTED


COUNTED = UNAVAILABLE_REPLIES | {"connection", "timeout"}


class CallTimedOut(TimeoutError):
    """No answer from Redis within the limiter's (or the middleware's) `timeout`."""

    def __init__(self, timeout: float):
        super().__init__(f"no answer from Redis within {timeout * 1000:g} ms")


class BreakerOpen(redis.ConnectionError):
    """The call was not sent: the limiter's circuit breaker is open after Redis failed, and the
    limiter has no fallback. A `redis.ConnectionError`, so code that handles Redis being down
    handles this too; `retry_in_ms` is how long the breaker stays open."""

    def __init__(self, limiter: str, node: str, retry_in_ms: float):
        where = f" (node {node})" if node else ""
        super().__init__(f"the circuit breaker of limiter {limiter!r}{where} is open after Redis failed: "
                         f"not sent; one call tries Redis again in {retry_in_ms:.0f} ms")
        self.retry_in_ms = retry_in_ms


def error_name(error: BaseException) -> str:
    """The error's class name; TimeoutError for the limiter's own timeout, as in Node."""
    return "TimeoutError" if isinstance(error, CallTimedOut) else type(error).__name__
