// Notifications: the synced notification settings (shared with the
// official client), browser notifications for a mention, a direct
// message or a reply while the person looks elsewhere, and Web Push
// through the service worker (public/sw.js) when no tab is open.

import { createSignal } from "solid-js";
import type { Client, Message } from "stoat.js";
import type { Rest } from "../lib/api";
import { NOTIFICATIONS_KEY, emptyOptions, isMuted, readOptions, shouldNotify, withMute, type ChannelFacts, type Mute, type NotificationOptions } from "../lib/notifications";
import { inline, plain } from "../lib/markdown";

const supported = () => typeof Notification !== "undefined";

export class Notifications {
  #options = createSignal<NotificationOptions>(emptyOptions());
  #permission = createSignal<NotificationPermission>(supported() ? Notification.permission : "denied");
  #rest: Rest;
  #open: (channel: string, message: string) => void;
  #current: () => string | undefined;
  #vapid: () => string | undefined;

  /**
   * rest reads and writes synced settings; open shows a channel at a
   * message (a notification clicked); current is the channel on screen.
   */
  constructor(rest: Rest, open: (channel: string, message: string) => void, current: () => string | undefined, vapid: () => string | undefined) {
    this.#rest = rest;
    this.#open = open;
    this.#current = current;
    this.#vapid = vapid;
  }

  get options(): NotificationOptions {
    return this.#options[0]();
  }
  get permission(): NotificationPermission {
    return this.#permission[0]();
  }

  /** Loads the synced settings and listens to the client's new messages; returns a function stopping it. */
  start(client: Client): () => void {
    this.#rest
      .fetchSettings([NOTIFICATIONS_KEY])
      .then((s) => this.#options[1](readOptions(s[NOTIFICATIONS_KEY]?.[1])))
      .catch(() => {});
    const created = (m: Message) => this.#message(client, m);
    client.on("messageCreate", created);
    if (this.permission === "granted") this.subscribePush().catch(() => {});
    return () => client.off("messageCreate", created);
  }

  /** Whether a channel (or its server) is muted now. */
  muted(c: ChannelFacts): boolean {
    return isMuted(this.options, c);
  }

  /** Mutes or unmutes a server or channel, here and in synced settings. */
  async setMute(kind: "server" | "channel", id: string, mute: Mute | undefined) {
    const next = withMute(this.options, kind, id, mute);
    this.#options[1](next);
    await this.#rest.setSettings({ [NOTIFICATIONS_KEY]: JSON.stringify(next) });
  }

  /** Asks the browser for permission (call from a person's click), then subscribes to push. */
  async requestPermission(): Promise<NotificationPermission> {
    if (!supported()) return "denied";
    const p = await Notification.requestPermission();
    this.#permission[1](p);
    if (p === "granted") await this.subscribePush().catch(() => {});
    return p;
  }

  /**
   * Registers the service worker and, when the instance has a VAPID key,
   * subscribes this browser to Web Push and hands the subscription to
   * the server. Push services live outside the instance: the browser
   * talks to its vendor's; the page itself loads nothing from there.
   */
  async subscribePush(): Promise<boolean> {
    const vapid = this.#vapid();
    if (!("serviceWorker" in navigator) || !vapid) return false;
    const reg = await navigator.serviceWorker.register(`${import.meta.env.BASE_URL}sw.js`, { scope: import.meta.env.BASE_URL });
    if (!("pushManager" in reg)) return false;
    const sub = (await reg.pushManager.getSubscription()) ?? (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64url(vapid) }));
    const json = sub.toJSON();
    if (!json.endpoint || !json.keys?.p256dh || !json.keys?.auth) return false;
    await this.#rest.pushSubscribe({ endpoint: json.endpoint, p256dh: json.keys.p256dh, auth: json.keys.auth });
    return true;
  }

  #message(client: Client, m: Message) {
    const me = client.user?.id;
    if (!me || m.authorId === me || !this.permission || this.permission !== "granted") return;
    const ch = m.channel;
    if (!ch) return;
    const looking = document.visibilityState === "visible" && this.#current() === ch.id;
    if (looking) return;
    const facts = { id: ch.id, type: ch.type, serverId: ch.serverId };
    const repliesToMe = (m.replyIds ?? []).some((id) => client.messages.get(id)?.authorId === me);
    const mentionsMe = !!m.mentionIds?.includes(me) || m.mentioned;
    if (!shouldNotify(this.options, facts, { mentionsMe, repliesToMe })) return;
    const where = ch.type === "DirectMessage" ? "" : ch.type === "Group" ? ` (${ch.name})` : ` (#${ch.name}, ${ch.server?.name ?? ""})`;
    const body = plain(inline(m.content ?? ""), (n) => {
      if (n.t === "user") return `@${client.users.get(n.id)?.displayName ?? "someone"}`;
      if (n.t === "channel") return `#${client.channels.get(n.id)?.name ?? "channel"}`;
      return "";
    });
    const n = new Notification(`${m.username ?? "Someone"}${where}`, {
      body: body.slice(0, 300) || (m.attachments?.length ? "sent an attachment" : ""),
      tag: ch.id,
      icon: m.avatarURL,
      data: { channel: ch.id, message: m.id },
    });
    n.onclick = () => {
      window.focus();
      this.#open(ch.id, m.id);
      n.close();
    };
  }
}

/** A VAPID key (unpadded base64url) as the bytes pushManager wants. */
function base64url(s: string): Uint8Array<ArrayBuffer> {
  const b = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4));
  const out = new Uint8Array(new ArrayBuffer(b.length));
  for (let i = 0; i < b.length; i++) out[i] = b.charCodeAt(i);
  return out;
}
