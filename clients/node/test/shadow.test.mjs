// Shadow mode in the Express middleware and the Fastify hook, served by real HTTP servers
// over a real redis-server: requests are checked and counted, and everything goes through.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { FRAMEWORKS, withApp } from "./support/apps.mjs";
import { redisForFile } from "./support/fixture.mjs";

const ctx = redisForFile();

/** Shadow-mode options for `check`, keyed by the x-user header, logging into `logs`. */
function shadowed(check, logs) {
  const logger = (message, level) => logs.push({ message, level, at: performance.now() });
  return { limiter: ctx.limiter, check, shadow: true, direct: true, key: (req) => req.headers["x-user"], logger };
}

async function getAll(get, users) {
  const out = [];
  for (const user of users) out.push(await get("/", { "x-user": user }));
  return out;
}

for (const framework of Object.keys(FRAMEWORKS)) {
  describe(framework, () => {
    test("over the limit everything is 200, with the fields and no Retry-After", async () => {
      const logs = [];
      const responses = await withApp(framework, shadowed((l, key) => l.fixed(key, 60_000, 2), logs), (get) => getAll(get, Array(5).fill("a")));
      assert.deepEqual(responses.map((r) => r.status), [200, 200, 200, 200, 200]);
      assert.deepEqual(responses.map((r) => r.headers.get("RateLimit")), [
        '"winlimit";r=1;t=60', '"winlimit";r=0;t=60', '"winlimit";r=0;t=60', '"winlimit";r=0;t=60', '"winlimit";r=0;t=60',
      ]);
      assert.ok(responses.every((r) => r.headers.get("RateLimit-Policy") === '"winlimit";q=2;w=60' && r.headers.get("Retry-After") === null));
      assert.deepEqual(await Promise.all(responses.map((r) => r.text())), Array(5).fill("hello"));
      // Accepted units are recorded, as without shadow mode; the rejected ones record nothing.
      assert.equal(await ctx.admin.sendCommand(["GET", "rl:a"]), "2");
    });

    test("shadowRejections counts what would have been rejected", async () => {
      const counts = await withApp(framework, shadowed((l, key) => l.slide(key, 60_000, 1), []), async (get, limited) => {
        const seen = [limited.shadowRejections];
        for (const user of ["a", "a", "b", "a", "b"]) {
          await get("/", { "x-user": user });
          seen.push(limited.shadowRejections);
        }
        return seen;
      });
      assert.deepEqual(counts, [0, 0, 1, 1, 2, 3]);
    });

    test("the log has one warning per key per retryAfterMs", async () => {
      const logs = [];
      const check = (l, key) => l.fixed(key, 1000, 1);
      await withApp(framework, shadowed(check, logs), async (get) => {
        await getAll(get, ["a", "a", "a", "a", "b", "b", "b"]);
        assert.deepEqual(logs.map((l) => [l.level, JSON.parse(l.message.match(/for ("[^"]*")/)[1])]), [["warn", "rl:a"], ["warn", "rl:b"]]);
        // Once the retry the warning gave has passed since it was logged, a new rejection is
        // logged again (sleeping from the warning itself, not from a later peek: under load the
        // log may come well after the server's reply).
        const retryAfterMs = Number(logs[0].message.match(/retry after (\d+) ms/)[1]);
        await new Promise((resolve) => setTimeout(resolve, logs[0].at + retryAfterMs + 2 - performance.now()));
        await getAll(get, ["a", "a", "a"]);
      });
      assert.deepEqual(logs.map((l) => l.message.match(/for ("[^"]*")/)[1]), ['"rl:a"', '"rl:b"', '"rl:a"']);
      assert.match(logs[0].message, /RateLimit: "winlimit";r=0;t=1, retry after \d+ ms/);
    });

    test("a request that can never fit is logged once per policy window", async () => {
      const logs = [];
      const responses = await withApp(framework, shadowed((l, key) => l.fixed(key, 60_000, 1, { cost: 2 }), logs), (get) => getAll(get, ["a", "a", "a"]));
      assert.deepEqual(responses.map((r) => [r.status, r.headers.get("Retry-After")]), [[200, null], [200, null], [200, null]]);
      assert.equal(logs.length, 1);
      assert.match(logs[0].message, /retry after -1 ms/);
    });
  });
}
