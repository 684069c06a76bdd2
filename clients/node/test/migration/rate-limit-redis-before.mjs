// docs/migration/rate-limit-redis.md's before: express-rate-limit over rate-limit-redis's
// store, run by test/migration-before.test.mjs on a real Redis (the after is
// test/guide/pieces.mjs's storages).

// --8<-- [start:imports]
import { rateLimit } from "express-rate-limit";
import { RedisStore } from "rate-limit-redis";
// --8<-- [end:imports]

/** Three requests a minute per client (`keyGenerator`), counted by rate-limit-redis in `redis`. */
export function before(redis, keyGenerator) {
  // --8<-- [start:before]
  return rateLimit({ windowMs: 60_000, limit: 3, standardHeaders: "draft-8", keyGenerator, store: new RedisStore({ sendCommand: (...args) => redis.sendCommand(args) }) });
  // --8<-- [end:before]
}
