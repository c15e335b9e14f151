// The client state, published as window.state as soon as the app loads
// (logged in or not), for plugins written for the legacy client's
// `window.state` and for Ermine's own (see web/PLUGINS.md).

import { createSignal, type Accessor } from "solid-js";
import { API, type RevoltConfig } from "stoat-api";
import { Client, ServerRole, type Channel, type Message } from "stoat.js";
import { resumeEvents } from "./resume";
import { stopClient } from "./stop";
import { PluginManager, localStore } from "../plugins/manager";
import { retrying } from "../lib/errors";
import { Rest, type RootConfig, type SavedSession } from "../lib/api";
import { Notifications } from "./notifications";
import { href, navigate } from "./router";

export type { RootConfig, SavedSession } from "../lib/api";

/** A button plugins add to every message's actions. */
export interface MessageAction {
  label: string;
  /** Called with the stoat.js Message. */
  onClick: (message: Message) => void | Promise<void>;
}

/** A "/name args" command of the message box. */
export interface SlashCommand {
  name: string;
  description?: string;
  /**
   * Runs the command. A string returned is sent as the message instead;
   * nothing returned means the command handled it.
   */
  run: (args: string, channel: Channel) => string | void | Promise<string | void>;
}

export interface Notice {
  id: number;
  kind: "info" | "error";
  text: string;
}

const SESSION_KEY = "ermine:session";

export class AppState {
  /** The API's base URL (the page names it; the page's origin otherwise). */
  readonly apiURL: string;
  /** The unauthenticated API, for login, registration and invites. */
  readonly api: API;
  /** The typed routes (lib/api.ts), authenticated once a session starts. */
  readonly rest: Rest;
  #token: string | undefined;
  /** Synced notification settings, browser notifications and push. */
  readonly notifications: Notifications;
  #stopNotifications?: () => void;
  readonly plugins: PluginManager;

  #config = createSignal<RootConfig | undefined>(undefined);
  #client = createSignal<Client | undefined>(undefined, { equals: false });
  #channelId = createSignal<string | undefined>(undefined);
  #actions = createSignal<MessageAction[]>([]);
  #commands = createSignal<SlashCommand[]>([]);
  #notices = createSignal<Notice[]>([]);
  #editing = createSignal<string | undefined>(undefined, { equals: false });
  /** Unsent message text per channel id. */
  readonly drafts = new Map<string, string>();
  #jump = createSignal<{ channel: string; id: string } | undefined>(undefined, { equals: false });
  #noticeSeq = 0;
  #profile = createSignal<string | undefined>(undefined);

