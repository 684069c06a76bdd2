// The ES module entry: the CommonJS build re-exported, so `import` and `require` share one
// implementation (and `instanceof` holds across them).
export { BreakerOpen, CallTimedOut, Decision, Limiter, MemoryLimiter, MissingPermission, ModuleNotLoaded, RedisCallError, ipKey } from "./index.js";
export type * from "./index.js";
