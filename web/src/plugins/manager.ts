// The plugin manager of seed part 2, compatible with the legacy client's
// (window.state.plugins): add, remove, load, unload, reset, list.
// Manifests persist in a PluginStore (localStorage in the browser); the
// enabled ones load again when the app starts. A plugin that throws is
// recorded (the UI shows it) and never breaks the client.

import { createSignal, type Accessor } from "solid-js";
import { type Manifest, ManifestError, pluginKey, validateManifest } from "./manifest";

/** What a plugin's entrypoint returns. */
export interface PluginInstance {
  onUnload?: () => void;
  [key: string]: unknown;
}

/** Where manifests are kept between page loads. */
export interface PluginStore {
  read(): Record<string, Manifest>;
  write(all: Record<string, Manifest>): void;
}

/** The localStorage key, named like the legacy client's "revite:plugins". */
export const STORAGE_KEY = "ermine:plugins";

export function localStore(storage: Storage = globalThis.localStorage): PluginStore {
  return {
    read() {
      try {
        const parsed = JSON.parse(storage.getItem(STORAGE_KEY) ?? "{}");
        return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed : {};
      } catch {
        return {};
      }
    },
    write(all) {
      storage.setItem(STORAGE_KEY, JSON.stringify(all));
    },
  };
}

export interface PluginInfo {
  namespace: string;
  id: string;
  version: string;
  enabled: boolean;
  loaded: boolean;
  error?: string;
}

export interface ManagerOptions {
  store: PluginStore;
  /** Reloads the page (reset()). */
  reload: () => void;
  /** Told about every failure, for the UI's notices. */
  report?: (key: string, message: string) => void;
  warn?: (message: string) => void;
}

export class PluginManager {
  #state: unknown;
  #opts: ManagerOptions;
  #manifests: Record<string, Manifest>;
  #instances = new Map<string, PluginInstance>();
  #errors = new Map<string, string>();
  #version: Accessor<number>;
  #bump: (f: (n: number) => number) => void;

  constructor(state: unknown, opts: ManagerOptions) {
    this.#state = state;
    this.#opts = opts;
    this.#manifests = {};
    // Keep only what still validates: storage may have been edited by hand.
    for (const [key, value] of Object.entries(opts.store.read())) {
      try {
        const { manifest } = validateManifest(value);
        if (pluginKey(manifest.namespace, manifest.id) === key) this.#manifests[key] = manifest;
      } catch (err) {
        this.#warn(`plugin ${key}: stored manifest ignored: ${(err as Error).message}`);
      }
    }
    const [version, setVersion] = createSignal(0);
    this.#version = version;
    this.#bump = setVersion;
  }

