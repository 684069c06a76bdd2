// No module of the client imports one that imports it back: the import graph of src/*.ts
// (type-only imports and re-exports included) has no cycle.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

const SRC = new URL("../src/", import.meta.url);

/** Each module's name (its file without extension) -> the src/ modules it imports. */
export function importGraph(dir = SRC) {
  const graph = new Map();
  for (const file of fs.readdirSync(dir).filter((f) => /\.m?ts$/.test(f))) {
    const text = fs.readFileSync(new URL(file, dir), "utf8");
    const targets = new Set();
    for (const match of text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+["'](\.\/[^"']+)["']/gms)) {
      targets.add(path.basename(match[1]).replace(/\.(m?js|m?ts)$/, ""));
    }
    graph.set(file.replace(/\.m?ts$/, "") + (file.endsWith(".mts") ? ".m" : ""), [...targets]);
  }
  return graph;
}

/** A cycle as a list of modules (the first repeated at the end), or undefined. */
export function findCycle(graph) {
  const state = new Map();
  const stack = [];
  const visit = (node) => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const cycle = visit(next);
        if (cycle) return cycle;
      }
    }
    stack.pop();
    state.set(node, "done");
    return undefined;
  };
  for (const node of graph.keys()) {
    if (!state.has(node)) {
      const cycle = visit(node);
      if (cycle) return cycle;
    }
  }
  return undefined;
}

test("no module in src/ imports one that imports it back", () => {
  const graph = importGraph();
  assert.ok(graph.get("limiter").includes("backend"), "the graph reads src/'s imports");
  const cycle = findCycle(graph);
  assert.equal(cycle, undefined, `an import cycle in clients/node/src: ${cycle?.join(" -> ")}`);
});

test("the check finds a cycle through a type-only import", () => {
  const graph = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]);
  assert.deepEqual(findCycle(graph), ["a", "b", "c", "a"]);
});
