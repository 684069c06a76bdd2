// The shadow-mode cases every client shares (clients/spec/shadow.json): what is let through,
// counted and warned about, and the quiet periods, on a clock the test sets. The Python
// client's tests read the same file (test_spec_shadow.py).

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import { Decision } from "winlimit";
import { build, load } from "./support/spec.mjs";

const require = createRequire(import.meta.url);
const { Guard } = require("../dist/guard.js");
const { ShadowLog } = require("../dist/shadow.js");
const SPEC = load("shadow.json");

for (const c of SPEC.cases) {
  test(`shadow mode follows the shared case: ${c.name}`, () => {
    let now = 0;
    let logged = [];
    const options = { limiter: {}, check: () => assert.fail("not called"), shadow: true, logger: (message, level) => logged.push([level, message]) };
    const guard = new Guard(options, () => "unused", new ShadowLog(c.log_keys, () => now));
    for (const step of c.steps) {
      now = step.at_ms;
      logged = [];
      const call = build(c.call, step.key);
      const outcome = guard.judged(step.key, Decision.fromReply(step.reply, call.policies));
      assert.equal(outcome.kind, "limited");
      assert.ok(!outcome.reject && !("Retry-After" in outcome.headers));
      if (step.fields) assert.deepEqual(outcome.headers, step.fields);
      assert.deepEqual(logged, step.warning === null ? [] : [["warn", step.warning]], JSON.stringify(step));
    }
    assert.equal(guard.shadowRejections, c.counted);
  });
}
