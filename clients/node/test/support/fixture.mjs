// The set-up most test files share: one server with the module for the file, a client of
// the tests' own on it (`admin`), a limiter over one library, and a clean keyspace per test.

import { after, before, beforeEach } from "node:test";
import { Limiter } from "winlimit";
import { LIBRARIES } from "./clients.mjs";
import { CALL_DEADLINE_MS } from "./ready.mjs";
import { RedisServer, adminClient } from "./servers.mjs";

/** A limiter on `client` with the tests' call deadline (CALL_DEADLINE_MS) unless `options`
 * sets its own `timeoutMs`. */
export const testLimiter = (client, options = {}) => new Limiter(client, { timeoutMs: CALL_DEADLINE_MS, ...options });

/** Registers the hooks; the returned object has `server`, `admin`, `connection` and
 * `limiter` once the file's tests run. `resetStats` also clears INFO commandstats per test. */
export function redisForFile({ library = "node-redis 6", resetStats = false } = {}) {
  const ctx = {};
  before(async () => {
    ctx.server = await RedisServer.start();
    ctx.admin = await adminClient(ctx.server.port);
    ctx.connection = await LIBRARIES[library].plain(ctx.server.port);
    ctx.limiter = testLimiter(ctx.connection.client);
    // The client's first call detects the backend (and loads the library): done here, so
    // the tests count their own calls only.
    await ctx.limiter.fixed("warm-up", 1000, 1);
  });
  after(async () => {
    await ctx.connection?.close();
    await ctx.admin?.close();
    await ctx.server?.stop();
  });
  beforeEach(async () => {
    await ctx.admin.sendCommand(["FLUSHALL"]);
    if (resetStats) await ctx.admin.sendCommand(["CONFIG", "RESETSTAT"]);
  });
  return ctx;
}
