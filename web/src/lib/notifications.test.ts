import { describe, expect, it } from "vitest";
import { isMuted, readOptions, shouldNotify, stateFor, tabTitle, totals, withMute } from "./notifications";

const now = 1_000_000;
const dm = { id: "D", type: "DirectMessage" };
const text = { id: "C", type: "TextChannel", serverId: "S" };

describe("notification settings (synced key notifications)", () => {
  it("reads the official client's shape and drops bad or expired entries", () => {
    const o = readOptions(
      JSON.stringify({
        server: { S: "all", X: "loud" },
        channel: { C: "none" },
        server_mutes: { S: {}, T: { until: now - 1 } },
        channel_mutes: { C: { until: now + 60_000 }, Z: "yes" },
      }),
      now,
    );
    expect(o).toEqual({ server: { S: "all" }, channel: { C: "none" }, server_mutes: { S: {} }, channel_mutes: { C: { until: now + 60_000 } } });
    expect(readOptions("not json")).toEqual({ server: {}, channel: {}, server_mutes: {}, channel_mutes: {} });
  });
  it("mutes a channel itself or through its server, until a time", () => {
    let o = readOptions(undefined);
    expect(isMuted(o, text, now)).toBe(false);
    o = withMute(o, "server", "S", {});
    expect(isMuted(o, text, now)).toBe(true);
    o = withMute(withMute(o, "server", "S", undefined), "channel", "C", { until: now + 10 });
    expect(isMuted(o, text, now)).toBe(true);
    expect(isMuted(o, text, now + 11)).toBe(false);
  });
  it("notifies conversations always, server channels on mentions and replies by default", () => {
    const o = readOptions(undefined);
    expect(stateFor(o, dm)).toBe("all");
    expect(stateFor(o, text)).toBe("mention");
    expect(shouldNotify(o, dm, { mentionsMe: false, repliesToMe: false }, now)).toBe(true);
    expect(shouldNotify(o, text, { mentionsMe: false, repliesToMe: false }, now)).toBe(false);
    expect(shouldNotify(o, text, { mentionsMe: true, repliesToMe: false }, now)).toBe(true);
    expect(shouldNotify(o, text, { mentionsMe: false, repliesToMe: true }, now)).toBe(true);
    expect(shouldNotify(withMute(o, "channel", "C", {}), text, { mentionsMe: true, repliesToMe: false }, now)).toBe(false);
    expect(shouldNotify(readOptions('{"channel":{"D":"none"}}'), dm, { mentionsMe: true, repliesToMe: true }, now)).toBe(false);
  });
});

describe("unread counts", () => {
  it("adds mentions and unread channels, leaving muted ones out of the unread count", () => {
    expect(
      totals([
        { unread: true, mentions: 2, muted: false },
        { unread: true, mentions: 0, muted: true },
        { unread: false, mentions: 0, muted: false },
      ]),
    ).toEqual({ unread: 1, mentions: 2 });
  });
  it("titles the tab", () => {
    expect(tabTitle("Ermine", { unread: 0, mentions: 0 })).toBe("Ermine");
    expect(tabTitle("Ermine", { unread: 3, mentions: 0 })).toBe("• Ermine");
    expect(tabTitle("Ermine", { unread: 3, mentions: 2 })).toBe("(2) Ermine");
    expect(tabTitle("Ermine", { unread: 0, mentions: 150 })).toBe("(99+) Ermine");
  });
});
