// What the Node limiter adds to a request while Redis hangs (SIGSTOP) or is gone (killed, its
// port closed): p50 and p99 of one limiter call (and of one whole request through a real
// Express app), with the circuit breaker open, against the breaker off (each call waits the
// limiter's timeout, 1 s, before the fallback answers), and against Redis up. Writes
// bench/results/node-breaker.md. Run by `make bench-node-breaker` (after `npm run build`).

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Limiter, MemoryLimiter } from "winlimit";
import { withApp } from "../test/support/apps.mjs";
import { LIBRARIES } from "../test/support/clients.mjs";
import { RedisServer, SERVER_BIN, BACKEND } from "../test/support/servers.mjs";

const RESULTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "bench", "results", "node-breaker.md");
const FAST_CALLS = 5000; // calls answered at once: Redis up, or the breaker open
const SLOW_CALLS = 10; // calls that wait the whole timeout: the breaker off
const check = (l, key) => l.fixed(key, 60_000, 1_000_000);

function percentiles(times) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  return { n: sorted.length, p50: at(50), p99: at(99) };
}

/** The time of each of `n` calls of `call`, one after another, in ms. */
async function timed(n, call) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await call(i);
    times.push(performance.now() - start);
  }
  return percentiles(times);
}

/** A server, a node-redis client on it (default options: its offline queue holds calls
 * while the server is gone), and a limiter with a fallback. */
async function setUp(limiterOptions) {
  const server = await RedisServer.start();
  const conn = await LIBRARIES["node-redis 6"].plain(server.port);
  const limiter = new Limiter(conn.client, { fallback: new MemoryLimiter(), logger: () => {}, ...limiterOptions });
  await limiter.fixed("warm-up", 1000, 1);
  const close = async () => {
    if (server.proc.exitCode === null && server.proc.signalCode === null) server.proc.kill("SIGCONT");
    await conn.close();
    await server.stop();
  };
  return { server, conn, limiter, close };
}

/** Makes Redis unavailable: "hung" stops the process, "gone" kills it (its port closed). */
async function outage(s, kind) {
  if (kind === "hung") s.server.proc.kill("SIGSTOP");
  else await s.server.stop({ keepDir: true });
}

async function scenario(kind, breaker) {
  const s = await setUp(breaker ? { openMs: 3_600_000 } : { breaker: false });
  return measured(s, kind, breaker);
}

/** Without a fallback, the open breaker's call rejects at once (BreakerOpen). */
async function failFast(kind) {
  const s = await setUp({ openMs: 3_600_000, fallback: undefined });
  await outage(s, kind);
  const rejected = (call) => call.then(() => assert(false, "no rejection"), () => undefined);
  try {
    for (let i = 0; i < 3; i++) await rejected(s.limiter.fixed("opening", 60_000, 1_000_000));
    return await timed(FAST_CALLS, (i) => rejected(s.limiter.fixed(`down:${i % 100}`, 60_000, 1_000_000)));
  } finally {
    await s.close();
  }
}

async function measured(s, kind, breaker) {
  try {
    const up = await timed(FAST_CALLS, (i) => s.limiter.fixed(`up:${i % 100}`, 60_000, 1_000_000));
    await outage(s, kind);
    // With the breaker on, its first three calls wait the timeout and open it; not timed.
    if (breaker) for (let i = 0; i < 3; i++) await s.limiter.fixed("opening", 60_000, 1_000_000);
    const down = await timed(breaker ? FAST_CALLS : SLOW_CALLS, (i) => s.limiter.fixed(`down:${i % 100}`, 60_000, 1_000_000));
    const http = breaker ? await overHttp(s.limiter) : undefined;
    return { up, down, http };
  } finally {
    await s.close();
  }
}

/** Whole requests through a real Express app with the breaker open. */
async function overHttp(limiter) {
  return withApp("express", { limiter, check }, (get) => timed(FAST_CALLS / 5, () => get().then((r) => r.arrayBuffer())));
}

async function baselineHttp() {
  const s = await setUp({});
  try {
    return await withApp("express", { limiter: s.limiter, check }, (get) => timed(FAST_CALLS / 5, () => get().then((r) => r.arrayBuffer())));
  } finally {
    await s.close();
  }
}

const ms = (x) => (x < 10 ? x.toFixed(3) : x.toFixed(0));
const row = (what, r) => `| ${what} | ${r.n} | ${ms(r.p50)} | ${ms(r.p99)} |`;

const results = {};
for (const kind of ["hung", "gone"]) {
  results[`${kind} off`] = await scenario(kind, false);
  results[`${kind} on`] = await scenario(kind, true);
  results[`${kind} fast`] = await failFast(kind);
}
const httpUp = await baselineHttp();

const lines = [
  "# The Node limiter while Redis hangs: the circuit breaker",
  "",
  `\`make bench-node-breaker\` (clients/node/bench/breaker.mjs), ${new Date().toISOString().slice(0, 10)}, Node ${process.version},`,
  `${path.basename(path.dirname(path.dirname(SERVER_BIN)))} on the ${BACKEND} backend, node-redis 6 with its default options, on a shared 2-core machine.`,
  "Times in ms, one call after another. \"hung\": the server stopped by SIGSTOP; \"gone\": killed, its port closed",
  "(node-redis holds calls in its offline queue). The limiter has a MemoryLimiter fallback and its default",
  "1,000 ms call timeout. Breaker off: every call waits the timeout before the fallback answers; breaker open:",
  "the fallback answers at once, nothing is sent.",
  "",
  "| limiter call | calls | p50 | p99 |",
  "|---|---:|---:|---:|",
  row("Redis up", results["hung on"].up),
];
for (const kind of ["hung", "gone"]) {
  lines.push(row(`Redis ${kind}, breaker off (before)`, results[`${kind} off`].down));
  lines.push(row(`Redis ${kind}, breaker open`, results[`${kind} on`].down));
  lines.push(row(`Redis ${kind}, breaker open, no fallback (rejects: BreakerOpen)`, results[`${kind} fast`]));
}
lines.push("", "| whole request through Express (fetch on loopback) | requests | p50 | p99 |", "|---|---:|---:|---:|");
lines.push(row("Redis up", httpUp));
for (const kind of ["hung", "gone"]) lines.push(row(`Redis ${kind}, breaker open`, results[`${kind} on`].http));
lines.push("");
fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
fs.writeFileSync(RESULTS, lines.join("\n"));
console.log(lines.join("\n"));
