// The Redis client libraries the limiter is tested over, each at the oldest major it accepts
// and the newest: node-redis 4 and 6, ioredis 5 and 6, plain and cluster clients.

import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

function nodeRedis(pkg) {
  const { createClient, createCluster } = require(pkg);
  return {
    async plain(port, options = {}) {
      const client = createClient({ socket: { host: "127.0.0.1", port, ...options.socket }, ...options.client });
      client.on("error", () => {});
      await client.connect();
      return { client, close: () => client.disconnect().catch(() => {}) };
    },
    async cluster(port) {
      const client = createCluster({ rootNodes: [{ socket: { host: "127.0.0.1", port } }] });
      client.on("error", () => {});
      await client.connect();
      return { client, close: () => client.disconnect().catch(() => {}) };
    },
  };
}

function ioredis(pkg) {
  const Redis = require(pkg);
  return {
    async plain(port, options = {}) {
      const client = new Redis({ host: "127.0.0.1", port, lazyConnect: true, ...options.client });
      client.on("error", () => {});
      await client.connect();
      return { client, close: async () => client.disconnect() };
    },
    async cluster(port) {
      const client = new Redis.Cluster([{ host: "127.0.0.1", port }], { lazyConnect: true });
      client.on("error", () => {});
      await client.connect();
      return { client, close: async () => client.disconnect() };
    },
  };
}

export const LIBRARIES = {
  "node-redis 6": nodeRedis("redis"),
  "node-redis 4": nodeRedis("redis4"),
  "ioredis 6": ioredis("ioredis"),
  "ioredis 5": ioredis("ioredis5"),
};
