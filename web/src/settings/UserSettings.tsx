// The person's settings: profile, account security, sessions,
// notifications, plugins.

import { createSignal, For, Match, Show, Switch } from "solid-js";
import type { AppState } from "../app/state";
import { href } from "../app/router";
import { Profile, Sessions } from "../account/AccountSettings";
import { Security } from "../account/Security";
import { Tabs } from "../ui/common";

export function UserSettings(props: { state: AppState; tab: string; onLogout: () => void }) {
  return (
    <div class="page settings">
      <h1>Settings</h1>
      <Tabs
        tabs={[
          ["profile", "Profile"],
          ["security", "Security"],
          ["sessions", "Sessions"],
          ["notifications", "Notifications"],
          ["plugins", "Plugins"],
        ]}
        current={props.tab}
        to={href.settings}
      />
      <Switch fallback={<Profile state={props.state} />}>
        <Match when={props.tab === "security"}>
          <Security state={props.state} onLogout={props.onLogout} />
        </Match>
        <Match when={props.tab === "notifications"}>
          <NotificationSettings state={props.state} />
        </Match>
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


/** Browser notifications on this device, and what is muted (synced with the official client). */
function NotificationSettings(props: { state: AppState }) {
  const n = () => props.state.notifications;
  const client = () => props.state.client!;
  const mutedServers = () => Object.keys(n().options.server_mutes).map((id) => ({ id, name: client().servers.get(id)?.name ?? id }));
  const mutedChannels = () => Object.keys(n().options.channel_mutes).map((id) => ({ id, name: client().channels.get(id)?.name ?? id }));
  return (
    <div class="card wide">
      <h2>On this device</h2>
      <Show
        when={n().permission === "granted"}
        fallback={
          <Show when={n().permission === "default"} fallback={<p class="muted">Notifications are blocked in this browser's site settings.</p>}>
            <button class="primary" onClick={() => n().requestPermission()}>Turn on notifications</button>
          </Show>
        }
      >
        <p>Notifications are on: mentions, replies and direct messages notify you while you look elsewhere, and when no tab is open.</p>
      </Show>
      <h2>Muted</h2>
      <Show when={mutedServers().length + mutedChannels().length} fallback={<p class="muted">Nothing is muted.</p>}>
        <ul class="people" aria-label="Muted">
          <For each={mutedServers()}>
            {(m) => (
              <li class="person">
                <span>Server {m.name}</span>
                <span class="spacer" />
                <button onClick={() => n().setMute("server", m.id, undefined)}>Unmute</button>
              </li>
            )}
          </For>
          <For each={mutedChannels()}>
            {(m) => (
              <li class="person">
                <span>Channel #{m.name}</span>
                <span class="spacer" />
                <button onClick={() => n().setMute("channel", m.id, undefined)}>Unmute</button>
              </li>
            )}
          </For>
        </ul>
      </Show>
    </div>
  );
}
