// The memory limiter against the module's own decisions (clients/spec/decisions.json,
// generated from the Rust core): every call of every case, at the case's times. The Python
// client's memory limiter runs the same file (test_spec_decisions.py).

import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryLimiter, RedisCallError } from "winlimit";
import { load } from "./support/spec.mjs";

const SPEC = load("decisions.json");

function answer(limiter, args) {
  try {
    return { reply: limiter.executeCommand([args[0], "key", ...args.slice(1)]) };
  } catch (error) {
    assert.ok(error instanceof RedisCallError, String(error));
    return { error: error.message };
  }
}

for (const c of SPEC.cases) {
  test(`the memory limiter decides as the module: ${c.name}`, () => {
    let now = 0;
    const limiter = new MemoryLimiter({ clock: () => now });
    c.calls.forEach((call, i) => {
      now = call.now;
      const expected = "reply" in call ? { reply: call.reply } : { error: call.error };
      assert.deepEqual(answer(limiter, call.args), expected, `call ${i}: ${JSON.stringify(call.args)} at ${call.now}`);
    });
  });
}
