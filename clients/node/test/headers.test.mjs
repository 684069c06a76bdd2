// The header cases every client shares (clients/spec/headers.json): each call's command line
// and policies, and the fields its decision gives for a reply, byte for byte. The Python
// client's tests read the same file (clients/python/tests/test_shared_headers.py).

import assert from "node:assert/strict";
import { test } from "node:test";
import { createClient } from "redis";
import { Decision, Limiter } from "winlimit";
import { build, load } from "./support/spec.mjs";

const SPEC = load("headers.json");

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
