// A server's settings: overview, members, bans, invites, roles, channels,
// emoji, webhooks and the audit log.

import { createResource, createSignal, For, Match, Show, Switch } from "solid-js";
import type { Channel, Server } from "stoat.js";
import type { AppState } from "../app/state";
import { href } from "../app/router";
import { guard } from "../lib/errors";
import { PERMISSIONS, flip, has } from "../lib/permissions";
import { Tabs } from "../ui/common";
import { Bans, Invites, Members } from "./Moderation";
import { iconURL } from "../ui/media";
import { FilePicker } from "../ui/FilePicker";
import { ChannelOrder } from "./ChannelOrder";
import { SLOWMODES, slowmodeLabel } from "../lib/channels";
import { Webhooks } from "./Webhooks";
import { AuditLog } from "./AuditLog";

/** A category id: 8 random base-36 characters. */
function randomId() {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => (b % 36).toString(36)).join("").toUpperCase();
}

export function ServerSettings(props: { state: AppState; server: Server; tab: string }) {
  return (
    <div class="page settings">
      <h1>{props.server.name} settings</h1>
      <Tabs
        tabs={[
          ["overview", "Overview"],
          ["members", "Members"],
          ["bans", "Bans"],
          ["invites", "Invites"],
          ["roles", "Roles"],
          ["channels", "Channels"],
          ["emoji", "Emoji"],
          ["webhooks", "Webhooks"],
          ["audit", "Audit log"],
        ]}
        current={props.tab}
        to={(t) => href.serverSettings(props.server.id, t)}
      />
      <Switch fallback={<Overview state={props.state} server={props.server} />}>
        <Match when={props.tab === "members"}>
          <Members state={props.state} server={props.server} />
        </Match>
        <Match when={props.tab === "bans"}>
          <Bans state={props.state} server={props.server} />
        </Match>
        <Match when={props.tab === "invites"}>
          <Invites state={props.state} server={props.server} />
        </Match>
        <Match when={props.tab === "roles"}>
          <Roles state={props.state} server={props.server} />
        </Match>
        <Match when={props.tab === "channels"}>
          <Channels state={props.state} server={props.server} />
        </Match>
        <Match when={props.tab === "emoji"}>
          <Emojis state={props.state} server={props.server} />
        </Match>
        <Match when={props.tab === "webhooks"}>
          <Webhooks state={props.state} server={props.server} />
        </Match>
        <Match when={props.tab === "audit"}>
          <AuditLog state={props.state} server={props.server} />
        </Match>
      </Switch>
    </div>
  );
}

