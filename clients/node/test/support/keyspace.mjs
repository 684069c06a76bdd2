// Server times read by the tests, exact on every server (clients/spec/README.md, "Server
// time in tests").

import { REDIS_6 } from "./servers.mjs";

const msOf = ([s, us]) => Number(s) * 1000 + Math.floor(Number(us) / 1000);

/** The server's clock in ms (TIME, floored to the ms). */
export async function serverMs(admin) {
  return msOf(await admin.sendCommand(["TIME"]));
}

/** A key's absolute expiry in ms (-1: none, -2: no key), exactly. Redis 6 has no PEXPIRETIME
 * and reads its clock afresh for each command, so PTTL is read between two TIMEs (in order,
 * in one transaction) and retried until both fall in the same ms: then TIME + PTTL is the
 * stored absolute time, never one ms short. */
export async function pexpiretime(admin, key) {
  if (!REDIS_6) return admin.sendCommand(["PEXPIRETIME", key]);
  for (let i = 0; i < 100; i++) {
    const [before, ttl, after] = await admin.multi().addCommand(["TIME"]).addCommand(["PTTL", key]).addCommand(["TIME"]).exec();
    if (msOf(before) === msOf(after)) return ttl < 0 ? ttl : msOf(before) + ttl;
  }
  throw new Error("the clock never held still for one transaction");
}
