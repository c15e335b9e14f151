// Registration: whether the instance is invite-only, and its
// registration invite codes (create, list, revoke).

import { createResource, For, Show } from "solid-js";
import type { AppState } from "../app/state";
import { errorText, guard } from "../lib/errors";

export function Registration(props: { state: AppState }) {
  const rest = () => props.state.rest;
  const [page, { refetch }] = createResource(() => rest().adminInvites());
  return (
    <section class="card wide" aria-label="Registration">
      <h2>Registration</h2>
      <Show when={!page.error} fallback={<p class="error" role="alert">{errorText(page.error)}</p>}>
        <Show when={page()} fallback={<p class="muted">Loading…</p>}>
          {(p) => (
            <>
              <p>
                {p().invite_only
                  ? "Registration is invite only: each new account needs one of the codes below."
                  : "Registration is open to anyone. Codes made here are only needed once [accounts] invite_only is on."}
              </p>
              <button class="primary" onClick={guard(props.state, async () => (await rest().adminCreateInvite(), await refetch()), "Invite created")}>
                Create an invite
              </button>
              <table aria-label="Registration invites">
                <thead>
                  <tr>
                    <th>Code</th>
                    <th>Created</th>
                    <th>State</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  <For each={[...p().invites].reverse()} fallback={<tr><td colspan="4" class="muted">No invite yet.</td></tr>}>
                    {(inv) => (
                      <tr data-invite={inv._id}>
                        <td>
                          <code>{inv._id}</code>
                        </td>
                        <td>{new Date(inv.created).toLocaleString()}</td>
                        <td>{inv.used ? `used${inv.used_by ? ` by ${inv.used_by}` : ""}` : "unused"}</td>
                        <td>
                          <Show when={!inv.used}>
                            <button aria-label={`Revoke ${inv._id}`} onClick={guard(props.state, async () => (await rest().adminDeleteInvite(inv._id), await refetch()), "Invite revoked")}>
                              Revoke
                            </button>
                          </Show>
                        </td>
                      </tr>
                    )}
                  </For>
                </tbody>
              </table>
            </>
          )}
        </Show>
      </Show>
    </section>
  );
}