function Overview(props: { state: AppState; server: Server }) {
  const [name, setName] = createSignal(props.server.name);
  const [description, setDescription] = createSignal(props.server.description ?? "");
  const canManage = () => props.server.havePermission("ManageServer");
  const save = guard(
    props.state,
    () => props.state.rest.editServer(props.server.id, { name: name().trim(), ...(description().trim() ? { description: description() } : { remove: ["Description"] }) }),
    "Server saved",
  );
  const icon = (f: File) => guard(props.state, async () => {
    const id = await props.state.client!.uploadFile("icons", f);
    await props.state.rest.editServer(props.server.id, { icon: id });
  }, "Icon changed")();
  const leave = guard(props.state, () => props.server.delete());
  return (
    <form class="card wide" onSubmit={save} aria-label="Server overview">
      <div class="row">
        <Show when={iconURL(props.server.icon)} fallback={<div class="avatar large placeholder">{props.server.name.slice(0, 1)}</div>}>
          <img class="avatar large" src={iconURL(props.server.icon)} alt="Server icon" />
        </Show>
        <Show when={canManage()}>
          <FilePicker label="Change icon" accept="image/*" onFiles={(f) => icon(f[0])} />
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
    const r = await props.state.rest.createRole(props.server.id, name().trim());
    setName("");
    setSelected(r.id);
  });
  const perms = () => {
    if (selected() === "default") return { a: Number(props.server.defaultPermissions), d: 0 };
    const p = role()?.permissions as unknown as { a: number; d: number } | undefined;
    return { a: Number(p?.a ?? 0), d: Number(p?.d ?? 0) };
  };
  const set = (a: number, d: number) =>
    guard(props.state, () => (selected() === "default" ? props.state.rest.setDefaultPermissions(props.server.id, a) : props.state.rest.setRolePermissions(props.server.id, selected(), { allow: a, deny: d })))();
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
      <Show when={role()}>
        {(r) => <RoleColour state={props.state} server={props.server} roleId={selected()} colour={r().colour ?? ""} disabled={!canEdit()} />}
      </Show>
      <PermissionGrid allow={perms().a} deny={perms().d} tri={selected() !== "default"} disabled={!canEdit()} onChange={set} />
      <Show when={props.server.orderedRoles.length > 1}>
        <RoleOrder state={props.state} server={props.server} disabled={!canEdit()} />
      </Show>
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
  // The client library does not keep slowmode: it is read from the API per channel.
  const [slowmode, { mutate: mutateSlowmode }] = createResource(selected, async (id) => (id ? Number((await props.state.rest.fetchChannel(id)).slowmode ?? 0) : 0));
  const setSlowmode = (s: number) =>
    guard(props.state, async () => {
      await props.state.rest.editChannel(selected(), { slowmode: s }); // 0 turns it off
      mutateSlowmode(s);
    }, s ? `Slowmode set to ${slowmodeLabel(s)}` : "Slowmode off")();
  const categoryOf = () => (props.server.categories ?? []).find((c) => c.channels.includes(selected()))?.id ?? "";
  const rename = guard(
    props.state,
    () => props.state.rest.editChannel(selected(), { name: name().trim(), ...(description().trim() ? { description: description() } : { remove: ["Description"] }) }),
    "Channel saved",
  );
  const setIcon = (f: File) => guard(props.state, async () => {
    await props.state.rest.editChannel(selected(), { icon: await props.state.client!.uploadFile("icons", f) });
  }, "Icon changed")();
  // Categories are the server's list; a channel is in at most one.
  const moveTo = (categoryId: string, title?: string) =>
    guard(props.state, async () => {
      const id = selected();
      let cats = (props.server.categories ?? []).map((c) => ({ id: c.id, title: c.title, channels: c.channels.filter((x) => x !== id) }));
      if (title) cats = [...cats, { id: randomId(), title, channels: [id] }];
      else cats = cats.map((c) => (c.id === categoryId ? { ...c, channels: [...c.channels, id] } : c));
      await props.state.rest.editServer(props.server.id, { categories: cats });
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
          <FilePicker label="Channel icon" accept="image/*" disabled={!channel()!.havePermission("ManageChannel")} onFiles={(f) => setIcon(f[0])} />
          <button type="button" class="danger" disabled={!channel()!.havePermission("ManageChannel")} onClick={() => confirm(`Delete #${channel()!.name}?`) && guard(props.state, () => channel()!.delete())()}>
            Delete channel
          </button>
        </form>
        <Show when={channel()!.type === "TextChannel"}>
          <label class="inline">
            Slowmode (how long a member waits between messages)
            <select aria-label="Slowmode" disabled={!channel()!.havePermission("ManageChannel")} value={String(slowmode() ?? 0)} onChange={(e) => setSlowmode(Number(e.currentTarget.value))}>
              <For each={[...SLOWMODES, ...(SLOWMODES.includes((slowmode() ?? 0) as (typeof SLOWMODES)[number]) ? [] : [slowmode() ?? 0])]}>
                {(s) => <option value={String(s)}>{slowmodeLabel(s)}</option>}
              </For>
            </select>
          </label>
        </Show>
        <PermissionGrid
          allow={current().a}
          deny={current().d}
          tri
          disabled={!canEdit()}
          onChange={(a, d) => guard(props.state, () => props.state.rest.setChannelPermissions(selected(), target(), { allow: a, deny: d }))()}
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
          <ChannelOrder state={props.state} server={props.server} disabled={!props.server.havePermission("ManageChannel")} />
        </Show>
      </Show>
    </div>
  );
}

