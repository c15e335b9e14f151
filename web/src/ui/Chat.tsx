// The logged-in layout: server rail, channel sidebar, the page of the
// route, and the member list.

import { createEffect, createMemo, createResource, createSignal, For, Match, Show, Switch, on } from "solid-js";
import type { Channel, Client, Server, User } from "stoat.js";
import { errorText, type AppState } from "../state";
import { href, navigate, type Route } from "../router";
import { ConfirmDelete, link } from "./Auth";
import { ChannelView } from "./Messages";
import { Friends } from "./Friends";
import { ServerSettings, UserSettings } from "./Settings";
import { avatar, iconURL } from "./media";
import { Icon } from "./Icon";

export function Chat(props: { state: AppState; route: Route; onLogout: () => void }) {
  const state = props.state;
  const client = () => state.client!;
  const [menu, setMenu] = createSignal(false);

  // The channel on screen follows the route; a server without a channel
  // in its route opens its first channel.
  createEffect(() => {
    const r = props.route;
    if (r.name === "server") {
      if (r.channel) state.setChannelId(r.channel);
      else {
        const s = client().ready() ? client().servers.get(r.server) : undefined;
        const first = s?.orderedChannels.flatMap((c) => c.channels).find((c) => c.type === "TextChannel");
        state.setChannelId(undefined);
        if (first) navigate(href.server(r.server, first.id), true);
      }
    } else if (r.name === "dm") state.setChannelId(r.channel);
    else state.setChannelId(undefined);
    setMenu(false);
  });

  const serverId = () => (props.route.name === "server" || props.route.name === "server-settings" ? props.route.server : undefined);

  return (
    <div class="layout" classList={{ "menu-open": menu() }}>
      <button class="menu-toggle" aria-label="Show channels" aria-expanded={menu()} onClick={() => setMenu(!menu())}>
        <Icon name="menu" />
      </button>
      <Show when={client().ready()} fallback={<div class="connecting" role="status">Connecting…</div>}>
        <ServerRail client={client()} current={serverId()} route={props.route} />
        <nav class="sidebar" aria-label="Channels">
          <Show when={serverId()} fallback={<HomeList state={state} route={props.route} />}>
            <ServerSidebar state={state} server={client().servers.get(serverId()!)} />
          </Show>
          <SelfBar state={state} onLogout={props.onLogout} />
        </nav>
        <main class="main">
          <Switch fallback={<Friends state={state} />}>
            <Match when={props.route.name === "server" || props.route.name === "dm"}>
              <Show when={state.channel} fallback={<Empty text="Pick a channel." />}>
                {(ch) => <ChannelView state={state} channel={ch()} />}
              </Show>
            </Match>
            <Match when={props.route.name === "settings"}>
              <UserSettings state={state} tab={(props.route as { tab: string }).tab} onLogout={props.onLogout} />
            </Match>
            <Match when={props.route.name === "server-settings"}>
              <Show when={client().servers.get(serverId()!)} fallback={<Empty text="No such server." />}>
                {(s) => <ServerSettings state={state} server={s()} tab={(props.route as { tab: string }).tab} />}
              </Show>
            </Match>
            <Match when={props.route.name === "delete"}>
              <ConfirmDelete state={state} token={(props.route as { token: string }).token} />
            </Match>
            <Match when={props.route.name === "invite"}>
              <JoinInvite state={state} code={(props.route as { code: string }).code} />
            </Match>
          </Switch>
        </main>
        <Show when={state.channel && (state.channel.type === "TextChannel" || state.channel.type === "Group")}>
          <MemberList state={state} channel={state.channel!} />
        </Show>
      </Show>
    </div>
  );
}

export function Empty(props: { text: string }) {
  return <div class="empty">{props.text}</div>;
}

function ServerRail(props: { client: Client; current?: string; route: Route }) {
  const servers = createMemo(() => props.client.servers.toList().sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()));
  const [creating, setCreating] = createSignal(false);
  const [name, setName] = createSignal("");
  const create = async (e: Event) => {
    e.preventDefault();
    const s = await props.client.servers.createServer({ name: name().trim() });
    setCreating(false);
    setName("");
    navigate(href.server(s.id));
  };
  return (
    <nav class="rail" aria-label="Servers">
      <a class="rail-item home" href={href.home()} onClick={link(href.home())} aria-current={!props.current ? "page" : undefined} title="Home" aria-label="Home">
        <Icon name="home" size={22} />
      </a>
      <For each={servers()}>
        {(s) => (
          <a
            class="rail-item"
            classList={{ unread: s.unread }}
            href={href.server(s.id)}
            onClick={link(href.server(s.id))}
            aria-current={props.current === s.id ? "page" : undefined}
            title={s.name}
            aria-label={`${s.name}${s.unread ? " (unread)" : ""}`}
          >
            <Show when={iconURL(s.icon)} fallback={<span>{initials(s.name)}</span>}>
              <img src={iconURL(s.icon)} alt="" />
            </Show>
          </a>
        )}
      </For>
      <button class="rail-item add" title="Create a server" aria-label="Create a server" onClick={() => setCreating(!creating())}>
        <Icon name="plus" size={22} />
      </button>
      <Show when={creating()}>
        <form class="popover" onSubmit={create} aria-label="Create a server">
          <label>
            Server name
            <input name="server-name" required maxLength={32} value={name()} onInput={(e) => setName(e.currentTarget.value)} autofocus />
          </label>
          <button type="submit" class="primary">Create</button>
        </form>
      </Show>
    </nav>
  );
}

