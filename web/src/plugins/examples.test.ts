import { describe, expect, it, vi } from "vitest";
import helloBanner from "../../plugins/hello-banner.json";
import messageTools from "../../plugins/message-tools.json";
import { validateManifest } from "./manifest";
import { PluginManager, localStore } from "./manager";

const examples: Record<string, unknown> = { "hello-banner.json": helloBanner, "message-tools.json": messageTools };
const example = (name: string) => structuredClone(examples[name]);

class MemoryStorage {
  #m = new Map<string, string>();
  getItem(k: string) {
    return this.#m.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.#m.set(k, v);
  }
}

describe("example plugins (web/plugins)", () => {
  it("both validate", () => {
    for (const name of ["hello-banner.json", "message-tools.json"]) {
      expect(validateManifest(example(name)).warnings).toEqual([]);
    }
  });

  it("message-tools adds its action and command through the state, and removes them on unload", async () => {
    const actions: unknown[] = [];
    const commands: { name: string; run: (args: string) => string }[] = [];
    const sent: string[] = [];
    const state = {
      channel: { sendMessage: async (text: string) => void sent.push(text) },
      addMessageAction(a: unknown) {
        actions.push(a);
        return () => actions.splice(actions.indexOf(a), 1);
      },
      addSlashCommand(c: { name: string; run: (args: string) => string }) {
        commands.push(c);
        return () => commands.splice(commands.indexOf(c), 1);
      },
    };
    const plugins = new PluginManager(state, { store: localStore(new MemoryStorage() as unknown as Storage), reload: vi.fn() });
    plugins.add(example("message-tools.json"));
    expect(plugins.list()[0]).toMatchObject({ id: "message-tools", loaded: true });
    expect(actions).toHaveLength(1);
    expect(commands.map((c) => c.name)).toEqual(["roll"]);
    expect(commands[0].run("20")).toMatch(/^🎲 rolled (\d+) \(d20\)$/);
    await (actions[0] as { onClick: (m: unknown) => Promise<void> }).onClick({ content: "line one\nline two", authorId: "01ABC" });
    expect(sent).toEqual(["> line one\n> line two\n<@01ABC>"]);
    plugins.unload("ermine", "message-tools");
    expect(actions).toHaveLength(0);
    expect(commands).toHaveLength(0);
  });
});
