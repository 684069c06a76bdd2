// The memory limiter against every bound and error text of the module's parsers
// (clients/spec/limits.json, generated from the Rust core): each case on a fresh key. The
// Python client's memory limiter runs the same file (test_spec_limits.py), the module and the
// library tests/test_limits.py.

import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryLimiter, RedisCallError } from "winlimit";
import { load } from "./support/spec.mjs";

const SPEC = load("limits.json");

function errorOf(line) {
  try {
    new MemoryLimiter({ clock: () => 1_700_000_000_000 }).executeCommand(line);
    return null;
  } catch (error) {
    assert.ok(error instanceof RedisCallError, String(error));
    return error.message;
  }
}

for (const c of SPEC.cases) {
  test(`the memory limiter bounds and words as the module: ${c.name}`, () => {
    assert.equal(errorOf([c.command, "key", ...c.args]), c.error, `${c.command} ${JSON.stringify(c.args)}`);
  });
}
