// Code an application writes with the installed package, imported as ES modules; the test
// type-checks it with tsc --noEmit (and the @ts-expect-error lines must be errors).
import { createClient, createCluster } from "redis";
import { Redis, Cluster } from "ioredis";
import express from "express";
import Fastify from "fastify";
import { Decision, Limiter, MemoryLimiter, ModuleNotLoaded, RedisCallError, ipKey, type Policy } from "winlimit";
import { rateLimit } from "winlimit/express";
import { winlimitHook, winlimitPlugin } from "winlimit/fastify";
import { Metrics } from "winlimit/metrics";
import { Registry } from "prom-client";
import { WinlimitThrottlerStorage, type ThrottlerStorageRecord } from "winlimit/nestjs";
import { WinlimitStore } from "winlimit/express-rate-limit";
// The interface file itself: the package index pulls in NestJS 12 types, ES modules its own CommonJS types cannot import (an error of theirs under skipLibCheck false).
import type { ThrottlerStorage } from "@nestjs/throttler/dist/throttler-storage.interface.js";
import { rateLimit as expressRateLimit, type Store } from "express-rate-limit";

export async function calls(): Promise<number> {
  const limiters = [
    new Limiter(createClient(), { name: "api" }),
    new Limiter(createCluster({ rootNodes: [{ url: "redis://127.0.0.1:7000" }] })),
    new Limiter(new Redis()),
    new Limiter(new Cluster([{ host: "127.0.0.1", port: 7000 }])),
  ];
  const [a, b, c, d] = limiters as [Limiter, Limiter, Limiter, Limiter];
  const one: Decision = await a.slide("k", 60_000, 100);
  const pairs = await b.slide(Buffer.from("k"), [[1_000, 10], [3_600_000, 1_000]], { cost: 2, bucket: 1_000, peek: false, name: "x" });
  const fixed = await c.fixed("k", 60_000, 100, { cost: 1, align: true, peek: true });
  const gcra = await d.gcra("k", 60_000, 100, { burst: 10, cost: 1, waitMs: 5_000 });
  const cache = new Limiter(new Redis(), { cacheRejections: true, cacheSize: 1_000 });
  const fromCache: boolean = (await cache.fixed("k", 1_000, 1)).cached;
  const waited: number = gcra.waitedMs + (fromCache ? 1 : 0);
  const policy: Policy | undefined = pairs.policy;
  const headers: Record<string, string> = gcra.headers();
  // @ts-expect-error: the limit is missing
  await a.slide("k", 60_000);
  // @ts-expect-error: fixed has no bucket
  await a.fixed("k", 60_000, 100, { bucket: 10 });
  // @ts-expect-error: not a Redis client
  new Limiter({ get: () => 1 });
  const failed: unknown = new ModuleNotLoaded("x");
  return waited + one.remaining + fixed.retryAfterMs + (policy?.quota ?? 0) + Object.keys(headers).length + (failed instanceof RedisCallError ? 1 : 0);
}

export async function apps(limiter: Limiter): Promise<void> {
  const app = express();
  app.use(rateLimit({ limiter, check: (l, key) => l.slide(key, 60_000, 100), key: (req) => req.ip, prefix: "rl:", failOpen: false }));
  app.use(rateLimit<express.Request>({ limiter, check: (l, key) => l.gcra(key, 1_000, 5), key: (req) => req.get("x-user") ?? null, timeoutMs: 500, logger: console.warn }));
  const fastify = Fastify();
  await fastify.register(winlimitPlugin, { limiter, check: (l, key) => l.fixed(key, 60_000, 100), key: (request) => request.ip });
  // @ts-expect-error: check is required
  await fastify.register(winlimitPlugin, { limiter });
  const shadow = rateLimit({ limiter, check: (l, key) => l.fixed(key, 1_000, 1), shadow: true, logger: (message, level) => console.log(level, message) });
  app.use(shadow);
  const hook = winlimitHook({ limiter, check: (l, key) => l.fixed(key, 1_000, 1), shadow: true });
  fastify.addHook("onRequest", hook);
  const counted: number = shadow.shadowRejections + hook.shadowRejections;
  // @ts-expect-error: the count is read-only
  shadow.shadowRejections = counted;
  const fallback = new MemoryLimiter({ maxKeys: 10_000, clock: () => Date.now() });
  app.use(rateLimit({ limiter, check: (l, key) => l.slide(key, 60_000, 100), fallback }));
  const backend: string = (await fallback.fixed("k", 1_000, 1, { align: true })).backend + String(fallback.size);
  // @ts-expect-error: the fallback is a MemoryLimiter, not a Redis-backed Limiter
  rateLimit({ limiter, check: (l, key) => l.slide(key, 60_000, 100), fallback: limiter, logger: () => backend });
}

export async function perRequest(limiter: Limiter): Promise<boolean> {
  const app = express();
  app.use(rateLimit({
    limiter,
    check: (l, key, req) => l.fixed(key, 60_000, req.headers["x-tier"] === "paid" ? 1_000 : 100),
    headers: "draft-7",
    ipv6Subnet: 56,
    handler: (req, res: express.Response, d) => res.status(429).json({ retryAfterMs: d.retryAfterMs }),
  }));
  await Fastify().register(winlimitPlugin, { limiter, check: (l, key) => l.gcra(key, 1_000, 5), headers: null, handler: async (request, reply, d) => ({ retry: d.retryAfterMs }) });
  // @ts-expect-error: not a header style
  rateLimit({ limiter, check: (l, key) => l.fixed(key, 1_000, 1), headers: "draft-8" });
  const metrics = new Metrics({ registry: new Registry() });
  app.use(rateLimit({ limiter: new Limiter(createClient(), { metrics }), check: (l, key) => l.fixed(key, 1_000, 1), metrics }));
  return limiter.reset(ipKey("2001:db8::1", 64));
}

export async function frameworkStores(limiter: Limiter): Promise<number> {
  const storage: ThrottlerStorage = new WinlimitThrottlerStorage(limiter, { algorithm: "fixed", prefix: "t:" });
  const record: ThrottlerStorageRecord = await storage.increment("k", 60_000, 10, 0, "default");
  // @ts-expect-error: not an algorithm
  new WinlimitThrottlerStorage(limiter, { algorithm: "leaky" });
  const store: Store = new WinlimitStore({ limiter, windowMs: 60_000, limit: 100, algorithm: "gcra", prefix: "rl:" });
  express().use(expressRateLimit({ windowMs: 60_000, limit: 100, store: new WinlimitStore({ limiter }) }));
  // @ts-expect-error: the limiter is required
  new WinlimitStore({ limit: 100 });
  return record.totalHits + ((await store.get?.("k"))?.totalHits ?? 0);
}
