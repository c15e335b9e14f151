// Users: search by username, email or id; a user's page with their
// account, sessions, servers, bots and reports, and what an operator
// can do to them.

import { createResource, createSignal, For, Show } from "solid-js";
import type { AppState } from "../app/state";
import { href, link } from "../app/router";
import type { AdminUser } from "../lib/api";
import { errorText, guard } from "../lib/errors";
import { accountState as state, userName as name } from "../lib/admin";
import { ReportItem } from "./Reports";
import { ActionList } from "./AuditLog";

export function Users(props: { state: AppState }) {
  const [query, setQuery] = createSignal("");
  const [found, setFound] = createSignal<AdminUser[]>();
  const search = guard(props.state, async () => setFound(await props.state.rest.adminUsers(query().trim())));
  return (
    <section class="card wide" aria-label="Users">
      <h2>Users</h2>
      <form class="row" onSubmit={search} role="search" aria-label="Find a user">
        <label>
          Username, email or id
          <input name="admin-user-query" value={query()} onInput={(e) => setQuery(e.currentTarget.value)} />
        </label>
        <button type="submit" class="primary">Search</button>
      </form>
      <Show when={found()}>
        <Show when={found()!.length} fallback={<p class="muted">No user matches.</p>}>
          <ul class="people" aria-label="Users found">
            <For each={found()}>
              {(u) => (
                <li class="person">
                  <a href={href.admin("users", u.user._id)} onClick={link(href.admin("users", u.user._id))}>
                    {name(u.user)}
                  </a>
                  <span class="muted">{u.email ?? (u.user.bot ? "bot" : "")}</span>
                  <span class="muted">{state(u)}</span>
                </li>
              )}
            </For>
          </ul>
        </Show>
      </Show>
    </section>
  );
}

