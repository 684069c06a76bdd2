// The limiter over each library's cluster client (node-redis 4 and 6 createCluster, ioredis
// 5 and 6 Cluster) on a real 3-master cluster: every method and option reaches the node that
// serves its key, and peeks read it there.

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { LIBRARIES } from "./support/clients.mjs";
import { Cluster } from "./support/servers.mjs";
import { testLimiter } from "./support/fixture.mjs";

const W = 60_000;
// name: [call, remaining after one call, after two], each with every option of its method.
const CALLS = {
  "slide": [(l, key, o = {}) => l.slide(key, W, 2, o), 1, 0],
  "slide pairs cost": [(l, key, o = {}) => l.slide(key, [[1000, 4], [W, 10]], { cost: 2, ...o }), 2, 0],
  "slide bucket": [(l, key, o = {}) => l.slide(key, W, 2, { bucket: 1000, ...o }), 1, 0],
  "fixed align cost": [(l, key, o = {}) => l.fixed(key, 10 ** 12, 4, { cost: 2, align: true, ...o }), 2, 0],
  "gcra burst cost": [(l, key, o = {}) => l.gcra(key, W, 100, { burst: 4, cost: 2, ...o }), 2, 0],
};
// Keys spread over the slots of all three masters.
const KEYS = Array.from({ length: 12 }, (_, i) => `user:${i}`);

let cluster;
before(async () => {
  cluster = await Cluster.start(3);
});
after(async () => cluster?.stop());

test("the keys span every master", async () => {
  const owners = new Set();
  for (const key of KEYS) owners.add((await cluster.ownerOf(key)).admin);
  assert.equal(owners.size, 3);
});

for (const [library, lib] of Object.entries(LIBRARIES)) {
  describe(`over ${library}'s cluster client`, () => {
    let connection;
    let limiter;
    before(async () => {
      connection = await lib.cluster(cluster.nodes[0].port);
      limiter = testLimiter(connection.client);
    });
    after(async () => connection?.close());
    beforeEach(async () => cluster.flush());

    for (const [name, [call, afterOne, afterTwo]] of Object.entries(CALLS)) {
      test(`${name} writes on the node serving its key`, async () => {
        for (const key of KEYS) {
          const ds = [await call(limiter, key), await call(limiter, key)];
          assert.deepEqual(ds.map((d) => [d.allowed, d.remaining]), [[true, afterOne], [true, afterTwo]]);
          const { slot, admin, others } = await cluster.ownerOf(key);
          assert.equal(await admin.sendCommand(["EXISTS", key]), 1);
          for (const other of others) assert.equal(await other.sendCommand(["CLUSTER", "COUNTKEYSINSLOT", String(slot)]), 0);
        }
      });

      test(`${name} peeks on the node serving its key and records nothing`, async () => {
        for (const key of KEYS) {
          await call(limiter, key);
          assert.equal((await call(limiter, key, { peek: true })).remaining, afterOne);
          assert.equal((await call(limiter, key)).remaining, afterTwo);
        }
      });
    }
  });
}
