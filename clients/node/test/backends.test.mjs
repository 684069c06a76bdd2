// { backend: "auto" } and the loading rules, on real servers with and without the module, over
// node-redis and ioredis: which backend answers (INFO commandstats shows every command that
// reached the server), the library and the script loaded again after FUNCTION FLUSH and
// SCRIPT FLUSH with each unit recorded once, an older library replaced and a newer one left
// alone, a call that timed out never sent again, a limited ACL user, a server that refuses
// TIME, and a cluster without the module.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { MissingPermission, ModuleNotLoaded } from "winlimit";
import { LIBRARY, SCRIPT } from "./support/backend.mjs";
import { LIBRARIES } from "./support/clients.mjs";
import { Cluster, REDIS_6, RedisServer, adminClient } from "./support/servers.mjs";
import { testLimiter } from "./support/fixture.mjs";

const W = 60_000;
const VERSION = LIBRARY.match(/^local VERSION = '([^']+)'$/m)[1];
const SHA = createHash("sha1").update(SCRIPT).digest("hex");
const FUNCTIONS = { skip: REDIS_6 && "Redis 6.x has no Functions" };
const ONLY_REDIS_6 = { skip: !REDIS_6 && "auto chooses the scripts where Functions are missing: Redis 6.x" };
// What the tests and the connections send themselves, not the limiter's choice.
const OWN = new Set(["info", "config", "client", "hello", "acl", "auth", "ping", "function", "script", "select"]);
// What the library calls inside FCALL and EVALSHA (commandstats counts them too); the
// scripts' first write is preceded by SETRANGE key 0 "" (lua/winlimit.lua).
const INSIDE = new Set(["time", "type", "pexpiretime", "pttl", "get", "zcard", "zcount", "zrange", "zrangebyscore",
  "zrevrange", "set", "incr", "incrby", "bitfield", "zadd", "zrem", "zremrangebyscore", "del", "pexpireat", "setrange"]);

/** INFO commandstats: calls per command sent (subcommands counted with their command), without `own`. */
async function commandsRun(admin, own = OWN) {
  const counts = {};
  for (const [, name, calls] of (await admin.sendCommand(["INFO", "commandstats"])).matchAll(/^cmdstat_([^:|]+)[^:]*:calls=(\d+)/gm)) {
    if (!own.has(name) && !INSIDE.has(name)) counts[name] = (counts[name] ?? 0) + Number(calls);
  }
  return counts;
}

/** slide, a fixed peek and gcra, twice; their backends. */
async function twoRounds(limiter) {
  const backends = new Set();
  for (let i = 0; i < 2; i++) {
    for (const d of [await limiter.slide("s", W, 5), await limiter.fixed("f", W, 5, { peek: true }), await limiter.gcra("g", W, 5)]) {
      backends.add(d.backend);
    }
  }
  return [...backends];
}

const libraryOf = (version) => LIBRARY.replace(`local VERSION = '${VERSION}'`, `local VERSION = '${version}'`);

/** A server for one test, its admin client, and limiters over `lib`; all closed after `body`. */
async function withServer(lib, { module = false, user } = {}, body) {
  const server = await RedisServer.start({ module });
  const admin = await adminClient(server.port);
  const connections = [];
  try {
    if (user) await admin.sendCommand(["ACL", "SETUSER", "app", "reset", "on", ">pw", "~rl:*", ...user.split(" ")]);
    const limiter = async (options) => {
      const connection = await lib.plain(server.port, user ? { client: { username: "app", password: "pw" } } : {});
      connections.push(connection);
      return testLimiter(connection.client, options);
    };
    return await body({ server, admin, limiter });
  } finally {
    for (const c of connections) await c.close();
    await admin.close();
    await server.stop();
  }
}

// README's rules for the data the library touches (Redis 6 reads expiries with PTTL), and a
// caller that may call the library and the scripts and load scripts, but not load functions.
const DATA = `${REDIS_6 ? "+time +type +pttl" : "+time +type +pexpiretime +pttl"} +get +zcard +zcount +zrange +zrangebyscore +zrevrange ` +
  "+set +incr +incrby +bitfield +zadd +zrem +zremrangebyscore +del +pexpireat";
const CALLER = `${REDIS_6 ? "" : "+fcall +fcall_ro "}+evalsha +script|load +command|info`;

