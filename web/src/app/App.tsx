import { createResource, createSignal, For, Match, Show, Switch, onMount } from "solid-js";
import type { AppState } from "./state";
import type { SavedSession } from "../lib/api";
import { errorText } from "../lib/errors";
import { navigate, parse, path } from "./router";
import { ConfirmDelete, Login, Onboarding, Register, ResetPassword, Verify } from "../account/Auth";
import { Layout } from "./Layout";

type Phase = { kind: "loading" } | { kind: "out" } | { kind: "onboard"; session: SavedSession } | { kind: "in" } | { kind: "down"; error: string };

export function App(props: { state: AppState }) {
  const state = props.state;
  const [phase, setPhase] = createSignal<Phase>({ kind: "loading" });
  const route = () => parse(path());

  const begin = async (session: SavedSession) => {
    try {
      const hello = await state.rest.as(session).onboardHello();
      if (hello.onboarding) {
        setPhase({ kind: "onboard", session });
        return;
      }
    } catch (err) {
      // The session is gone (logged out elsewhere): log in again.
      state.forget();
      setPhase({ kind: "out" });
      state.notify(`Please log in again (${errorText(err)})`);
      return;
    }
    state.start(session);
    setPhase({ kind: "in" });
    const r = route();
    if (r.name === "login" || r.name === "register" || r.name === "verify") navigate("/app/", true);
  };

  onMount(async () => {
    try {
      await state.loadConfig();
    } catch (err) {
      setPhase({ kind: "down", error: errorText(err) });
      return;
    }
    const saved = state.savedSession();
    if (saved) await begin(saved);
    else setPhase({ kind: "out" });
  });

  // The client logs out (here or from elsewhere): back to the login page.
  const out = () => {
    setPhase({ kind: "out" });
  };

  return (
    <>
      <Switch>
        <Match when={phase().kind === "loading"}>
          <main class="auth" aria-busy="true">
            <p class="muted">Loading…</p>
          </main>
        </Match>
        <Match when={phase().kind === "down"}>
          <main class="auth">
            <div class="card" role="alert">
              <h1>Cannot reach this Ermine</h1>
              <p>{(phase() as { error: string }).error}</p>
            </div>
          </main>
        </Match>
        <Match when={phase().kind === "onboard"}>
          <Onboarding
            state={state}
            session={(phase() as { session: SavedSession }).session}
            onDone={() => begin((phase() as { session: SavedSession }).session)}
          />
        </Match>
        <Match when={phase().kind === "in" && state.client}>
          <Layout state={state} route={route()} onLogout={out} />
        </Match>
        <Match when={phase().kind === "out" || (phase().kind === "in" && !state.client)}>
          <Switch fallback={<Login state={state} onSession={begin} />}>
            <Match when={route().name === "register"}>
              <Register state={state} onSession={begin} />
            </Match>
            <Match when={route().name === "verify"}>
              <Verify state={state} token={(route() as { token: string }).token} />
            </Match>
            <Match when={route().name === "reset"}>
              <ResetPassword state={state} token={(route() as { token: string }).token} />
            </Match>
            <Match when={route().name === "delete"}>
              <ConfirmDelete state={state} token={(route() as { token: string }).token} />
            </Match>
            <Match when={route().name === "invite"}>
              <InviteLanding state={state} code={(route() as { code: string }).code} onSession={begin} />
            </Match>
          </Switch>
        </Match>
      </Switch>
      <Notices state={state} />
    </>
  );
}

/** An invite opened while logged out: what it is, then log in or register to join. */
function InviteLanding(props: { state: AppState; code: string; onSession: (s: SavedSession) => void }) {
  const [invite] = createResource(() => props.state.rest.invite(props.code));
  const [mode, setMode] = createSignal<"login" | "register">("login");
  return (
    <>
      <div class="invite-banner" role="status">
        <Show when={!invite.error} fallback={<span>This invite is not valid.</span>}>
          <span>
            You were invited to <strong>{invite()?.server_name ?? invite()?.channel_name ?? "…"}</strong>. Log in or create an account to
            join.
          </span>
          <button onClick={() => setMode(mode() === "login" ? "register" : "login")}>{mode() === "login" ? "Create an account instead" : "Log in instead"}</button>
        </Show>
      </div>
      <Show when={mode() === "login"} fallback={<Register state={props.state} onSession={props.onSession} />}>
        <Login state={props.state} onSession={props.onSession} />
      </Show>
    </>
  );
}

function Notices(props: { state: AppState }) {
  return (
    <div class="notices" aria-live="polite">
      <For each={props.state.notices()}>
        {(n) => (
          <div class={`notice ${n.kind}`} role={n.kind === "error" ? "alert" : "status"}>
            <span>{n.text}</span>
            <button aria-label="Dismiss" onClick={() => props.state.dismiss(n.id)}>
              ×
            </button>
          </div>
        )}
      </For>
    </div>
  );
}
