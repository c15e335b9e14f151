// Server settings pages for people: members (search, roles, timeout,
// kick, ban), bans (unban) and invites (list, revoke).

import { createMemo, createResource, createSignal, For, onMount, Show } from "solid-js";
import type { Server, ServerMember } from "stoat.js";
import type { AppState } from "../app/state";
import { guard } from "../lib/errors";
import { avatar } from "../ui/media";

const TIMEOUTS: [string, number][] = [
  ["10 minutes", 10 * 60_000],
  ["1 hour", 3_600_000],
  ["1 day", 86_400_000],
  ["1 week", 7 * 86_400_000],
];

export function Members(props: { state: AppState; server: Server }) {
  const client = () => props.state.client!;
  const [query, setQuery] = createSignal("");
  onMount(() => props.server.syncMembers(false).catch(() => {}));
  const members = createMemo(() =>
    client()
      .serverMembers.filter((m) => m.id.server === props.server.id)
      .filter((m) => {
        const q = query().trim().toLowerCase();
        const u = m.user;
        return !q || !!u && (u.username.toLowerCase().includes(q) || u.displayName.toLowerCase().includes(q) || (m.nickname ?? "").toLowerCase().includes(q));
      })
      .sort((a, b) => (a.user?.displayName ?? "").localeCompare(b.user?.displayName ?? "")),
  );
  return (
    <div class="card wide">
      <label>
        Search members
        <input type="search" value={query()} onInput={(e) => setQuery(e.currentTarget.value)} />
      </label>
      <ul class="people" aria-label="Members">
        <For each={members()}>{(m) => <MemberRow state={props.state} server={props.server} member={m} />}</For>
      </ul>
    </div>
  );
}

function MemberRow(props: { state: AppState; server: Server; member: ServerMember }) {
  const rest = () => props.state.rest;
  const m = () => props.member;
  const uid = () => m().id.user;
  const name = () => m().user?.displayName ?? uid();
  const me = () => uid() === props.state.client!.user!.id;
  const owner = () => uid() === props.server.ownerId;
  const roles = () => m().roles ?? [];
  const timedOut = () => !!m().timeout && m().timeout!.getTime() > Date.now();
  const [timeout, setTimeoutLength] = createSignal(String(TIMEOUTS[1][1]));
  const can = (p: "KickMembers" | "BanMembers" | "TimeoutMembers" | "AssignRoles") => props.server.havePermission(p) && !owner() && !me();
  const toggleRole = (role: string, on: boolean) =>
    guard(props.state, () => rest().editMember(props.server.id, uid(), { roles: on ? [...roles(), role] : roles().filter((r) => r !== role) }))();
  return (
    <li class="person member-row" aria-label={name()}>
      <img class="avatar small" src={m().user ? avatar(m().user!) : ""} alt="" />
      <span class="who">
        <strong>{name()}</strong>
        <span class="muted">
          {m().user?.username}#{m().user?.discriminator}
          {owner() ? " · owner" : ""}
          {timedOut() ? ` · timed out until ${m().timeout!.toLocaleString()}` : ""}
        </span>
      </span>
      <span class="spacer" />
      <Show when={props.server.havePermission("AssignRoles") && props.server.orderedRoles.length}>
        <fieldset class="role-picks">
          <legend class="visually-hidden">Roles of {name()}</legend>
          <For each={props.server.orderedRoles}>
            {(r) => (
              <label class="check">
                <input type="checkbox" checked={roles().includes(r.id)} onChange={(e) => toggleRole(r.id, e.currentTarget.checked)} aria-label={`${r.name} role for ${name()}`} />
                <span style={{ color: r.colour ?? undefined }}>{r.name}</span>
              </label>
            )}
          </For>
        </fieldset>
      </Show>
      <Show when={can("TimeoutMembers")}>
        <Show
          when={timedOut()}
          fallback={
            <>
              <select aria-label={`Timeout length for ${name()}`} value={timeout()} onChange={(e) => setTimeoutLength(e.currentTarget.value)}>
                <For each={TIMEOUTS}>{([label, ms]) => <option value={ms}>{label}</option>}</For>
              </select>
              <button onClick={guard(props.state, () => rest().editMember(props.server.id, uid(), { timeout: new Date(Date.now() + Number(timeout())).toISOString() }), `${name()} is timed out`)}>
                Time out
              </button>
            </>
          }
        >
          <button onClick={guard(props.state, () => rest().editMember(props.server.id, uid(), { remove: ["Timeout"] }), `${name()} can talk again`)}>End timeout</button>
        </Show>
      </Show>
      <Show when={can("KickMembers")}>
        <button onClick={() => confirm(`Kick ${name()} from ${props.server.name}?`) && guard(props.state, () => rest().kick(props.server.id, uid()), `${name()} was kicked`)()}>Kick</button>
      </Show>
      <Show when={can("BanMembers")}>
        <button
          class="danger"
          onClick={() => {
            const reason = prompt(`Ban ${name()}? A reason (optional):`);
            if (reason !== null) guard(props.state, () => rest().ban(props.server.id, uid(), reason.trim() || undefined), `${name()} was banned`)();
          }}
        >
          Ban
        </button>
      </Show>
    </li>
  );
}

export function Bans(props: { state: AppState; server: Server }) {
  const [bans, { refetch }] = createResource(() => props.state.rest.bans(props.server.id));
  const userOf = (id: string) => bans()?.users.find((u) => u._id === id);
  return (
    <div class="card wide">
      <Show when={bans()?.bans.length} fallback={<p class="muted">{bans.loading ? "Loading…" : "Nobody is banned."}</p>}>
        <ul class="people" aria-label="Bans">
          <For each={bans()!.bans}>
            {(b) => {
              const u = () => userOf(b._id.user);
              const label = () => (u() ? `${u()!.username}#${u()!.discriminator}` : b._id.user);
              return (
                <li class="person" aria-label={label()}>
                  <span class="who">
                    <strong>{label()}</strong>
                    <Show when={b.reason}>
                      <span class="muted">{b.reason}</span>
                    </Show>
                  </span>
                  <span class="spacer" />
                  <Show when={props.server.havePermission("BanMembers")}>
                    <button onClick={guard(props.state, async () => (await props.state.rest.unban(props.server.id, b._id.user), refetch()), `${label()} was unbanned`)}>Unban</button>
                  </Show>
                </li>
              );
            }}
          </For>
        </ul>
      </Show>
    </div>
  );
}

export function Invites(props: { state: AppState; server: Server }) {
  const client = () => props.state.client!;
  const [invites, { refetch }] = createResource(() => props.state.rest.serverInvites(props.server.id));
  return (
    <div class="card wide">
      <Show when={invites()?.length} fallback={<p class="muted">{invites.loading ? "Loading…" : "No invites."}</p>}>
        <ul class="people" aria-label="Invites">
          <For each={invites()}>
            {(inv) => (
              <li class="person" aria-label={inv._id}>
                <span class="who">
                  <strong>
                    <code>{inv._id}</code>
                  </strong>
                  <span class="muted">
                    #{client().channels.get(inv.channel)?.name ?? "channel"} · by {client().users.get(inv.creator)?.displayName ?? "someone"}
                  </span>
                </span>
                <span class="spacer" />
                <Show when={props.server.havePermission("ManageServer") || inv.creator === client().user?.id}>
                  <button onClick={guard(props.state, async () => (await props.state.rest.deleteInvite(inv._id), refetch()), "Invite revoked")}>Revoke</button>
                </Show>
              </li>
            )}
          </For>
        </ul>
      </Show>
    </div>
  );
}
