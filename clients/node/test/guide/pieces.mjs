// The code of docs/guides/node.md, each piece a function of an app, a limiter or a client;
// test/guide.test.mjs serves each app over real HTTP and runs each call on a real Redis. The
// guide includes the parts between the snippet markers.

// --8<-- [start:imports]
import { Limiter, MemoryLimiter, ipKey } from "winlimit";
import { rateLimit } from "winlimit/express";
import { winlimitPlugin } from "winlimit/fastify";
import { Metrics } from "winlimit/metrics";   // needs prom-client (an optional peer dependency)
// --8<-- [end:imports]
import { ThrottlerModule } from "@nestjs/throttler";
import { rateLimit as expressRateLimit } from "express-rate-limit";
// --8<-- [start:storage-imports]
import { WinlimitThrottlerStorage } from "winlimit/nestjs";
import { WinlimitStore } from "winlimit/express-rate-limit";
// --8<-- [end:storage-imports]

export const check = (l, key) => l.slide(key, 60_000, 3);

export async function fastifyEveryRequest(app, limiter) {
  // --8<-- [start:fastify]
  await app.register(winlimitPlugin, { limiter, check: (l, key) => l.gcra(key, 60_000, 100, { burst: 10 }) });
  // --8<-- [end:fastify]
}

const checkPassword = async (_user, password) => password === "right";

export function login(app, limiter) {
  // --8<-- [start:login]
  const loginLimit = rateLimit({
    limiter,
    check: (l, key) => l.fixed(key, 900_000, 5),
    prefix: "login:",
    count: "failures",
    blockMs: 900_000,
  });

  app.post("/login", loginLimit, async (req, res) => {
    if (!(await checkPassword(req.body.user, req.body.password))) {
      return res.status(401).send("wrong user or password"); // counts: the 5th blocks for 15 min
    }
    res.json({ token: "..." });                              // refunded: does not count
  });
  // --8<-- [end:login]
}

export function tiers(app, limiter) {
  // --8<-- [start:tiers]
  const LIMITS = { free: 2, paid: 4 };
  app.use(rateLimit({
    limiter,
    check: (l, key, req) => {
      const tier = req.headers["x-api-tier"] === "paid" ? "paid" : "free";
      return l.slide(key, 60_000, LIMITS[tier], { name: tier });
    },
  }));
  // --8<-- [end:tiers]
}

export function legacy(app, limiter) {
  // --8<-- [start:legacy]
  app.use(rateLimit({ limiter, check, headers: "legacy" }));
  // --8<-- [end:legacy]
}

export function expressHandler(app, limiter) {
  // --8<-- [start:express-handler]
  app.use(rateLimit({ limiter, check, handler: (req, res, d) => res.json({ error: "rate limited", retryAfterMs: d.retryAfterMs }) }));
  // --8<-- [end:express-handler]
}

export async function fastifyHandler(app, limiter) {
  // --8<-- [start:fastify-handler]
  await app.register(winlimitPlugin, { limiter, check, handler: async (_request, _reply, _d) => ({ error: "rate limited" }) });
  // --8<-- [end:fastify-handler]
}

export function ipKeys(app, limiter) {
  // --8<-- [start:ip-key]
  ipKey("2001:db8:1:2:3:4:5:6");       // "2001:db8:1:2::/64"
  ipKey("2001:db8:1:2:3:4:5:6", 56);   // "2001:db8:1::/56"
  app.use(rateLimit({ limiter, check, key: (req) => ipKey(String(req.headers["x-real-ip"])) }));
  // --8<-- [end:ip-key]
}

export function breaker(client, log) {
  // --8<-- [start:breaker]
  const limiter = new Limiter(client, {
    fallback: new MemoryLimiter(),   // decides the very call while open: same cost, refund, blockMs
    timeoutMs: 250,                  // a call with no answer by then failed (default 1,000; null: the client's)
    failures: 3, openMs: 1_000, maxOpenMs: 30_000,   // the defaults
    // breaker: false,               // every call goes to Redis, whatever fails
    logger: (message, level) => log[level](message),
  });
  // --8<-- [end:breaker]
  return limiter;
}

export function fallback(app, limiter) {
  // --8<-- [start:fallback]
  app.use(rateLimit({ limiter, check, fallback: new MemoryLimiter() }));
  // --8<-- [end:fallback]
}

export function shadow(app, limiter) {
  // --8<-- [start:shadow]
  const limited = rateLimit({ limiter, check: (l, key) => l.slide(key, 60_000, 3), shadow: true });
  app.use(limited);
  // later: limited.shadowRejections, the requests it would have rejected
  // --8<-- [end:shadow]
  return limited;
}