function initials(name: string) {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => [...w][0])
    .join("")
    .toUpperCase();
}

function ServerSidebar(props: { state: AppState; server?: Server }) {
  const [adding, setAdding] = createSignal<string | undefined>();
  const [name, setName] = createSignal("");
  const [voice, setVoice] = createSignal(false);
  const create = async (e: Event) => {
    e.preventDefault();
    const s = props.server!;
    try {
      const ch = await s.createChannel({ name: name().trim(), type: voice() ? "Voice" : "Text" } as never);
      const cat = adding();
      if (cat && cat !== "default") {
        const categories = (s.categories ?? []).map((c) => (c.id === cat ? { ...c, channels: [...c.channels, ch.id] } : c));
        await s.edit({ categories });
      }
      setAdding(undefined);
      setName("");
      navigate(href.server(s.id, ch.id));
    } catch (err) {
      props.state.notify(errorText(err), "error");
    }
  };
  return (
    <Show when={props.server} fallback={<Empty text="This server is not in your list." />}>
      {(s) => (
        <div class="channels">
          <header class="sidebar-head">
            <h2 title={s().name}>{s().name}</h2>
            <a href={href.serverSettings(s().id)} onClick={link(href.serverSettings(s().id))} aria-label="Server settings" title="Server settings">
              <Icon name="gear" />
            </a>
          </header>
          <For each={s().orderedChannels}>
            {(cat) => (
              <section class="category" aria-label={cat.title || "Channels"}>
                <div class="category-head">
                  <span>{cat.id === "default" ? "Channels" : cat.title}</span>
                  <Show when={s().havePermission("ManageChannel")}>
                    <button class="small" aria-label={`Create a channel in ${cat.title || "Channels"}`} onClick={() => setAdding(adding() === cat.id ? undefined : cat.id)}>
                      <Icon name="plus" size={14} />
                    </button>
                  </Show>
                </div>
                <Show when={adding() === cat.id}>
                  <form class="inline-form" onSubmit={create} aria-label="Create a channel">
                    <input name="channel-name" placeholder="new-channel" required maxLength={32} value={name()} onInput={(e) => setName(e.currentTarget.value)} autofocus />
                    <label class="check">
                      <input type="checkbox" checked={voice()} onChange={(e) => setVoice(e.currentTarget.checked)} /> voice
                    </label>
                    <button type="submit" class="primary">Create</button>
                  </form>
                </Show>
                <ul>
                  <For each={cat.channels}>{(ch) => <ChannelLink state={props.state} channel={ch} to={href.server(s().id, ch.id)} />}</For>
                </ul>
              </section>
            )}
          </For>
        </div>
      )}
    </Show>
  );
}

function ChannelLink(props: { state: AppState; channel: Channel; to: string; label?: string; user?: User }) {
  const current = () => props.state.channelId === props.channel.id;
  const mentions = () => props.channel.mentions?.size ?? 0;
  return (
    <li>
      <a
        class="channel-link"
        classList={{ unread: props.channel.unread && !current(), current: current() }}
        href={props.to}
        onClick={link(props.to)}
        aria-current={current() ? "page" : undefined}
        aria-label={`${props.label ?? props.channel.name}${props.channel.unread && !current() ? " (unread)" : ""}`}
      >
        <Show when={props.user} fallback={<Show when={iconURL(props.channel.icon, 64)} fallback={<span class="hash" aria-hidden="true">{props.channel.isVoice ? <Icon name="speaker" size={16} /> : props.channel.type === "Group" ? <Icon name="people" size={16} /> : "#"}</span>}>{(src) => <img class="avatar small" src={src()} alt="" />}</Show>}>
          <img class="avatar small" src={avatar(props.user!)} alt="" />
        </Show>
        <span class="name">{props.label ?? props.channel.name}</span>
        <Show when={mentions() > 0 && !current()}>
          <span class="badge" aria-label={`${mentions()} mentions`}>{mentions()}</span>
        </Show>
      </a>
    </li>
  );
}

