import { createResource, createSignal, For, Match, Show, Switch } from "solid-js";
import type { Channel, Server } from "stoat.js";
import { errorText, type AppState } from "../state";
import { href } from "../router";
import { link } from "./Auth";
import { avatar, iconURL } from "./media";

function Tabs(props: { tabs: [string, string][]; current: string; to: (tab: string) => string }) {
  return (
    <nav class="tabs" aria-label="Settings sections">
      <For each={props.tabs}>
        {([id, label]) => (
          <a href={props.to(id)} onClick={link(props.to(id))} aria-current={props.current === id ? "page" : undefined}>
            {label}
          </a>
        )}
      </For>
    </nav>
  );
}

const guard = (state: AppState, f: () => Promise<unknown>, done?: string) => async (e?: Event) => {
  e?.preventDefault();
  try {
    await f();
    if (done) state.notify(done);
  } catch (err) {
    state.notify(errorText(err), "error");
  }
};

export function UserSettings(props: { state: AppState; tab: string; onLogout: () => void }) {
  return (
    <div class="page settings">
      <h1>Settings</h1>
      <Tabs
        tabs={[
          ["profile", "Profile"],
          ["sessions", "Sessions"],
          ["plugins", "Plugins"],
        ]}
        current={props.tab}
        to={href.settings}
      />
      <Switch fallback={<Profile state={props.state} />}>
        <Match when={props.tab === "sessions"}>
          <Sessions state={props.state} />
        </Match>
        <Match when={props.tab === "plugins"}>
          <Plugins state={props.state} />
        </Match>
      </Switch>
      <hr />
      <button onClick={async () => (await props.state.logout(), props.onLogout())}>Log out</button>
    </div>
  );
}

const PRESENCES = ["Online", "Idle", "Focus", "Busy", "Invisible"] as const;

function Profile(props: { state: AppState }) {
  const me = () => props.state.client!.user!;
  const [display, setDisplay] = createSignal(me().displayName === me().username ? "" : me().displayName);
  const [status, setStatus] = createSignal(me().status?.text ?? "");
  const [presence, setPresence] = createSignal<string>(me().status?.presence ?? "Online");
  let file!: HTMLInputElement;
  const save = guard(
    props.state,
    () =>
      me().edit({
        ...(display().trim() ? { display_name: display().trim() } : {}),
        status: { ...(status().trim() ? { text: status().trim() } : {}), presence: presence() },
        remove: [...(display().trim() ? [] : ["DisplayName"]), ...(status().trim() ? [] : ["StatusText"])],
      } as never),
    "Profile saved",
  );
  const upload = guard(props.state, async () => {
    const f = file.files?.[0];
    if (!f) return;
    const id = await props.state.client!.uploadFile("avatars", f);
    await me().edit({ avatar: id } as never);
  }, "Avatar changed");
  return (
    <form class="card wide" onSubmit={save} aria-label="Profile">
      <div class="row">
        <img class="avatar large" src={avatar(me())} alt="Your avatar" />
        <label class="button">
          Change avatar
          <input ref={file} type="file" accept="image/*" class="visually-hidden" onChange={() => upload()} />
        </label>
        <Show when={me().avatar}>
          <button type="button" onClick={guard(props.state, () => me().edit({ remove: ["Avatar"] } as never))}>Remove avatar</button>
        </Show>
      </div>
      <p class="muted">
        Username: {me().username}#{me().discriminator}
      </p>
      <label>
        Display name
        <input name="display-name" maxLength={32} placeholder={me().username} value={display()} onInput={(e) => setDisplay(e.currentTarget.value)} />
      </label>
      <label>
        Status
        <input name="status" maxLength={128} value={status()} onInput={(e) => setStatus(e.currentTarget.value)} />
      </label>
      <label>
        Presence
        <select value={presence()} onChange={(e) => setPresence(e.currentTarget.value)}>
          <For each={PRESENCES}>{(p) => <option value={p}>{p}</option>}</For>
        </select>
      </label>
      <button type="submit" class="primary">Save</button>
    </form>
  );
}

