/**
 * Prometheus metrics per policy, on prom-client (an optional peer dependency):
 *
 *     import { Metrics } from "winlimit/metrics";
 *     const metrics = new Metrics();                       // on prom-client's default registry
 *     const limiter = new Limiter(client, { metrics });    // or rateLimit({ ..., metrics })
 *
 * - `winlimit_decisions_total{policy, outcome}`: outcome is `allowed`, `rejected`,
 *   `shadow_rejected`, `cached` (a rejection answered from the limiter's cache), `fallback` or
 *   `error` (Redis failed: no decision);
 * - `winlimit_call_seconds{backend}`: the time of each decision, `backend="redis"`, or
 *   `"memory"` for a fallback's;
 * - `winlimit_lowest_remaining{policy}`: the lowest `remaining` seen since the last scrape;
 * - `winlimit_decisions_by_source_total{policy, source}`: source `redis`, or `memory` for a
 *   fallback's decision;
 * - `winlimit_breaker_state{limiter}`: the limiter's circuit breaker, 0 closed, 1 half-open,
 *   2 open (on a cluster, its worst node's); `limiter` is the limiter's name;
 * - `winlimit_breaker_transitions_total{limiter, to, cause}`: its changes of state.
 *
 * Labels are bounded: `policy` is the binding policy's name, never a key. Pass the metrics to
 * the limiter or to the middleware, not both, or each request is counted twice.
 */

import { Counter, Gauge, Histogram, register, Registry } from "prom-client";
import type { Decision } from "./decision";
import type { MetricsSink } from "./counting";

export type { MetricsSink } from "./counting";

/** winlimit's metrics on `registry` (prom-client's default registry by default). */
export class Metrics implements MetricsSink {
  readonly decisions: Counter<"policy" | "outcome">;
  readonly callSeconds: Histogram<"backend">;
  readonly lowestRemaining: Gauge<"policy">;
  readonly bySource: Counter<"policy" | "source">;
  readonly breaker: Gauge<"limiter">;
  readonly breakerTransitions: Counter<"limiter" | "to" | "cause">;
  private lowest = new Map<string, number>();

  constructor({ registry = register }: { registry?: Registry } = {}) {
    this.decisions = new Counter({
      name: "winlimit_decisions_total",
      help: "Rate-limit decisions by policy and outcome",
      labelNames: ["policy", "outcome"],
      registers: [registry],
    });
    this.callSeconds = new Histogram({
      name: "winlimit_call_seconds",
      help: "The time of each call to the backend",
      labelNames: ["backend"],
      registers: [registry],
    });
    this.bySource = new Counter({
      name: "winlimit_decisions_by_source_total",
      help: "Rate-limit decisions by policy and source: redis, or memory (the fallback)",
      labelNames: ["policy", "source"],
      registers: [registry],
    });
    this.breaker = new Gauge({
      name: "winlimit_breaker_state",
      help: "The limiter's circuit breaker: 0 closed, 1 half-open, 2 open",
      labelNames: ["limiter"],
      registers: [registry],
    });
    this.breakerTransitions = new Counter({
      name: "winlimit_breaker_transitions_total",
      help: "The circuit breaker's changes of state, by the state changed to and the cause",
      labelNames: ["limiter", "to", "cause"],
      registers: [registry],
    });
    const lowest = () => {
      const seen = this.lowest;
      this.lowest = new Map();
      return seen;
    };
    this.lowestRemaining = new Gauge({
      name: "winlimit_lowest_remaining",
      help: "The lowest remaining seen per policy since the last scrape",
      labelNames: ["policy"],
      registers: [registry],
      collect() {
        this.reset();
        for (const [policy, remaining] of lowest()) this.set({ policy }, remaining);
      },
    });
  }

  decided(decision: Decision, shadow = false): void {
    const policy = decision.policy?.name ?? "";
    // "fallback": decided in this process (a MemoryLimiter) while Redis failed.
    const outcome =
      decision.backend === "memory" ? "fallback" : decision.allowed ? "allowed" : shadow ? "shadow_rejected" : decision.cached ? "cached" : "rejected";
    this.decisions.inc({ policy, outcome });
    this.bySource.inc({ policy, source: decision.backend === "memory" ? "memory" : "redis" });
    const seen = this.lowest.get(policy);
    if (seen === undefined || decision.remaining < seen) this.lowest.set(policy, decision.remaining);
  }

  failed(policy: string): void {
    this.decisions.inc({ policy, outcome: "error" });
  }

  timed(seconds: number, backend = "redis"): void {
    this.callSeconds.observe({ backend }, seconds);
  }

  breakerState(limiter: string, state: number): void {
    this.breaker.set({ limiter }, state);
  }

  breakerTransition(limiter: string, to: string, cause: string): void {
    this.breakerTransitions.inc({ limiter, to, cause });
  }
}
