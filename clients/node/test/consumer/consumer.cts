// The same package required as CommonJS; type-checked by the test with tsc --noEmit.
import winlimit = require("winlimit");
import express = require("winlimit/express");
import fastify = require("winlimit/fastify");
import nestjs = require("winlimit/nestjs");
import erl = require("winlimit/express-rate-limit");
import redis = require("redis");

export async function call(): Promise<boolean> {
  const limiter = new winlimit.Limiter(redis.createClient());
  const d: winlimit.Decision = await limiter.gcra("k", 60_000, 100, { burst: 10 });
  const middleware = express.rateLimit({ limiter, check: (l, key) => l.fixed(key, 1_000, 1) });
  const stores = [new nestjs.WinlimitThrottlerStorage(limiter), new erl.WinlimitStore({ limiter })];
  return stores.length === 2 && d.allowed && typeof middleware === "function" && typeof fastify.winlimitPlugin === "function";
}
