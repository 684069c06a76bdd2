/**
 * A limiter's circuit breakers, one per server (per cluster node), with what an outage shows:
 * one warning when a breaker opens, one info line when it closes, and the breaker metrics
 * (winlimit_breaker_state, winlimit_breaker_transitions_total).
 */

import { Breaker, BreakerOptions, checkBreakerOptions, STATE_VALUE, Ticket, Transition } from "./breaker";
import type { MetricsSink } from "./counting";
import { BreakerOpen } from "./errors";

/** Where the limiter writes the breaker's lines. */
export type BreakerLogger = (message: string, level: "warn" | "info") => void;

export class Breakers {
  private readonly byNode = new Map<string, Breaker>();
  private readonly options: Required<BreakerOptions>;

  constructor(
    options: BreakerOptions,
    private readonly limiter: string,
    private readonly hasFallback: boolean,
    private readonly logger: BreakerLogger,
    private readonly metrics: MetricsSink | undefined,
  ) {
    this.options = checkBreakerOptions(options);
    metrics?.breakerState?.(limiter, STATE_VALUE.closed);
  }

  get enabled(): boolean {
    return this.options.breaker;
  }

  /** The breaker of `node` ("host:port", or "" for a single server). */
  of(node: string): Breaker {
    let breaker = this.byNode.get(node);
    if (breaker === undefined) {
      breaker = new Breaker(this.options);
      this.byNode.set(node, breaker);
    }
    return breaker;
  }

  /** Whether a call to `node` is sent (and as what), or answered as open. */
  admit(node: string): Ticket {
    const breaker = this.of(node);
    const [ticket, transition] = breaker.admit();
    this.record(node, breaker, transition);
    return ticket;
  }

  /** The end of a call: `failure` when it counts as one. */
  settle(node: string, ticket: Ticket, failure: Error | undefined): void {
    const breaker = this.of(node);
    this.record(node, breaker, breaker.settle(ticket, failure !== undefined), failure);
  }

  /** The error of a call answered as open, without a fallback. */
  openError(node: string): BreakerOpen {
    const breaker = this.of(node);
    const left = breaker.state === "open" ? Math.max(0, Math.ceil(breaker.openUntilMs - performance.now())) : 0;
    const where = node === "" ? "Redis" : `Redis node ${node}`;
    const when = breaker.state === "open" ? `the next try in ${left} ms` : "a probe is under way";
    return new BreakerOpen(`the circuit breaker is open: ${where} failed; nothing sent (${when})`, left);
  }

  private record(node: string, breaker: Breaker, transition: Transition | undefined, failure?: Error): void {
    if (transition === undefined) return;
    this.metrics?.breakerTransition?.(this.limiter, transition.to, transition.cause);
    this.metrics?.breakerState?.(this.limiter, this.worst());
    const where = node === "" ? "Redis" : `Redis node ${node}`;
    if (transition.cause === "failures") {
      const cause = failure?.cause instanceof Error ? failure.cause : failure;
      const then = this.hasFallback ? "deciding by the in-process fallback (its limits count per process)" : "failing fast";
      this.logger(
        `winlimit: ${where} failed ${breaker.failures} time(s) in a row (${cause?.name ?? "Error"}: ${failure?.message ?? ""}): ` +
          `circuit breaker open, sending nothing for ${breaker.openPeriodMs} ms and ${then}; then one probe call, ` +
          `the wait doubling up to ${breaker.maxOpenMs} ms while Redis still fails`,
        "warn",
      );
    } else if (transition.to === "closed") {
      this.logger(`winlimit: ${where} answers again: circuit breaker closed, deciding by Redis`, "info");
    }
  }

  /** The limiter's state for winlimit_breaker_state: its worst node's. */
  private worst(): number {
    let worst = 0;
    for (const breaker of this.byNode.values()) worst = Math.max(worst, STATE_VALUE[breaker.state]);
    return worst;
  }
}
