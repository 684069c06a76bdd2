// The cases every client shares (clients/spec/*.json), read once, and the one builder that
// turns a spec call into the command line the limiter sends. The Python client's tests read
// the same files (clients/python/tests/shared_spec.py).

import fs from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
// The command builders the Limiter sends from (internal, as the Python tests use _commands).
export const commands = require("../../dist/commands.js");

export function load(name) {
  return JSON.parse(fs.readFileSync(new URL(`../../../spec/${name}`, import.meta.url), "utf8"));
}

export const COMMANDS = load("commands.json");
export const CONSTANTS = load("constants.json");

/** snake_case option names of the spec as the Node client spells them (camelCase). */
export function camel(options = {}) {
  return Object.fromEntries(Object.entries(options).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c) => c.toUpperCase()), v]));
}

/** The Call of a spec call: its method's builder, which takes the limiter's default name and
 * the limiter method's own arguments. `key` replaces the call's key (cases that vary it). A
 * method the spec does not list throws: no default method. */
export function build(call, key) {
  if (!Object.hasOwn(COMMANDS.methods, call.method)) throw new Error(`commands.json lists no method ${JSON.stringify(call.method)}`);
  const args = [...call.args];
  if (key !== undefined) args[0] = key;
  return commands[call.method](commands.DEFAULT_NAME, ...args, camel(call.options));
}
