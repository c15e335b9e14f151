// The sidebar of Home: friends, settings and the conversations.

import { createMemo, For, Show } from "solid-js";
import type { AppState } from "../app/state";
import { href, link, type Route } from "../app/router";
import { ChannelLink } from "../ui/ChannelLink";
import { Icon } from "../ui/Icon";

export function HomeList(props: { state: AppState; route: Route }) {
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

