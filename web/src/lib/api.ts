// The one typed helper for the API routes the client library does not
// type (or types too narrowly): components call these methods, never
// client.api with a cast. Bodies are JSON; errors throw the error body's
// text as stoat-api does, so errors.ts reads both the same way; a rate
// limit is waited out (errors.ts retrying).

import type {
  DataCreateEmoji,
  DataCreateServerChannel,
  DataEditChannel,
  DataEditRole,
  DataEditServer,
  DataEditUser,
  Message as WireMessage,
  User as WireUser,
  Member as WireMember,
} from "stoat-api";
import { retrying } from "./errors";

/** What GET / answers (the contract's RevoltConfig). */
export interface RootConfig {
  revolt: string;
  ws: string;
  app: string;
  vapid?: string;
  features: {
    captcha: { enabled: boolean; key: string };
    email: boolean;
    invite_only: boolean;
    autumn: { enabled: boolean; url: string };
    january: { enabled: boolean; url: string };
    livekit?: { enabled: boolean; nodes: { name: string }[] };
  };
  build?: { semver?: string };
}

/** A session as the login answers it and the client keeps it. */
export interface SavedSession {
  _id: string;
  token: string;
  user_id: string;
}

export type LoginAnswer =
  | ({ result: "Success" } & SavedSession)
  | { result: "MFA"; ticket: string; allowed_methods: string[] }
  | { result: "Disabled"; user_id: string };

export type MFAResponse = { password: string } | { totp_code: string } | { recovery_code: string };

export type LoginBody =
  | { email: string; password: string; friendly_name?: string; captcha?: string }
  | { mfa_ticket: string; mfa_response: MFAResponse; friendly_name?: string };

/** GET /invites/{code} of a server invite (or a group's). */
export interface PublicInvite {
  type: "Server" | "Group";
  code: string;
  server_id?: string;
  server_name?: string;
  channel_id: string;
  channel_name: string;
  user_name: string;
  member_count?: number;
}

export interface JoinAnswer {
  type: "Server" | "Group";
  server?: { _id: string };
  channels?: { _id: string }[];
  channel?: { _id: string };
}

export interface SessionInfo {
  _id: string;
  name: string;
}

export interface MFAStatus {
  email_otp: boolean;
  trusted_handover: boolean;
  email_mfa: boolean;
  totp_mfa: boolean;
  security_key_mfa: boolean;
  recovery_active: boolean;
}

export interface MFATicket {
  _id: string;
  token: string;
}

export interface Permissions {
  allow: number;
  deny: number;
}

export interface MessagePage {
  messages: WireMessage[];
  users: WireUser[];
  members?: WireMember[];
}

export interface SearchQuery {
  query: string;
  limit?: number;
  before?: string;
  after?: string;
  sort?: "Relevance" | "Latest" | "Oldest";
}

export interface Ban {
  _id: { server: string; user: string };
  reason?: string | null;
}

export interface BanList {
  users: { _id: string; username: string; discriminator: string; avatar?: unknown }[];
  bans: Ban[];
}

export interface ServerInvite {
  _id: string;
  type: "Server" | "Group";
  server?: string;
  creator: string;
  channel: string;
}

/** A channel's webhook (GET /channels/{id}/webhooks; the token only to its managers). */
export interface Webhook {
  id: string;
  name: string;
  avatar?: { _id: string } | null;
  creator_id: string;
  channel_id: string;
  permissions: number;
  token?: string | null;
}

/** One moderation action of a server's audit log. */
export interface AuditLogEntry {
  _id: string;
  server: string;
  reason?: string | null;
  user: string;
  action: { type: string; [field: string]: unknown };
}

export interface AuditLogQuery {
  user?: string;
  types?: string[];
  before?: string;
  limit?: number;
}

export interface AuditLogPage {
  audit_logs: AuditLogEntry[];
  users: WireUser[];
  members: WireMember[];
}

/** GET /users/{id}/mutual: ids of the friends, servers and groups two people share. */
export interface Mutual {
  users: string[];
  servers: string[];
  channels: string[];
}

/** GET /users/{id}/profile. */
export interface UserProfile {
  content?: string | null;
  background?: { _id: string } | null;
}

