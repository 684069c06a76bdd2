// The default key every client shares (clients/spec/keys.json): an address's key, an IPv6 one
// as its network; and on servers bound to ::1, Express and Fastify counting the client under
// its /64, or its whole address with ipv6Subnet 128. The Python client's tests read the same
// file (test_spec_keys.py).

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ipKey } from "winlimit";
import { rateLimit, remoteAddress as expressAddress } from "winlimit/express";
import { remoteAddress as fastifyAddress, winlimitHook } from "winlimit/fastify";
import { FRAMEWORKS, withApp } from "./support/apps.mjs";
import { redisForFile } from "./support/fixture.mjs";
import { load } from "./support/spec.mjs";

const SPEC = load("keys.json");
const ctx = redisForFile();
const oneAMinute = (l, key) => l.fixed(key, 60_000, 1);

for (const c of SPEC.cases) {
  test(`an address has the shared key: ${c.address}/${c.ipv6_subnet}`, () => {
    assert.equal(ipKey(c.address, c.ipv6_subnet), c.key);
  });
}

for (const c of SPEC.cases) {
  test(`the exported default key functions give the shared key: ${c.address}/${c.ipv6_subnet}`, () => {
    // Express's req.ip, else the socket's address; Fastify's request.ip.
    assert.equal(expressAddress({ ip: c.address }, c.ipv6_subnet), c.key);
    assert.equal(expressAddress({ socket: { remoteAddress: c.address } }, c.ipv6_subnet), c.key);
    assert.equal(fastifyAddress({ ip: c.address }, c.ipv6_subnet), c.key);
  });
}

test("the exported default key functions cut an IPv6 address to its /64 by default", () => {
  assert.equal(expressAddress({ ip: "2001:db8:1:2:3:4:5:6" }), "2001:db8:1:2::/64");
  assert.equal(fastifyAddress({ ip: "2001:db8:1:2:3:4:5:6" }), "2001:db8:1:2::/64");
});

test("the default subnet is 64", () => {
  assert.equal(ipKey("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64");
});

test("two addresses share a key in one /64, and not across /64s or at 128", () => {
  const [same, other] = ["2001:db8:1:2::1", "2001:db8:1:2:ffff::9"];
  assert.equal(ipKey(same), ipKey(other));
  assert.notEqual(ipKey(same), ipKey("2001:db8:1:3::1"));
  assert.notEqual(ipKey(same, 128), ipKey(other, 128));
});

for (const subnet of SPEC.bad_subnets) {
  test(`a subnet that is not 1 to 128 is refused: ${JSON.stringify(subnet)}`, () => {
    const refused = (e) => e instanceof TypeError || e instanceof RangeError;
    assert.throws(() => ipKey("::1", subnet), refused);
    assert.throws(() => rateLimit({ limiter: ctx.limiter, check: oneAMinute, ipv6Subnet: subnet }), refused);
    assert.throws(() => winlimitHook({ limiter: ctx.limiter, check: oneAMinute, ipv6Subnet: subnet }), refused);
  });
}

for (const framework of Object.keys(FRAMEWORKS)) {
  describe(framework, () => {
    for (const [options, key] of [[{}, "rl:::/64"], [{ ipv6Subnet: 128 }, "rl:::1"]]) {
      test(`a client on IPv6 is counted under ${key}`, async () => {
        const statuses = await withApp(framework, { limiter: ctx.limiter, check: oneAMinute, host: "::1", ...options }, async (get) => {
          const out = [];
          for (let i = 0; i < 2; i++) out.push((await get()).status);
          return out;
        });
        assert.deepEqual(statuses, [200, 429]);
        assert.deepEqual(await ctx.admin.sendCommand(["KEYS", "*"]), [key]);
      });
    }
  });
}
