// Express: 3 SMS per hour per user, a sliding hour on the server's clock.
// Run: REDIS_URL=redis://127.0.0.1:6379 PORT=8000 node app.mjs (after npm ci in examples/).
// The fourth POST /sms/:user within an hour gets a 429 with Retry-After.

import express from "express";

// --8<-- [start:limit]
import { createClient } from "redis";
import { Limiter } from "winlimit";
import { rateLimit } from "winlimit/express";

const redis = await createClient({ url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" }).connect();
const limiter = new Limiter(redis);

const threePerHour = rateLimit({
  limiter,
  check: (l, key) => l.slide(key, 3_600_000, 3),
  key: (req) => req.params.user,
  prefix: "sms:",
});
// --8<-- [end:limit]

const app = express();

// --8<-- [start:route]
app.post("/sms/:user", threePerHour, (req, res) => {
  res.json({ sent_to: req.params.user });
});
// --8<-- [end:route]

const server = app.listen(Number(process.env.PORT ?? 8000), "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
