// The package as npm ships it: `npm pack` gives a tarball of the compiled build and its
// types, which installs into an empty project and works from both `import` and `require`
// (one implementation: instanceof holds across them), against a real server; and code using
// it type-checks with tsc --noEmit.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { RedisServer } from "./support/servers.mjs";

const PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const TSC = path.join(PACKAGE, "node_modules", "typescript", "bin", "tsc");
let work;
let tarball;
let project;
let server;

function run(command, args, cwd, env = {}) {
  return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, npm_config_update_notifier: "false", ...env } });
}

before(async () => {
  // Inside the package's directory, so the consumer finds redis, express and their types in
  // the package's node_modules by walking up, and winlimit in its own.
  fs.mkdirSync(path.join(PACKAGE, ".tmp"), { recursive: true });
  work = fs.mkdtempSync(path.join(PACKAGE, ".tmp", "pack-"));
  // --ignore-scripts: the build is there (make builds first), and prepack's rebuild would
  // rewrite dist/ under test files running alongside.
  const [packed] = JSON.parse(run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work], PACKAGE));
  tarball = packed;
  project = path.join(work, "consumer");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true }));
  run("npm", ["install", "--offline", "--no-audit", "--no-fund", path.join(work, packed.filename)], project);
  server = await RedisServer.start();
});
after(async () => {
  await server?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test("the tarball holds the build, both entries and their types, and no sources or tests", () => {
  const files = tarball.files.map((f) => f.path).sort();
  for (const entry of ["index", "express", "fastify", "metrics", "nestjs", "express-rate-limit"]) {
    for (const ext of [".js", ".mjs", ".d.ts", ".d.mts"]) assert.ok(files.includes(`dist/${entry}${ext}`), `dist/${entry}${ext}`);
  }
  assert.ok(files.includes("README.md") && files.includes("package.json"));
  assert.deepEqual(files.filter((f) => !f.startsWith("dist/") && !["README.md", "package.json"].includes(f)), []);
});

test("its version is the module's (Cargo.toml): the module and the clients share one", () => {
  const cargo = fs.readFileSync(path.join(PACKAGE, "..", "..", "Cargo.toml"), "utf8").match(/^version = "([^"]+)"/m)[1];
  const installed = JSON.parse(fs.readFileSync(path.join(project, "node_modules", "winlimit", "package.json"), "utf8"));
  assert.equal(installed.version, cargo);
});

test("it carries the library and its script as lua/ holds them, built in at build time", () => {
  const repo = path.join(PACKAGE, "..", "..");
  const script = path.join(work, "winlimit-script.lua");
  run("python3", [path.join(repo, "scripts", "build-lua.py"), script], repo);
  const lua = createRequire(import.meta.url)(path.join(project, "node_modules", "winlimit", "dist", "lua.js"));
  assert.equal(lua.LIBRARY, fs.readFileSync(path.join(repo, "lua", "winlimit.lua"), "utf8"));
  assert.equal(lua.SCRIPT, fs.readFileSync(script, "utf8"));
});

test("it depends on no Redis client, nor on anything else, at run time", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(project, "node_modules", "winlimit", "package.json"), "utf8"));
  assert.equal(manifest.dependencies, undefined);
  assert.deepEqual(fs.readdirSync(path.join(project, "node_modules")).filter((f) => !f.startsWith(".")), ["winlimit"]);
});

const SCRIPT = (load) => `
${load}
const client = createClient({ socket: { host: "127.0.0.1", port: Number(process.env.PORT) } });
(async () => {
  await client.connect();
  const d = await new Limiter(client).slide(process.env.KEY, 60000, 3, { cost: 2 });
  const e = await new Limiter(client).slide("k", 0, 3).catch((err) => err);
  await client.disconnect();
  const esm = await import("winlimit");
  const cjs = require("winlimit");
  console.log(JSON.stringify({
    remaining: d.remaining,
    headers: d.headers(),
    sameClasses: esm.Limiter === Limiter && cjs.Limiter === Limiter && esm.Decision === cjs.Decision,
    instanceofAcross: e instanceof esm.RedisCallError && e instanceof cjs.RedisCallError && e.constructor === RedisCallError,
    middleware: typeof rateLimit + " " + typeof winlimitPlugin,
    stores: typeof WinlimitThrottlerStorage + " " + typeof WinlimitStore,
    resolved: require.resolve("winlimit"),
  }));
})();
`;

for (const [flavour, file, load] of [
  ["import", "app.mjs", `import { Limiter, RedisCallError } from "winlimit"; import { rateLimit } from "winlimit/express"; import { winlimitPlugin } from "winlimit/fastify"; import { WinlimitThrottlerStorage } from "winlimit/nestjs"; import { WinlimitStore } from "winlimit/express-rate-limit"; import { createClient } from "redis"; import { createRequire as cr } from "node:module"; const require = cr(import.meta.url);`],
  ["require", "app.cjs", `const { Limiter, RedisCallError } = require("winlimit"); const { rateLimit } = require("winlimit/express"); const { winlimitPlugin } = require("winlimit/fastify"); const { WinlimitThrottlerStorage } = require("winlimit/nestjs"); const { WinlimitStore } = require("winlimit/express-rate-limit"); const { createClient } = require("redis");`],
]) {
  test(`the installed package works from ${flavour}`, async () => {
    fs.writeFileSync(path.join(project, file), SCRIPT(load));
    const out = JSON.parse(run(process.execPath, [file], project, { PORT: String(server.port), KEY: flavour }).trim().split("\n").pop());
    assert.deepEqual(out, {
      remaining: 1,
      headers: { "RateLimit-Policy": '"winlimit";q=3;w=60', "RateLimit": '"winlimit";r=1;t=60' },
      sameClasses: true,
      instanceofAcross: true,
      middleware: "function function",
      stores: "function function",
      resolved: path.join(project, "node_modules", "winlimit", "dist", "index.js"),
    });
  });
}

test("code using the package type-checks with tsc --noEmit, and misuse does not", () => {
  for (const file of ["consumer.mts", "consumer.cts", "tsconfig.json"]) {
    fs.copyFileSync(path.join(PACKAGE, "test", "consumer", file), path.join(project, file));
  }
  // @ts-expect-error lines make tsc fail if the misuse they mark were accepted.
  run(process.execPath, [TSC, "-p", "tsconfig.json"], project);
});