function Sessions(props: { state: AppState }) {
  const client = () => props.state.client!;
  const [sessions, { refetch }] = createResource(() => client().api.get("/auth/session/all") as Promise<{ _id: string; name: string }[]>);
  const end = (id: string) => guard(props.state, async () => (await client().api.delete(`/auth/session/${id}` as never), refetch()));
  return (
    <div class="card wide">
      <h2>Sessions</h2>
      <ul class="people">
        <For each={sessions() ?? []}>
          {(s) => (
            <li class="person">
              <span class="who">
                <strong>{s.name}</strong>
                <Show when={s._id === client().sessionId}>
                  <span class="muted">this browser</span>
                </Show>
              </span>
              <span class="spacer" />
              <Show when={s._id !== client().sessionId}>
                <button onClick={end(s._id)}>Log out</button>
              </Show>
            </li>
          )}
        </For>
      </ul>
      <button onClick={guard(props.state, async () => (await client().api.delete("/auth/session/all?revoke_self=false" as never), refetch()), "Other sessions logged out")}>
        Log out every other session
      </button>
    </div>
  );
}

export function Plugins(props: { state: AppState }) {
  const plugins = () => props.state.plugins;
  const [json, setJson] = createSignal("");
  const [error, setError] = createSignal("");
  const add = (e: Event) => {
    e.preventDefault();
    setError("");
    try {
      let value: unknown;
      try {
        value = JSON.parse(json());
      } catch (err) {
        throw new Error(`manifest: not valid JSON (${(err as Error).message})`);
      }
      const info = plugins().add(value);
      setJson("");
      props.state.notify(info.loaded ? `Plugin ${info.namespace}/${info.id} loaded` : `Plugin ${info.namespace}/${info.id} added`);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <div class="card wide plugins">
      <h2>Plugins</h2>
      <p class="warning" role="note">
        Plugins run unsandboxed: a plugin's code runs with your account, can read and send your messages and can change
        anything on this page. Add only plugins you have read or trust.
      </p>
      <Show when={plugins().list().length} fallback={<p class="muted">No plugins installed.</p>}>
        <ul class="people" aria-label="Installed plugins">
          <For each={plugins().list()}>
            {(p) => (
              <li class="person plugin" data-plugin={`${p.namespace}/${p.id}`}>
                <span class="who">
                  <strong>
                    {p.namespace}/{p.id}
                  </strong>
                  <span class="muted">
                    {p.version} · {p.loaded ? "running" : p.enabled ? "enabled, not running" : "disabled"}
                  </span>
                  <Show when={p.error}>
                    <span class="error" role="alert">
                      {p.error}
                    </span>
                  </Show>
                </span>
                <span class="spacer" />
                <label class="check">
                  <input
                    type="checkbox"
                    checked={p.enabled && p.loaded}
                    aria-label={`Enable ${p.namespace}/${p.id}`}
                    onChange={(e) => (e.currentTarget.checked ? plugins().load(p.namespace, p.id) : plugins().unload(p.namespace, p.id))}
                  />
                  enabled
                </label>
                <button onClick={() => confirm(`Remove ${p.namespace}/${p.id}?`) && plugins().remove(p.namespace, p.id)}>Remove</button>
              </li>
            )}
          </For>
        </ul>
      </Show>
      <form onSubmit={add} aria-label="Add a plugin">
        <label>
          Add from manifest JSON
          <textarea name="plugin-manifest" rows={8} spellcheck={false} placeholder='{"format": 1, "version": "1.0.0", "namespace": "you", "id": "my-plugin", "entrypoint": "(state) => ({ onUnload() {} })"}' value={json()} onInput={(e) => setJson(e.currentTarget.value)} />
        </label>
        <Show when={error()}>
          <p class="error" role="alert">{error()}</p>
        </Show>
        <button type="submit" class="primary">Add plugin</button>
      </form>
      <button onClick={() => confirm("Remove every plugin and reload?") && plugins().reset()}>Remove all plugins</button>
    </div>
  );
}

/** A category id: 8 random base-36 characters. */
function randomId() {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => (b % 36).toString(36)).join("").toUpperCase();
}

/** Permission bits of seed part 2 that apply to servers and channels. */
export const PERMISSIONS: [string, number][] = [
  ["ManageChannel", 0], ["ManageServer", 1], ["ManagePermissions", 2], ["ManageRole", 3], ["ManageCustomisation", 4],
  ["KickMembers", 6], ["BanMembers", 7], ["TimeoutMembers", 8], ["AssignRoles", 9], ["ChangeNickname", 10],
  ["ManageNicknames", 11], ["ChangeAvatar", 12], ["RemoveAvatars", 13], ["ViewChannel", 20], ["ReadMessageHistory", 21],
  ["SendMessage", 22], ["ManageMessages", 23], ["ManageWebhooks", 24], ["InviteOthers", 25], ["SendEmbeds", 26],
  ["UploadFiles", 27], ["Masquerade", 28], ["React", 29], ["Connect", 30], ["Speak", 31], ["Video", 32],
  ["MuteMembers", 33], ["DeafenMembers", 34], ["MoveMembers", 35],
];
const bit = (b: number) => 2 ** b;
const has = (v: number, b: number) => Math.floor(v / bit(b)) % 2 === 1;
const flip = (v: number, b: number, on: boolean) => (has(v, b) === on ? v : on ? v + bit(b) : v - bit(b));