  /** Loads every enabled plugin (once, when the app starts). */
  init() {
    for (const m of Object.values(this.#manifests)) {
      if (m.enabled) this.load(m.namespace, m.id);
    }
  }

  /**
   * Validates a manifest, stores it and loads it when enabled (default).
   * A plugin already added under the same namespace and id is unloaded
   * and replaced. Throws a ManifestError naming a wrong field.
   */
  add(input: unknown): PluginInfo {
    const { manifest, warnings } = validateManifest(typeof input === "string" ? JSON.parse(input) : input);
    for (const w of warnings) this.#warn(`plugin ${pluginKey(manifest.namespace, manifest.id)}: ${w}`);
    const key = pluginKey(manifest.namespace, manifest.id);
    this.#stop(key);
    this.#errors.delete(key);
    this.#manifests[key] = manifest;
    this.#save();
    if (manifest.enabled) this.load(manifest.namespace, manifest.id);
    this.#changed();
    return this.#info(key)!;
  }

  /** Unloads a plugin and deletes it. */
  remove(namespace: string, id: string): boolean {
    const key = pluginKey(namespace, id);
    if (!(key in this.#manifests)) return false;
    this.#stop(key);
    delete this.#manifests[key];
    this.#errors.delete(key);
    this.#save();
    this.#changed();
    return true;
  }

  /**
   * Evaluates a plugin's entrypoint, calls it with the client state and
   * keeps the instance; marks the plugin enabled. Returns false (and
   * records why) when the plugin is unknown or throws.
   */
  load(namespace: string, id: string): boolean {
    const key = pluginKey(namespace, id);
    const manifest = this.#manifests[key];
    if (!manifest) {
      this.#warn(`plugin ${key} is not installed`);
      return false;
    }
    this.#stop(key);
    this.#errors.delete(key);
    try {
      const entry = evaluate(manifest.entrypoint);
      if (typeof entry !== "function") throw new TypeError("the entrypoint is not a function");
      const instance = entry(this.#state);
      if (instance !== undefined && (typeof instance !== "object" || instance === null)) {
        throw new TypeError("the entrypoint must return an object (the plugin instance)");
      }
      this.#instances.set(key, (instance ?? {}) as PluginInstance);
      if (!manifest.enabled) {
        manifest.enabled = true;
        this.#save();
      }
      this.#changed();
      return true;
    } catch (err) {
      this.#fail(key, `failed to load: ${describe(err)}`);
      return false;
    }
  }

  /** Calls the instance's onUnload, keeps the manifest, marks it disabled. */
  unload(namespace: string, id: string): boolean {
    const key = pluginKey(namespace, id);
    const manifest = this.#manifests[key];
    if (!manifest) return false;
    this.#stop(key);
    this.#errors.delete(key);
    if (manifest.enabled) {
      manifest.enabled = false;
      this.#save();
    }
    this.#changed();
    return true;
  }

  /** Unloads and deletes every plugin, then reloads the page. */
  reset() {
    for (const key of [...this.#instances.keys()]) this.#stop(key);
    this.#manifests = {};
    this.#errors.clear();
    this.#save();
    this.#changed();
    this.#opts.reload();
  }

  /** Every installed plugin (reactive in Solid). */
  list(): PluginInfo[] {
    this.#version();
    return Object.keys(this.#manifests)
      .sort()
      .map((k) => this.#info(k)!);
  }

  /** The running instance of a plugin, if loaded. */
  instance(namespace: string, id: string): PluginInstance | undefined {
    return this.#instances.get(pluginKey(namespace, id));
  }

  /** The manifest of an installed plugin. */
  manifest(namespace: string, id: string): Manifest | undefined {
    const m = this.#manifests[pluginKey(namespace, id)];
    return m && { ...m };
  }

  #info(key: string): PluginInfo | undefined {
    const m = this.#manifests[key];
    if (!m) return undefined;
    const info: PluginInfo = {
      namespace: m.namespace,
      id: m.id,
      version: m.version,
      enabled: m.enabled,
      loaded: this.#instances.has(key),
    };
    const error = this.#errors.get(key);
    if (error) info.error = error;
    return info;
  }

  /** Unloads a running instance; its onUnload may throw without harm. */
  #stop(key: string) {
    const instance = this.#instances.get(key);
    if (!instance) return;
    this.#instances.delete(key);
    try {
      if (typeof instance.onUnload === "function") instance.onUnload();
    } catch (err) {
      this.#fail(key, `onUnload threw: ${describe(err)}`);
    }
  }

  #fail(key: string, message: string) {
    this.#errors.set(key, message);
    console.error(`plugin ${key} ${message}`);
    this.#opts.report?.(key, message);
    this.#changed();
  }

  #warn(message: string) {
    (this.#opts.warn ?? console.warn)(message);
  }

  #save() {
    try {
      this.#opts.store.write(this.#manifests);
    } catch (err) {
      this.#opts.report?.("storage", `plugins could not be saved: ${describe(err)}`);
    }
  }

  #changed() {
    this.#bump((n) => n + 1);
  }
}

/**
 * Evaluates entrypoint source in the global scope. "function (state)
 * {...}" and "(state) => ..." are read as expressions; source that is a
 * statement list ending in a function value is evaluated as it is.
 */
function evaluate(source: string): unknown {
  const indirect = eval;
  try {
    return indirect(`(${source}\n)`);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    return indirect(source);
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

export { ManifestError };
