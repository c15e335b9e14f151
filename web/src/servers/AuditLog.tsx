// A server's audit log: who did what, newest first, filtered by the
// member who acted and by the kind of action; older entries load on
// request. Reading it needs ViewAuditLogs.

import { createEffect, createSignal, For, on, Show } from "solid-js";
import type { Server } from "stoat.js";
import type { AppState } from "../app/state";
import type { AuditLogEntry } from "../lib/api";
import { AUDIT_ACTIONS, describeEntry } from "../lib/audit";
import { idTime } from "../lib/admin";
import { errorText } from "../lib/errors";

const PAGE = 50;

export function AuditLog(props: { state: AppState; server: Server }) {
  const client = () => props.state.client!;
  const [user, setUser] = createSignal("");
  const [type, setType] = createSignal("");
  const [entries, setEntries] = createSignal<AuditLogEntry[]>([]);
  const [more, setMore] = createSignal(false);
  const [loading, setLoading] = createSignal(false);
  const [error, setError] = createSignal("");
  const names = new Map<string, string>();
  const members = () =>
    client()
      .serverMembers.filter((m) => m.id.server === props.server.id && !!m.user)
      .map((m) => ({ id: m.id.user, name: m.user!.displayName }))
      .sort((a, b) => a.name.localeCompare(b.name));
  // Filters change faster than answers come: only the latest request's answer is shown.
  let seq = 0;
  const load = async (older: boolean) => {
    const mine = ++seq;
    setLoading(true);
    setError("");
    try {
      const before = older ? entries().at(-1)?._id : undefined;
      const page = await props.state.rest.auditLog(props.server.id, { user: user() || undefined, types: type() ? [type()] : [], before, limit: PAGE });
      if (mine !== seq) return;
      for (const u of page.users) names.set(u._id, u.display_name ?? u.username);
      setEntries(older ? [...entries(), ...page.audit_logs] : page.audit_logs);
      setMore(page.audit_logs.length === PAGE);
    } catch (err) {
      if (mine === seq) setError(errorText(err));
    } finally {
      if (mine === seq) setLoading(false);
    }
  };
  createEffect(on([user, type], () => load(false)));
  client().servers.get(props.server.id)?.syncMembers(false).catch(() => {});
  const lookup = {
    user: (id: string) => client().users.get(id)?.displayName ?? names.get(id),
    role: (id: string) => props.server.roles.get(id)?.name,
    channel: (id: string) => client().channels.get(id)?.name,
  };
  return (
    <div class="card wide audit">
      <div class="row wrap" role="group" aria-label="Filters">
        <label>
          Done by
          <select aria-label="Done by" value={user()} onChange={(e) => setUser(e.currentTarget.value)}>
            <option value="">Anyone</option>
            <For each={members()}>{(m) => <option value={m.id}>{m.name}</option>}</For>
          </select>
        </label>
        <label>
          Action
          <select aria-label="Action" value={type()} onChange={(e) => setType(e.currentTarget.value)}>
            <option value="">Any action</option>
            <For each={AUDIT_ACTIONS}>{([t, label]) => <option value={t}>{label}</option>}</For>
          </select>
        </label>
      </div>
      <Show when={error()}>
        <p class="error" role="alert">
          {error()}
        </p>
      </Show>
      <Show when={entries().length} fallback={<p class="muted">{loading() ? "Loading…" : "Nothing recorded."}</p>}>
        <ol class="people audit-entries" aria-label="Audit log">
          <For each={entries()}>
            {(e) => (
              <li class="person">
                <span class="who">
                  <span>{describeEntry(e, lookup)}</span>
                  <Show when={e.reason}>
                    <span class="muted">Reason: {e.reason}</span>
                  </Show>
                </span>
                <span class="spacer" />
                <time class="muted" dateTime={idTime(e._id).toISOString()}>
                  {idTime(e._id).toLocaleString()}
                </time>
              </li>
            )}
          </For>
        </ol>
      </Show>
      <Show when={more()}>
        <button disabled={loading()} onClick={() => load(true)}>
          Load older entries
        </button>
      </Show>
    </div>
  );
}