export function ServerSettings(props: { state: AppState; server: Server; tab: string }) {
  return (
    <div class="page settings">
      <h1>{props.server.name} settings</h1>
      <Tabs
        tabs={[
          ["overview", "Overview"],
          ["roles", "Roles"],
          ["channels", "Channels"],
          ["emoji", "Emoji"],
        ]}
        current={props.tab}
        to={(t) => href.serverSettings(props.server.id, t)}
      />
      <Switch fallback={<Overview state={props.state} server={props.server} />}>
        <Match when={props.tab === "roles"}>
          <Roles state={props.state} server={props.server} />
        </Match>
        <Match when={props.tab === "channels"}>
          <Channels state={props.state} server={props.server} />
        </Match>
        <Match when={props.tab === "emoji"}>
          <Emojis state={props.state} server={props.server} />
        </Match>
      </Switch>
    </div>
  );
}

function Overview(props: { state: AppState; server: Server }) {
  const [name, setName] = createSignal(props.server.name);
  const [description, setDescription] = createSignal(props.server.description ?? "");
  let file!: HTMLInputElement;
  const canManage = () => props.server.havePermission("ManageServer");
  const save = guard(
    props.state,
    () => props.server.edit({ name: name().trim(), ...(description().trim() ? { description: description() } : { remove: ["Description"] }) } as never),
    "Server saved",
  );
  const icon = guard(props.state, async () => {
    const f = file.files?.[0];
    if (!f) return;
    const id = await props.state.client!.uploadFile("icons", f);
    await props.server.edit({ icon: id } as never);
  }, "Icon changed");
  const leave = guard(props.state, () => props.server.delete());
  return (
    <form class="card wide" onSubmit={save} aria-label="Server overview">
      <div class="row">
        <Show when={iconURL(props.server.icon)} fallback={<div class="avatar large placeholder">{props.server.name.slice(0, 1)}</div>}>
          <img class="avatar large" src={iconURL(props.server.icon)} alt="Server icon" />
        </Show>
        <Show when={canManage()}>
          <label class="button">
            Change icon
            <input ref={file} type="file" accept="image/*" class="visually-hidden" onChange={() => icon()} />
          </label>
        </Show>
      </div>
      <label>
        Name
        <input name="server-name" required maxLength={32} disabled={!canManage()} value={name()} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Description
        <textarea name="server-description" maxLength={1024} disabled={!canManage()} value={description()} onInput={(e) => setDescription(e.currentTarget.value)} />
      </label>
      <Show when={canManage()}>
        <button type="submit" class="primary">Save</button>
      </Show>
      <hr />
      <button type="button" class="danger" onClick={() => confirm(props.server.ownerId === props.state.client!.user!.id ? "Delete this server for everyone?" : "Leave this server?") && leave()}>
        {props.server.ownerId === props.state.client!.user!.id ? "Delete server" : "Leave server"}
      </button>
    </form>
  );
}

function PermissionGrid(props: { allow: number; deny?: number; tri: boolean; disabled: boolean; onChange: (allow: number, deny: number) => void }) {
  return (
    <div class="perm-grid" role="group" aria-label="Permissions">
      <For each={PERMISSIONS}>
        {([name, b]) => {
          const value = () => (has(props.allow, b) ? "allow" : props.deny !== undefined && has(props.deny, b) ? "deny" : "neutral");
          return (
            <label class="perm">
              <span>{name}</span>
              <Show
                when={props.tri}
                fallback={
                  <input type="checkbox" disabled={props.disabled} checked={has(props.allow, b)} onChange={(e) => props.onChange(flip(props.allow, b, e.currentTarget.checked), 0)} aria-label={name} />
                }
              >
                <select
                  disabled={props.disabled}
                  aria-label={name}
                  value={value()}
                  onChange={(e) => {
                    const v = e.currentTarget.value;
                    props.onChange(flip(props.allow, b, v === "allow"), flip(props.deny ?? 0, b, v === "deny"));
                  }}
                >
                  <option value="neutral">—</option>
                  <option value="allow">allow</option>
                  <option value="deny">deny</option>
                </select>
              </Show>
            </label>
          );
        }}
      </For>
    </div>
  );
}

