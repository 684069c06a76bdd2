/**
 * A middleware's `count` and `blockMs`, shared by Express and Fastify; mirrors the Python
 * client's `winlimit._refund`.
 *
 * The request is counted before the handler runs, as always (so concurrent requests cannot
 * all slip through); once the response is known, its units are given back (REFUND) when the
 * request does not count: a success under `count: "failures"`, a failure under
 * `count: "successes"`. A handler that throws is a failure (the framework answers 500). The
 * status is the one the response ends with.
 */

import type { ServerResponse } from "node:http";
import { COMMANDS } from "./commands";
import type { Decision } from "./decision";
import type { Limiter } from "./limiter";

/** Which requests use up the limit. */
export type Count = "all" | "failures" | "successes";

/** `isFailure(status)`: whether a response of this status is a failure. */
export type IsFailure = (status: number) => boolean;

const COUNTS: readonly Count[] = ["all", "failures", "successes"];
// Every method records unless it peeks.
export const RECORDING: readonly string[] = [...COMMANDS.values()].map((spec) => spec.method);
// What a refund repeats of the call it undoes: the same limit and shape, not its cost, block
// or wait (REFUND takes the cost's place; BLOCK with it is refused).
export const KEPT: readonly string[] = [...new Set([...[...COMMANDS.values()].flatMap((spec) => spec.shape), "name"])].sort();

type Options = Record<string, unknown>;
type Method = (...args: unknown[]) => Promise<Decision> | Decision;

/** The default: a status of 400 or more is a failure, as express-rate-limit has it. */
export const statusFailed: IsFailure = (status) => status >= 400;

/** The options object of a call's arguments, when its last argument is one. */
function optionsOf(args: unknown[]): Options | undefined {
  const last = args[args.length - 1];
  return typeof last === "object" && last !== null && !Array.isArray(last) && !Buffer.isBuffer(last) ? (last as Options) : undefined;
}

/** A limiter whose recording calls are passed on (with the middleware's `blockMs` when a
 * call gives none) and remembered, so their units can be given back. */
export class Recorder {
  private readonly calls: { method: Method; args: unknown[]; options: Options }[] = [];

  constructor(
    private readonly limiter: Limiter,
    private readonly blockMs: number | undefined,
  ) {
    for (const name of RECORDING) {
      const method = (limiter as unknown as Record<string, Method>)[name].bind(limiter);
      Object.defineProperty(this, name, { value: (...args: unknown[]) => this.record(method, args) });
    }
  }

  get name(): string {
    return this.limiter.name;
  }

  /** Passed on: a check may reset a key. */
  reset(key: Parameters<Limiter["reset"]>[0]): Promise<boolean> {
    return this.limiter.reset(key);
  }

  private record(method: Method, args: unknown[]): Promise<Decision> | Decision {
    const given = optionsOf(args);
    const options: Options = { ...given };
    const positional = given === undefined ? args : args.slice(0, -1);
    if (options.peek !== true && options.refund === undefined) {
      if (this.blockMs !== undefined && options.blockMs === undefined) options.blockMs = this.blockMs;
      this.calls.push({ method, args: positional, options });
    }
    return method(...positional, options);
  }

  /** One call per recorded call, giving its units back. */
  refunds(): (() => Promise<Decision> | Decision)[] {
    return this.calls.flatMap(({ method, args, options }) => {
      const cost = options.cost ?? 1;
      if (typeof cost !== "number" || !(cost > 0)) return [];
      const kept: Options = Object.fromEntries(KEPT.filter((k) => options[k] !== undefined).map((k) => [k, options[k]]));
      return [() => method(...args, { ...kept, refund: cost })];
    });
  }
}

/** Which requests use up the limit, and the block every call of the check asks for. */
export class Counting {
  readonly count: Count;
  readonly isFailure: IsFailure;
  readonly blockMs: number | undefined;

  constructor(count: unknown, isFailure: unknown, blockMs: unknown) {
    if (count !== undefined && !COUNTS.includes(count as Count)) {
      throw new RangeError(`count must be one of ${COUNTS.join(", ")}, not ${JSON.stringify(count)}`);
    }
    if (isFailure !== undefined && typeof isFailure !== "function") throw new TypeError("isFailure must be a function of the status");
    if (blockMs !== undefined && (typeof blockMs !== "number" || !Number.isSafeInteger(blockMs))) {
      throw new TypeError(`blockMs must be an integer, not ${typeof blockMs === "number" ? blockMs : typeof blockMs}`);
    }
    this.count = (count as Count | undefined) ?? "all";
    this.isFailure = (isFailure as IsFailure | undefined) ?? statusFailed;
    this.blockMs = blockMs;
  }

  /** The limiter as the check sees it: itself when nothing is to be refunded or added. */
  recorder(limiter: Limiter): Limiter {
    if (this.count === "all" && this.blockMs === undefined) return limiter;
    return new Recorder(limiter, this.blockMs) as unknown as Limiter;
  }

  /** Whether a request that ended with `status` (null: it never finished, or the handler
   * threw) gives its units back. */
  refunds(status: number | null): boolean {
    if (this.count === "all") return false;
    const failed = status === null || this.isFailure(status);
    return this.count === "successes" ? failed : !failed;
  }

  /** When `response` ends, gives the request's units back if it does not count, before the
   * end is passed on (as express-session saves before ending): the client's next request
   * sees the refund. A refund that fails is logged by `onError`; the response ends anyway. */
  settleOn(response: ServerResponse, decision: Decision, limiter: Limiter, onError: (error: unknown) => void): void {
    if (!decision.allowed || !((limiter as unknown) instanceof Recorder)) return;
    const recorder = limiter as unknown as Recorder;
    // Put back as it was and applied to `response` below, so it needs no binding.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    const end = response.end;
    const refunding = (...args: unknown[]): ServerResponse => {
      response.end = end;
      const due = this.refunds(response.statusCode) ? recorder.refunds() : [];
      if (due.length === 0) return (end as (...a: unknown[]) => ServerResponse).apply(response, args);
      void Promise.all(due.map((refund) => Promise.resolve().then(refund).catch(onError))).finally(() =>
        (end as (...a: unknown[]) => ServerResponse).apply(response, args),
      );
      return response;
    };
    response.end = refunding as ServerResponse["end"];
  }
}
