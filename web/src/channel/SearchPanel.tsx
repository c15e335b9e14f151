// Search in a channel or across a server's text channels, results in a
// side panel; a result opens its channel at the message.

import { createSignal, For, Show } from "solid-js";
import type { Channel } from "stoat.js";
import type { AppState } from "../app/state";
import type { MessagePage } from "../lib/api";
import { guard } from "../lib/errors";
import { inline, plain } from "../lib/markdown";

type Hit = { id: string; channel: string; author: string; content: string };

/** Up to limit hits of a search, newest first, from one or more channels. */
export async function searchChannels(state: AppState, channels: string[], query: string, limit = 25): Promise<Hit[]> {
  const pages: { channel: string; page: MessagePage }[] = await Promise.all(
    channels.map(async (channel) => ({ channel, page: await state.rest.search(channel, { query, limit, sort: "Latest" }) })),
  );
  const hits: Hit[] = [];
  for (const { channel, page } of pages) {
    const names = new Map(page.users.map((u) => [u._id, u.display_name ?? u.username]));
    for (const m of page.messages) hits.push({ id: m._id, channel, author: names.get(m.author) ?? "someone", content: m.content ?? "" });
  }
  return hits.sort((a, b) => (a.id < b.id ? 1 : -1)).slice(0, limit);
}

export function SearchPanel(props: { state: AppState; channel: Channel; onClose: () => void }) {
  const [query, setQuery] = createSignal("");
  const [scope, setScope] = createSignal<"channel" | "server">("channel");
  const [hits, setHits] = createSignal<Hit[]>();
  const client = () => props.state.client!;
  const run = guard(props.state, async () => {
    const q = query().trim();
    if (!q) return;
    const server = props.channel.server;
    const channels = scope() === "server" && server ? server.channels.filter((c) => c.type === "TextChannel").map((c) => c.id) : [props.channel.id];
    setHits(await searchChannels(props.state, channels, q));
  });
  return (
    <aside class="search-panel" aria-label="Search">
      <form class="search-form" role="search" onSubmit={run}>
        <input type="search" aria-label="Search messages" placeholder="Search messages" value={query()} onInput={(e) => setQuery(e.currentTarget.value)} autofocus />
        <Show when={props.channel.serverId}>
          <select aria-label="Search in" value={scope()} onChange={(e) => setScope(e.currentTarget.value as "channel" | "server")}>
            <option value="channel">This channel</option>
            <option value="server">Whole server</option>
          </select>
        </Show>
        <button type="submit" class="primary">Search</button>
        <button type="button" aria-label="Close search" onClick={() => props.onClose()}>
          ×
        </button>
      </form>
      <Show when={hits()}>
        {(list) => (
          <Show when={list().length} fallback={<p class="muted">No messages found.</p>}>
            <ul class="search-results" aria-label="Search results">
              <For each={list()}>
                {(h) => (
                  <li>
                    <button class="search-hit" onClick={() => props.state.openAt(h.channel, h.id)}>
                      <span class="muted">
                        <strong>{h.author}</strong>
                        <Show when={h.channel !== props.channel.id}> in #{client().channels.get(h.channel)?.name}</Show>
                        {" · "}
                        {new Date(decodeTime(h.id)).toLocaleString()}
                      </span>
                      <span class="hit-text">{plain(inline(h.content)).slice(0, 200)}</span>
                    </button>
                  </li>
                )}
              </For>
            </ul>
          </Show>
        )}
      </Show>
    </aside>
  );
}

/** The time a ULID was made (its first 10 characters, Crockford base32 milliseconds). */
function decodeTime(id: string): number {
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  let t = 0;
  for (const ch of id.slice(0, 10)) t = t * 32 + alphabet.indexOf(ch);
  return t;
}