function Emojis(props: { state: AppState; server: Server }) {
  const [name, setName] = createSignal("");
  const [image, setImage] = createSignal<File>();
  const client = () => props.state.client!;
  const list = () => client().emojis.filter((e) => (e as unknown as { parent?: { id: string } }).parent?.id === props.server.id);
  const canManage = () => props.server.havePermission("ManageCustomisation");
  const create = guard(props.state, async () => {
    const f = image();
    if (!f) throw new Error("Pick an image first");
    const id = await client().uploadFile("emojis", f);
    await props.state.rest.createEmoji(id, { name: name().trim().toLowerCase(), parent: { type: "Server", id: props.server.id } });
    setName("");
    setImage(undefined);
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
          <FilePicker label="Choose emoji image" accept="image/*" onFiles={(f) => setImage(f[0])}>
            {image()?.name ?? "Choose an image"}
          </FilePicker>
          <button type="submit" class="primary">Add emoji</button>
        </form>
      </Show>
    </div>
  );
}

/** A role's colour: any CSS colour or a gradient, shown as a preview. */
function RoleColour(props: { state: AppState; server: Server; roleId: string; colour: string; disabled: boolean }) {
  const [value, setValue] = createSignal(props.colour);
  const save = guard(
    props.state,
    () => props.state.rest.editRole(props.server.id, props.roleId, value().trim() ? { colour: value().trim() } : { remove: ["Colour"] }),
    "Colour saved",
  );
  return (
    <form class="inline-form" onSubmit={save} aria-label="Role colour">
      <label>
        Colour (a CSS colour or gradient)
        <input value={value()} disabled={props.disabled} placeholder="#e67e22 or linear-gradient(90deg, #f00, #00f)" onInput={(e) => setValue(e.currentTarget.value)} />
      </label>
      <span class="swatch" role="img" aria-label="Colour preview" style={{ background: value() || "transparent" }} />
      <input type="color" aria-label="Pick a colour" disabled={props.disabled} value={/^#[0-9a-f]{6}$/i.test(value()) ? value() : "#000000"} onInput={(e) => setValue(e.currentTarget.value)} />
      <button type="submit" disabled={props.disabled}>
        Save colour
      </button>
    </form>
  );
}

/**
 * The order of roles (first ranks highest): dragged, or moved with the
 * buttons from the keyboard; saved as the server's rank list.
 */
function RoleOrder(props: { state: AppState; server: Server; disabled: boolean }) {
  const [dragging, setDragging] = createSignal<string>();
  const ids = () => props.server.orderedRoles.map((r) => r.id);
  const save = (order: string[]) => guard(props.state, () => props.state.rest.setRoleRanks(props.server.id, order), "Role order saved")();
  const move = (id: string, to: number) => {
    const order = ids().filter((x) => x !== id);
    order.splice(Math.max(0, Math.min(order.length, to)), 0, id);
    save(order);
  };
  return (
    <section aria-label="Role order">
      <h2>Role order</h2>
      <p class="muted">Higher roles come first and win where permissions disagree. Drag a role, or use its buttons.</p>
      <ol class="role-order">
        <For each={props.server.orderedRoles}>
          {(r, i) => (
            <li
              draggable={!props.disabled}
              classList={{ dragging: dragging() === r.id }}
              aria-label={r.name}
              onDragStart={(e) => {
                setDragging(r.id);
                e.dataTransfer?.setData("text/plain", r.id);
              }}
              onDragEnd={() => setDragging(undefined)}
              onDragOver={(e) => e.preventDefault()}
              onDrop={(e) => {
                e.preventDefault();
                const id = e.dataTransfer?.getData("text/plain") || dragging();
                if (id && id !== r.id) move(id, i());
                setDragging(undefined);
              }}
            >
              <span class="grip" aria-hidden="true">⠿</span>
              <span class="role-name" style={{ background: r.colour?.includes("gradient") ? r.colour : undefined, color: r.colour?.includes("gradient") ? undefined : r.colour ?? undefined }}>
                {r.name}
              </span>
              <span class="spacer" />
              <button class="small" disabled={props.disabled || i() === 0} aria-label={`Move ${r.name} up`} onClick={() => move(r.id, i() - 1)}>
                ↑
              </button>
              <button class="small" disabled={props.disabled || i() === ids().length - 1} aria-label={`Move ${r.name} down`} onClick={() => move(r.id, i() + 1)}>
                ↓
              </button>
            </li>
          )}
        </For>
      </ol>
    </section>
  );
}
