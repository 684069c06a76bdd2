/**
 * The Redis clients the limiter accepts, by what it calls on them. No client library is
 * imported: the application hands over the client it already has.
 */

import type { Key } from "./commands";
import { slotOf } from "./slot";

// The clients' own parameter types (RedisArgument, CommandOptions, ...) are not imported, so
// these signatures take `any` where an application's client must still be assignable.
/* eslint-disable @typescript-eslint/no-explicit-any */

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
/* eslint-enable @typescript-eslint/no-explicit-any */

/** Any client the limiter accepts. */
export type RedisClient = NodeRedisClient | NodeRedisCluster | IoRedisClient;

type Args = readonly (string | Buffer)[];

/** How the limiter talks to the server(s) behind one client. */
export interface Channel {
  /** Sends a command about `key`, routed by the key as the client routes (to its cluster
   * node); `readonly` lets a cluster client use a replica. Resolves to the raw reply. */
  send(key: Key, readonly: boolean, args: Args): Promise<unknown>;
  /** The cluster node serving `key` ("host:port"), or "" for a single server. */
  nodeOf(key: Key): string;
  /** A command without keys (COMMAND INFO, FUNCTION LOAD, SCRIPT LOAD) for the server, or
   * for the cluster node serving `key`. */
  toNode(key: Key, args: Args): Promise<unknown>;
}

/** How to reach the server(s) behind `client`; a TypeError for anything else. */
export function channel(client: unknown): Channel {
  const c = client as Record<string, unknown> | null;
  if (c !== null && typeof c === "object") {
    if (typeof c["call"] === "function") return typeof c["nodes"] === "function" ? ioCluster(client) : ioPlain(client as IoRedisClient);
    if (typeof c["sendCommand"] === "function") {
      return "masters" in c ? nodeRedisCluster(client as NodeRedisCluster) : nodeRedisPlain(client as NodeRedisClient);
    }
  }
  throw new TypeError(
    "the client must be a node-redis client or cluster (v4 or later), or an ioredis Redis or Cluster (v5 or later)",
  );
}

function nodeRedisPlain(plain: NodeRedisClient): Channel {
  return { send: (_key, _readonly, args) => plain.sendCommand([...args]), nodeOf: () => "", toNode: (_key, args) => plain.sendCommand([...args]) };
}

function nodeRedisCluster(cluster: NodeRedisCluster): Channel {
  const slots = cluster as unknown as { slots: ({ master?: { address?: string } } | undefined)[] };
  return {
    send: (key, readonly, args) => cluster.sendCommand(key, readonly, [...args]),
    nodeOf: (key) => slots.slots[slotOf(key)]?.master?.address ?? "",
    // The first key only routes: the command goes to the master serving it.
    toNode: (key, args) => cluster.sendCommand(key, false, [...args]),
  };
}

function ioPlain(io: IoRedisClient): Channel {
  const send = (args: Args) => io.call(args[0] as string, ...args.slice(1));
  return { send: (_key, _readonly, args) => send(args), nodeOf: () => "", toNode: (_key, args) => send(args) };
}

function ioCluster(client: unknown): Channel {
  // ioredis's Cluster knows the keys of core commands only: it sends a module command to
  // some node and follows -MOVED to the key's node.
  const cluster = client as IoRedisClient & { slots: (string[] | undefined)[]; nodes(role: string): IoRedisNode[] };
  const nodeOf = (key: Key) => cluster.slots[slotOf(key)]?.[0] ?? "";
  return {
    send: (_key, _readonly, args) => cluster.call(args[0] as string, ...args.slice(1)),
    nodeOf,
    toNode: (key, args) => {
      const address = nodeOf(key);
      const node = cluster.nodes("master").find((n) => `${n.options.host}:${n.options.port}` === address);
      // Before the cluster's first slot map (nothing is known yet), any node it picks.
      return (node ?? cluster).call(args[0] as string, ...args.slice(1));
    },
  };
}

interface IoRedisNode extends IoRedisClient {
  readonly options: { host?: string; port?: number };
}
