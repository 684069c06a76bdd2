// The texts and defaults every client shares (clients/spec/constants.json), checked against
// the Node client's own. The Python client's tests read the same file (test_spec_constants.py).

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, before, test } from "node:test";
import { ModuleNotLoaded } from "winlimit";
import { LIBRARIES } from "./support/clients.mjs";
import { RedisServer } from "./support/servers.mjs";
import { CONSTANTS, commands } from "./support/spec.mjs";
import { testLimiter } from "./support/fixture.mjs";

const require = createRequire(import.meta.url);
const errors = require("../dist/errors.js");
const cache = require("../dist/cache.js");
const guard = require("../dist/guard.js");
const shadow = require("../dist/shadow.js");
const { defaults: DEFAULTS, module_not_loaded: NOT_LOADED } = CONSTANTS;

for (const [windowMs, label] of CONSTANTS.window_labels) {
  test(`a window of ${windowMs} ms is labelled ${label}`, () => {
    assert.equal(commands.windowLabel(windowMs), label);
  });
}

for (const serverText of NOT_LOADED.server_texts) {
  test(`ModuleNotLoaded adds the spec's text to the server's: ${serverText}`, () => {
    const error = errors.redisCallError(new Error(serverText));
    assert.ok(error instanceof ModuleNotLoaded);
    assert.equal(error.message, serverText + NOT_LOADED.separator + NOT_LOADED.fix);
  });
}

let bare;
before(async () => {
  bare = await RedisServer.start({ module: false });
});
after(async () => bare?.stop());

test("a server without the module gets the spec's text", async () => {
  const connection = await LIBRARIES["node-redis 6"].plain(bare.port);
  try {
    const error = await testLimiter(connection.client, { backend: "module" }).gcra("k", 60_000, 3).then(() => assert.fail("resolved"), (e) => e);
    const [serverText, fix] = error.message.split(NOT_LOADED.separator);
    assert.match(serverText, /unknown command/i);
    assert.equal(fix, NOT_LOADED.fix);
  } finally {
    await connection.close();
  }
});

test("the limiter's defaults are the spec's", () => {
  assert.equal(commands.DEFAULT_NAME, DEFAULTS.name);
  assert.equal(cache.DEFAULT_CACHE_SIZE, DEFAULTS.cache_size);
});

test("the middleware's defaults are the spec's", () => {
  assert.equal(guard.DEFAULT_PREFIX, DEFAULTS.prefix);
  assert.equal(guard.DEFAULT_TIMEOUT_MS, DEFAULTS.timeout_ms);
  assert.equal(shadow.SHADOW_LOG_KEYS, DEFAULTS.shadow_log_keys);
});
