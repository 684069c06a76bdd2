/**
 * What the limiter and the middleware tell a `Metrics` (winlimit/metrics), when they have one:
 * by this interface, so prom-client is needed only by whoever makes the Metrics.
 */

import type { Decision } from "./decision";

/** Where decisions are counted: `Metrics` from winlimit/metrics. */
export interface MetricsSink {
  /** A decision; `shadow`: a rejection shadow mode let through. */
  decided(decision: Decision, shadow?: boolean): void;
  /** A call that got no decision (Redis failed or gave no answer in time), for `policy`. */
  failed(policy: string): void;
  /** The time of one call to the backend ("redis", or "memory" for a fallback's decision). */
  timed(seconds: number, backend?: string): void;
  /** A limiter's circuit breaker state: 0 closed, 1 half-open, 2 open (its worst node's). */
  breakerState?(limiter: string, state: number): void;
  /** A breaker's change of state, to `to` ("open", "half_open", "closed") because of `cause`. */
  breakerTransition?(limiter: string, to: string, cause: string): void;
}

/** Counts `decision`, and the call's time since `startedMs` (performance.now()) unless it
 * came from the cache; returns it. */
export function decided(metrics: MetricsSink | undefined, decision: Decision, startedMs?: number, shadow = false): Decision {
  if (metrics !== undefined) {
    if (startedMs !== undefined && !decision.cached) {
      metrics.timed((performance.now() - startedMs) / 1000, decision.backend === "memory" ? "memory" : "redis");
    }
    metrics.decided(decision, shadow);
  }
  return decision;
}