for (const [library, lib] of Object.entries(LIBRARIES)) {
  describe(`over ${library}`, () => {
    test("auto uses the module where it is loaded", async () => {
      await withServer(lib, { module: true }, async ({ admin, limiter }) => {
        await admin.sendCommand(["CONFIG", "RESETSTAT"]);
        assert.deepEqual(await twoRounds(await limiter({ backend: "auto" })), ["module"]);
        assert.deepEqual(await commandsRun(admin), { command: 1, "winlimit.slide": 2, "winlimit.fixed_ro": 2, "winlimit.gcra": 2 });
      });
    });

    test("auto loads and calls the library where the module is not", FUNCTIONS, async () => {
      await withServer(lib, {}, async ({ admin, limiter }) => {
        await admin.sendCommand(["CONFIG", "RESETSTAT"]);
        assert.deepEqual(await twoRounds(await limiter()), ["functions"]);
        // COMMAND INFO once; FCALL_RO winlimit_version finds no library, FUNCTION LOAD loads it.
        const own = new Set([...OWN].filter((c) => c !== "function"));
        assert.deepEqual(await commandsRun(admin, own), { command: 1, fcall_ro: 1 + 2, function: 1, fcall: 4 });
        assert.equal(await admin.sendCommand(["FCALL_RO", "winlimit_version", "0"]), VERSION);
      });
    });

    test("auto uses the scripts on Redis 6", ONLY_REDIS_6, async () => {
      await withServer(lib, {}, async ({ admin, limiter }) => {
        await admin.sendCommand(["CONFIG", "RESETSTAT"]);
        assert.deepEqual(await twoRounds(await limiter()), ["scripts"]);
        // The first EVALSHA answers NOSCRIPT; SCRIPT LOAD, then it runs.
        const own = new Set([...OWN].filter((c) => c !== "script"));
        assert.deepEqual(await commandsRun(admin, own), { command: 1, evalsha: 1 + 6, script: 1 });
      });
    });

    test("forcing the module where it is missing rejects with ModuleNotLoaded", async () => {
      await withServer(lib, {}, async ({ limiter }) => {
        await assert.rejects((await limiter({ backend: "module" })).slide("k", W, 5), ModuleNotLoaded);
      });
    });

    test("after FUNCTION FLUSH the library is loaded again and the call counts once", FUNCTIONS, async () => {
      await withServer(lib, {}, async ({ admin, limiter }) => {
        const l = await limiter({ backend: "functions" });
        assert.equal((await l.slide("k", W, 5)).remaining, 4);
        await admin.sendCommand(["FUNCTION", "FLUSH"]);
        const d = await l.slide("k", W, 5);
        assert.deepEqual([d.allowed, d.remaining, d.backend], [true, 3, "functions"]);
        assert.equal(await admin.sendCommand(["ZCARD", "k"]), 2);
      });
    });

    test("after SCRIPT FLUSH the script is loaded again and the call counts once", async () => {
      await withServer(lib, {}, async ({ admin, limiter }) => {
        const l = await limiter({ backend: "scripts" });
        assert.equal((await l.fixed("k", W, 5)).remaining, 4);
        await admin.sendCommand(["SCRIPT", "FLUSH"]);
        const d = await l.fixed("k", W, 5);
        assert.deepEqual([d.allowed, d.remaining, d.backend], [true, 3, "scripts"]);
        assert.equal(await admin.sendCommand(["GET", "k"]), "2");
        assert.deepEqual(await admin.sendCommand(["SCRIPT", "EXISTS", SHA]), [1]);
      });
    });

    test("an older library is replaced, a newer one left alone and used", FUNCTIONS, async () => {
      await withServer(lib, {}, async ({ admin, limiter }) => {
        await admin.sendCommand(["FUNCTION", "LOAD", "REPLACE", libraryOf("0.0.1")]);
        assert.equal((await (await limiter()).gcra("k", W, 5)).remaining, 4);
        assert.equal(await admin.sendCommand(["FCALL_RO", "winlimit_version", "0"]), VERSION);
        await admin.sendCommand(["FUNCTION", "LOAD", "REPLACE", libraryOf("99.0.0")]);
        assert.equal((await (await limiter()).gcra("k", W, 5)).remaining, 3);
        assert.equal(await admin.sendCommand(["FCALL_RO", "winlimit_version", "0"]), "99.0.0");
      });
    });

    test("a user who may not load functions calls the library loaded for it", FUNCTIONS, async () => {
      await withServer(lib, { user: `${CALLER} ${DATA}` }, async ({ admin, limiter }) => {
        await admin.sendCommand(["FUNCTION", "LOAD", LIBRARY]);
        const l = await limiter();
        const ds = [await l.slide("rl:k", W, 5), await l.slide("rl:k", W, 5)];
        assert.deepEqual(ds.map((d) => [d.remaining, d.backend]), [[4, "functions"], [3, "functions"]]);
      });
    });

    test("the same user without the library uses the scripts; forcing functions names the rule", FUNCTIONS, async () => {
      await withServer(lib, { user: `${CALLER} ${DATA}` }, async ({ admin, limiter }) => {
        const forced = await limiter({ backend: "functions" });
        await assert.rejects(forced.slide("rl:k", W, 5), (e) => e instanceof MissingPermission && e.message.includes("+function|load"));
        const l = await limiter();
        const ds = [await l.slide("rl:k", W, 5), await l.slide("rl:k", W, 5)];
        assert.deepEqual(ds.map((d) => [d.remaining, d.backend]), [[4, "scripts"], [3, "scripts"]]);
        assert.deepEqual(await admin.sendCommand(["FUNCTION", "LIST"]), []);
      });
    });

    test("a server that refuses TIME says so", async () => {
      await withServer(lib, { user: `${CALLER} ${DATA} -time` }, async ({ admin, limiter }) => {
        await assert.rejects((await limiter({ backend: "scripts" })).gcra("rl:k", W, 5), /refused TIME/);
        assert.equal(await admin.sendCommand(["EXISTS", "rl:k"]), 0);
      });
    });
  });
}