function Roles(props: { state: AppState; server: Server }) {
  const [name, setName] = createSignal("");
  const [selected, setSelected] = createSignal<string>("default");
  const canEdit = () => props.server.havePermission("ManageRole") || props.server.havePermission("ManagePermissions");
  const client = () => props.state.client!;
  const role = () => props.server.roles.get(selected());
  const create = guard(props.state, async () => {
    const r = (await client().api.post(`/servers/${props.server.id}/roles` as never, { name: name().trim() } as never)) as { id: string };
    setName("");
    setSelected(r.id);
  });
  const perms = () => {
    if (selected() === "default") return { a: Number(props.server.defaultPermissions), d: 0 };
    const p = role()?.permissions as unknown as { a: number; d: number } | undefined;
    return { a: Number(p?.a ?? 0), d: Number(p?.d ?? 0) };
  };
  const set = (a: number, d: number) =>
    guard(props.state, () => (selected() === "default" ? props.server.setPermissions(undefined, a) : props.server.setPermissions(selected(), { allow: a, deny: d } as never)))();
  return (
    <div class="card wide">
      <div class="row wrap">
        <label>
          Role
          <select value={selected()} onChange={(e) => setSelected(e.currentTarget.value)}>
            <option value="default">Everyone (default)</option>
            <For each={props.server.orderedRoles}>{(r) => <option value={r.id}>{r.name}</option>}</For>
          </select>
        </label>
        <Show when={selected() !== "default" && canEdit()}>
          <button class="danger" onClick={guard(props.state, async () => (await props.server.deleteRole(selected()), setSelected("default")))}>Delete role</button>
        </Show>
      </div>
      <PermissionGrid allow={perms().a} deny={perms().d} tri={selected() !== "default"} disabled={!canEdit()} onChange={set} />
      <Show when={canEdit()}>
        <form class="inline-form" onSubmit={create} aria-label="Create a role">
          <input placeholder="New role name" required maxLength={32} value={name()} onInput={(e) => setName(e.currentTarget.value)} aria-label="New role name" />
          <button type="submit" class="primary">Create role</button>
        </form>
      </Show>
    </div>
  );
}

