/**
 * A rate-limit decision, the policies it was checked against, and the HTTP header fields of
 * draft-ietf-httpapi-ratelimit-headers (revision 11) they map to. Mirrors the Python
 * client's `winlimit._decision`, field for field.
 */

/** The edition that answered a call (defined here, where decisions name it, and re-exported
 * by ./backend: a decision imports nothing of the backends). */
export type Backend = "module" | "functions" | "scripts";

/** What answered a decision: one of winlimit's editions in Redis, or the in-process memory
 * limiter (a middleware's fallback). */
export type Answerer = Backend | "memory";

/** Whole seconds, rounded up (the draft's fields carry no fractions; rounding down would
 * tell a client to come back too early). */
export function ceilSeconds(ms: number): number {
  const whole = Math.trunc(ms / 1000);
  return whole * 1000 < ms ? whole + 1 : whole + 0; // + 0: never -0
}

/** `value` serialised as a Structured Field String (RFC 9651, section 4.1.6): printable
 * ASCII only, with `"` and `\` escaped. Throws RangeError for anything else. */
export function sfString(value: string): string {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) {
      throw new RangeError(`a policy name must be printable ASCII, not ${JSON.stringify(value)}`);
    }
  }
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/**
 * One quota policy as `RateLimit-Policy` announces it: `quota` units per `windowMs`.
 *
 * For the windows, a (windowMs, limit) pair of the call. For GCRA, the bucket: `quota` is
 * its capacity (`BURST`) and `windowMs` the time it takes to refill from empty
 * (`BURST * period_ms / limit`, rounded up), so `quota / window` is the long-run rate.
 */
export interface Policy {
  readonly name: string;
  readonly quota: number;
  readonly windowMs: number;
}

/** What a Decision is made of. */
export interface DecisionFields {
  allowed: boolean;
  limit: number;
  remaining: number;
  retryAfterMs: number;
  resetAfterMs: number;
  policies?: readonly Policy[];
  waitedMs?: number;
  cached?: boolean;
  backend?: Answerer;
}

/**
 * The five fields every winlimit command replies, by name, and the policies of the call.
 *
 * `limit`, `remaining` and `resetAfterMs` describe the binding pair of the call (for
 * several windows: see docs/reference/replies-and-errors.md, "Reply"); `policies` lists every policy the
 * call checked, and `policy` is the binding one.
 */
export class Decision {
  /** True if the request was accepted and recorded (peek: would be accepted now). */
  readonly allowed: boolean;
  /** The limit of the binding pair (GCRA: the bucket's capacity). */
  readonly limit: number;
  /** Units still available in the binding pair's window after this call. */
  readonly remaining: number;
  /** 0 when allowed; else the least wait after which the same request is accepted; -1 when it never can. */
  readonly retryAfterMs: number;
  /** Ms until nothing counts in the binding pair's window (GCRA: until the bucket is full). */
  readonly resetAfterMs: number;
  /** Every policy the call checked. */
  readonly policies: readonly Policy[];
  /** How long the call slept in all before this decision (`waitMs`); 0 when it did not. */
  readonly waitedMs: number;
  /** True when the decision came from the limiter's cache of rejections, not from Redis. */
  readonly cached: boolean;
  /** Which edition of winlimit answered: "module", "functions" (the library, by FCALL),
   * "scripts" (EVALSHA), or "memory" (winlimit's MemoryLimiter, in this process). */
  readonly backend: Answerer;

  constructor(fields: DecisionFields) {
    this.allowed = fields.allowed;
    this.limit = fields.limit;
    this.remaining = fields.remaining;
    this.retryAfterMs = fields.retryAfterMs;
    this.resetAfterMs = fields.resetAfterMs;
    this.policies = Object.freeze([...(fields.policies ?? [])]);
    this.waitedMs = fields.waitedMs ?? 0;
    this.cached = fields.cached ?? false;
    this.backend = fields.backend ?? "module";
  }

  /** A decision from a command's five-integer reply. */
  static fromReply(reply: unknown, policies: readonly Policy[], backend: Answerer = "module"): Decision {
    const fields = Array.isArray(reply) && reply.length === 5 ? reply.map(Number) : [];
    if (fields.length !== 5 || !fields.every(Number.isSafeInteger)) {
      throw new TypeError(`a winlimit reply has five integers, not ${JSON.stringify(reply)}`);
    }
    const [allowed, limit, remaining, retryAfterMs, resetAfterMs] = fields as [number, number, number, number, number];
    return new Decision({ allowed: allowed === 1, limit, remaining, retryAfterMs, resetAfterMs, policies, backend });
  }

  /** The binding policy: the one whose quota is the reply's `limit`; of several, the
   * longest window (the module's tie rule). Undefined if none matches. */
  get policy(): Policy | undefined {
    let best: Policy | undefined;
    for (const p of this.policies) {
      if (p.quota === this.limit && (best === undefined || p.windowMs > best.windowMs)) best = p;
    }
    return best;
  }

  /** The binding policy's window in ms (undefined if the decision has no such policy). */
  get windowMs(): number | undefined {
    return this.policy?.windowMs;
  }

  /**
   * The response header fields for this decision.
   *
   * - `RateLimit-Policy`: every policy of the call, `"<name>";q=<quota>;w=<window s>`.
   * - `RateLimit`: the binding policy, `"<name>";r=<remaining>;t=<reset s>`.
   * - `Retry-After`, when rejected and a retry can succeed: whole seconds, rounded up, at
   *   least 1; `t` is then at most `Retry-After`.
   *
   * Throws RangeError for a decision without its binding policy.
   */
  headers(): Record<string, string> {
    const policy = this.policy;
    if (policy === undefined) {
      throw new RangeError(
        `this decision has no policy whose quota is its limit (${this.limit}): ${JSON.stringify(this.policies)}`,
      );
    }
    const out: Record<string, string> = {
      "RateLimit-Policy": this.policies
        .map((p) => `${sfString(p.name)};q=${p.quota};w=${ceilSeconds(p.windowMs)}`)
        .join(", "),
    };
    let t = ceilSeconds(this.resetAfterMs);
    let retry: number | undefined;
    if (!this.allowed && this.retryAfterMs > 0) {
      retry = Math.max(1, ceilSeconds(this.retryAfterMs));
      t = Math.min(t, retry);
    }
    out["RateLimit"] = `${sfString(policy.name)};r=${this.remaining};t=${t}`;
    if (retry !== undefined) out["Retry-After"] = String(retry);
    return out;
  }
}