/** Synced settings: key → [timestamp, value]. */
export type SyncedSettings = Record<string, [number, string]>;

/** The browser's push subscription as the API takes it. */
export interface PushSubscriptionBody {
  endpoint: string;
  p256dh: string;
  auth: string;
}

// --- the operator's console (admin/): routes answered only to privileged users

export interface AdminWarning {
  type: string;
  message: string;
}

export interface AdminOverview {
  accounts: number;
  users: number;
  bots: number;
  servers: number;
  channels: number;
  messages: number;
  open_reports: number;
  online_users: number;
  connections: number;
  version: string;
  started: string;
  uptime_seconds: number;
  store: string;
  bus: string;
  invite_only: boolean;
  last_backup?: string;
  warnings: AdminWarning[];
}

export interface AdminUser {
  user: WireUser & { privileged?: boolean };
  email?: string;
  verified: boolean;
  disabled: boolean;
  delete_after?: string;
  sessions: number;
  online: boolean;
}

export interface AdminAction {
  _id: string;
  user?: string;
  action: string;
  target: string;
  detail?: Record<string, unknown>;
}

export interface Report {
  _id: string;
  author_id: string;
  content: { type: "Message" | "Server" | "User"; id: string; report_reason: string };
  additional_context?: string;
  status: "Created" | "Resolved" | "Rejected";
  snapshot?: Record<string, unknown>;
  notes?: string;
  action?: string;
}

export interface AdminUserPage extends AdminUser {
  mfa: boolean;
  session_list: { _id: string; name: string; last_seen?: string }[];
  servers: { _id: string; name: string; owner: boolean }[];
  bots: WireUser[];
  reports_by: Report[];
  reports_against: Report[];
  actions: AdminAction[];
}

export interface AdminServer {
  _id: string;
  name: string;
  owner: string;
}

export interface AdminServerPage {
  server: AdminServer;
  owner?: WireUser;
  members: number;
  channels: { _id: string; name?: string; channel_type: string }[];
  audit_log: { _id: string; user: string; action: { type: string } }[];
  actions: AdminAction[];
}

export interface RegistrationInvite {
  _id: string;
  used: boolean;
  used_by?: string;
  created: string;
}

export type ReportAction = "None" | "DeleteMessage" | "DeleteServer" | "DisableUser" | "BanUser" | "DeleteUser";

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

const enc = encodeURIComponent;

/** Typed routes over one base URL, authenticated by token() when it gives one. */
export class Rest {
  readonly baseURL: string;
  #token: () => string | undefined;
  #onWait?: (ms: number) => void;

  constructor(baseURL: string, token: () => string | undefined = () => undefined, onWait?: (ms: number) => void) {
    this.baseURL = baseURL.replace(/\/+$/, "");
    this.#token = token;
    this.#onWait = onWait;
  }