  constructor(apiURL: string) {
    patchRateLimits((ms) => this.notify(`Rate limited: trying again in ${Math.ceil(ms / 1000)} s…`));
    this.apiURL = apiURL.replace(/\/+$/, "");
    this.api = new API({ baseURL: this.apiURL });
    this.rest = new Rest(this.apiURL, () => this.#token, (ms) => this.notify(`Rate limited: trying again in ${Math.ceil(ms / 1000)} s…`));
    this.notifications = new Notifications(
      this.rest,
      (channel, message) => this.openAt(channel, message),
      () => this.channelId,
      () => this.config?.vapid,
    );
    this.plugins = new PluginManager(this, {
      store: localStore(),
      reload: () => location.reload(),
      report: (key, message) => this.notify(`Plugin ${key} ${message}`, "error"),
    });
  }

  /** The instance's root object (GET /), once fetched. */
  get config(): RootConfig | undefined {
    return this.#config[0]();
  }
  setConfig(c: RootConfig) {
    this.#config[1](c);
  }

  /** The stoat.js Client of the logged-in user, or undefined. */
  get client(): Client | undefined {
    return this.#client[0]();
  }

  /** The id of the channel on screen. */
  get channelId(): string | undefined {
    return this.#channelId[0]();
  }
  setChannelId(id: string | undefined) {
    this.#channelId[1](id);
  }
  /** The stoat.js Channel on screen. */
  get channel(): Channel | undefined {
    const id = this.channelId;
    return id ? this.client?.channels.get(id) : undefined;
  }

  /** The message the channel view should scroll to (a reply's original, a search result). */
  get jumpTarget() {
    return this.#jump[0]();
  }
  /** The message put in edit mode from the message box (↑). */
  get editing() {
    return this.#editing[0]();
  }
  editMessage(id: string | undefined) {
    this.#editing[1](id);
  }

  /** Opens a channel at a message: the history loads around it and marks it. */
  jump(channel: string, id: string) {
    this.#jump[1]({ channel, id });
  }

  /** The user whose profile card is open. */
  get profileUser(): string | undefined {
    return this.#profile[0]();
  }
  /** Opens a user's profile card (undefined closes it). */
  showProfile(user: string | undefined) {
    this.#profile[1](user);
  }

  /** Shows a channel (navigating to it) scrolled to a message. */
  openAt(channel: string, message: string) {
    const c = this.client?.channels.get(channel);
    navigate(c?.serverId ? href.server(c.serverId, channel) : href.dm(channel));
    // The channel view mounts first, then takes the jump.
    setTimeout(() => this.jump(channel, message), 0);
  }

  /** Adds a button to every message; returns a function removing it. */
  addMessageAction(action: MessageAction): () => void {
    if (typeof action?.label !== "string" || typeof action.onClick !== "function") {
      throw new TypeError("addMessageAction wants { label: string, onClick(message) }");
    }
    this.#actions[1]((a) => [...a, action]);
    return () => this.#actions[1]((a) => a.filter((x) => x !== action));
  }
  get messageActions(): Accessor<MessageAction[]> {
    return this.#actions[0];
  }

  /** Adds a slash command to the message box; returns a function removing it. */
  addSlashCommand(command: SlashCommand): () => void {
    if (!/^[a-z0-9_-]{1,32}$/.test(command?.name ?? "") || typeof command.run !== "function") {
      throw new TypeError("addSlashCommand wants { name: /^[a-z0-9_-]{1,32}$/, run(args, channel) }");
    }
    this.#commands[1]((c) => [...c.filter((x) => x.name !== command.name), command]);
    return () => this.#commands[1]((c) => c.filter((x) => x !== command));
  }
  get slashCommands(): Accessor<SlashCommand[]> {
    return this.#commands[0];
  }

  /** Shows a short notice at the bottom of the page. */
  notify(text: string, kind: Notice["kind"] = "info") {
    const id = ++this.#noticeSeq;
    this.#notices[1]((n) => [...n, { id, kind, text }]);
    setTimeout(() => this.dismiss(id), kind === "error" ? 12000 : 5000);
  }
  dismiss(id: number) {
    this.#notices[1]((n) => n.filter((x) => x.id !== id));
  }
  get notices(): Accessor<Notice[]> {
    return this.#notices[0];
  }

  /** Fetches the root object (once). */
  async loadConfig(): Promise<RootConfig> {
    const have = this.config;
    if (have) return have;
    const c = await this.rest.root();
    this.setConfig(c);
    return c;
  }

  savedSession(): SavedSession | undefined {
    try {
      const s = JSON.parse(localStorage.getItem(SESSION_KEY) ?? "null");
      return s && typeof s.token === "string" ? s : undefined;
    } catch {
      return undefined;
    }
  }

  /** Starts the events connection for a session and remembers it. */
  start(session: SavedSession) {
    localStorage.setItem(SESSION_KEY, JSON.stringify(session));
    this.#token = session.token;
    stopClient(this.client);
    const client = new Client(
      { baseURL: this.apiURL, autoReconnect: true, syncUnreads: true },
      this.config as unknown as RevoltConfig | undefined,
    );
    client.useExistingSession(session);
    resumeEvents(client, session.token);
    client.on("logout", () => this.forget());
    // Without a listener the emitter throws on an error event.
    client.on("error", (err) => console.warn("events connection:", err));
    // The client library has no handler for a new role order: apply it here.
    client.events.on("event", (e) => {
      // Not in the library's event union: read the two fields it carries.
      const raw: { type: string; id?: unknown; ranks?: unknown } = e;
      if (raw.type === "ServerRoleRanksUpdate" && typeof raw.id === "string" && Array.isArray(raw.ranks)) applyRanks(client, raw.id, raw.ranks.map(String));
    });
    client.connect();
    this.#client[1](client);
    this.#stopNotifications?.();
    this.#stopNotifications = this.notifications.start(client);
  }

  /** Logs out: ends the session on the server, then forgets it. */
  async logout() {
    const client = this.client;
    if (client) {
      // Stopped before the session ends: the server then closes the
      // session's connections, and a running client would reconnect.
      stopClient(client);
      try {
        await this.rest.logout();
      } catch {
        // The session may already be gone; forget it anyway.
      }
    }
    this.forget();
  }

  forget() {
    localStorage.removeItem(SESSION_KEY);
    this.#token = undefined;
    this.#stopNotifications?.();
    this.#stopNotifications = undefined;
    stopClient(this.client);
    this.#client[1](undefined);
    this.setChannelId(undefined);
  }
}

let patched = false;

/**
 * Makes every API request (ours and stoat.js's, which share stoat-api's
 * API class) wait out a rate limit and try again, so a person sees a
 * short wait rather than an error.
 */
function patchRateLimits(onWait: (ms: number) => void) {
  if (patched) return;
  patched = true;
  const proto = API.prototype as unknown as { req: (...args: unknown[]) => Promise<unknown> };
  const original = proto.req;
  proto.req = function (this: unknown, ...args: unknown[]) {
    return retrying(() => original.apply(this, args), onWait);
  };
}

/** Gives a server's roles the ranks of a ServerRoleRanksUpdate (the order of ranks). */
function applyRanks(client: Client, serverId: string, ranks: string[]) {
  const server = client.servers.get(serverId);
  if (!server) return;
  ranks.forEach((id, rank) => {
    const role = server.roles.get(id);
    if (role) {
      const permissions = { a: Number(role.permissions.a), d: Number(role.permissions.d) };
      server.roles.set(id, new ServerRole(client, serverId, id, { name: role.name, colour: role.colour, hoist: role.hoist, permissions, rank }));
    }
  });
}

/** The API address the server wrote into the page, or this page's origin. */
export function pageAPI(): string {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="ermine-api"]')?.content;
  return meta && meta.length > 0 ? meta : location.origin;
}

