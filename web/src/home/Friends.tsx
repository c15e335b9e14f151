import { createMemo, createSignal, For, Show } from "solid-js";
import type { User } from "stoat.js";
import type { AppState } from "../app/state";
import { href, navigate } from "../app/router";
import { errorText } from "../lib/errors";
import { avatar } from "../ui/media";
import { Presence } from "../ui/common";

export function Friends(props: { state: AppState }) {
  const client = () => props.state.client!;
  const [name, setName] = createSignal("");
  const [groupName, setGroupName] = createSignal("");
  const [picked, setPicked] = createSignal<string[]>([]);
  const by = (rel: string) => createMemo(() => client().users.filter((u) => u.relationship === rel).sort((a, b) => a.displayName.localeCompare(b.displayName)));
  const friends = by("Friend");
  const incoming = by("Incoming");
  const outgoing = by("Outgoing");
  const blocked = by("Blocked");

  const act = (f: () => Promise<unknown>) => async () => {
    try {
      await f();
    } catch (err) {
      props.state.notify(errorText(err), "error");
    }
  };
  const request = async (e: Event) => {
    e.preventDefault();
    try {
      await props.state.rest.addFriend(name().trim());
      props.state.notify(`Friend request sent to ${name().trim()}`);
      setName("");
    } catch (err) {
      props.state.notify(errorText(err), "error");
    }
  };
  const message = async (u: User) => {
    try {
      const ch = await u.openDM();
      navigate(href.dm(ch.id));
    } catch (err) {
      props.state.notify(errorText(err), "error");
    }
  };
  const group = async (e: Event) => {
    e.preventDefault();
    try {
      const ch = await client().channels.createGroup(groupName().trim(), picked());
      setPicked([]);
      setGroupName("");
      navigate(href.dm(ch.id));
    } catch (err) {
      props.state.notify(errorText(err), "error");
    }
  };

  const Row = (p: { user: User; children: any }) => (
    <li class="person">
      <span class="avatar-wrap">
        <img class="avatar" src={avatar(p.user)} alt="" />
        <Presence user={p.user} />
      </span>
      <span class="who">
        <strong>{p.user.displayName}</strong>
        <span class="muted">
          {p.user.username}#{p.user.discriminator}
        </span>
      </span>
      <span class="spacer" />
      {p.children}
    </li>
  );

  return (
    <div class="page">
      <h1>Friends</h1>
      <form class="inline-form" onSubmit={request} aria-label="Add a friend">
        <label>
          Add a friend by username
          <input name="friend-username" placeholder="username#1234 or username" required value={name()} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <button type="submit" class="primary">Send request</button>
      </form>
      <Show when={incoming().length}>
        <h2>Requests</h2>
        <ul class="people">
          <For each={incoming()}>
            {(u) => (
              <Row user={u}>
                <button class="primary" onClick={act(() => u.addFriend())}>Accept</button>
                <button onClick={act(() => u.removeFriend())}>Ignore</button>
              </Row>
            )}
          </For>
        </ul>
      </Show>
      <Show when={outgoing().length}>
        <h2>Pending</h2>
        <ul class="people">
          <For each={outgoing()}>{(u) => <Row user={u}><button onClick={act(() => u.removeFriend())}>Cancel</button></Row>}</For>
        </ul>
      </Show>
      <h2>Friends — {friends().length}</h2>
      <Show when={friends().length} fallback={<p class="muted">No friends yet. Send a request by username above.</p>}>
        <ul class="people">
          <For each={friends()}>
            {(u) => (
              <Row user={u}>
                <label class="check">
                  <input type="checkbox" checked={picked().includes(u.id)} onChange={(e) => setPicked(e.currentTarget.checked ? [...picked(), u.id] : picked().filter((x) => x !== u.id))} />
                  in group
                </label>
                <button onClick={() => message(u)}>Message</button>
                <button onClick={act(() => u.removeFriend())}>Remove</button>
                <button onClick={act(() => u.blockUser())}>Block</button>
              </Row>
            )}
          </For>
        </ul>
      </Show>
      <Show when={picked().length}>
        <form class="inline-form" onSubmit={group} aria-label="Create a group">
          <label>
            Group name
            <input required maxLength={32} value={groupName()} onInput={(e) => setGroupName(e.currentTarget.value)} />
          </label>
          <button type="submit" class="primary">Create group with {picked().length}</button>
        </form>
      </Show>
      <Show when={blocked().length}>
        <h2>Blocked</h2>
        <ul class="people">
          <For each={blocked()}>{(u) => <Row user={u}><button onClick={act(() => u.unblockUser())}>Unblock</button></Row>}</For>
        </ul>
      </Show>
    </div>
  );
}
