// A server's audit log in words: the action types a person filters by,
// and one sentence per entry.

import type { AuditLogEntry } from "./api";

/** The action types the server records, with the words the filter shows. */
export const AUDIT_ACTIONS: [string, string][] = [
  ["MessageDelete", "Message deleted"],
  ["MessageBulkDelete", "Messages deleted in bulk"],
  ["MessagePin", "Message pinned"],
  ["MessageUnpin", "Message unpinned"],
  ["BanCreate", "Member banned"],
  ["BanDelete", "Member unbanned"],
  ["MemberKick", "Member kicked"],
  ["MemberEdit", "Member edited"],
  ["ChannelCreate", "Channel created"],
  ["ChannelEdit", "Channel edited"],
  ["ChannelRolePermissionsEdit", "Channel permissions edited"],
  ["ChannelDelete", "Channel deleted"],
  ["ServerEdit", "Server edited"],
  ["RoleCreate", "Role created"],
  ["RoleEdit", "Role edited"],
  ["RoleDelete", "Role deleted"],
  ["RolesReorder", "Roles reordered"],
  ["InviteCreate", "Invite created"],
  ["InviteDelete", "Invite deleted"],
  ["WebhookCreate", "Webhook created"],
  ["WebhookEdit", "Webhook edited"],
  ["WebhookDelete", "Webhook deleted"],
  ["EmojiCreate", "Emoji created"],
  ["EmojiEdit", "Emoji edited"],
  ["EmojiDelete", "Emoji deleted"],
];

/** How names are looked up: a user, a role, a channel; undefined when unknown. */
export interface Names {
  user: (id: string) => string | undefined;
  role: (id: string) => string | undefined;
  channel: (id: string) => string | undefined;
}

const str = (v: unknown) => (typeof v === "string" ? v : "");

/**
 * One entry as a sentence: "alice banned bob", "alice created the role
 * Mods", "alice deleted 3 messages in #general". Names missing from
 * names fall back to what the entry holds (a recorded name, or an id).
 */
export function describeEntry(e: AuditLogEntry, names: Names): string {
  const a = e.action;
  const who = names.user(e.user) ?? e.user;
  const user = (id: unknown) => names.user(str(id)) ?? str(id);
  const channel = () => {
    const id = str(a.channel);
    const n = names.channel(id) ?? str(a.name);
    return n ? `#${n}` : id ? `a deleted channel (${id})` : "a channel";
  };
  const role = () => names.role(str(a.role)) ?? (str(a.name) || str(a.role));
  switch (a.type) {
    case "MessageDelete":
      return `${who} deleted a message by ${user(a.author)} in ${channel()}`;
    case "MessageBulkDelete":
      return `${who} deleted ${Number(a.count ?? 0)} message${a.count === 1 ? "" : "s"} in ${channel()}`;
    case "MessagePin":
      return `${who} pinned a message in ${channel()}`;
    case "MessageUnpin":
      return `${who} unpinned a message in ${channel()}`;
    case "BanCreate":
      return `${who} banned ${user(a.user)}`;
    case "BanDelete":
      return `${who} unbanned ${user(a.user)}`;
    case "MemberKick":
      return `${who} kicked ${user(a.user)}`;
    case "MemberEdit":
      return `${who} edited the member ${user(a.user)}`;
    case "ChannelCreate":
      return `${who} created ${channel()}`;
    case "ChannelEdit":
      return `${who} edited ${channel()}`;
    case "ChannelRolePermissionsEdit":
      return `${who} changed the permissions of ${a.role ? `the role ${role()}` : "everyone"} in ${channel()}`;
    case "ChannelDelete":
      return `${who} deleted ${channel()}`;
    case "ServerEdit":
      return `${who} edited the server`;
    case "RoleCreate":
      return `${who} created the role ${role()}`;
    case "RoleEdit":
      return `${who} edited the role ${role()}`;
    case "RoleDelete":
      return `${who} deleted the role ${role()}`;
    case "RolesReorder":
      return `${who} reordered the roles`;
    case "InviteCreate":
      return `${who} created the invite ${str(a.invite)}`;
    case "InviteDelete":
      return `${who} deleted the invite ${str(a.invite)}`;
    case "WebhookCreate":
      return `${who} created the webhook ${str(a.name) || str(a.webhook)}`;
    case "WebhookEdit":
      return `${who} edited the webhook ${str(a.name) || str(a.webhook)}`;
    case "WebhookDelete":
      return `${who} deleted the webhook ${str(a.name) || str(a.webhook)}`;
    case "EmojiCreate":
      return `${who} added the emoji ${a.name ? `:${str(a.name)}:` : str(a.emoji)}`;
    case "EmojiEdit":
      return `${who} edited the emoji ${a.name ? `:${str(a.name)}:` : str(a.emoji)}`;
    case "EmojiDelete":
      return `${who} deleted the emoji ${a.name ? `:${str(a.name)}:` : str(a.emoji)}`;
  }
  return `${who}: ${a.type}`;
}
