import { describe, expect, it, vi } from "vitest";
import vectors from "./manifest-vectors.json";
import { ManifestError, parseManifest } from "./manifest";
import { PluginManager, type PluginStore, STORAGE_KEY, localStore } from "./manager";

describe("manifest validation (manifest-vectors.json, shared with the Go tests)", () => {
  it("has enough cases", () => expect(vectors.length).toBeGreaterThanOrEqual(20));
  for (const v of vectors) {
    it(v.name, () => {
      if (!v.valid) {
        let err: unknown;
        try {
          parseManifest(v.json);
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(ManifestError);
        expect((err as ManifestError).field).toBe(v.field);
        expect((err as ManifestError).message).toMatch(new RegExp(`^${v.field}: `));
        return;
      }
      const { manifest, warnings } = parseManifest(v.json);
      expect(warnings.length).toBe(v.warnings);
      expect(manifest.enabled).toBe(v.enabled);
    });
  }
});

/** A Storage like the browser's, in memory: it outlives managers, as localStorage outlives a page. */
class MemoryStorage implements Storage {
  #m = new Map<string, string>();
  get length() {
    return this.#m.size;
  }
  clear() {
    this.#m.clear();
  }
  getItem(k: string) {
    return this.#m.get(k) ?? null;
  }
  key(i: number) {
    return [...this.#m.keys()][i] ?? null;
  }
  removeItem(k: string) {
    this.#m.delete(k);
  }
  setItem(k: string, v: string) {
    this.#m.set(k, String(v));
  }
}

// Plugins reach the test through this global, as real ones reach the page.
const g = globalThis as unknown as { pluginLog: string[] };

function manifest(id: string, entrypoint: string, extra: Record<string, unknown> = {}) {
  return { format: 1, version: "1.0.0", namespace: "test", id, entrypoint, ...extra };
}

const counting = (id: string) =>
  manifest(
    id,
    `(state) => { globalThis.pluginLog.push("load ${id} " + state.name); return { onUnload() { globalThis.pluginLog.push("unload ${id}"); } }; }`,
  );

function setup(storage = new MemoryStorage()) {
  const reload = vi.fn();
  const report = vi.fn();
  const warn = vi.fn();
  const state = { name: "state" };
  const store: PluginStore = localStore(storage);
  const plugins = new PluginManager(state, { store, reload, report, warn });
  return { plugins, storage, reload, report, warn, state };
}

describe("plugin manager", () => {
  it("add validates, stores and loads with the state as argument", () => {
    g.pluginLog = [];
    const { plugins, storage } = setup();
    const info = plugins.add(counting("one"));
    expect(info).toEqual({ namespace: "test", id: "one", version: "1.0.0", enabled: true, loaded: true });
    expect(g.pluginLog).toEqual(["load one state"]);
    expect(JSON.parse(storage.getItem(STORAGE_KEY)!)["test/one"].entrypoint).toContain("load one");
  });

  it("add refuses a bad manifest naming the field and stores nothing", () => {
    const { plugins, storage } = setup();
    expect(() => plugins.add(manifest("Bad Id", "() => ({})"))).toThrow(/^id: /);
    expect(() => plugins.add({ ...manifest("x", "() => ({})"), version: "one" })).toThrow(/^version: /);
    expect(plugins.list()).toEqual([]);
    expect(storage.getItem(STORAGE_KEY)).toBeNull();
  });

  it("add accepts a JSON string and warns on a format other than 1", () => {
    const { plugins, warn } = setup();
    plugins.add(JSON.stringify(manifest("fmt", "() => ({})", { format: 2 })));
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/format: 2 is not 1/));
    expect(plugins.list()[0].loaded).toBe(true);
  });

  it("add with enabled false stores without loading", () => {
    g.pluginLog = [];
    const { plugins } = setup();
    plugins.add({ ...counting("off"), enabled: false });
    expect(g.pluginLog).toEqual([]);
    expect(plugins.list()).toEqual([{ namespace: "test", id: "off", version: "1.0.0", enabled: false, loaded: false }]);
  });

  it("adding the same plugin again unloads the old instance first", () => {
    g.pluginLog = [];
    const { plugins } = setup();
    plugins.add(counting("dup"));
    plugins.add({ ...counting("dup"), version: "1.1.0" });
    expect(g.pluginLog).toEqual(["load dup state", "unload dup", "load dup state"]);
    expect(plugins.list()).toHaveLength(1);
    expect(plugins.list()[0].version).toBe("1.1.0");
  });

  it("unload calls onUnload, keeps the manifest and marks it disabled; load brings it back", () => {
    g.pluginLog = [];
    const { plugins, storage } = setup();
    plugins.add(counting("u"));
    expect(plugins.unload("test", "u")).toBe(true);
    expect(g.pluginLog).toEqual(["load u state", "unload u"]);
    expect(plugins.list()[0]).toMatchObject({ enabled: false, loaded: false });
    expect(JSON.parse(storage.getItem(STORAGE_KEY)!)["test/u"].enabled).toBe(false);
    expect(plugins.load("test", "u")).toBe(true);
    expect(plugins.list()[0]).toMatchObject({ enabled: true, loaded: true });
    expect(JSON.parse(storage.getItem(STORAGE_KEY)!)["test/u"].enabled).toBe(true);
    expect(plugins.unload("test", "nope")).toBe(false);
  });

  it("load keeps the instance the entrypoint returns", () => {
    const { plugins } = setup();
    plugins.add(manifest("inst", "function (state) { return { answer: 42, state }; }"));
    expect(plugins.instance("test", "inst")).toMatchObject({ answer: 42 });
    expect(plugins.load("test", "missing")).toBe(false);
  });

  it("remove unloads and deletes", () => {
    g.pluginLog = [];
    const { plugins, storage } = setup();
    plugins.add(counting("r"));
    expect(plugins.remove("test", "r")).toBe(true);
    expect(g.pluginLog).toEqual(["load r state", "unload r"]);
    expect(plugins.list()).toEqual([]);
    expect(JSON.parse(storage.getItem(STORAGE_KEY)!)).toEqual({});
    expect(plugins.remove("test", "r")).toBe(false);
  });

  it("reset unloads and deletes everything, then reloads the page", () => {
    g.pluginLog = [];
    const { plugins, storage, reload } = setup();
    plugins.add(counting("a"));
    plugins.add(counting("b"));
    plugins.reset();
    expect(g.pluginLog).toEqual(["load a state", "load b state", "unload a", "unload b"]);
    expect(plugins.list()).toEqual([]);
    expect(JSON.parse(storage.getItem(STORAGE_KEY)!)).toEqual({});
    expect(reload).toHaveBeenCalledOnce();
  });

  it("list gives namespace, id, version and enabled", () => {
    const { plugins } = setup();
    plugins.add(manifest("z", "() => ({})"));
    plugins.add(manifest("a", "() => ({})", { enabled: false, version: "0.1.0" }));
    expect(plugins.list()).toEqual([
      { namespace: "test", id: "a", version: "0.1.0", enabled: false, loaded: false },
      { namespace: "test", id: "z", version: "1.0.0", enabled: true, loaded: true },
    ]);
  });

  it("enabled plugins load again after a reload; disabled ones do not", () => {
    g.pluginLog = [];
    const storage = new MemoryStorage();
    const first = setup(storage).plugins;
    first.add(counting("keep"));
    first.add(counting("off"));
    first.unload("test", "off");
    g.pluginLog = [];

    const { plugins } = setup(storage); // a new page over the same storage
    expect(plugins.list().map((p) => [p.id, p.enabled, p.loaded])).toEqual([
      ["keep", true, false],
      ["off", false, false],
    ]);
    plugins.init();
    expect(g.pluginLog).toEqual(["load keep state"]);
    expect(plugins.list().map((p) => [p.id, p.loaded])).toEqual([
      ["keep", true],
      ["off", false],
    ]);
  });

  it("ignores stored manifests that no longer validate", () => {
    const storage = new MemoryStorage();
    storage.setItem(STORAGE_KEY, JSON.stringify({ "test/bad": { id: "bad" }, "test/ok": manifest("ok", "() => ({})") }));
    const { plugins, warn } = setup(storage);
    expect(plugins.list().map((p) => p.id)).toEqual(["ok"]);
    expect(warn).toHaveBeenCalled();
    storage.setItem(STORAGE_KEY, "not json");
    expect(setup(storage).plugins.list()).toEqual([]);
  });

  it("a throwing entrypoint is reported and breaks nothing", () => {
    const { plugins, report } = setup();
    const err = vi.spyOn(console, "error").mockImplementation(() => {});
    const info = plugins.add(manifest("boom", "() => { throw new Error('kaboom'); }"));
    expect(info.loaded).toBe(false);
    expect(info.error).toMatch(/kaboom/);
    expect(report).toHaveBeenCalledWith("test/boom", expect.stringMatching(/kaboom/));
    // The manager still works.
    plugins.add(manifest("fine", "() => ({})"));
    expect(plugins.list().map((p) => [p.id, p.loaded])).toEqual([
      ["boom", false],
      ["fine", true],
    ]);
    // Syntax errors, non-functions and bad instances are reported the same way.
    plugins.add(manifest("syntax", "() => {"));
    plugins.add(manifest("notfn", "42"));
    plugins.add(manifest("badinst", "() => 7"));
    for (const id of ["syntax", "notfn", "badinst"]) {
      expect(plugins.list().find((p) => p.id === id)).toMatchObject({ loaded: false, error: expect.any(String) });
    }
    err.mockRestore();
  });

  it("an onUnload that throws is reported and the plugin still unloads", () => {
    const { plugins, report } = setup();
    const err = vi.spyOn(console, "error").mockImplementation(() => {});
    plugins.add(manifest("bad-unload", "() => ({ onUnload() { throw new Error('nope'); } })"));
    expect(plugins.unload("test", "bad-unload")).toBe(true);
    expect(report).toHaveBeenCalledWith("test/bad-unload", expect.stringMatching(/onUnload threw/));
    expect(plugins.list()[0]).toMatchObject({ loaded: false, enabled: false });
    err.mockRestore();
  });
});
