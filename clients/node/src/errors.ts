/**
 * The errors of the limiter's own Redis calls. Every rejection of the Redis client (a
 * connection error, a server error, a closed client) is wrapped in a `RedisCallError` with
 * the same message and the original as `cause`, so middleware can tell Redis failing from a
 * bug in application code.
 */

/** A call to Redis failed: the client rejected it, or the server answered with an error
 * (its text is the message, unchanged). The client's own error is `cause`. */
export class RedisCallError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RedisCallError";
  }
}

/** The server does not know the WINLIMIT commands: the module is not loaded there. */
export class ModuleNotLoaded extends RedisCallError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ModuleNotLoaded";
  }
}

/** What ModuleNotLoaded adds to the server's text, after " -- ". */
export const NOT_LOADED =
  "the winlimit module is not loaded on this server. Load it at start-up with " +
  "`redis-server --loadmodule /path/to/libwinlimit.so` (or `loadmodule /path/to/libwinlimit.so` " +
  "in redis.conf), or at run time with `MODULE LOAD /path/to/libwinlimit.so`; in a cluster, " +
  "on every node.";

/** The client's error wrapped: an unknown-command reply becomes ModuleNotLoaded, naming the
 * fix; anything else a RedisCallError with the client's message. */
export function redisCallError(error: unknown): RedisCallError {
  const text = error instanceof Error ? error.message : String(error);
  if (text.toLowerCase().includes("unknown command")) {
    return new ModuleNotLoaded(`${text} -- ${NOT_LOADED}`, { cause: error });
  }
  return new RedisCallError(text, { cause: error });
}

/** The ACL user may not run a command the chosen backend needs; the message names the rule
 * to add. */
export class MissingPermission extends RedisCallError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "MissingPermission";
  }
}

/** No answer from Redis within the limiter's `timeoutMs`. */
export class CallTimedOut extends RedisCallError {
  constructor(timeoutMs: number) {
    super(`no answer from Redis within ${timeoutMs} ms`);
    this.name = "CallTimedOut";
  }
}

/** The limiter's circuit breaker is open (Redis failed): nothing was sent. Rejected at once,
 * by a limiter without a fallback, until the breaker's next probe. */
export class BreakerOpen extends RedisCallError {
  constructor(
    message: string,
    /** When the breaker's open period ends, in ms from now (0 while its probe runs). */
    readonly retryInMs: number,
  ) {
    super(message);
    this.name = "BreakerOpen";
  }
}
