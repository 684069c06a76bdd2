// What the suite's backend (WINLIMIT_CLIENT_BACKEND) sends to the server for a WINLIMIT
// command, so tests that count or compare commands read the same on every backend.

import { createRequire } from "node:module";
import { BACKEND } from "./servers.mjs";

// The library built into the package (dist/lua.js, made by scripts/embed-lua.py).
const { LIBRARY, SCRIPT } = createRequire(import.meta.url)("../../dist/lua.js");

/** The INFO commandstats name a WINLIMIT command (any case) reaches the server as. */
export function sentAs(command) {
  const lower = command.toLowerCase();
  if (BACKEND === "module") return lower;
  if (BACKEND === "scripts") return "evalsha";
  return lower.endsWith("_ro") ? "fcall_ro" : "fcall";
}

/** A pattern for the commandstats lines of every command a WINLIMIT call reaches the server as. */
export const SENT_LINES = { module: /^cmdstat_winlimit[^:]*:calls=(\d+)/gm, functions: /^cmdstat_fcall(?:_ro)?:calls=(\d+)/gm, scripts: /^cmdstat_evalsha:calls=(\d+)/gm }[BACKEND];

/** A WINLIMIT command line as the backend sends it, with the library or script loaded on
 * `admin`'s server (node-redis). */
export async function asSent(admin, args) {
  if (BACKEND === "module") return args;
  const name = args[0].toLowerCase().replace(".", "_");
  if (BACKEND === "functions") {
    await admin.sendCommand(["FUNCTION", "LOAD", "REPLACE", LIBRARY]);
    return [name.endsWith("_ro") ? "FCALL_RO" : "FCALL", name, "1", ...args.slice(1)];
  }
  const sha = await admin.sendCommand(["SCRIPT", "LOAD", SCRIPT]);
  return ["EVALSHA", sha, "1", args[1], name, ...args.slice(2)];
}

export { LIBRARY, SCRIPT };
