// The logged-in layout: server rail, channel sidebar, the page of the
// route, and the member list.

import { createEffect, createSignal, Match, onCleanup, Show, Switch } from "solid-js";
import { tabTitle, totals } from "../lib/notifications";
import type { AppState } from "./state";
import { href, link, navigate, type Route } from "./router";
import { ConfirmDelete } from "../account/Auth";
import { ChannelView } from "../channel/ChannelView";
import { MemberList } from "../channel/MemberList";
import { Friends } from "../home/Friends";
import { HomeList } from "../home/HomeList";
import { ServerRail } from "../servers/ServerRail";
import { ServerSidebar } from "../servers/ServerSidebar";
import { ServerSettings } from "../servers/ServerSettings";
import { JoinInvite } from "../servers/JoinInvite";
import { UserSettings } from "../settings/UserSettings";
import { Console } from "../admin/Console";
import { Empty } from "../ui/common";
import { Icon } from "../ui/Icon";
import { ProfileCardHost } from "../ui/ProfileCard";
import { StatusPicker } from "../account/StatusPicker";

export function Layout(props: { state: AppState; route: Route; onLogout: () => void }) {
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

  // The tab title counts mentions (and marks unread messages) everywhere.
  createEffect(() => {
    const c = client();
    if (!c.ready()) return;
    const t = totals(
      c.channels
        .filter((ch) => ch.type !== "SavedMessages" && ch.id !== state.channelId)
        .map((ch) => ({ unread: ch.unread, mentions: ch.mentions?.size ?? 0, muted: state.notifications.muted({ id: ch.id, type: ch.type, serverId: ch.serverId }) })),
    );
    document.title = tabTitle("Ermine", t);
  });
  onCleanup(() => (document.title = "Ermine"));

  const serverId = () => (props.route.name === "server" || props.route.name === "server-settings" ? props.route.server : undefined);

  return (
    <div class="layout" classList={{ "menu-open": menu() }}>
      <button class="menu-toggle" aria-label="Show channels" aria-expanded={menu()} onClick={() => setMenu(!menu())}>
        <Icon name="menu" />
      </button>
      <Show when={client().ready()} fallback={<div class="connecting" role="status">Connecting…</div>}>
        <ServerRail state={state} client={client()} current={serverId()} route={props.route} />
        <nav class="sidebar" aria-label="Channels">
          <Show when={serverId()} fallback={<HomeList state={state} route={props.route} />}>
            <ServerSidebar state={state} server={client().servers.get(serverId()!)} />
          </Show>
          <SelfBar state={state} onLogout={props.onLogout} />
        </nav>
        <main class="main">
          <NotificationPrompt state={state} />
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
            <Match when={props.route.name === "admin"}>
              <Console state={state} tab={(props.route as { tab: string }).tab} id={(props.route as { id?: string }).id} />
            </Match>
            <Match when={props.route.name === "invite"}>
              <JoinInvite state={state} code={(props.route as { code: string }).code} />
            </Match>
          </Switch>
        </main>
        <Show when={state.channel && (state.channel.type === "TextChannel" || state.channel.type === "Group")}>
          <MemberList state={state} channel={state.channel!} />
        </Show>
        <ProfileCardHost state={state} />
      </Show>
    </div>
  );
}

function SelfBar(props: { state: AppState; onLogout: () => void }) {
  const me = () => props.state.client!.user!;
  return (
    <div class="selfbar">
      <StatusPicker state={props.state} />
      <div class="who">
        <strong>{me().displayName}</strong>
        <span class="muted">
          {me().username}#{me().discriminator}
        </span>
      </div>
      <Show when={me().privileged}>
        <a href={href.admin()} onClick={link(href.admin())} aria-label="Instance" title="Instance (operator's console)">
          <Icon name="server" size={20} />
        </a>
      </Show>
      <a href={href.settings()} onClick={link(href.settings())} aria-label="Settings" title="Settings">
        <Icon name="gear" size={20} />
      </a>
    </div>
  );
}


/**
 * Offers browser notifications once, after login (the browser asks only
 * when the person presses the button, never on page load).
 */
function NotificationPrompt(props: { state: AppState }) {
  const [dismissed, setDismissed] = createSignal(localStorage.getItem("ermine:notification-prompt") === "dismissed");
  const dismiss = () => {
    localStorage.setItem("ermine:notification-prompt", "dismissed");
    setDismissed(true);
  };
  return (
    <Show when={!dismissed() && typeof Notification !== "undefined" && props.state.notifications.permission === "default"}>
      <div class="prompt" role="region" aria-label="Notifications">
        <span>Get a notification when someone mentions you, replies to you or sends you a message.</span>
        <button class="primary" onClick={() => props.state.notifications.requestPermission().finally(dismiss)}>
          Turn on notifications
        </button>
        <button onClick={dismiss}>Not now</button>
      </div>
    </Show>
  );
}
