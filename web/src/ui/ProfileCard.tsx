// A person's profile card, opened by clicking their name or avatar: who
// they are, their badges and bio, the servers and friends you share, and
// what you can do (message, add as a friend, block).

import { createResource, For, onCleanup, onMount, Show } from "solid-js";
import type { User } from "stoat.js";
import type { AppState } from "../app/state";
import { href, link, navigate } from "../app/router";
import { badgeNames } from "../lib/badges";
import { errorText, guard } from "../lib/errors";
import { avatar } from "./media";
import { Presence } from "./common";

export function ProfileCardHost(props: { state: AppState }) {
  const user = () => {
    const id = props.state.profileUser;
    return id ? props.state.client?.users.get(id) : undefined;
  };
  return (
    <Show when={user()} keyed>
      {(u) => <ProfileCard state={props.state} user={u} onClose={() => props.state.showProfile(undefined)} />}
    </Show>
  );
}

function ProfileCard(props: { state: AppState; user: User; onClose: () => void }) {
  const client = () => props.state.client!;
  const self = () => props.user.id === client().user?.id;
  const [profile] = createResource(() => props.state.rest.profile(props.user.id).catch(() => undefined));
  const [mutual] = createResource(async () => {
    if (self()) return undefined;
    try {
      return await props.state.rest.mutual(props.user.id);
    } catch (err) {
      props.state.notify(errorText(err), "error");
      return undefined;
    }
  });
  const servers = () => (mutual()?.servers ?? []).map((id) => client().servers.get(id)).filter((s) => !!s);
  const friends = () => (mutual()?.users ?? []).map((id) => client().users.get(id)).filter((u) => !!u);
  const relationship = () => props.user.relationship;
  const message = guard(props.state, async () => {
    const dm = await props.user.openDM();
    props.onClose();
    navigate(href.dm(dm.id));
  });
  const befriend = guard(props.state, () => props.user.addFriend(), "Friend request sent");
  const block = () => confirm(`Block ${props.user.displayName}? They cannot message you or send you friend requests.`) && guard(props.state, () => props.user.blockUser(), "Blocked")();
  const unblock = guard(props.state, () => props.user.unblockUser(), "Unblocked");
  let box!: HTMLDivElement;
  const onKey = (e: KeyboardEvent) => e.key === "Escape" && props.onClose();
  onMount(() => {
    document.addEventListener("keydown", onKey);
    box.focus();
  });
  onCleanup(() => document.removeEventListener("keydown", onKey));
  return (
    <div class="backdrop" onClick={(e) => e.target === e.currentTarget && props.onClose()}>
      <div ref={box} class="dialog profile-card" role="dialog" aria-modal="true" aria-label={`Profile of ${props.user.displayName}`} tabIndex={-1}>
        <div class="row">
          <span class="avatar-wrap">
            <img class="avatar large" src={avatar(props.user)} alt="" />
            <Presence user={props.user} />
          </span>
          <div class="who">
            <h2>{props.user.displayName}</h2>
            <span class="muted">
              {props.user.username}#{props.user.discriminator}
              {props.user.bot ? " · bot" : ""}
            </span>
            <Show when={props.user.status?.text}>
              <span class="status-line">{props.user.status!.text}</span>
            </Show>
          </div>
          <span class="spacer" />
          <button class="small" aria-label="Close profile" onClick={props.onClose}>
            ×
          </button>
        </div>
        <Show when={badgeNames(props.user.badges).length}>
          <ul class="badges" aria-label="Badges">
            <For each={badgeNames(props.user.badges)}>{(b) => <li class="chip">{b}</li>}</For>
          </ul>
        </Show>
        <Show when={profile()?.content}>
          <section aria-label="About">
            <h3>About</h3>
            <p class="bio">{profile()!.content}</p>
          </section>
        </Show>
        <Show when={!self()}>
          <section aria-label="Mutual servers">
            <h3>Mutual servers</h3>
            <Show when={servers().length} fallback={<p class="muted">{mutual.loading ? "Loading…" : "None"}</p>}>
              <ul class="mutual">
                <For each={servers()}>
                  {(s) => (
                    <li>
                      <a href={href.server(s!.id)} onClick={(e) => (link(href.server(s!.id))(e), props.onClose())}>
                        {s!.name}
                      </a>
                    </li>
                  )}
                </For>
              </ul>
            </Show>
          </section>
          <section aria-label="Mutual friends">
            <h3>Mutual friends</h3>
            <Show when={friends().length} fallback={<p class="muted">{mutual.loading ? "Loading…" : "None"}</p>}>
              <ul class="mutual">
                <For each={friends()}>
                  {(f) => (
                    <li>
                      <button class="link" onClick={() => props.state.showProfile(f!.id)}>
                        {f!.displayName}
                      </button>
                    </li>
                  )}
                </For>
              </ul>
            </Show>
          </section>
          <div class="row wrap">
            <Show when={relationship() !== "Blocked" && relationship() !== "BlockedOther"}>
              <button class="primary" onClick={message}>
                Message
              </button>
            </Show>
            <Show when={relationship() === "None" || relationship() === "Incoming"}>
              <button onClick={befriend}>{relationship() === "Incoming" ? "Accept friend request" : "Add friend"}</button>
            </Show>
            <Show when={relationship() === "Outgoing"}>
              <span class="muted">Friend request sent</span>
            </Show>
            <Show when={relationship() === "Friend"}>
              <span class="muted">Friends</span>
            </Show>
            <span class="spacer" />
            <Show when={relationship() === "Blocked"} fallback={<button class="danger" onClick={block}>Block</button>}>
              <button onClick={unblock}>Unblock</button>
            </Show>
          </div>
        </Show>
      </div>
    </div>
  );
}
