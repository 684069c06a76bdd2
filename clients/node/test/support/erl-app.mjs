// An Express app limited by express-rate-limit with a WinlimitStore, served on a free
// loopback port for the tests to call with fetch. `/` answers 200, `/fail` 500.

import express from "express";
import { rateLimit } from "express-rate-limit";
import { once } from "node:events";
import { WinlimitStore } from "winlimit/express-rate-limit";

/** A WinlimitStore that counts its finished decrements, so a test can wait for the refunds
 * express-rate-limit starts after a response has been sent. */
export class WatchedStore extends WinlimitStore {
  decrements = 0;
  #waiters = [];

  async decrement(key) {
    try {
      await super.decrement(key);
    } finally {
      this.decrements += 1;
      for (const waiter of this.#waiters.splice(0)) waiter();
    }
  }

  /** Resolves once `n` decrements have finished. */
  async decremented(n) {
    while (this.decrements < n) await new Promise((resolve) => this.#waiters.push(resolve));
  }
}

/** Serves an app with rateLimit({ ...options, store }) (the key is the `x-client` header);
 * resolves to { url, limiter (the middleware), get(path, client), close }. */
export async function erlApp({ store, ...options }) {
  const app = express();
  const limiter = rateLimit({ keyGenerator: (req) => String(req.headers["x-client"] ?? "anonymous"), store, ...options });
  app.use(limiter);
  app.get("/", (req, res) => res.type("text/plain").send("hello"));
  app.get("/fail", (req, res) => res.status(500).type("text/plain").send("failed"));
  const server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    limiter,
    get: (path = "/", client = "c1") => fetch(url + path, { headers: { "x-client": client } }),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Serves, runs `body(app)`, closes. */
export async function withErl(options, body) {
  const app = await erlApp(options);
  try {
    return await body(app);
  } finally {
    await app.close();
  }
}
