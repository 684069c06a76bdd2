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
 * - `winlimit_call_seconds{backend}`: the time of each call to Redis (`backend="redis"`);
 * - `winlimit_lowest_remaining{policy}`: the lowest `remaining` seen since the last scrape.
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
    const outcome = decision.allowed ? "allowed" : shadow ? "shadow_rejected" : decision.cached ? "cached" : "rejected";
    this.decisions.inc({ policy, outcome });
    const seen = this.lowest.get(policy);
    if (seen === undefined || decision.remaining < seen) this.lowest.set(policy, decision.remaining);
  }

  failed(policy: string): void {
    this.decisions.inc({ policy, outcome: "error" });
  }

  timed(seconds: number, backend = "redis"): void {
    this.callSeconds.observe({ backend }, seconds);
  }
}
