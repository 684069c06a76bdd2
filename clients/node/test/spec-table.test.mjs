// The client's lists of commands are the module's command table
// (clients/spec/command_table.json, generated from src/redis/commands.rs): the methods a
// middleware's refund records, the options a refund repeats, and the commands the memory
// limiter answers. Each is read from one registry, `COMMANDS` in src/commands.ts, where every
// builder declares its command, state kind and shape options (the installed package reads no
// file outside itself); these tests fail naming the row the registry misses. The Python client runs the
// same checks (clients/python/tests/test_spec_table.py).

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import { MemoryLimiter, RedisCallError } from "winlimit";
import { load } from "./support/spec.mjs";

const require = createRequire(import.meta.url);
const refund = require("../dist/refund.js");
const commands = require("../dist/commands.js");

const TABLE = load("command_table.json").commands;
const CLIENT_ROWS = TABLE.filter((row) => row.method !== null);
// Options the clients alone have: the policy's name in the headers.
const CLIENT_ONLY = ["name"];

const sorted = (items) => [...new Set(items)].sort();

const WRITERS = CLIENT_ROWS.filter((row) => row.records);
const READERS = new Map(CLIENT_ROWS.filter((row) => !row.records).map((row) => [row.name, row]));

for (const row of WRITERS) {
  test(`${row.name} is declared once with the table's method and state`, () => {
    const spec = commands.COMMANDS.get(row.name);
    assert.ok(spec, `src/commands.ts declares no ${row.name}`);
    assert.deepEqual([spec.method, spec.state], [row.method, row.state]);
  });

  test(`${row.name}'s shape is its reader's options but the cost`, () => {
    const shape = READERS.get(row.partner).options.map((o) => o.client).filter((o) => o !== "cost");
    assert.deepEqual(sorted(commands.COMMANDS.get(row.name).shape), sorted(shape));
  });
}

test("the client declares no command the table lacks", () => {
  const names = new Set(WRITERS.map((row) => row.name));
  for (const name of commands.COMMANDS.keys()) assert.ok(names.has(name), `${name} is not in the table`);
});

test("a new command of a known state needs no memory code", () => {
  // A counter command without ALIGN, declared as a builder would declare it: the memory
  // limiter answers it as a counter and refuses FIXED's ALIGN in the module's words.
  commands.COMMANDS.set("WINLIMIT.SCRATCH", { command: "WINLIMIT.SCRATCH", method: "scratch", state: "counter", shape: [] });
  try {
    const limiter = new MemoryLimiter({ clock: () => 1000 });
    assert.equal(limiter.executeCommand(["WINLIMIT.SCRATCH", "k", "1000", "1"])[0], 1);
    assert.equal(limiter.executeCommand(["WINLIMIT.SCRATCH", "k", "1000", "1"])[0], 0);
    assert.throws(() => limiter.executeCommand(["WINLIMIT.SCRATCH", "k2", "1000", "1", "align"]), { message: "ERR unknown option 'align'" });
  } finally {
    commands.COMMANDS.delete("WINLIMIT.SCRATCH");
  }
});

test("refunds record every method that records", () => {
  const expected = sorted(CLIENT_ROWS.filter((row) => row.records).map((row) => row.method));
  assert.deepEqual(sorted(refund.RECORDING), expected, "RECORDING is not the table's recording methods");
});

test("a refund repeats every option that shapes the limit", () => {
  // The shape of a call is what its _RO reader takes too, its cost aside.
  const shape = CLIENT_ROWS.filter((row) => !row.records).flatMap((row) => row.options.map((o) => o.client));
  const expected = sorted([...shape.filter((o) => o !== "cost"), ...CLIENT_ONLY]);
  assert.deepEqual(sorted(refund.KEPT), expected, "KEPT is not the table's shape options");
});

for (const row of CLIENT_ROWS) {
  test(`the memory limiter answers ${row.name}`, () => {
    // No arguments: the command's own parser answers (a range error), not the dispatch.
    assert.throws(
      () => new MemoryLimiter().executeCommand([row.name, "key"]),
      (error) => error instanceof RedisCallError && !error.message.includes("unknown command"),
      `the memory limiter does not answer ${row.name}`,
    );
  });
}

test("the memory limiter refuses a command the table lacks", () => {
  assert.throws(() => new MemoryLimiter().executeCommand(["WINLIMIT.NOPE", "key", "1000", "5"]), /unknown command/);
});