describe("a call whose reply never came", () => {
  for (const backend of ["module", "functions", "scripts"]) {
    test(`is not sent again (${backend}, ioredis's commandTimeout)`, { skip: backend === "functions" && REDIS_6 && "Redis 6.x has no Functions" }, async () => {
      const server = await RedisServer.start({ module: backend === "module" });
      const admin = await adminClient(server.port);
      const connection = await LIBRARIES["ioredis 6"].plain(server.port, { client: { commandTimeout: 200 } });
      try {
        const limiter = testLimiter(connection.client, { backend });
        await limiter.slide("warm-up", W, 5); // detected and loaded
        // The call waits in the server's socket; the connection stays open, so anything sent
        // again would run too once the server wakes.
        process.kill(server.proc.pid, "SIGSTOP");
        try {
          await assert.rejects(limiter.slide("k", W, 5), /timed out/i);
        } finally {
          process.kill(server.proc.pid, "SIGCONT");
        }
        // The connection's next reply comes after the call's: the server has run it by then.
        await connection.client.call("PING");
        assert.equal(await admin.sendCommand(["ZCARD", "k"]), 1);
      } finally {
        await connection.close();
        await admin.close();
        await server.stop();
      }
    });
  }
});

describe("a cluster without the module", () => {
  let cluster;
  before(async () => {
    cluster = await Cluster.start(3, { module: false });
  });
  after(async () => cluster?.stop());
  const KEYS = Array.from({ length: 12 }, (_, i) => `user:${i}`);

  for (const [library, lib] of Object.entries(LIBRARIES)) {
    test(`over ${library}'s cluster client every key is limited and each primary has the library`, async () => {
      await Promise.all(cluster.admins.map((a) => a.sendCommand(["FLUSHALL"])));
      await Promise.all(cluster.admins.map((a) => a.sendCommand(["SCRIPT", "FLUSH"])));
      if (!REDIS_6) await Promise.all(cluster.admins.map((a) => a.sendCommand(["FUNCTION", "FLUSH"])));
      const connection = await lib.cluster(cluster.nodes[0].port);
      try {
        const limiter = testLimiter(connection.client);
        for (const key of KEYS) {
          const ds = [await limiter.fixed(key, W, 2), await limiter.fixed(key, W, 2), await limiter.fixed(key, W, 2)];
          const backend = REDIS_6 ? "scripts" : "functions";
          assert.deepEqual(ds.map((d) => [d.allowed, d.remaining, d.backend]), [[true, 1, backend], [true, 0, backend], [false, 0, backend]]);
          assert.equal(await (await cluster.ownerOf(key)).admin.sendCommand(["GET", key]), "2");
        }
      } finally {
        await connection.close();
      }
      for (const admin of cluster.admins) {
        if (REDIS_6) assert.deepEqual(await admin.sendCommand(["SCRIPT", "EXISTS", SHA]), [1]);
        else assert.equal(await admin.sendCommand(["FCALL_RO", "winlimit_version", "0"]), VERSION);
      }
    });
  }
});
