// The member list beside a server channel or group.

import { createEffect, createMemo, For, on, Show } from "solid-js";
import type { Channel, User } from "stoat.js";
import type { AppState } from "../app/state";
import { avatar } from "../ui/media";
import { Presence } from "../ui/common";

export function MemberList(props: { state: AppState; channel: Channel }) {
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
              <button class="member-button" aria-label={`Profile of ${u.displayName}`} onClick={() => props.state.showProfile(u.id)}>
                <span class="avatar-wrap">
                  <img class="avatar small" src={avatar(u)} alt="" />
                  <Presence user={u} />
                </span>
                <span class="name">{u.displayName}</span>
                <Show when={u.status?.text}>
                  <span class="muted status-text">{u.status!.text}</span>
                </Show>
              </button>
            </li>
          )}
        </For>
      </ul>
    </aside>
  );
}

