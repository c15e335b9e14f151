// The rail of servers at the left, and the dialog creating one.

import { createMemo, createSignal, For, onMount, Show } from "solid-js";
import type { Client } from "stoat.js";
import { href, link, navigate, type Route } from "../app/router";
import { errorText } from "../lib/errors";
import { isServerMuted, totals } from "../lib/notifications";
import type { AppState } from "../app/state";
import { iconURL } from "../ui/media";
import { initials } from "../ui/common";
import { Icon } from "../ui/Icon";

export function ServerRail(props: { state: AppState; client: Client; current?: string; route: Route }) {
  const servers = createMemo(() => props.client.servers.toList().sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()));
  const [creating, setCreating] = createSignal(false);
  return (
    <>
      <nav class="rail" aria-label="Servers">
        <a class="rail-item home" href={href.home()} onClick={link(href.home())} aria-current={!props.current ? "page" : undefined} title="Home" aria-label="Home">
          <Icon name="home" size={22} />
        </a>
        <For each={servers()}>
          {(s) => {
            const muted = () => isServerMuted(props.state.notifications.options, s.id);
            const counts = () =>
              totals(
                s.channels.map((c) => ({
                  unread: c.unread,
                  mentions: c.mentions?.size ?? 0,
                  muted: props.state.notifications.muted({ id: c.id, type: c.type, serverId: s.id }),
                })),
              );
            const label = () => {
              const t = counts();
              return `${s.name}${t.unread && !muted() ? " (unread)" : ""}${t.mentions ? `, ${t.mentions} mention${t.mentions === 1 ? "" : "s"}` : ""}${muted() ? " (muted)" : ""}`;
            };
            return (
              <a
                class="rail-item"
                classList={{ unread: counts().unread > 0 && !muted(), muted: muted() }}
                href={href.server(s.id)}
                onClick={link(href.server(s.id))}
                aria-current={props.current === s.id ? "page" : undefined}
                title={s.name}
                aria-label={label()}
              >
                <Show when={iconURL(s.icon)} fallback={<span>{initials(s.name)}</span>}>
                  <img src={iconURL(s.icon)} alt="" />
                </Show>
                <Show when={counts().mentions > 0}>
                  <span class="badge rail-badge" aria-hidden="true">{counts().mentions > 99 ? "99+" : counts().mentions}</span>
                </Show>
              </a>
            );
          }}
        </For>
        <button class="rail-item add" title="Create a server" aria-label="Create a server" aria-haspopup="dialog" aria-expanded={creating()} onClick={() => setCreating(!creating())}>
          <Icon name="plus" size={22} />
        </button>
      </nav>
      {/* Outside the rail: the rail scrolls, and would clip it. */}
      <Show when={creating()}>
        <CreateServer client={props.client} onClose={() => setCreating(false)} />
      </Show>
    </>
  );
}

/** A modal dialog naming a new server; Escape or a click beside it closes it. */
function CreateServer(props: { client: Client; onClose: () => void }) {
  const [name, setName] = createSignal("");
  const [error, setError] = createSignal("");
  let input!: HTMLInputElement;
  onMount(() => input.focus());
  const create = async (e: Event) => {
    e.preventDefault();
    setError("");
    try {
      const s = await props.client.servers.createServer({ name: name().trim() });
      props.onClose();
      navigate(href.server(s.id));
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <div class="backdrop" onClick={(e) => e.target === e.currentTarget && props.onClose()} onKeyDown={(e) => e.key === "Escape" && props.onClose()}>
      <form class="dialog" role="dialog" aria-modal="true" aria-labelledby="create-server-title" onSubmit={create}>
        <h2 id="create-server-title">Create a server</h2>
        <label>
          Server name
          <input ref={input} name="server-name" required maxLength={32} value={name()} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <Show when={error()}>
          <p class="error" role="alert">{error()}</p>
        </Show>
        <div class="row">
          <span class="spacer" />
          <button type="button" onClick={() => props.onClose()}>Cancel</button>
          <button type="submit" class="primary">Create</button>
        </div>
      </form>
    </div>
  );
}
