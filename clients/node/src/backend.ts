/**
 * Which edition of winlimit answers a call: the module (WINLIMIT.*), the Functions library
 * (FCALL) or the scripts (EVALSHA), chosen per server and per cluster node, with the library
 * loaded where it is missing. Mirrors the Python client's `winlimit._backend`.
 *
 * Nothing here replays a call whose reply did not arrive: a call is sent again only after the
 * server answered it with an error that says it ran nothing (function or script missing, or
 * the module gone).
 */

import { createHash } from "node:crypto";
import type { Channel } from "./client";
import type { Call } from "./commands";
import type { Backend } from "./decision";
import { MissingPermission, RedisCallError } from "./errors";
import { LIBRARY, LIBRARY_VERSION, SCRIPT } from "./lua";

export type { Backend };

/** The limiter's `backend` option. */
export type BackendChoice = Backend | "auto";

const CHOICES: readonly BackendChoice[] = ["auto", "module", "functions", "scripts"];
const SCRIPT_SHA = createHash("sha1").update(SCRIPT).digest("hex");

/** The library built into this package (scripts/embed-lua.py): its text, the script form,
 * the script's SHA1 and the version winlimit_version answers. */
export const PACKAGED = { library: LIBRARY, script: SCRIPT, sha: SCRIPT_SHA, version: LIBRARY_VERSION } as const;

export function checkBackend(backend: unknown): BackendChoice {
  if (!CHOICES.includes(backend as BackendChoice)) {
    throw new RangeError(`backend must be one of ${CHOICES.map((c) => `"${c}"`).join(", ")}, not ${JSON.stringify(backend)}`);
  }
  return backend as BackendChoice;
}

/** "0.4.0" -> [0, 4, 0]; older than `b`? Anything unreadable is older than every version. */
export function olderThan(a: unknown, b: string): boolean {
  const parse = (v: unknown) => (/^\d+(\.\d+)*$/.test(String(v)) ? String(v).split(".").map(Number) : []);
  const [x, y] = [parse(a), parse(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] ?? -1) !== (y[i] ?? -1)) return (x[i] ?? -1) < (y[i] ?? -1);
  }
  return false;
}

function has(error: unknown, text: string): boolean {
  return (error instanceof Error ? error.message : String(error)).toLowerCase().includes(text);
}

/** The client's error as the limiter raises it, unchanged in text (not ModuleNotLoaded:
 * that is the module backend's). */
function wrapped(error: unknown): RedisCallError {
  return error instanceof RedisCallError ? error : new RedisCallError(error instanceof Error ? error.message : String(error), { cause: error });
}

function missing(error: unknown, rule: string, what: string): MissingPermission {
  const text = error instanceof Error ? error.message : String(error);
  return new MissingPermission(`${text} -- ${what} needs the ACL rule ${rule} for this user (see docs/guides/node.md, "Backends: with or without the module")`, { cause: error });
}

/** What is known of one server (one cluster node): what "auto" chose there, and whether
 * the library's version there was checked. */
interface Node {
  detected: Backend | undefined;
  libraryChecked: boolean;
}

// Per client object, shared by its limiters: each server is detected once per client.
const KNOWN = new WeakMap<object, Map<string, Node>>();

/** The backend of one limiter: `choice` as given, and what each node turned out to be. */
export class Backends {
  private readonly nodes: Map<string, Node>;

  constructor(
    readonly choice: BackendChoice,
    private readonly channel: Channel,
    client: object,
  ) {
    this.nodes = KNOWN.get(client) ?? new Map<string, Node>();
    KNOWN.set(client, this.nodes);
  }

  /** The call answered by its node's backend: [raw reply, backend]. Errors are the client's
   * (the module backend's, for the limiter to translate) or RedisCallErrors. */
  async answer(call: Call): Promise<[unknown, Backend]> {
    const node = this.node(this.channel.nodeOf(call.key));
    if (this.choice === "auto") node.detected ??= await this.detect(call);
    if (this.backend(node) === "module") {
      try {
        return [await this.channel.send(call.key, call.readonly, call.args), "module"];
      } catch (error) {
        if (this.choice !== "auto" || !has(error, "unknown command")) throw error;
        node.detected = await this.detect(call); // the module was unloaded: choose again
        if (node.detected === "module") throw error;
      }
    }
    try {
      if (this.backend(node) === "functions" && !node.libraryChecked) await this.ensureLibrary(call, node);
      if (this.backend(node) === "functions") return [await this.fcall(call, node), "functions"];
      return [await this.evalsha(call), "scripts"];
    } catch (error) {
      throw wrapped(error);
    }
  }

