/**
 * winlimit: a Node.js client for the winlimit Redis module.
 *
 *     const limiter = new Limiter(client);            // node-redis or ioredis, plain or cluster
 *     const d = await limiter.slide("sms:+4915112345678", 3_600_000, 3);
 *     if (!d.allowed) { ... }                        // d.headers(): RateLimit-Policy, RateLimit, Retry-After
 *
 * `winlimit/express` and `winlimit/fastify` limit every request of an app.
 */

export { Limiter } from "./limiter";
export type { BreakerStatus, LimiterOptions } from "./limiter";
export { MemoryLimiter } from "./memory";
export type { MemoryLimiterOptions } from "./memory";
export { Decision } from "./decision";
export type { DecisionFields, Policy } from "./decision";
export { BreakerOpen, CallTimedOut, MissingPermission, ModuleNotLoaded, RedisCallError } from "./errors";
export type { BreakerOptions } from "./breaker";
export type { BreakerLogger } from "./breakers";
export type { Backend, BackendChoice } from "./backend";
export { ipKey } from "./keys";
export type { HeaderStyle } from "./styles";
export type { MetricsSink } from "./counting";
export type { CallOptions, FixedOptions, GcraOptions, Key, Pair, SlideOptions } from "./commands";
export type { IoRedisClient, NodeRedisClient, NodeRedisCluster, RedisClient } from "./client";
