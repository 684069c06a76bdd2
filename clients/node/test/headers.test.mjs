// The header cases every client shares (clients/spec/headers.json): each call's command line
// and policies, and the fields its decision gives for a reply, byte for byte. The Python
// client's tests read the same file (clients/python/tests/test_shared_headers.py).

import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import { test } from "node:test";
import { createClient } from "redis";
import { Decision, Limiter } from "winlimit";

const require = createRequire(import.meta.url);
// The command builder the Limiter sends from (internal, as the Python test uses _commands).
const commands = require("../dist/commands.js");
const SPEC = JSON.parse(fs.readFileSync(new URL("../../spec/headers.json", import.meta.url), "utf8"));

function build(call) {
  const options = call.options ?? {};
  const name = options.name ?? commands.DEFAULT_NAME;
  if (call.method === "slide") return commands.slide(call.key, commands.slidePairs(call.windows), options, name);
  if (call.method === "fixed") return commands.fixed(call.key, call.window_ms, call.limit, options, name);
  return commands.gcra(call.key, call.period_ms, call.limit, options, name);
}

for (const c of SPEC.cases) {
  test(`the call sends its command line: ${c.name}`, () => {
    assert.deepEqual(build(c.call).args, c.args);
  });

  test(`the reply gives the shared fields: ${c.name}`, () => {
    assert.deepEqual(Decision.fromReply(c.reply, build(c.call).policies).headers(), c.headers);
  });
}

for (const c of SPEC.errors) {
  test(`a reply without its policy refuses to give fields: ${c.name}`, () => {
    const decision = Decision.fromReply(c.reply, build(c.call).policies);
    assert.throws(() => decision.headers(), (e) => e instanceof RangeError && e.message.includes(c.error));
  });
}

for (const name of SPEC.bad_names) {
  test(`a name that is not printable ASCII is refused: ${JSON.stringify(name)}`, () => {
    // A client that never connects: the name is refused before anything is sent.
    const client = createClient({ socket: { host: "127.0.0.1", port: 1 } });
    assert.throws(() => new Limiter(client, { name }), (e) => e instanceof RangeError && /printable ASCII/.test(e.message));
  });
}