  private node(name: string): Node {
    let node = this.nodes.get(name);
    if (node === undefined) {
      node = { detected: undefined, libraryChecked: false };
      this.nodes.set(name, node);
    }
    return node;
  }

  private backend(node: Node): Backend | undefined {
    return this.choice === "auto" ? node.detected : this.choice;
  }

  /** "module" where COMMAND INFO knows WINLIMIT.SLIDE, else "functions" where it knows
   * FCALL, else "scripts". (Not MODULE LIST: managed services refuse it.) */
  private async detect(call: Call): Promise<Backend> {
    let reply: unknown;
    try {
      reply = await this.channel.toNode(call.key, ["COMMAND", "INFO", "WINLIMIT.SLIDE", "FCALL"]);
    } catch (error) {
      if (has(error, "noperm")) throw missing(error, "+command|info", 'backend "auto" asks COMMAND INFO, which');
      throw wrapped(error);
    }
    const [module, fcall] = Array.isArray(reply) ? (reply as unknown[]) : [];
    return module ? "module" : fcall ? "functions" : "scripts";
  }

  private async fcall(call: Call, node: Node): Promise<unknown> {
    const args = [call.readonly ? "FCALL_RO" : "FCALL", functionName(call), "1", ...call.args.slice(1)];
    try {
      return await this.channel.send(call.key, call.readonly, args);
    } catch (error) {
      if (!has(error, "function not found")) throw error;
    }
    await this.ensureLibrary(call, node); // FUNCTION FLUSH, or an older library
    return this.backend(node) === "functions" ? this.channel.send(call.key, call.readonly, args) : this.evalsha(call);
  }

  /** Loads the library where it is missing or older; never replaces a newer one. Where the
   * user may not load it, "auto" turns to the scripts. */
  private async ensureLibrary(call: Call, node: Node): Promise<void> {
    node.libraryChecked = true;
    const version = await this.loadedVersion(call);
    if (version !== undefined && !olderThan(version, LIBRARY_VERSION)) return;
    try {
      await this.load(call, version !== undefined);
    } catch (error) {
      if (!has(error, "noperm")) throw error;
      if (this.choice !== "auto") throw missing(error, "+function|load", 'the "functions" backend loads the library, which');
      node.detected = "scripts";
    }
  }

  /** winlimit_version of the library loaded, or undefined when there is none (or it has no
   * such function: an older library). */
  private async loadedVersion(call: Call): Promise<unknown> {
    try {
      return String(await this.channel.toNode(call.key, ["FCALL_RO", "winlimit_version", "0"]));
    } catch (error) {
      if (has(error, "function not found")) return undefined;
      throw error;
    }
  }

  private async load(call: Call, replace: boolean): Promise<void> {
    try {
      await this.channel.toNode(call.key, ["FUNCTION", "LOAD", ...(replace ? ["REPLACE"] : []), LIBRARY]);
    } catch (error) {
      if (replace || has(error, "noperm") || !has(error, "already exists")) throw error;
      // Loaded by another client since we looked: replaced only if that one is older too.
      const version = await this.loadedVersion(call);
      if (version === undefined || olderThan(version, LIBRARY_VERSION)) {
        await this.channel.toNode(call.key, ["FUNCTION", "LOAD", "REPLACE", LIBRARY]);
      }
    }
  }

  private async evalsha(call: Call): Promise<unknown> {
    const args = ["EVALSHA", SCRIPT_SHA, "1", call.args[1], functionName(call), ...call.args.slice(2)];
    try {
      return await this.channel.send(call.key, call.readonly, args);
    } catch (error) {
      if (!has(error, "noscript")) throw error;
    }
    try {
      await this.channel.toNode(call.key, ["SCRIPT", "LOAD", SCRIPT]);
    } catch (error) {
      if (has(error, "noperm")) throw missing(error, "+script|load", 'the "scripts" backend loads its script, which');
      throw error;
    }
    return this.channel.send(call.key, call.readonly, args);
  }
}

/** WINLIMIT.SLIDE_RO -> winlimit_slide_ro: the library's name for the module command. */
function functionName(call: Call): string {
  return String(call.args[0]).toLowerCase().replace(".", "_");
}
