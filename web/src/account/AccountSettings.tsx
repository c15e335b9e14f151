// The account pages of the settings: profile and sessions.

import { createResource, createSignal, For, Show } from "solid-js";
import type { AppState } from "../app/state";
import { guard } from "../lib/errors";
import { Confirm, type Pending } from "./Security";
import { avatar } from "../ui/media";
import { FilePicker } from "../ui/FilePicker";

const PRESENCES = ["Online", "Idle", "Focus", "Busy", "Invisible"] as const;

export function Profile(props: { state: AppState }) {
  const me = () => props.state.client!.user!;
  const [display, setDisplay] = createSignal(me().displayName === me().username ? "" : me().displayName);
  const [status, setStatus] = createSignal(me().status?.text ?? "");
  const [presence, setPresence] = createSignal<(typeof PRESENCES)[number]>(me().status?.presence ?? "Online");
  const save = guard(
    props.state,
    () =>
      props.state.rest.editMe({
        ...(display().trim() ? { display_name: display().trim() } : {}),
        status: { ...(status().trim() ? { text: status().trim() } : {}), presence: presence() },
        remove: [...(display().trim() ? [] : ["DisplayName" as const]), ...(status().trim() ? [] : ["StatusText" as const])],
      }),
    "Profile saved",
  );
  const upload = (f: File) => guard(props.state, async () => {
    const id = await props.state.client!.uploadFile("avatars", f);
    await props.state.rest.editMe({ avatar: id });
  }, "Avatar changed")();
  return (
    <form class="card wide" onSubmit={save} aria-label="Profile">
      <div class="row">
        <img class="avatar large" src={avatar(me())} alt="Your avatar" />
        <FilePicker label="Change avatar" accept="image/*" onFiles={(f) => upload(f[0])} />
        <Show when={me().avatar}>
          <button type="button" onClick={guard(props.state, () => props.state.rest.editMe({ remove: ["Avatar"] }))}>Remove avatar</button>
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
        <select value={presence()} onChange={(e) => setPresence(e.currentTarget.value as (typeof PRESENCES)[number])}>
          <For each={PRESENCES}>{(p) => <option value={p}>{p}</option>}</For>
        </select>
      </label>
      <button type="submit" class="primary">Save</button>
    </form>
  );
}

export function Sessions(props: { state: AppState }) {
  const client = () => props.state.client!;
  const [sessions, { refetch }] = createResource(() => props.state.rest.sessions());
  const [mfa] = createResource(() => props.state.rest.mfaStatus());
  const [pending, setPending] = createSignal<Pending>();
  // One session (id), or every other one (no id).
  const revoke = async (id: string | undefined, ticket?: string) => {
    await (id ? props.state.rest.revokeSession(id, ticket) : props.state.rest.revokeOtherSessions(ticket));
    refetch();
    props.state.notify(id ? "Session logged out" : "Other sessions logged out");
  };
  // With two-factor on, ending sessions needs a code first (an MFA ticket).
  const end = (id?: string) =>
    guard(props.state, () =>
      mfa()?.totp_mfa ? setPending({ label: id ? "log that session out" : "log every other session out", run: (t) => revoke(id, t) }) : revoke(id),
    );
  return (
    <div class="card wide">
      <Show when={pending()}>{(p) => <Confirm state={props.state} pending={p()} totp onDone={() => setPending(undefined)} />}</Show>
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
      <button onClick={end()}>
        Log out every other session
      </button>
    </div>
  );
}

