// Notification settings as the platform's clients keep them in synced
// settings (key "notifications", a JSON object shared with the official
// client: per-server and per-channel states and mutes), and the counts
// the tab title and badges show.

export type NotificationState = "all" | "mention" | "none";
export interface Mute {
  until?: number;
}
export interface NotificationOptions {
  server: Record<string, NotificationState>;
  channel: Record<string, NotificationState>;
  server_mutes: Record<string, Mute>;
  channel_mutes: Record<string, Mute>;
}

/** The synced settings key. */
export const NOTIFICATIONS_KEY = "notifications";

const STATES: NotificationState[] = ["all", "mention", "none"];

export const emptyOptions = (): NotificationOptions => ({ server: {}, channel: {}, server_mutes: {}, channel_mutes: {} });

/** Reads the synced value (a JSON string), keeping only well-formed, unexpired entries. */
export function readOptions(value: string | undefined, now = Date.now()): NotificationOptions {
  const out = emptyOptions();
  let raw: Partial<Record<keyof NotificationOptions, Record<string, unknown>>>;
  try {
    raw = JSON.parse(value ?? "{}");
  } catch {
    return out;
  }
  if (!raw || typeof raw !== "object") return out;
  for (const k of ["server", "channel"] as const) {
    for (const [id, v] of Object.entries(raw[k] ?? {})) if (STATES.includes(v as NotificationState)) out[k][id] = v as NotificationState;
  }
  for (const k of ["server_mutes", "channel_mutes"] as const) {
    for (const [id, v] of Object.entries(raw[k] ?? {})) {
      const until = (v as Mute | null)?.until;
      if (v && typeof v === "object" && (until === undefined || (typeof until === "number" && until > now))) out[k][id] = until === undefined ? {} : { until };
    }
  }
  return out;
}

/** What a channel of a conversation or server looks like here. */
export interface ChannelFacts {
  id: string;
  type: string;
  serverId?: string;
}

const live = (m: Mute | undefined, now: number) => !!m && (m.until === undefined || m.until > now);

/** Whether a channel is muted, itself or through its server. */
export function isMuted(o: NotificationOptions, c: ChannelFacts, now = Date.now()): boolean {
  return live(o.channel_mutes[c.id], now) || (!!c.serverId && live(o.server_mutes[c.serverId], now));
}

export function isServerMuted(o: NotificationOptions, serverId: string, now = Date.now()): boolean {
  return live(o.server_mutes[serverId], now);
}

/** The channel's notification state: its own, else its server's, else the default (conversations all, servers mentions). */
export function stateFor(o: NotificationOptions, c: ChannelFacts): NotificationState {
  return o.channel[c.id] ?? (c.serverId ? o.server[c.serverId] ?? "mention" : "all");
}

/** Whether a new message should notify: not muted, and "all" or one that mentions or answers the person. */
export function shouldNotify(o: NotificationOptions, c: ChannelFacts, message: { mentionsMe: boolean; repliesToMe: boolean }, now = Date.now()): boolean {
  if (isMuted(o, c, now)) return false;
  const s = stateFor(o, c);
  return s === "all" || (s === "mention" && (message.mentionsMe || message.repliesToMe));
}

/** A copy of o with a channel or server muted (until a time, or for good) or unmuted. */
export function withMute(o: NotificationOptions, kind: "server" | "channel", id: string, mute: Mute | undefined): NotificationOptions {
  const key = kind === "server" ? "server_mutes" : "channel_mutes";
  const next = { ...o, [key]: { ...o[key] } };
  if (mute) next[key][id] = mute;
  else delete next[key][id];
  return next;
}

/** The counts of a set of channels: how many are unread, and how many mentions they hold. */
export function totals(channels: { unread: boolean; mentions: number; muted: boolean }[]): { unread: number; mentions: number } {
  let unread = 0;
  let mentions = 0;
  for (const c of channels) {
    mentions += c.mentions;
    if (c.unread && !c.muted) unread++;
  }
  return { unread, mentions };
}

/** The tab title: mentions counted first, a dot for unread messages only. */
export function tabTitle(base: string, t: { unread: number; mentions: number }): string {
  if (t.mentions > 0) return `(${t.mentions > 99 ? "99+" : t.mentions}) ${base}`;
  if (t.unread > 0) return `• ${base}`;
  return base;
}
