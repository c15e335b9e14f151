// A channel's webhooks: create, list, rename, change the avatar, copy the
// URL (the secret a script posts to), delete. Managing them needs
// ManageWebhooks on the channel.

import { createResource, createSignal, For, Show } from "solid-js";
import type { Server } from "stoat.js";
import type { AppState } from "../app/state";
import type { Webhook } from "../lib/api";
import { guard } from "../lib/errors";
import { FilePicker } from "../ui/FilePicker";

/** The URL a script posts messages to, or "" without the token. */
export function webhookURL(apiURL: string, w: Webhook): string {
  return w.token ? `${apiURL}/webhooks/${w.id}/${w.token}` : "";
}

export function Webhooks(props: { state: AppState; server: Server }) {
  const text = () => props.server.channels.filter((c) => c.type === "TextChannel");
  const [selected, setSelected] = createSignal(text()[0]?.id ?? "");
  const channel = () => props.state.client!.channels.get(selected());
  const canManage = () => !!channel()?.havePermission("ManageWebhooks");
  const [list, { refetch }] = createResource(
    () => (canManage() ? selected() : undefined),
    (id) => props.state.rest.webhooks(id),
  );
  const [name, setName] = createSignal("");
  const create = guard(props.state, async () => {
    await props.state.rest.createWebhook(selected(), name().trim());
    setName("");
    await refetch();
  }, "Webhook created");
  return (
    <div class="card wide">
      <label>
        Channel
        <select aria-label="Webhook channel" value={selected()} onChange={(e) => setSelected(e.currentTarget.value)}>
          <For each={text()}>{(c) => <option value={c.id}>#{c.name}</option>}</For>
        </select>
      </label>
      <Show when={canManage()} fallback={<p class="muted">You need the Manage Webhooks permission in this channel.</p>}>
        <form class="inline-form" onSubmit={create} aria-label="Create a webhook">
          <input aria-label="New webhook name" placeholder="Webhook name" required maxLength={32} value={name()} onInput={(e) => setName(e.currentTarget.value)} />
          <button type="submit" class="primary">Create webhook</button>
        </form>
        <Show when={list()?.length} fallback={<p class="muted">{list.loading ? "Loading…" : "No webhooks in this channel."}</p>}>
          <ul class="people" aria-label="Webhooks">
            <For each={list()}>{(w) => <WebhookRow state={props.state} webhook={w} onChange={() => refetch()} />}</For>
          </ul>
        </Show>
      </Show>
    </div>
  );
}

function WebhookRow(props: { state: AppState; webhook: Webhook; onChange: () => void }) {
  const [name, setName] = createSignal(props.webhook.name);
  const url = () => webhookURL(props.state.apiURL, props.webhook);
  const avatar = () => (props.webhook.avatar ? `${props.state.config?.features.autumn.url}/avatars/${props.webhook.avatar._id}?max_side=64` : "");
  const rename = guard(props.state, async () => {
    await props.state.rest.editWebhook(props.webhook.id, { name: name().trim() });
    props.onChange();
  }, "Webhook renamed");
  const setAvatar = (f: File) =>
    guard(props.state, async () => {
      const id = await props.state.client!.uploadFile("avatars", f);
      await props.state.rest.editWebhook(props.webhook.id, { avatar: id });
      props.onChange();
    }, "Webhook avatar changed")();
  const remove = () =>
    confirm(`Delete the webhook ${props.webhook.name}? Scripts using its URL stop working.`) &&
    guard(props.state, async () => {
      await props.state.rest.deleteWebhook(props.webhook.id);
      props.onChange();
    }, "Webhook deleted")();
  const copy = guard(props.state, () => navigator.clipboard.writeText(url()), "Webhook URL copied");
  return (
    <li class="person webhook" aria-label={`Webhook ${props.webhook.name}`}>
      <Show when={avatar()} fallback={<div class="avatar placeholder" aria-hidden="true">{props.webhook.name.slice(0, 1)}</div>}>
        <img class="avatar" src={avatar()} alt={`Avatar of ${props.webhook.name}`} />
      </Show>
      <form class="inline-form grow" onSubmit={rename} aria-label={`Rename ${props.webhook.name}`}>
        <input aria-label={`Name of ${props.webhook.name}`} required maxLength={32} value={name()} onInput={(e) => setName(e.currentTarget.value)} />
        <button type="submit">Rename</button>
      </form>
      <FilePicker label={`Change avatar of ${props.webhook.name}`} accept="image/*" onFiles={(f) => setAvatar(f[0])}>
        Avatar
      </FilePicker>
      <Show when={props.webhook.avatar}>
        <button onClick={guard(props.state, async () => (await props.state.rest.editWebhook(props.webhook.id, { remove: ["Avatar"] }), props.onChange()))}>Remove avatar</button>
      </Show>
      <Show when={url()}>
        <div class="webhook-url">
          <input readonly aria-label={`URL of ${props.webhook.name}`} value={url()} onFocus={(e) => e.currentTarget.select()} />
          <button onClick={copy}>Copy URL</button>
        </div>
      </Show>
      <button class="danger" onClick={remove}>
        Delete
      </button>
    </li>
  );
}
