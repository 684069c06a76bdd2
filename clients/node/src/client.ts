/**
 * The Redis clients the limiter accepts, by what it calls on them. No client library is
 * imported: the application hands over the client it already has.
 */

import type { Call } from "./commands";

/** node-redis (v4 or later): `createClient()`. */
export interface NodeRedisClient {
  sendCommand(args: any[], options?: any): Promise<unknown>;
}

/** node-redis (v4 or later): `createCluster()`, which routes by the first key. */
export interface NodeRedisCluster {
  sendCommand(firstKey: any, isReadonly: boolean | undefined, args: any[], options?: any): Promise<unknown>;
  readonly masters: unknown;
}

/** ioredis (v5 or later): `new Redis()` or `new Cluster()`. */
export interface IoRedisClient {
  call(command: string, ...args: any[]): Promise<unknown>;
}

/** Any client the limiter accepts. */
export type RedisClient = NodeRedisClient | NodeRedisCluster | IoRedisClient;

/** Sends one call and resolves to the raw reply. */
export type Send = (call: Call) => Promise<unknown>;

/** How to send a call over `client`; a TypeError for anything else. */
export function sender(client: unknown): Send {
  const c = client as Record<string, unknown> | null;
  if (c !== null && typeof c === "object") {
    if (typeof c["call"] === "function") {
      // ioredis, Redis and Cluster alike. Its Cluster knows the keys of core commands only:
      // it sends a module command to some node and follows -MOVED to the key's node.
      const io = client as IoRedisClient;
      return (call) => io.call(call.args[0] as string, ...call.args.slice(1));
    }
    if (typeof c["sendCommand"] === "function") {
      if ("masters" in c) {
        const cluster = client as NodeRedisCluster;
        return (call) => cluster.sendCommand(call.key, call.readonly, [...call.args]);
      }
      const plain = client as NodeRedisClient;
      return (call) => plain.sendCommand([...call.args]);
    }
  }
  throw new TypeError(
    "the client must be a node-redis client or cluster (v4 or later), or an ioredis Redis or Cluster (v5 or later)",
  );
}
