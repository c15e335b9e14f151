import { describe, expect, it } from "vitest";
import { AUDIT_ACTIONS, describeEntry, type Names } from "./audit";
import type { AuditLogEntry } from "./api";

const names: Names = {
  user: (id) => ({ U1: "alice", U2: "bob" })[id],
  role: (id) => ({ R1: "Mods" })[id],
  channel: (id) => ({ C1: "general" })[id],
};
const entry = (action: AuditLogEntry["action"], user = "U1"): AuditLogEntry => ({ _id: "E", server: "S", user, action });

describe("audit log", () => {
  it("offers every action type the server records once", () => {
    const types = AUDIT_ACTIONS.map(([t]) => t);
    expect(new Set(types).size).toBe(types.length);
    expect(types).toHaveLength(25);
  });
  it("describes entries with the names it knows", () => {
    expect(describeEntry(entry({ type: "BanCreate", user: "U2" }), names)).toBe("alice banned bob");
    expect(describeEntry(entry({ type: "RoleCreate", role: "R1", name: "Mods" }), names)).toBe("alice created the role Mods");
    expect(describeEntry(entry({ type: "MessageBulkDelete", channel: "C1", count: 3 }), names)).toBe("alice deleted 3 messages in #general");
    expect(describeEntry(entry({ type: "MessageBulkDelete", channel: "C1", count: 1 }), names)).toBe("alice deleted 1 message in #general");
    expect(describeEntry(entry({ type: "MessageDelete", channel: "C1", author: "U2" }), names)).toBe("alice deleted a message by bob in #general");
    expect(describeEntry(entry({ type: "ChannelRolePermissionsEdit", channel: "C1" }), names)).toBe("alice changed the permissions of everyone in #general");
    expect(describeEntry(entry({ type: "ChannelRolePermissionsEdit", channel: "C1", role: "R1" }), names)).toBe("alice changed the permissions of the role Mods in #general");
    expect(describeEntry(entry({ type: "WebhookCreate", webhook: "W1", name: "CI" }), names)).toBe("alice created the webhook CI");
    expect(describeEntry(entry({ type: "EmojiCreate", emoji: "M1", name: "ermine" }), names)).toBe("alice added the emoji :ermine:");
  });
  it("falls back to recorded names and ids", () => {
    expect(describeEntry(entry({ type: "ChannelDelete", channel: "C9", name: "old" }), names)).toBe("alice deleted #old");
    expect(describeEntry(entry({ type: "ChannelDelete", channel: "C9" }), names)).toBe("alice deleted a deleted channel (C9)");
    expect(describeEntry(entry({ type: "MemberKick", user: "U7" }, "U9"), names)).toBe("U9 kicked U7");
    expect(describeEntry(entry({ type: "SomethingNew" }), names)).toBe("alice: SomethingNew");
  });
});
