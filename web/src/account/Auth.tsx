// Logging in (with MFA), registering, onboarding, and the links sent by
// mail (verify, password reset). The flows follow the root object: no
// "check your mail" when the instance sends none, an invite field only
// when registration is invite-only.

import { createSignal, Match, Show, Switch } from "solid-js";
import type { AppState } from "../app/state";
import { navigate, href, link } from "../app/router";
import type { LoginAnswer, LoginBody, SavedSession } from "../lib/api";
import { errorText } from "../lib/errors";
import { Captcha } from "./Captcha";

export function Login(props: { state: AppState; onSession: (s: SavedSession) => void }) {
  const [email, setEmail] = createSignal("");
  const [password, setPassword] = createSignal("");
  const [mfa, setMfa] = createSignal<{ ticket: string; methods: string[] }>();
  const [code, setCode] = createSignal("");
  const [error, setError] = createSignal("");
  const [busy, setBusy] = createSignal(false);

  const finish = (answer: LoginAnswer) => {
    if (answer.result === "Success") props.onSession({ _id: answer._id, token: answer.token, user_id: answer.user_id });
    else if (answer.result === "MFA") setMfa({ ticket: answer.ticket, methods: answer.allowed_methods });
    else setError("This account is disabled.");
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setError("");
    setBusy(true);
    try {
      const m = mfa();
      const body: LoginBody = m
        ? {
            mfa_ticket: m.ticket,
            mfa_response: m.methods.includes("Totp") && /^\d{6}$/.test(code().trim())
              ? { totp_code: code().trim() }
              : { recovery_code: code().trim() },
            friendly_name: friendlyName(),
          }
        : { email: email(), password: password(), friendly_name: friendlyName() };
      finish(await props.state.rest.login(body));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="auth">
      <form class="card" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">Log in to Ermine</h1>
        <Show
          when={mfa()}
          fallback={
            <>
              <label>
                Email
                <input name="email" type="email" autocomplete="email" required value={email()} onInput={(e) => setEmail(e.currentTarget.value)} />
              </label>
              <label>
                Password
                <input name="password" type="password" autocomplete="current-password" required value={password()} onInput={(e) => setPassword(e.currentTarget.value)} />
              </label>
            </>
          }
        >
          <p>Two-factor authentication is on for this account.</p>
          <label>
            {mfa()!.methods.includes("Totp") ? "Code from your authenticator app, or a recovery code" : "Recovery code"}
            <input name="mfa" autocomplete="one-time-code" required value={code()} onInput={(e) => setCode(e.currentTarget.value)} />
          </label>
        </Show>
        <Show when={error()}>
          <p class="error" role="alert">{error()}</p>
        </Show>
        <button type="submit" class="primary" disabled={busy()}>Log in</button>
        <p class="muted">
          New here? <a href={"/app/register"} onClick={link("/app/register")}>Create an account</a>
        </p>
        <Show when={props.state.config?.features.email && !mfa()}>
          <MailHelp state={props.state} email={email()} />
        </Show>
      </form>
    </main>
  );
}

/**
 * The captcha of one form, only when the instance turns captcha on (the
 * root object's features.captcha): its widget and the answer. An answer
 * is good for one request, so each request brings a new widget.
 */
function useCaptcha(state: AppState, onError: (message: string) => void) {
  const enabled = () => !!state.config?.features.captcha.enabled;
  const [token, setToken] = createSignal<string>();
  const [round, setRound] = createSignal(1);
  return {
    /** The answer to send; undefined when captcha is off; throws when it is on and unanswered. */
    take(): string | undefined {
      if (!enabled()) return undefined;
      const answer = token();
      if (!answer) throw new Error("Please answer the captcha first.");
      return answer;
    },
    /** After a request that used (or could have used) the answer. */
    renew() {
      if (!enabled()) return;
      setToken(undefined);
      setRound((r) => r + 1);
    },
    Widget: () => (
      <Show when={enabled() && round()} keyed>
        {(_round: number) => <Captcha siteKey={state.config!.features.captcha.key} onToken={setToken} onError={onError} />}
      </Show>
    ),
  };
}

/** Only on instances that send mail: a password reset link, or the verification mail again. */
function MailHelp(props: { state: AppState; email: string }) {
  const [said, setSaid] = createSignal("");
  // Both routes check a captcha answer when the instance turns captcha on.
  const captcha = useCaptcha(props.state, setSaid);
  const send = (route: "reset" | "reverify", done: string) => async () => {
    if (!props.email) {
      setSaid("Type your email address above first.");
      return;
    }
    try {
      const body: { email: string; captcha?: string } = { email: props.email };
      const solved = captcha.take();
      if (solved !== undefined) body.captcha = solved;
      try {
        await (route === "reverify" ? props.state.rest.resendVerification(body) : props.state.rest.sendPasswordReset(body));
      } finally {
        captcha.renew();
      }
      setSaid(done);
    } catch (err) {
      setSaid(errorText(err));
    }
  };
  return (
    <div class="row wrap">
      <captcha.Widget />
      <button type="button" onClick={send("reset", "If an account uses that address, a reset link is on its way.")}>
        Forgot your password?
      </button>
      <button type="button" onClick={send("reverify", "If that address waits for verification, a new link is on its way.")}>
        Resend verification mail
      </button>
      <Show when={said()}>
        <p class="muted" role="status">{said()}</p>
      </Show>
    </div>
  );
}

export function Register(props: { state: AppState; onSession: (s: SavedSession) => void }) {
  const [email, setEmail] = createSignal("");
  const [password, setPassword] = createSignal("");
  const [invite, setInvite] = createSignal("");
  const [error, setError] = createSignal("");
  const [sent, setSent] = createSignal(false);
  const [busy, setBusy] = createSignal(false);
  const features = () => props.state.config?.features;
  const captcha = useCaptcha(props.state, setError);

  const submit = async (e: Event) => {
    e.preventDefault();
    setError("");
    setBusy(true);
    try {
      const body: { email: string; password: string; invite?: string; captcha?: string } = { email: email(), password: password() };
      if (features()?.invite_only) body.invite = invite().trim();
      const solved = captcha.take();
      if (solved !== undefined) body.captcha = solved;
      try {
        await props.state.rest.createAccount(body);
      } finally {
        captcha.renew();
      }
      if (features()?.email) {
        setSent(true);
        return;
      }
      // Without mail the account is usable at once: log straight in.
      const answer: LoginAnswer = await props.state.rest.login({ email: email(), password: password(), friendly_name: friendlyName() });
      if (answer.result === "Success") props.onSession({ _id: answer._id, token: answer.token, user_id: answer.user_id });
      else navigate("/app/login");
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="auth">
      <Show
        when={!sent()}
        fallback={
          <div class="card" role="status">
            <h1>Check your mail</h1>
            <p>We sent a link to {email()}. Open it to finish creating your account.</p>
            <a href="/app/login" onClick={link("/app/login")}>Back to log in</a>
          </div>
        }
      >
        <form class="card" onSubmit={submit} aria-labelledby="register-title">
          <h1 id="register-title">Create an account</h1>
          <label>
            Email
            <input name="email" type="email" autocomplete="email" required value={email()} onInput={(e) => setEmail(e.currentTarget.value)} />
          </label>
          <label>
            Password
            <input name="password" type="password" autocomplete="new-password" minLength={8} required value={password()} onInput={(e) => setPassword(e.currentTarget.value)} />
          </label>
          <Show when={features()?.invite_only}>
            <label>
              Invite code (this instance is invite-only)
              <input name="invite" required value={invite()} onInput={(e) => setInvite(e.currentTarget.value)} />
            </label>
          </Show>
          <captcha.Widget />
          <Show when={error()}>
            <p class="error" role="alert">{error()}</p>
          </Show>
          <button type="submit" class="primary" disabled={busy()}>Create account</button>
          <p class="muted">
            Have an account? <a href="/app/login" onClick={link("/app/login")}>Log in</a>
          </p>
        </form>
      </Show>
    </main>
  );
}

export function Onboarding(props: { state: AppState; session: SavedSession; onDone: () => void }) {
  const [username, setUsername] = createSignal("");
  const [error, setError] = createSignal("");
  const submit = async (e: Event) => {
    e.preventDefault();
    setError("");
    try {
      await props.state.rest.as(props.session).onboardComplete(username().trim());
      props.onDone();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <main class="auth">
      <form class="card" onSubmit={submit} aria-labelledby="onboard-title">
        <h1 id="onboard-title">Choose a username</h1>
        <p class="muted">Others find you and mention you by it. You can change how your name is shown later.</p>
        <label>
          Username
          <input name="username" required minLength={2} maxLength={32} autocomplete="username" value={username()} onInput={(e) => setUsername(e.currentTarget.value)} />
        </label>
        <Show when={error()}>
          <p class="error" role="alert">{error()}</p>
        </Show>
        <button type="submit" class="primary">Continue</button>
      </form>
    </main>
  );
}

/** The link in a verification mail: verifies, then logs in when the server hands a ticket. */
export function Verify(props: { state: AppState; token: string }) {
  const [status, setStatus] = createSignal<"working" | "done" | "failed">("working");
  const [error, setError] = createSignal("");
  props.state.rest
    .verifyEmail(props.token)
    .then(() => setStatus("done"))
    .catch((err) => {
      setError(errorText(err));
      setStatus("failed");
    });
  return (
    <main class="auth">
      <div class="card" role="status">
        <Switch>
          <Match when={status() === "working"}>Verifying your address…</Match>
          <Match when={status() === "done"}>
            <h1>Address verified</h1>
            <a href="/app/login" onClick={link("/app/login")}>Log in</a>
          </Match>
          <Match when={status() === "failed"}>
            <h1>This link does not work</h1>
            <p class="error">{error()}</p>
          </Match>
        </Switch>
      </div>
    </main>
  );
}

export function ResetPassword(props: { state: AppState; token: string }) {
  const [password, setPassword] = createSignal("");
  const [error, setError] = createSignal("");
  const [done, setDone] = createSignal(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      await props.state.rest.resetPassword({ token: props.token, password: password() });
      setDone(true);
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <main class="auth">
      <Show
        when={!done()}
        fallback={
          <div class="card">
            <h1>Password changed</h1>
            <a href="/app/login" onClick={link("/app/login")}>Log in</a>
          </div>
        }
      >
        <form class="card" onSubmit={submit}>
          <h1>Choose a new password</h1>
          <label>
            New password
            <input type="password" autocomplete="new-password" minLength={8} required value={password()} onInput={(e) => setPassword(e.currentTarget.value)} />
          </label>
          <Show when={error()}>
            <p class="error" role="alert">{error()}</p>
          </Show>
          <button type="submit" class="primary">Change password</button>
        </form>
      </Show>
    </main>
  );
}

/** The link in an account deletion mail: confirms, after asking. */
export function ConfirmDelete(props: { state: AppState; token: string }) {
  const [status, setStatus] = createSignal<"ask" | "done" | "failed">("ask");
  const [error, setError] = createSignal("");
  const confirmIt = async () => {
    try {
      await props.state.rest.confirmDeletion(props.token);
      setStatus("done");
      props.state.forget();
    } catch (err) {
      setError(errorText(err));
      setStatus("failed");
    }
  };
  return (
    <main class="auth">
      <div class="card" role="status">
        <Switch>
          <Match when={status() === "ask"}>
            <h1>Delete your account?</h1>
            <p>Your account will be scheduled for deletion. This cannot be undone once it is carried out.</p>
            <button class="danger" onClick={confirmIt}>
              Delete my account
            </button>
          </Match>
          <Match when={status() === "done"}>
            <h1>Your account is scheduled for deletion</h1>
          </Match>
          <Match when={status() === "failed"}>
            <h1>This link does not work</h1>
            <p class="error">{error()}</p>
          </Match>
        </Switch>
      </div>
    </main>
  );
}

function friendlyName() {
  const ua = navigator.userAgent;
  const browser = /Firefox/.test(ua) ? "Firefox" : /Edg\//.test(ua) ? "Edge" : /Chrom/.test(ua) ? "Chromium" : /Safari/.test(ua) ? "Safari" : "browser";
  return `Ermine web (${browser})`;
}