export function metrics(app, limiter, registry) {
  // --8<-- [start:metrics]
  const metrics = new Metrics({ registry });   // new Metrics(): on prom-client's default registry
  app.use(rateLimit({ limiter, check, metrics }));
  // or count every call of a limiter: new Limiter(client, { metrics })
  // --8<-- [end:metrics]
}

export async function backends(client) {
  // --8<-- [start:backends]
  new Limiter(client);                            // { backend: "auto" }, the default
  new Limiter(client, { backend: "module" });     // the module, or ModuleNotLoaded: never without it
  new Limiter(client, { backend: "functions" });  // FCALL / FCALL_RO (Redis 7.0+, Valkey)
  const limiter = new Limiter(client, { backend: "scripts" });   // EVALSHA (Redis 6.0 and 6.2, or FUNCTION blocked)
  console.log((await limiter.slide("k", 60_000, 10)).backend);   // "module", "functions" or "scripts"
  // --8<-- [end:backends]
  return limiter;
}

export async function calls(client) {
  // --8<-- [start:calls]
  const limiter = new Limiter(client, { name: "winlimit" });
  const d = await limiter.slide("sms:+4915112345678", 3_600_000, 3);
  const { allowed, limit, remaining, retryAfterMs, resetAfterMs, policies, policy } = d;

  await limiter.slide("api:42", [[1_000, 10], [3_600_000, 1_000]]);   // several windows, one atomic call
  await limiter.slide("feed:42", 60_000, 1_000_000, { bucket: 1_000 }); // BUCKET: a key of its own (a ring, not a log)
  await limiter.slide("sms:+49151", 3_600_000, 3, { cost: 2 });        // COST
  await limiter.fixed("login:10.0.0.7", 900_000, 5, { align: true });  // ALIGN
  await limiter.gcra("upload:42", 60_000, 100, { burst: 10, cost: 3 }); // BURST
  await limiter.slide("sms:+49151", 3_600_000, 3, { peek: true });     // WINLIMIT.SLIDE_RO: records nothing
  await limiter.fixed("login:10.0.0.7", 900_000, 5, { blockMs: 900_000 }); // BLOCK: once rejected, refused 15 min
  await limiter.gcra("jobs:acme", 60_000, 100, { refund: 1 });          // REFUND: give one unit back
  // --8<-- [end:calls]
  return { allowed, limit, remaining, retryAfterMs, resetAfterMs, policies, policy };
}

export async function refund(limiter, apiUrl, job) {
  // --8<-- [start:refund]
  const d = await limiter.gcra("jobs:acme", 60_000, 100);   // take a unit before calling the API
  if (d.allowed) {
    const response = await fetch(apiUrl, { method: "POST", body: job });
    if (response.status === 429) await limiter.gcra("jobs:acme", 60_000, 100, { refund: 1 }); // not used
  }
  // --8<-- [end:refund]
}

export async function wait(limiter) {
  // --8<-- [start:wait]
  const d = await limiter.gcra("api:openai", 60_000, 500, { waitMs: 5_000 });
  // --8<-- [end:wait]
  return d;
}

export function cache(client) {
  // --8<-- [start:cache]
  const limiter = new Limiter(client, { cacheRejections: true });   // cacheSize: 10_000
  // --8<-- [end:cache]
  return limiter;
}

export function unblock(app, limiter) {
  // --8<-- [start:reset]
  app.post("/admin/unblock/:address", async (req, res) => {
    res.json({ removed: await limiter.reset(`rl:${req.params.address}`) });
  });
  // --8<-- [end:reset]
}

export function storages(app, redis) {
  // --8<-- [start:storages]
  // @nestjs/throttler; was: storage: new ThrottlerStorageRedisService(redis)  (@nest-lab/throttler-storage-redis)
  const throttler = ThrottlerModule.forRoot({ throttlers: [{ ttl: 60_000, limit: 3 }], storage: new WinlimitThrottlerStorage(new Limiter(redis)) });

  // express-rate-limit; was: store: new RedisStore({ sendCommand: (...args) => redis.sendCommand(args) })  (rate-limit-redis)
  app.use(expressRateLimit({ windowMs: 60_000, limit: 3, standardHeaders: "draft-8", store: new WinlimitStore({ limiter: new Limiter(redis) }) }));
  // --8<-- [end:storages]
  return throttler;
}
export { rateLimit };

export async function headers(limiter) {
  // --8<-- [start:headers]
  const d = await limiter.slide("api:7", 60_000, 100);
  for (const [field, value] of Object.entries(d.headers())) console.log(`${field}: ${value}`);
  // RateLimit-Policy: "winlimit";q=100;w=60
  // RateLimit: "winlimit";r=99;t=60
  // --8<-- [end:headers]
  return d.headers();
}
