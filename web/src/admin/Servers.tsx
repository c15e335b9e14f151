// Servers: search by name or id; a server's page with its owner, member
// count, channels and recent audit log; delete it, transfer it or remove
// a member.

import { createResource, createSignal, For, Show } from "solid-js";
import type { AppState } from "../app/state";
import { href, link, navigate } from "../app/router";
import type { AdminServer } from "../lib/api";
import { errorText, guard } from "../lib/errors";
import { ActionList } from "./AuditLog";
import { userName as name } from "../lib/admin";

export function Servers(props: { state: AppState }) {
  const [query, setQuery] = createSignal("");
  const [found, setFound] = createSignal<{ server: AdminServer; members: number }[]>();
  const search = guard(props.state, async () => setFound(await props.state.rest.adminServers(query().trim())));
  return (
    <section class="card wide" aria-label="Servers">
      <h2>Servers</h2>
      <form class="row" onSubmit={search} role="search" aria-label="Find a server">
        <label>
          Server name or id
          <input name="admin-server-query" value={query()} onInput={(e) => setQuery(e.currentTarget.value)} />
        </label>
        <button type="submit" class="primary">Search</button>
      </form>
      <Show when={found()}>
        <Show when={found()!.length} fallback={<p class="muted">No server matches.</p>}>
          <ul class="people" aria-label="Servers found">
            <For each={found()}>
              {(s) => (
                <li class="person">
                  <a href={href.admin("servers", s.server._id)} onClick={link(href.admin("servers", s.server._id))}>
                    {s.server.name}
                  </a>
                  <span class="muted">{s.members} members</span>
                </li>
              )}
            </For>
          </ul>
        </Show>
      </Show>
    </section>
  );
}

export function ServerPage(props: { state: AppState; id: string }) {
  const rest = () => props.state.rest;
  const [page, { refetch }] = createResource(() => props.id, (id) => rest().adminServerPage(id));
  const [owner, setOwner] = createSignal("");
  const [member, setMember] = createSignal("");
  const [confirming, setConfirming] = createSignal(false);
  return (
    <Show when={!page.error} fallback={<p class="error" role="alert">{errorText(page.error)}</p>}>
      <Show when={page()} fallback={<p class="muted">Loading…</p>}>
        {(p) => (
          <section class="card wide" aria-label={`Server ${p().server.name}`}>
            <h2>{p().server.name}</h2>
            <dl class="facts">
              <dt>Id</dt>
              <dd>{p().server._id}</dd>
              <dt>Owner</dt>
              <dd>
                <Show when={p().owner} fallback={p().server.owner}>
                  <a href={href.admin("users", p().server.owner)} onClick={link(href.admin("users", p().server.owner))}>
                    {name(p().owner!)}
                  </a>
                </Show>
              </dd>
              <dt>Members</dt>
              <dd>{p().members}</dd>
            </dl>
            <h3>Channels ({p().channels.length})</h3>
            <ul aria-label="Channels">
              <For each={p().channels}>{(c) => <li>{c.name ?? c._id}</li>}</For>
            </ul>
            <h3>Actions</h3>
            <form class="row" aria-label="Transfer ownership" onSubmit={guard(props.state, async () => (await rest().adminTransferServer(p().server._id, owner().trim()), setOwner(""), await refetch()), "Ownership transferred")}>
              <label>
                New owner (a member's id)
                <input value={owner()} onInput={(e) => setOwner(e.currentTarget.value)} />
              </label>
              <button type="submit" disabled={!owner().trim()}>Transfer ownership</button>
            </form>
            <form class="row" aria-label="Remove a member" onSubmit={guard(props.state, async () => (await rest().adminRemoveMember(p().server._id, member().trim()), setMember(""), await refetch()), "Member removed")}>
              <label>
                Member id
                <input value={member()} onInput={(e) => setMember(e.currentTarget.value)} />
              </label>
              <button type="submit" disabled={!member().trim()}>Remove member</button>
            </form>
            <Show when={confirming()} fallback={<button class="danger" onClick={() => setConfirming(true)}>Delete server…</button>}>
              <div class="warning" role="alertdialog" aria-label="Confirm deletion">
                <p>
                  Deleting <strong>{p().server.name}</strong> removes its {p().channels.length} channel(s), every message in them and its {p().members} membership(s), for everyone.
                </p>
                <div class="row">
                  <button class="danger" onClick={guard(props.state, async () => (await rest().adminDeleteServer(p().server._id), navigate(href.admin("servers"))), `${p().server.name} deleted`)}>
                    Confirm deletion
                  </button>
                  <button onClick={() => setConfirming(false)}>Cancel</button>
                </div>
              </div>
            </Show>
            <h3>Recent audit log</h3>
            <ul aria-label="Server audit log">
              <For each={p().audit_log} fallback={<li class="muted">Empty.</li>}>
                {(e) => <li>{`${e.action.type} by ${e.user}`}</li>}
              </For>
            </ul>
            <h3>What operators did</h3>
            <ActionList actions={p().actions} />
          </section>
        )}
      </Show>
    </Show>
  );
}
