// The shape of web/src (see /docs or web-layout notes): no import cycle
// between our modules, pure modules in lib/ import no UI, and no
// component casts an API call `as never` (lib/api.ts types the routes).

import { describe, expect, it } from "vitest";

// Every source file's text, by path relative to src ("app/state.ts"), read by Vite.
const sources: Record<string, string> = Object.fromEntries(
  Object.entries(import.meta.glob(["./**/*.ts", "./**/*.tsx", "!./**/*.test.ts"], { query: "?raw", import: "default", eager: true })).map(([k, v]) => [
    k.replace(/^\.\//, ""),
    v as string,
  ]),
);

/** A relative import spec resolved against the importing file, both relative to src. */
function resolve(from: string, spec: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const seg of spec.split("/")) {
    if (seg === "..") parts.pop();
    else if (seg !== ".") parts.push(seg);
  }
  return parts.join("/");
}

/** The files of src each file imports (relative imports, type-only ones included). */
export function importGraph(files: Record<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const spec = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["'](\.[^"']+)["']/g;
  for (const [file, text] of Object.entries(files)) {
    const deps: string[] = [];
    for (const m of text.matchAll(spec)) {
      const base = resolve(file, m[1]);
      const found = [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`].find((c) => c in files);
      if (found) deps.push(found);
    }
    graph.set(file, deps);
  }
  return graph;
}

/** One cycle of the graph as a list of files (first = last), or undefined. */
export function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (n: string): string[] | undefined => {
    if (state.get(n) === "done") return undefined;
    if (state.get(n) === "open") return [...stack.slice(stack.indexOf(n)), n];
    state.set(n, "open");
    stack.push(n);
    for (const d of graph.get(n) ?? []) {
      const c = visit(d);
      if (c) return c;
    }
    stack.pop();
    state.set(n, "done");
    return undefined;
  };
  for (const n of graph.keys()) {
    const c = visit(n);
    if (c) return c;
  }
  return undefined;
}

describe("web/src layout", () => {
  const graph = importGraph(sources);

  it("finds a cycle when there is one (the check can fail)", () => {
    const g = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
    ]);
    expect(findCycle(g)).toEqual(["a", "b", "c", "a"]);
    expect(findCycle(new Map([["a", ["b"]], ["b", []]]))).toBeUndefined();
  });

  it("has no import cycle", () => {
    expect(graph.size).toBeGreaterThan(20);
    expect(findCycle(graph), "import cycle").toBeUndefined();
  });

  it("keeps lib/ pure: no component, state or Solid import", () => {
    for (const [file, deps] of graph) {
      if (!file.startsWith("lib/")) continue;
      expect(file.endsWith(".tsx"), `${file} is a component`).toBe(false);
      for (const d of deps) expect(d.startsWith("lib/"), `${file} imports ${d}`).toBe(true);
      expect(sources[file]).not.toMatch(/from\s+["']solid-js/);
    }
  });

  it("casts no API call `as never` outside lib/", () => {
    for (const [file, text] of Object.entries(sources)) {
      if (file.startsWith("lib/")) continue;
      expect(text, file).not.toMatch(/as never/);
    }
  });
});
