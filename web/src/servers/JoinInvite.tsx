// An invite opened while logged in: what it is, and a button joining it.

import { createResource, createSignal, Show } from "solid-js";
import type { AppState } from "../app/state";
import { href, navigate } from "../app/router";
import { errorText } from "../lib/errors";

export function JoinInvite(props: { state: AppState; code: string }) {
  const [invite] = createResource(
    () => props.code,
    (code) => props.state.rest.invite(code),
  );
  const [error, setError] = createSignal("");
  const join = async () => {
    setError("");
    try {
      const res = await props.state.rest.joinInvite(props.code);
      if (res.type === "Server" && res.server) {
        // The ServerCreate event adds it; wait until the client has it.
        const sid = res.server._id;
        const first = res.channels?.[0]?._id;
        navigate(href.server(sid, first));
      } else if (res.channel) navigate(href.dm(res.channel._id));
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <div class="page">
      <div class="card">
        <Show when={!invite.loading} fallback={<p>Looking at the invite…</p>}>
          <Show when={!invite.error} fallback={<p class="error">This invite is not valid ({errorText(invite.error)}).</p>}>
            <h1>Join {invite()?.server_name ?? invite()?.channel_name}</h1>
            <p class="muted">Invited by {invite()?.user_name}</p>
            <button class="primary" onClick={join}>
              Join
            </button>
          </Show>
        </Show>
        <Show when={error()}>
          <p class="error" role="alert">{error()}</p>
        </Show>
      </div>
    </div>
  );
}
