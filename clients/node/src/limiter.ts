/** The limiter: one method per winlimit command, each resolving to a Decision. */

import * as commands from "./commands";
import type { Call, FixedOptions, GcraOptions, Key, Pair, SlideOptions } from "./commands";
import { Decision } from "./decision";
import { redisCallError } from "./errors";
import { RedisClient, Send, sender } from "./client";

/** Options of the Limiter. */
export interface LimiterOptions {
  /** Names the policy in the header fields (default `"winlimit"`; with several windows,
   * `"winlimit-60s"` and so on). Every method takes `name` to override it for one call. */
  name?: string;
}

/**
 * One method per winlimit command, each resolving to a `Decision`.
 *
 * `client` is a node-redis client or cluster (v4 or later), or an ioredis Redis or Cluster
 * (v5 or later). Every method is async: bad argument types reject with TypeError, values the
 * client can judge itself with RangeError, both before anything is sent; a failed Redis call
 * with RedisCallError (ModuleNotLoaded when the server lacks the module), whose message is
 * the client's or the server's own and whose `cause` is the client's error.
 */
export class Limiter {
  /** The default policy name. */
  readonly name: string;
  private readonly send: Send;

  constructor(client: RedisClient, options: LimiterOptions = {}) {
    this.send = sender(client);
    this.name = commands.checkName(options.name ?? commands.DEFAULT_NAME);
  }

  /** WINLIMIT.SLIDE: `slide(key, 60_000, 100)`, or several windows at once:
   * `slide(key, [[1_000, 10], [60_000, 100]])`. `bucket: ms` counts per bucket (BUCKET);
   * `peek: true` asks WINLIMIT.SLIDE_RO, which records nothing. */
  slide(key: Key, windowMs: number, limit: number, options?: SlideOptions): Promise<Decision>;
  slide(key: Key, windows: readonly Pair[], options?: SlideOptions): Promise<Decision>;
  async slide(key: Key, windows: number | readonly Pair[], ...rest: unknown[]): Promise<Decision> {
    const limit = typeof windows === "number" ? rest[0] : undefined;
    const options = (typeof windows === "number" ? rest[1] : rest[0]) as SlideOptions | undefined;
    const pairs = commands.slidePairs(windows, limit);
    return this.run(commands.slide(key, pairs, checkOptions(options), this.nameFor(options)));
  }

  /** WINLIMIT.FIXED; `align: true` starts windows at multiples of windowMs since the epoch
   * (ALIGN); `peek: true` asks WINLIMIT.FIXED_RO. */
  async fixed(key: Key, windowMs: number, limit: number, options?: FixedOptions): Promise<Decision> {
    return this.run(commands.fixed(key, windowMs, limit, checkOptions(options), this.nameFor(options)));
  }

  /** WINLIMIT.GCRA: `limit` units per `periodMs`, at most `burst` at once (default `limit`);
   * the decision's `limit` is the bucket's capacity. `peek: true` asks WINLIMIT.GCRA_RO. */
  async gcra(key: Key, periodMs: number, limit: number, options?: GcraOptions): Promise<Decision> {
    return this.run(commands.gcra(key, periodMs, limit, checkOptions(options), this.nameFor(options)));
  }

  private nameFor(options: { name?: string } | undefined): string {
    return options?.name === undefined ? this.name : commands.checkName(options.name);
  }

  private async run(call: Call): Promise<Decision> {
    let reply: unknown;
    try {
      reply = await this.send(call);
    } catch (error) {
      throw redisCallError(error);
    }
    return Decision.fromReply(reply, call.policies);
  }
}

function checkOptions<T extends object>(options: T | undefined): T {
  if (options === undefined) return {} as T;
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new TypeError(`the options must be an object, not ${JSON.stringify(options)}`);
  }
  return options;
}
