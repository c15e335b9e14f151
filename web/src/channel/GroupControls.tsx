// A group's own controls in its header: add a friend, leave the group.

import { createSignal, For, Show } from "solid-js";
import type { Channel } from "stoat.js";
import type { AppState } from "../app/state";
import { href, navigate } from "../app/router";
import { guard } from "../lib/errors";

export function GroupControls(props: { state: AppState; channel: Channel }) {
  const client = () => props.state.client!;
  const [adding, setAdding] = createSignal(false);
  const [pick, setPick] = createSignal("");
  const candidates = () => client().users.filter((u) => u.relationship === "Friend" && !props.channel.recipientIds.has(u.id));
  const add = guard(
    props.state,
    async () => {
      if (!pick()) return;
      await props.channel.addMember(pick());
      setPick("");
      setAdding(false);
    },
    "Added to the group",
  );
  const leave = () => confirm(`Leave ${props.channel.name}?`) && guard(props.state, async () => (await props.channel.delete(), navigate(href.friends())))();
  return (
    <>
      <Show
        when={adding()}
        fallback={
          <button onClick={() => setAdding(true)} disabled={!candidates().length} title={candidates().length ? "Add a friend" : "All your friends are in this group"}>
            Add people
          </button>
        }
      >
        <form class="inline-form" onSubmit={add} aria-label="Add to the group">
          <select aria-label="Friend to add" value={pick()} onChange={(e) => setPick(e.currentTarget.value)}>
            <option value="">Choose a friend</option>
            <For each={candidates()}>{(u) => <option value={u.id}>{u.displayName}</option>}</For>
          </select>
          <button type="submit" class="primary">Add</button>
          <button type="button" onClick={() => setAdding(false)}>Cancel</button>
        </form>
      </Show>
      <button class="danger" onClick={leave}>
        Leave group
      </button>
    </>
  );
}
