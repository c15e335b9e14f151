// The instance's audit log: every action of the console and of
// `ermine admin`, with who did it and when.

import { createResource, createSignal, For, Show } from "solid-js";
import type { AppState } from "../app/state";
import type { AdminAction } from "../lib/api";
import { errorText } from "../lib/errors";
import { idTime } from "../lib/admin";

function detail(d?: Record<string, unknown>): string {
  if (!d) return "";
  return Object.entries(d)
    .filter(([, v]) => v !== "" && v !== undefined)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join(", ");
}

export function ActionList(props: { actions: AdminAction[] }) {
  return (
    <table class="audit" aria-label="Operator actions">
      <thead>
        <tr>
          <th>When</th>
          <th>Who</th>
          <th>Action</th>
          <th>Target</th>
          <th>Details</th>
        </tr>
      </thead>
      <tbody>
        <For each={props.actions} fallback={<tr><td colspan="5" class="muted">Nothing recorded.</td></tr>}>
          {(e) => (
            <tr>
              <td>{idTime(e._id).toLocaleString()}</td>
              <td>{e.user ?? "command line"}</td>
              <td>{e.action}</td>
              <td>{e.target}</td>
              <td>{detail(e.detail)}</td>
            </tr>
          )}
        </For>
      </tbody>
    </table>
  );
}

export function AuditLog(props: { state: AppState }) {
  const [before, setBefore] = createSignal<string>();
  const [page] = createResource(before, (b) => props.state.rest.adminAudit(b || undefined), { initialValue: undefined });
  const [first] = createResource(() => props.state.rest.adminAudit());
  const rows = () => (before() ? page() : first());
  return (
    <section class="card wide" aria-label="Audit log">
      <h2>Audit log</h2>
      <Show when={!first.error} fallback={<p class="error" role="alert">{errorText(first.error)}</p>}>
        <ActionList actions={rows() ?? []} />
        <div class="row">
          <Show when={before()}>
            <button onClick={() => setBefore(undefined)}>Newest</button>
          </Show>
          <Show when={(rows()?.length ?? 0) >= 100}>
            <button onClick={() => setBefore(rows()![rows()!.length - 1]._id)}>Older</button>
          </Show>
        </div>
      </Show>
    </section>
  );
}
