"""The one readiness deadline of the Python test trees (tests/ and clients/python/tests).

A wait for a server, a replica, a cluster, a failover or an application to become ready is
not a claim about speed: on a loaded 2-core CI machine (16 suites, four at a time) a replica's
first sync has taken just over 10 s. Every such wait polls until READY_TIMEOUT; what a test
asserts about a decision, a count or a time stays exact.
"""

import time

READY_TIMEOUT = 60.0


def wait_until(predicate, timeout=READY_TIMEOUT, what="condition"):
    """Poll predicate() until it returns something truthy; raise after the deadline. The
    predicate is tried once more at the deadline, so a slow last poll never fails a wait
    whose condition did come true."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.01)


def within_one_ms(what, attempt, *args):
    """Runs attempt(*args) until it returns a result, and returns that. An attempt returns None
    when its calls straddled a ms of the server's clock (two editions compared alike only
    within one ms), else a non-empty result. A loaded machine stretches runs past a ms many
    times in a row, so the retries are a wait until READY_TIMEOUT, not a count."""
    return wait_until(lambda: attempt(*args), what=f"{what}: a try within one ms")


# A limiter call's timeout in tests where Redis hangs on purpose: each hung call costs it once
# (until a breaker opens), and a healthy call on a loaded machine must still beat it.
CALL_TIMEOUT = 1.0

# A call's timeout in tests whose subject is not a timeout, where Redis is up or refuses at
# once: the clients' 1 s default is a claim about a healthy server's speed, which a loaded CI
# machine breaks now and then (a breaker's probe that times out reopens it silently). The Node
# tests' CALL_DEADLINE_MS and the Java tests' CallDeadline are the same figure.
CALL_DEADLINE = 10.0
