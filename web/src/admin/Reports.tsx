// Reports: the queue (open, then closed), each with the snapshot the
// server stored when it was filed, who filed it and why; resolved with a
// note and an action on the reported item.

import { createResource, createSignal, For, Show } from "solid-js";
import type { AppState } from "../app/state";
import { href, link } from "../app/router";
import type { Report, ReportAction } from "../lib/api";
import { errorText, guard } from "../lib/errors";

export function Reports(props: { state: AppState }) {
  const [open, { refetch: refetchOpen }] = createResource(() => props.state.rest.adminReports("Created"));
  const [closed, { refetch: refetchClosed }] = createResource(async () =>
    [...(await props.state.rest.adminReports("Resolved", 50)), ...(await props.state.rest.adminReports("Rejected", 50))].sort((a, b) => (a._id < b._id ? 1 : -1)),
  );
  const refresh = () => (refetchOpen(), refetchClosed());
  return (
    <section class="card wide" aria-label="Reports">
      <h2>Open reports</h2>
      <Show when={!open.error} fallback={<p class="error" role="alert">{errorText(open.error)}</p>}>
        <For each={open()} fallback={<p class="muted">No open report.</p>}>
          {(r) => <ReportItem state={props.state} report={r} onResolved={refresh} />}
        </For>
      </Show>
      <h2>Closed reports</h2>
      <For each={closed()} fallback={<p class="muted">None yet.</p>}>
        {(r) => <ReportItem state={props.state} report={r} />}
      </For>
    </section>
  );
}

type Doc = Record<string, unknown>;

const text = (m: unknown) => String((m as Doc | undefined)?.content ?? "");

/** The stored copy of what was reported. */
function Snapshot(props: { snapshot?: Doc }) {
  const s = () => props.snapshot ?? {};
  const msg = () => s()._message as Doc | undefined;
  const server = () => s()._server as Doc | undefined;
  const user = () => s()._user as Doc | undefined;
  return (
    <div class="snapshot" aria-label="Snapshot">
      <Show when={server()}>
        <p>
          Server <strong>{String(server()!.name)}</strong>
          <Show when={server()!.description}> — {String(server()!.description)}</Show>
        </p>
      </Show>
      <Show when={user()}>
        <p>
          Profile of <strong>{`${user()!.username}#${user()!.discriminator}`}</strong>
          <Show when={(user()!.profile as Doc | undefined)?.content}> — {String((user()!.profile as Doc).content)}</Show>
        </p>
      </Show>
      <Show when={msg()}>
        <ol class="context">
          <For each={(s()._prior_context as Doc[] | undefined) ?? []}>{(m) => <li class="muted">{text(m)}</li>}</For>
          <li class="reported">
            <strong>{text(msg())}</strong>
          </li>
          <For each={(s()._leading_context as Doc[] | undefined) ?? []}>{(m) => <li class="muted">{text(m)}</li>}</For>
        </ol>
      </Show>
    </div>
  );
}

/** The actions that apply to an item of this type. */
function actions(type: Report["content"]["type"]): [ReportAction, string][] {
  const person: [ReportAction, string][] = [
    ["DisableUser", "Disable the user"],
    ["BanUser", "Ban the user (deletes their messages)"],
    ["DeleteUser", "Delete the user"],
  ];
  if (type === "Message") return [["None", "No action"], ["DeleteMessage", "Delete the message"], ...person];
  if (type === "Server") return [["None", "No action"], ["DeleteServer", "Delete the server"], ...person];
  return [["None", "No action"], ...person];
}

export function ReportItem(props: { state: AppState; report: Report; onResolved?: () => void }) {
  const r = () => props.report;
  const [notes, setNotes] = createSignal("");
  const [action, setAction] = createSignal<ReportAction>("None");
  const [others, setOthers] = createSignal<Report[]>();
  const close = (status: "Resolved" | "Rejected") =>
    guard(
      props.state,
      async () => (await props.state.rest.adminResolve(r()._id, { status, notes: notes(), action: action() }), props.onResolved?.()),
      status === "Resolved" ? "Report resolved" : "Report rejected",
    );
  const label = () => `Report of ${r().content.type.toLowerCase()} ${r().content.id}`;
  return (
    <article class="report" aria-label={label()}>
      <header class="row wrap">
        <strong>{r().content.type}</strong>
        <span>{r().content.report_reason}</span>
        <span class="muted">{r().status}</span>
        <span class="muted">
          by{" "}
          <a href={href.admin("users", r().author_id)} onClick={link(href.admin("users", r().author_id))}>
            {r().author_id}
          </a>
        </span>
      </header>
      <Show when={r().additional_context}>
        <p>“{r().additional_context}”</p>
      </Show>
      <Snapshot snapshot={r().snapshot} />
      <Show when={r().status !== "Created"}>
        <p class="muted">
          {r().action ?? "None"}
          {r().notes ? ` — ${r().notes}` : ""}
        </p>
      </Show>
      <Show when={r().status === "Created" && props.onResolved}>
        <form class="resolve" aria-label={`Resolve ${label()}`} onSubmit={close("Resolved")}>
          <label>
            Note
            <input value={notes()} onInput={(e) => setNotes(e.currentTarget.value)} />
          </label>
          <label>
            Action
            <select value={action()} onChange={(e) => setAction(e.currentTarget.value as ReportAction)}>
              <For each={actions(r().content.type)}>{([v, l]) => <option value={v}>{l}</option>}</For>
            </select>
          </label>
          <div class="row">
            <button type="submit" class="primary">Resolve</button>
            <button type="button" onClick={close("Rejected")}>Reject</button>
            <button type="button" onClick={guard(props.state, async () => setOthers((await props.state.rest.adminReports(undefined, 20, r().author_id)).filter((o) => o._id !== r()._id)))}>
              Reporter's other reports
            </button>
          </div>
        </form>
        <Show when={others()}>
          <ul aria-label="The reporter's other reports">
            <For each={others()} fallback={<li class="muted">No other report.</li>}>
              {(o) => <li>{`${o.content.type} ${o.content.id}: ${o.content.report_reason} (${o.status})`}</li>}
            </For>
          </ul>
        </Show>
      </Show>
    </article>
  );
}