function Channels(props: { state: AppState; server: Server }) {
  const [selected, setSelected] = createSignal<string>(props.server.channels[0]?.id ?? "");
  const [target, setTarget] = createSignal<string>("default");
  const channel = (): Channel | undefined => props.state.client!.channels.get(selected());
  const canEdit = () => !!channel()?.havePermission("ManagePermissions");
  const current = () => {
    const ch = channel();
    if (!ch) return { a: 0, d: 0 };
    const o = (target() === "default" ? ch.defaultPermissions : ch.rolePermissions?.[target()]) as { a: number; d: number } | undefined;
    return { a: Number(o?.a ?? 0), d: Number(o?.d ?? 0) };
  };
  const [name, setName] = createSignal(channel()?.name ?? "");
  const [description, setDescription] = createSignal(channel()?.description ?? "");
  const [newCategory, setNewCategory] = createSignal("");
  let icon!: HTMLInputElement;
  const categoryOf = () => (props.server.categories ?? []).find((c) => c.channels.includes(selected()))?.id ?? "";
  const rename = guard(
    props.state,
    () => channel()!.edit({ name: name().trim(), ...(description().trim() ? { description: description() } : { remove: ["Description"] }) } as never),
    "Channel saved",
  );
  const setIcon = guard(props.state, async () => {
    const f = icon.files?.[0];
    if (!f) return;
    await channel()!.edit({ icon: await props.state.client!.uploadFile("icons", f) } as never);
    icon.value = "";
  }, "Icon changed");
  // Categories are the server's list; a channel is in at most one.
  const moveTo = (categoryId: string, title?: string) =>
    guard(props.state, async () => {
      const id = selected();
      let cats = (props.server.categories ?? []).map((c) => ({ id: c.id, title: c.title, channels: c.channels.filter((x) => x !== id) }));
      if (title) cats = [...cats, { id: randomId(), title, channels: [id] }];
      else cats = cats.map((c) => (c.id === categoryId ? { ...c, channels: [...c.channels, id] } : c));
      await props.server.edit({ categories: cats } as never);
      setNewCategory("");
    })();
  return (
    <div class="card wide">
      <div class="row wrap">
        <label>
          Channel
          <select
            value={selected()}
            onChange={(e) => {
              setSelected(e.currentTarget.value);
              setName(channel()?.name ?? "");
              setDescription(channel()?.description ?? "");
            }}
          >
            <For each={props.server.channels}>{(c) => <option value={c.id}>#{c.name}</option>}</For>
          </select>
        </label>
        <label>
          Override for
          <select value={target()} onChange={(e) => setTarget(e.currentTarget.value)}>
            <option value="default">Everyone</option>
            <For each={props.server.orderedRoles}>{(r) => <option value={r.id}>{r.name}</option>}</For>
          </select>
        </label>
      </div>
      <Show when={channel()}>
        <form class="inline-form" onSubmit={rename} aria-label="Edit channel">
          <input aria-label="Channel name" required maxLength={32} disabled={!channel()!.havePermission("ManageChannel")} value={name()} onInput={(e) => setName(e.currentTarget.value)} />
          <input aria-label="Channel description" maxLength={1024} placeholder="Description" disabled={!channel()!.havePermission("ManageChannel")} value={description()} onInput={(e) => setDescription(e.currentTarget.value)} />
          <button type="submit" disabled={!channel()!.havePermission("ManageChannel")}>Save</button>
          <label class="button">
            Icon
            <input ref={icon} type="file" accept="image/*" class="visually-hidden" disabled={!channel()!.havePermission("ManageChannel")} onChange={() => setIcon()} />
          </label>
          <button type="button" class="danger" disabled={!channel()!.havePermission("ManageChannel")} onClick={() => confirm(`Delete #${channel()!.name}?`) && guard(props.state, () => channel()!.delete())()}>
            Delete channel
          </button>
        </form>
        <PermissionGrid
          allow={current().a}
          deny={current().d}
          tri
          disabled={!canEdit()}
          onChange={(a, d) => guard(props.state, () => channel()!.setPermissions(target() === "default" ? "default" : target(), { allow: a, deny: d } as never))()}
        />
        <Show when={props.server.havePermission("ManageChannel")}>
          <div class="row wrap">
            <label>
              Category
              <select aria-label="Category" value={categoryOf()} onChange={(e) => moveTo(e.currentTarget.value)}>
                <option value="">(none)</option>
                <For each={props.server.categories ?? []}>{(c) => <option value={c.id}>{c.title}</option>}</For>
              </select>
            </label>
            <form
              class="inline-form"
              aria-label="New category"
              onSubmit={(e) => {
                e.preventDefault();
                if (newCategory().trim()) moveTo("", newCategory().trim());
              }}
            >
              <input aria-label="New category name" placeholder="New category" maxLength={32} value={newCategory()} onInput={(e) => setNewCategory(e.currentTarget.value)} />
              <button type="submit">Create and move here</button>
            </form>
          </div>
        </Show>
      </Show>
    </div>
  );
}

function Emojis(props: { state: AppState; server: Server }) {
  const [name, setName] = createSignal("");
  let file!: HTMLInputElement;
  const client = () => props.state.client!;
  const list = () => client().emojis.filter((e) => (e as unknown as { parent?: { id: string } }).parent?.id === props.server.id);
  const canManage = () => props.server.havePermission("ManageCustomisation");
  const create = guard(props.state, async () => {
    const f = file.files?.[0];
    if (!f) throw new Error("Pick an image first");
    const id = await client().uploadFile("emojis", f);
    await props.server.createEmoji(id, { name: name().trim().toLowerCase() } as never);
    setName("");
    file.value = "";
  }, "Emoji added");
  return (
    <div class="card wide">
      <Show when={list().length} fallback={<p class="muted">No custom emoji yet.</p>}>
        <ul class="people" aria-label="Custom emoji">
          <For each={list()}>
            {(e) => (
              <li class="person">
                <img class="emoji custom" src={`${props.state.config?.features.autumn.url}/emojis/${e.id}`} alt="" />
                <span>:{e.name}:</span>
                <span class="spacer" />
                <Show when={canManage()}>
                  <button onClick={guard(props.state, () => props.server.deleteEmoji(e.id))}>Delete</button>
                </Show>
              </li>
            )}
          </For>
        </ul>
      </Show>
      <Show when={canManage()}>
        <form class="inline-form" onSubmit={create} aria-label="Add an emoji">
          <input aria-label="Emoji name" placeholder="name" required pattern="[a-z0-9_]{1,32}" value={name()} onInput={(e) => setName(e.currentTarget.value)} />
          <input ref={file} type="file" accept="image/*" aria-label="Emoji image" />
          <button type="submit" class="primary">Add emoji</button>
        </form>
      </Show>
    </div>
  );
}