/** Saves v as a JSON file the browser downloads. */
function download(file: string, v: unknown) {
  const url = URL.createObjectURL(new Blob([JSON.stringify(v, null, 2)], { type: "application/json" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = file;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function UserPage(props: { state: AppState; id: string }) {
  const rest = () => props.state.rest;
  const [page, { refetch }] = createResource(() => props.id, (id) => rest().adminUserPage(id));
  const [resetLink, setResetLink] = createSignal("");
  const [password, setPassword] = createSignal("");
  const [wipe, setWipe] = createSignal<"ban" | "delete">();
  const [badges, setBadges] = createSignal<string>();
  const [flags, setFlags] = createSignal<string>();
  const act = (f: () => Promise<unknown>, done: string) => guard(props.state, async () => (await f(), await refetch()), done);

  return (
    <Show when={!page.error} fallback={<p class="error" role="alert">{errorText(page.error)}</p>}>
      <Show when={page()} fallback={<p class="muted">Loading…</p>}>
        {(p) => {
          const u = () => p().user;
          const who = () => name(u());
          const owned = () => p().servers.filter((s) => s.owner);
          return (
            <section class="card wide admin-user" aria-label={`User ${who()}`}>
              <h2>{who()}</h2>
              <dl class="facts">
                <dt>Id</dt>
                <dd>{u()._id}</dd>
                <dt>Display name</dt>
                <dd>{u().display_name ?? "—"}</dd>
                <dt>Email</dt>
                <dd>{p().email ?? "—"}</dd>
                <dt>State</dt>
                <dd>{state(p())}</dd>
                <dt>Verified</dt>
                <dd>{p().verified ? "yes" : "no"}</dd>
                <dt>Disabled</dt>
                <dd>{p().disabled ? "yes" : "no"}</dd>
                <dt>MFA</dt>
                <dd>{p().mfa ? "on" : "off"}</dd>
                <dt>Online</dt>
                <dd>{p().online ? "yes" : "no"}</dd>
              </dl>

              <h3>Actions</h3>
              <div class="row wrap">
                <Show
                  when={p().disabled}
                  fallback={<button onClick={act(() => rest().adminDisable(u()._id), `${who()} disabled`)}>Disable account</button>}
                >
                  <button onClick={act(() => rest().adminEnable(u()._id), `${who()} enabled`)}>Enable account</button>
                </Show>
                <Show
                  when={u().privileged}
                  fallback={<button onClick={act(() => rest().adminEditUser(u()._id, { privileged: true }), `${who()} is privileged`)}>Grant privileged</button>}
                >
                  <button onClick={act(() => rest().adminEditUser(u()._id, { privileged: false }), `${who()} is no longer privileged`)}>Revoke privileged</button>
                </Show>
                <button onClick={guard(props.state, async () => setResetLink((await rest().adminResetPassword(u()._id)).link ?? ""))}>Make a password reset link</button>
                <button onClick={guard(props.state, async () => download(`user-${u()._id}.json`, await rest().adminExport(u()._id)), "Export downloaded")}>Export data</button>
              </div>
              <Show when={resetLink()}>
                <p role="status">
                  Reset link (valid one hour): <code>{resetLink()}</code>
                </p>
              </Show>
              <form class="row" aria-label="Set a password" onSubmit={act(async () => (await rest().adminResetPassword(u()._id, password()), setPassword("")), "Password set; their sessions ended")}>
                <label>
                  New password
                  <input type="password" autocomplete="new-password" value={password()} onInput={(e) => setPassword(e.currentTarget.value)} />
                </label>
                <button type="submit" disabled={!password()}>Set password</button>
              </form>
              <form
                class="row"
                aria-label="Badges and flags"
                onSubmit={act(
                  () => rest().adminEditUser(u()._id, { badges: Number(badges() ?? u().badges ?? 0), flags: Number(flags() ?? u().flags ?? 0) }),
                  "Badges and flags saved",
                )}
              >
                <label>
                  Badges
                  <input type="number" min="0" value={badges() ?? u().badges ?? 0} onInput={(e) => setBadges(e.currentTarget.value)} />
                </label>
                <label>
                  Flags
                  <input type="number" min="0" value={flags() ?? u().flags ?? 0} onInput={(e) => setFlags(e.currentTarget.value)} />
                </label>
                <button type="submit">Save badges and flags</button>
              </form>
              <div class="row wrap">
                <button class="danger" onClick={() => setWipe("ban")}>Ban from the platform…</button>
                <button class="danger" onClick={() => setWipe("delete")}>Delete the user…</button>
              </div>
              <Show when={wipe()}>
                <div class="warning" role="alertdialog" aria-label={`Confirm ${wipe()}`}>
                  <p>
                    {wipe() === "ban" ? "Banning" : "Deleting"} {who()} ends their sessions, {wipe() === "ban" ? "disables their account" : "deletes their account and anonymises their profile"},
                    removes them from {p().servers.length - owned().length} server(s) and every friendship, and deletes <strong>every message they wrote</strong> for
                    everyone.
                    <Show when={owned().length}> Their own servers ({owned().map((s) => s.name).join(", ")}) stay, for you to judge.</Show>
                  </p>
                  <div class="row">
                    <button
                      class="danger"
                      onClick={act(async () => (await rest().adminWipe(u()._id, wipe()!), setWipe(undefined)), wipe() === "ban" ? `${who()} banned` : `${who()} deleted`)}
                    >
                      {wipe() === "ban" ? "Confirm ban" : "Confirm deletion"}
                    </button>
                    <button onClick={() => setWipe(undefined)}>Cancel</button>
                  </div>
                </div>
              </Show>

              <h3>Sessions ({p().session_list.length})</h3>
              <ul aria-label="Sessions">
                <For each={p().session_list}>{(s) => <li>{s.name}{s.last_seen ? ` · last seen ${new Date(s.last_seen).toLocaleString()}` : ""}</li>}</For>
              </ul>
              <h3>Servers ({p().servers.length})</h3>
              <ul aria-label="Servers">
                <For each={p().servers}>
                  {(s) => (
                    <li>
                      <a href={href.admin("servers", s._id)} onClick={link(href.admin("servers", s._id))}>{s.name}</a>
                      {s.owner ? " (owner)" : ""}
                    </li>
                  )}
                </For>
              </ul>
              <h3>Bots ({p().bots.length})</h3>
              <ul aria-label="Bots">
                <For each={p().bots}>{(b) => <li>{name(b)}</li>}</For>
              </ul>
              <h3>Reports by them</h3>
              <For each={p().reports_by} fallback={<p class="muted">None.</p>}>{(r) => <ReportItem state={props.state} report={r} />}</For>
              <h3>Reports against them</h3>
              <For each={p().reports_against} fallback={<p class="muted">None.</p>}>{(r) => <ReportItem state={props.state} report={r} />}</For>
              <h3>What operators did</h3>
              <ActionList actions={p().actions} />
            </section>
          );
        }}
      </Show>
    </Show>
  );
}
