// The command cases every client shares (clients/spec/commands.json): each method's command
// line and policies, the methods the limiter has, and the builder refusing a method the spec
// does not list. The Python client's tests read the same file (test_spec_commands.py).

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Limiter } from "winlimit";
import { RedisServer, adminClient } from "./support/servers.mjs";
import { COMMANDS, build, camel } from "./support/spec.mjs";

for (const c of COMMANDS.cases) {
  test(`the call sends its command line: ${c.name}`, () => {
    assert.deepEqual(build(c.call).args, c.args);
  });

  test(`the call reports its policies: ${c.name}`, () => {
    assert.deepEqual(build(c.call).policies, c.policies.map(camel));
  });

  test(`the command is the method's own, _RO for a peek: ${c.name}`, () => {
    const command = COMMANDS.methods[c.call.method].command;
    assert.equal(c.args[0], c.call.options.peek ? `${command}_RO` : command);
  });
}

test("the limiter has exactly the spec's methods and helpers", () => {
  // Its own and its base class's (slide, fixed and gcra are shared with MemoryLimiter).
  const own = new Set();
  for (let proto = Limiter.prototype; proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) if (name !== "constructor") own.add(name);
  }
  const methods = [...own].filter((name) => typeof Limiter.prototype[name] === "function" && !isPrivate(name));
  assert.deepEqual(methods.sort(), [...Object.keys(COMMANDS.methods), ...Object.keys(COMMANDS.helpers)].sort());
});

// TypeScript's `private` methods are ordinary properties at run time: these are the limiter's.
const PRIVATE = new Set(["run", "once", "guarded", "withinTimeout"]);
const isPrivate = (name) => PRIVATE.has(name);

test("every method has a case and every option of it is exercised", () => {
  for (const [method, described] of Object.entries(COMMANDS.methods)) {
    const used = new Set(COMMANDS.cases.filter((c) => c.call.method === method).flatMap((c) => Object.keys(c.call.options)));
    assert.deepEqual([...used].sort(), [...described.options].sort(), method);
  }
});

for (const method of COMMANDS.unknown_methods) {
  test(`a method the spec does not list fails loudly: ${JSON.stringify(method)}`, () => {
    assert.throws(() => build({ method, args: ["k", 60_000, 10], options: {} }), /lists no method/);
  });
}

describe("against the module", () => {

  test("every WINLIMIT command of the server is a spec method or its peek", async () => {
    // COMMAND lists what the loaded module registers: a command no spec method sends would be
    // a command neither client has, and a spec command the server lacks a stale spec.
    // A server with the module whatever the suite's backend.
    const server = await RedisServer.start({ module: true });
    const admin = await adminClient(server.port);
    const all = await admin.sendCommand(["COMMAND"]).finally(async () => {
      await admin.close();
      await server.stop();
    });
    // Administration (WINLIMIT.RESETSTAT, flagged admin as CONFIG RESETSTAT is) is no limiter's.
    const limiting = all.filter((info) => !info[2].map(String).includes("admin"));
    const served = new Set(limiting.map((info) => String(info[0]).toUpperCase()).filter((name) => name.startsWith("WINLIMIT.")));
    const sent = Object.values(COMMANDS.methods).map((m) => m.command);
    assert.deepEqual([...served].sort(), [...sent, ...sent.map((c) => `${c}_RO`)].sort());
  });
});
