// The rejection-cache cases every client shares (clients/spec/cache.json): what is kept, how
// a kept rejection ages, sweeping and size, on a clock the test sets. The Python client's
// tests read the same file (test_spec_cache.py).

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import { createClient } from "redis";
import { Decision, Limiter } from "winlimit";
import { build, load } from "./support/spec.mjs";

const require = createRequire(import.meta.url);
const { RejectionCache } = require("../dist/cache.js");
const SPEC = load("cache.json");

const fields = (d) => [Number(d.allowed), d.limit, d.remaining, d.retryAfterMs, d.resetAfterMs];

for (const c of SPEC.cases) {
  test(`the cache follows the shared case: ${c.name}`, () => {
    let now = 0;
    const cache = new RejectionCache(c.size, () => now);
    for (const step of c.steps) {
      now = step.at_ms;
      const call = build({ ...SPEC.call, options: { peek: step.peek ?? false } }, step.key);
      if (step.reply) {
        cache.remember(call, Decision.fromReply(step.reply, call.policies));
        continue;
      }
      const answer = cache.answer(call);
      assert.deepEqual(answer === undefined ? null : fields(answer), step.answer, JSON.stringify(step));
      if (answer !== undefined) assert.ok(answer.cached && answer.policies.every((p, i) => p === call.policies[i]));
    }
    assert.equal(cache.held, c.held);
  });
}

for (const size of SPEC.bad_sizes) {
  test(`a cacheSize that is not a positive integer is refused: ${JSON.stringify(size)}`, () => {
    const client = createClient({ socket: { host: "127.0.0.1", port: 1 } });
    assert.throws(() => new Limiter(client, { cacheRejections: true, cacheSize: size }), (e) => e instanceof TypeError || e instanceof RangeError);
  });
}
