/**
 * The header styles of the middleware (`headers`): which fields a decision gives, and how the
 * fields of two middlewares on one request combine. The rules are the clients' shared ones
 * (clients/spec/header_styles.json).
 */

import { ceilSeconds, Decision } from "./decision";

/** `"draft-11"` (the default), `"draft-7"`, `"legacy"`, or `null` for no fields but Retry-After. */
export type HeaderStyle = "draft-11" | "draft-7" | "legacy" | null;

export const STYLES: readonly HeaderStyle[] = ["draft-11", "draft-7", "legacy", null];
export const DEFAULT_STYLE: HeaderStyle = "draft-11";
/** Every field a style may send. */
export const FIELDS = ["RateLimit-Policy", "RateLimit", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"];

export function checkStyle(style: unknown): HeaderStyle {
  if (!STYLES.includes(style as HeaderStyle)) {
    throw new RangeError(`headers must be one of ${STYLES.map((s) => JSON.stringify(s)).join(", ")}, not ${JSON.stringify(style)}`);
  }
  return style as HeaderStyle;
}

/** The response fields of `decision` in `style`; `nowMs` (the wall clock, by default) dates
 * legacy's X-RateLimit-Reset. */
export function fields(decision: Decision, style: HeaderStyle, nowMs: number = Date.now()): Record<string, string> {
  const draft11 = decision.headers();
  let out: Record<string, string> = {};
  if (style === "draft-11") {
    out = { "RateLimit-Policy": draft11["RateLimit-Policy"], RateLimit: draft11["RateLimit"] };
  } else if (style !== null) {
    const policy = decision.policy!; // headers() threw otherwise
    const rejectedForNow = !decision.allowed && decision.retryAfterMs > 0;
    const resetMs = rejectedForNow ? Math.min(decision.resetAfterMs, decision.retryAfterMs) : decision.resetAfterMs;
    out =
      style === "draft-7"
        ? {
            "RateLimit-Policy": `${policy.quota};w=${ceilSeconds(policy.windowMs)}`,
            RateLimit: `limit=${policy.quota}, remaining=${decision.remaining}, reset=${ceilSeconds(resetMs)}`,
          }
        : {
            "X-RateLimit-Limit": String(policy.quota),
            "X-RateLimit-Remaining": String(decision.remaining),
            "X-RateLimit-Reset": String(Math.ceil((nowMs + resetMs) / 1000)),
          };
  }
  if (draft11["Retry-After"] !== undefined) out["Retry-After"] = draft11["Retry-After"];
  return out;
}

/** The fields for a response that has `on` (another middleware's, by field name) and gets
 * `added`: draft-11 lists both policies; draft-7 and legacy keep the fields of the one with the
 * least remaining (`on` on a tie); Retry-After is `on`'s if it has one. */
export function merged(on: Record<string, string>, added: Record<string, string>, style: HeaderStyle): Record<string, string> {
  if (!FIELDS.some((name) => name in on)) return added;
  let out: Record<string, string>;
  if (style === "draft-11") {
    out = {};
    for (const name of ["RateLimit-Policy", "RateLimit"]) out[name] = name in on ? `${on[name]}, ${added[name]}` : added[name];
  } else {
    const kept = style !== null && remaining(added, style) < remaining(on, style) ? added : on;
    out = Object.fromEntries(Object.entries(kept).filter(([name]) => FIELDS.includes(name) && name !== "Retry-After"));
  }
  const retry = on["Retry-After"] ?? added["Retry-After"];
  if (retry !== undefined) out["Retry-After"] = retry;
  return out;
}

function remaining(fields: Record<string, string>, style: "draft-7" | "legacy"): number {
  const text = style === "legacy" ? fields["X-RateLimit-Remaining"] : /remaining=(\d+)/.exec(fields["RateLimit"] ?? "")?.[1];
  const n = Number(text);
  return text === undefined || !Number.isSafeInteger(n) ? Number.MAX_SAFE_INTEGER : n; // not this style: ours has less
}

/** The rate-limit fields on a response so far, by their names here, read with `get`. */
export function fieldsOn(get: (name: string) => unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of FIELDS) {
    const value = get(name);
    if (value !== undefined && value !== null) out[name] = Array.isArray(value) ? value.join(", ") : `${value as string | number}`;
  }
  return out;
}
