// The circuit breaker's shared cases (clients/spec/breaker.json), on a clock of the test's
// own, with no server: every step's action, state, open_until_ms and transitions; the error
// classifier against each error reply as node-redis and ioredis raise it; the options the
// Limiter refuses. The Python client's tests read the same file (test_spec_breaker.py).

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import { ReplyError } from "ioredis";
import { ErrorReply } from "redis";
import { createClient } from "redis";
import { Limiter } from "winlimit";
import { camel, load } from "./support/spec.mjs";

const require = createRequire(import.meta.url);
const { Breaker, countsAsFailure, DEFAULT_FAILURES, DEFAULT_OPEN_MS, DEFAULT_MAX_OPEN_MS } = require("../dist/breaker.js");
const { CallTimedOut, RedisCallError } = require("../dist/errors.js");

const SPEC = load("breaker.json");

/** A counted kind as the limiter meets it: a connection error, its own timeout, or a reply. */
function errorOf(kind) {
  if (kind === "connection") return new Error("connect ECONNREFUSED 127.0.0.1:6379");
  if (kind === "timeout") return new CallTimedOut(1000);
  return new ErrorReply(`${kind} from the spec`);
}

for (const c of SPEC.cases) {
  test(`breaker case: ${c.name}`, () => {
    let now = 0;
    const breaker = new Breaker(camel(c.options), () => now);
    const tickets = new Map();
    for (const [i, step] of c.steps.entries()) {
      now = step.at_ms;
      const transitions = [];
      const where = `step ${i} ${JSON.stringify(step)}`;
      if (step.call !== undefined) {
        const [ticket, transition] = breaker.admit();
        if (transition !== undefined) transitions.push(transition);
        tickets.set(step.call, ticket);
        const action = ticket.action === "open" ? (c.fallback ? "fallback" : "fail_fast") : ticket.action;
        assert.equal(action, step.action, where);
      } else {
        const failed = step.outcome !== "ok" && countsAsFailure(errorOf(step.outcome));
        const transition = breaker.settle(tickets.get(step.done), failed);
        if (transition !== undefined) transitions.push(transition);
      }
      assert.equal(breaker.state, step.state, where);
      if (step.open_until_ms !== undefined) assert.equal(breaker.openUntilMs, step.open_until_ms, where);
      assert.deepEqual(transitions.map((t) => [t.to, t.cause]), step.transitions ?? [], where);
    }
  });
}

test("the defaults are the spec's", () => {
  const b = new Breaker();
  assert.deepEqual(
    { failures: b.failures, open_ms: b.openMs, max_open_ms: b.maxOpenMs, breaker: b.enabled },
    SPEC.defaults,
  );
  assert.deepEqual([DEFAULT_FAILURES, DEFAULT_OPEN_MS, DEFAULT_MAX_OPEN_MS], [SPEC.defaults.failures, SPEC.defaults.open_ms, SPEC.defaults.max_open_ms]);
});

for (const e of SPEC.error_replies) {
  test(`an error reply ${e.counts ? "counts" : "does not count"} as a failure: ${e.reply}`, () => {
    assert.equal(e.reply.split(" ")[0], e.kind);
    assert.equal(countsAsFailure(new ErrorReply(e.reply)), e.counts, "node-redis");
    assert.equal(countsAsFailure(new ReplyError(e.reply)), e.counts, "ioredis");
    // As the limiter meets it from the scripts and functions backends: wrapped, the client's as cause.
    assert.equal(countsAsFailure(new RedisCallError(e.reply, { cause: new ErrorReply(e.reply) })), e.counts, "wrapped");
  });
}

test("every counted kind is a failure; a connection error and the limiter's timeout count", () => {
  for (const kind of SPEC.counted_kinds) assert.equal(countsAsFailure(errorOf(kind)), true, kind);
});

for (const bad of SPEC.bad_options) {
  test(`the limiter refuses breaker options ${JSON.stringify(bad)}`, () => {
    const client = createClient(); // never connected: the options are checked first
    assert.throws(
      () => new Limiter(client, camel(bad)),
      (error) => error instanceof TypeError || error instanceof RangeError,
    );
  });
}
