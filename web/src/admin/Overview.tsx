// The console's first page: figures, what the node runs on, warnings.

import { createResource, For, Show } from "solid-js";
import type { AppState } from "../app/state";
import { errorText } from "../lib/errors";
import { duration } from "../lib/admin";

const FIGURES: [string, string][] = [
  ["accounts", "Accounts"],
  ["users", "Users"],
  ["bots", "Bots"],
  ["servers", "Servers"],
  ["channels", "Channels"],
  ["messages", "Messages"],
  ["open_reports", "Open reports"],
  ["connections", "Connections now"],
];

export function Overview(props: { state: AppState }) {
  const [o, { refetch }] = createResource(() => props.state.rest.adminOverview());
  return (
    <section class="card wide" aria-label="Overview">
      <h2>Overview</h2>
      <Show when={!o.error} fallback={<p class="error" role="alert">{errorText(o.error)}</p>}>
        <Show when={o()} fallback={<p class="muted">Loading…</p>}>
          {(o) => (
            <>
              <Show when={o().warnings.length}>
                <ul class="warnings" aria-label="Warnings">
                  <For each={o().warnings}>{(w) => <li class="warning" data-warning={w.type}>{w.message}</li>}</For>
                </ul>
              </Show>
              <dl class="figures" aria-label="Figures">
                <For each={FIGURES}>
                  {([key, label]) => (
                    <div class="figure">
                      <dt>{label}</dt>
                      <dd>{(o() as unknown as Record<string, number>)[key]}</dd>
                    </div>
                  )}
                </For>
              </dl>
              <dl class="facts">
                <dt>Version</dt>
                <dd>{o().version}</dd>
                <dt>Uptime</dt>
                <dd>{duration(o().uptime_seconds)}</dd>
                <dt>Store</dt>
                <dd>{o().store}</dd>
                <dt>Bus</dt>
                <dd>{o().bus}</dd>
                <dt>Registration</dt>
                <dd>{o().invite_only ? "invite only" : "open"}</dd>
                <dt>Last backup</dt>
                <dd>{o().last_backup ? new Date(o().last_backup!).toLocaleString() : "none recorded"}</dd>
              </dl>
              <button onClick={() => refetch()}>Refresh</button>
            </>
          )}
        </Show>
      </Show>
    </section>
  );
}