function HomeList(props: { state: AppState; route: Route }) {
  const client = () => props.state.client!;
  const conversations = createMemo(() =>
    client()
      // A DM shows once it is active or has a message (the message event
      // may arrive before, or instead of, an update saying it is active).
      .channels.filter((c) => (c.type === "DirectMessage" && (c.active || !!c.lastMessageId)) || c.type === "Group")
      .sort((a, b) => (b.lastMessageAt?.getTime() ?? b.createdAt.getTime()) - (a.lastMessageAt?.getTime() ?? a.createdAt.getTime())),
  );
  const incoming = () => client().users.filter((u) => u.relationship === "Incoming").length;
  return (
    <div class="channels">
      <header class="sidebar-head">
        <h2>Home</h2>
      </header>
      <ul>
        <li>
          <a class="channel-link" href={href.friends()} onClick={link(href.friends())} aria-current={props.route.name === "friends" || props.route.name === "home" ? "page" : undefined}>
            <span class="hash" aria-hidden="true"><Icon name="people" size={16} /></span>
            <span class="name">Friends</span>
            <Show when={incoming() > 0}>
              <span class="badge" aria-label={`${incoming()} friend requests`}>{incoming()}</span>
            </Show>
          </a>
        </li>
        <li>
          <a class="channel-link" href={href.settings()} onClick={link(href.settings())} aria-current={props.route.name === "settings" ? "page" : undefined}>
            <span class="hash" aria-hidden="true"><Icon name="gear" size={16} /></span>
            <span class="name">Settings</span>
          </a>
        </li>
      </ul>
      <div class="category-head">
        <span>Direct messages</span>
      </div>
      <ul>
        <For each={conversations()}>
          {(c) => <ChannelLink state={props.state} channel={c} to={href.dm(c.id)} label={c.type === "Group" ? c.name : c.recipient?.displayName ?? "…"} user={c.type === "DirectMessage" ? c.recipient : undefined} />}
        </For>
      </ul>
    </div>
  );
}

function SelfBar(props: { state: AppState; onLogout: () => void }) {
  const me = () => props.state.client!.user!;
  return (
    <div class="selfbar">
      <img class="avatar" src={avatar(me())} alt="" />
      <div class="who">
        <strong>{me().displayName}</strong>
        <span class="muted">
          {me().username}#{me().discriminator}
        </span>
      </div>
      <a href={href.settings()} onClick={link(href.settings())} aria-label="Settings" title="Settings">
        <Icon name="gear" size={20} />
      </a>
    </div>
  );
}

const PRESENCE_LABEL: Record<string, string> = { Online: "online", Idle: "idle", Focus: "focus", Busy: "busy", Invisible: "offline" };

export function Presence(props: { user: User }) {
  const p = () => (props.user.online ? props.user.status?.presence ?? "Online" : "Invisible");
  return <span class={`presence ${p().toLowerCase()}`} role="img" aria-label={PRESENCE_LABEL[p()] ?? "offline"} title={PRESENCE_LABEL[p()] ?? "offline"} />;
}

function MemberList(props: { state: AppState; channel: Channel }) {
  const client = () => props.state.client!;
  createEffect(
    on(
      () => props.channel.serverId,
      (sid) => {
        if (sid) client().servers.get(sid)?.syncMembers(false).catch(() => {});
      },
    ),
  );
  const users = createMemo(() => {
    const ch = props.channel;
    let list: User[];
    if (ch.serverId) {
      list = client()
        .serverMembers.filter((m) => m.id.server === ch.serverId)
        .map((m) => m.user)
        .filter((u): u is User => !!u);
    } else list = ch.recipients;
    return list.sort((a, b) => Number(b.online) - Number(a.online) || a.displayName.localeCompare(b.displayName));
  });
  return (
    <aside class="members" aria-label="Members">
      <h2 class="category-head">Members — {users().length}</h2>
      <ul>
        <For each={users()}>
          {(u) => (
            <li class="member" classList={{ offline: !u.online }}>
              <span class="avatar-wrap">
                <img class="avatar small" src={avatar(u)} alt="" />
                <Presence user={u} />
              </span>
              <span class="name">{u.displayName}</span>
              <Show when={u.status?.text}>
                <span class="muted status-text">{u.status!.text}</span>
              </Show>
            </li>
          )}
        </For>
      </ul>
    </aside>
  );
}

function JoinInvite(props: { state: AppState; code: string }) {
  const client = () => props.state.client!;
  const [invite] = createResource(
    () => props.code,
    (code) => client().api.get(`/invites/${encodeURIComponent(code)}` as never) as Promise<Record<string, string>>,
  );
  const [error, setError] = createSignal("");
  const join = async () => {
    setError("");
    try {
      const res = (await client().api.post(`/invites/${encodeURIComponent(props.code)}` as never)) as {
        type: string;
        server?: { _id: string };
        channels?: { _id: string }[];
        channel?: { _id: string };
      };
      if (res.type === "Server" && res.server) {
        // The ServerCreate event adds it; wait until the client has it.
        const sid = res.server._id;
        const first = res.channels?.[0]?._id;
        navigate(href.server(sid, first));
      } else if (res.channel) navigate(href.dm(res.channel._id));
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <div class="page">
      <div class="card">
        <Show when={!invite.loading} fallback={<p>Looking at the invite…</p>}>
          <Show when={!invite.error} fallback={<p class="error">This invite is not valid ({errorText(invite.error)}).</p>}>
            <h1>Join {invite()?.server_name ?? invite()?.channel_name}</h1>
            <p class="muted">Invited by {invite()?.user_name}</p>
            <button class="primary" onClick={join}>
              Join
            </button>
          </Show>
        </Show>
        <Show when={error()}>
          <p class="error" role="alert">{error()}</p>
        </Show>
      </div>
    </div>
  );
}