  /** The same routes with another session (onboarding, before the client connects). */
  as(session: SavedSession): Rest {
    return new Rest(this.baseURL, () => session.token, this.#onWait);
  }

  /** One request: JSON in and out; a 204 is undefined; an error throws the body's text. */
  async req<T>(method: Method, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    return retrying(async () => {
      const token = this.#token();
      const res = await fetch(this.baseURL + path, {
        method,
        headers: {
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
          ...(token ? { "x-session-token": token } : {}),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = res.status === 204 ? "" : await res.text();
      if (!res.ok) throw text || `${res.status} ${res.statusText}`;
      return (text ? JSON.parse(text) : undefined) as T;
    }, this.#onWait);
  }

  // --- the instance and signing in
  root = () => this.req<RootConfig>("GET", "/");
  login = (body: LoginBody) => this.req<LoginAnswer>("POST", "/auth/session/login", body);
  logout = () => this.req<void>("POST", "/auth/session/logout", {});
  createAccount = (body: { email: string; password: string; captcha?: string; invite?: string }) => this.req<void>("POST", "/auth/account/create", body);
  resendVerification = (body: { email: string; captcha?: string }) => this.req<void>("POST", "/auth/account/reverify", body);
  sendPasswordReset = (body: { email: string; captcha?: string }) => this.req<void>("POST", "/auth/account/reset_password", body);
  resetPassword = (body: { token: string; password: string; remove_sessions?: boolean }) => this.req<void>("PATCH", "/auth/account/reset_password", body);
  verifyEmail = (code: string) => this.req<unknown>("POST", `/auth/account/verify/${enc(code)}`, {});
  confirmDeletion = (token: string) => this.req<void>("PUT", "/auth/account/delete", { token });
  onboardHello = () => this.req<{ onboarding: boolean }>("GET", "/onboard/hello");
  onboardComplete = (username: string) => this.req<WireUser>("POST", "/onboard/complete", { username });

  // --- account security
  account = () => this.req<{ _id: string; email: string }>("GET", "/auth/account/");
  changePassword = (password: string, current_password: string) => this.req<void>("PATCH", "/auth/account/change/password", { password, current_password });
  /** With two-factor on, the server also wants a validated MFA ticket. */
  changeEmail = (email: string, current_password: string, ticket?: string) =>
    this.req<void>("PATCH", "/auth/account/change/email", { email, current_password }, ticket ? { "x-mfa-ticket": ticket } : {});
  changeUsername = (username: string, password: string) => this.req<WireUser>("PATCH", "/users/@me/username", { username, password });
  mfaStatus = () => this.req<MFAStatus>("GET", "/auth/mfa/");
  mfaMethods = () => this.req<string[]>("GET", "/auth/mfa/methods");
  mfaTicket = (response: MFAResponse) => this.req<MFATicket>("PUT", "/auth/mfa/ticket", response);
  recoveryCodes = (ticket: string) => this.req<string[]>("POST", "/auth/mfa/recovery", {}, { "x-mfa-ticket": ticket });
  newRecoveryCodes = (ticket: string) => this.req<string[]>("PATCH", "/auth/mfa/recovery", {}, { "x-mfa-ticket": ticket });
  totpSecret = (ticket: string) => this.req<{ secret: string }>("POST", "/auth/mfa/totp", {}, { "x-mfa-ticket": ticket });
  enableTotp = (totp_code: string) => this.req<void>("PUT", "/auth/mfa/totp", { totp_code });
  disableTotp = (ticket: string) => this.req<void>("DELETE", "/auth/mfa/totp", {}, { "x-mfa-ticket": ticket });
  disableAccount = (ticket: string) => this.req<void>("POST", "/auth/account/disable", {}, { "x-mfa-ticket": ticket });
  deleteAccount = (ticket: string) => this.req<void>("POST", "/auth/account/delete", {}, { "x-mfa-ticket": ticket });
  sessions = () => this.req<SessionInfo[]>("GET", "/auth/session/all");
  /** With two-factor on, the server also wants a validated MFA ticket. */
  revokeSession = (id: string, ticket?: string) => this.req<void>("DELETE", `/auth/session/${enc(id)}`, {}, ticket ? { "x-mfa-ticket": ticket } : {});
  revokeOtherSessions = (ticket?: string) => this.req<void>("DELETE", "/auth/session/all?revoke_self=false", {}, ticket ? { "x-mfa-ticket": ticket } : {});

  // --- users and relationships
  editMe = (body: DataEditUser) => this.req<WireUser>("PATCH", "/users/@me", body);
  addFriend = (username: string) => this.req<WireUser>("POST", "/users/friend", { username });
  mutual = (user: string) => this.req<Mutual>("GET", `/users/${enc(user)}/mutual`);
  profile = (user: string) => this.req<UserProfile>("GET", `/users/${enc(user)}/profile`);

  // --- invites
  invite = (code: string) => this.req<PublicInvite>("GET", `/invites/${enc(code)}`);
  joinInvite = (code: string) => this.req<JoinAnswer>("POST", `/invites/${enc(code)}`, {});
  deleteInvite = (code: string) => this.req<void>("DELETE", `/invites/${enc(code)}`, {});

  // --- servers
  editServer = (server: string, body: DataEditServer) => this.req<unknown>("PATCH", `/servers/${enc(server)}`, body);
  createChannel = (server: string, body: DataCreateServerChannel) => this.req<{ _id: string }>("POST", `/servers/${enc(server)}/channels`, body);
  createRole = (server: string, name: string) => this.req<{ id: string }>("POST", `/servers/${enc(server)}/roles`, { name });
  editRole = (server: string, role: string, body: DataEditRole) => this.req<unknown>("PATCH", `/servers/${enc(server)}/roles/${enc(role)}`, body);
  setRoleRanks = (server: string, ranks: string[]) => this.req<unknown>("PATCH", `/servers/${enc(server)}/roles/ranks`, { ranks });
  setRolePermissions = (server: string, role: string, p: Permissions) => this.req<unknown>("PUT", `/servers/${enc(server)}/permissions/${enc(role)}`, { permissions: p });
  setDefaultPermissions = (server: string, p: number) => this.req<unknown>("PUT", `/servers/${enc(server)}/permissions/default`, { permissions: p });
  createEmoji = (file: string, body: DataCreateEmoji) => this.req<unknown>("PUT", `/custom/emoji/${enc(file)}`, body);
  bans = (server: string) => this.req<BanList>("GET", `/servers/${enc(server)}/bans`);
  ban = (server: string, user: string, reason?: string) => this.req<unknown>("PUT", `/servers/${enc(server)}/bans/${enc(user)}`, reason ? { reason } : {});
  unban = (server: string, user: string) => this.req<void>("DELETE", `/servers/${enc(server)}/bans/${enc(user)}`, {});
  kick = (server: string, user: string) => this.req<void>("DELETE", `/servers/${enc(server)}/members/${enc(user)}`, {});
  editMember = (server: string, user: string, body: { nickname?: string; roles?: string[]; timeout?: string; remove?: string[] }) =>
    this.req<unknown>("PATCH", `/servers/${enc(server)}/members/${enc(user)}`, body);
  serverInvites = (server: string) => this.req<ServerInvite[]>("GET", `/servers/${enc(server)}/invites`);
  auditLog = (server: string, q: AuditLogQuery = {}) => {
    const p = new URLSearchParams({ include_users: "true", limit: String(q.limit ?? 50) });
    if (q.user) p.set("user", q.user);
    if (q.before) p.set("before", q.before);
    for (const t of q.types ?? []) p.append("type", t);
    return this.req<AuditLogPage>("GET", `/servers/${enc(server)}/audit_logs?${p}`);
  };
  ackServer = (server: string) => this.req<void>("PUT", `/servers/${enc(server)}/ack`, {});

  // --- channels and messages
  fetchChannel = (channel: string) => this.req<{ _id: string; slowmode?: number | null }>("GET", `/channels/${enc(channel)}`);
  editChannel = (channel: string, body: DataEditChannel & { slowmode?: number }) => this.req<unknown>("PATCH", `/channels/${enc(channel)}`, body);
  webhooks = (channel: string) => this.req<Webhook[]>("GET", `/channels/${enc(channel)}/webhooks`);
  createWebhook = (channel: string, name: string, avatar?: string) => this.req<Webhook>("POST", `/channels/${enc(channel)}/webhooks`, { name, ...(avatar ? { avatar } : {}) });
  editWebhook = (id: string, body: { name?: string; avatar?: string; remove?: "Avatar"[] }) => this.req<Webhook>("PATCH", `/webhooks/${enc(id)}`, body);
  deleteWebhook = (id: string) => this.req<void>("DELETE", `/webhooks/${enc(id)}`, {});
  setChannelPermissions = (channel: string, role: string, p: Permissions) => this.req<unknown>("PUT", `/channels/${enc(channel)}/permissions/${enc(role)}`, { permissions: p });
  messagesNear = (channel: string, id: string, limit = 50) =>
    this.req<MessagePage>("GET", `/channels/${enc(channel)}/messages?nearby=${enc(id)}&limit=${limit}&include_users=true`);
  search = (channel: string, q: SearchQuery) => this.req<MessagePage>("POST", `/channels/${enc(channel)}/search`, { ...q, include_users: true });

  /**
   * Uploads a file to the file service (autumn) under tag, reporting
   * progress (0…1); returns the file id. XMLHttpRequest, since fetch
   * reports no upload progress.
   */
  upload(autumn: string, tag: string, file: Blob & { name?: string }, onProgress?: (fraction: number) => void): Promise<string> {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open("POST", `${autumn.replace(/\/+$/, "")}/${tag}`);
      const token = this.#token();
      if (token) xhr.setRequestHeader("X-Session-Token", token);
      xhr.upload.onprogress = (e) => e.lengthComputable && onProgress?.(e.loaded / e.total);
      xhr.onload = () => {
        if (xhr.status >= 200 && xhr.status < 300) {
          try {
            resolve(JSON.parse(xhr.responseText).id);
          } catch (err) {
            reject(err);
          }
        } else reject(xhr.responseText || `${xhr.status} ${xhr.statusText}`);
      };
      xhr.onerror = () => reject("The upload failed: the file service could not be reached.");
      const form = new FormData();
      form.append("file", file, file.name ?? "file");
      xhr.send(form);
    });
  }

  // --- synced settings and push
  fetchSettings = (keys: string[]) => this.req<SyncedSettings>("POST", "/sync/settings/fetch", { keys });
  setSettings = (values: Record<string, string>, timestamp = Date.now()) => this.req<void>("POST", `/sync/settings/set?timestamp=${timestamp}`, values);
  pushSubscribe = (sub: PushSubscriptionBody) => this.req<void>("POST", "/push/subscribe", sub);
  pushUnsubscribe = () => this.req<void>("POST", "/push/unsubscribe", {});

  // --- the operator's console
  adminOverview = () => this.req<AdminOverview>("GET", "/admin/overview");
  adminUsers = (query: string, limit = 50) => this.req<AdminUser[]>("GET", `/admin/users?query=${enc(query)}&limit=${limit}`);
  adminUserPage = (id: string) => this.req<AdminUserPage>("GET", `/admin/users/${enc(id)}/page`);
  adminEditUser = (id: string, body: { badges?: number; flags?: number; privileged?: boolean }) => this.req<AdminUser>("PATCH", `/admin/users/${enc(id)}`, body);
  adminDisable = (id: string) => this.req<void>("POST", `/admin/users/${enc(id)}/disable`, {});
  adminEnable = (id: string) => this.req<void>("POST", `/admin/users/${enc(id)}/enable`, {});
  adminWipe = (id: string, mode: "ban" | "delete") => this.req<void>("POST", `/admin/users/${enc(id)}/wipe`, { mode });
  adminResetPassword = (id: string, password?: string) => this.req<{ link?: string }>("POST", `/admin/users/${enc(id)}/password`, password ? { password } : {});
  adminExport = (id: string) => this.req<unknown>("GET", `/admin/users/${enc(id)}/export`);
  adminReports = (status?: Report["status"], limit = 100, author?: string) =>
    this.req<Report[]>("GET", `/admin/reports?limit=${limit}${status ? `&status=${status}` : ""}${author ? `&author=${enc(author)}` : ""}`);
  adminResolve = (id: string, body: { status?: "Resolved" | "Rejected"; notes?: string; action?: ReportAction }) => this.req<Report>("POST", `/admin/reports/${enc(id)}/resolve`, body);
  adminServers = (query: string, limit = 50) => this.req<{ server: AdminServer; members: number }[]>("GET", `/admin/servers?query=${enc(query)}&limit=${limit}`);
  adminServerPage = (id: string) => this.req<AdminServerPage>("GET", `/admin/servers/${enc(id)}`);
  adminDeleteServer = (id: string) => this.req<void>("DELETE", `/admin/servers/${enc(id)}`, {});
  adminTransferServer = (id: string, owner: string) => this.req<AdminServer>("POST", `/admin/servers/${enc(id)}/transfer`, { owner });
  adminRemoveMember = (id: string, user: string) => this.req<void>("DELETE", `/admin/servers/${enc(id)}/members/${enc(user)}`, {});
  adminInvites = () => this.req<{ invite_only: boolean; invites: RegistrationInvite[] }>("GET", "/admin/invites");
  adminCreateInvite = () => this.req<RegistrationInvite>("POST", "/admin/invites", {});
  adminDeleteInvite = (code: string) => this.req<void>("DELETE", `/admin/invites/${enc(code)}`, {});
  adminAudit = (before?: string, limit = 100) => this.req<AdminAction[]>("GET", `/admin/audit?limit=${limit}${before ? `&before=${enc(before)}` : ""}`);
}
