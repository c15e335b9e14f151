// Account security: email, password and username changes, two-factor
// authentication (QR code and text secret, recovery codes), disabling
// and deleting the account. Actions the server guards with an MFA ticket
// first ask the person to confirm who they are (password, or a code when
// two-factor is on), then run with the ticket.

import { createResource, createSignal, For, Show } from "solid-js";
import { Portal } from "solid-js/web";
import { encode } from "uqr";
import type { AppState } from "../app/state";
import type { MFAResponse } from "../lib/api";
import { guard } from "../lib/errors";

export interface Pending {
  label: string;
  run: (ticket: string) => Promise<unknown>;
}

export function Security(props: { state: AppState; onLogout: () => void }) {
  const rest = () => props.state.rest;
  const [account] = createResource(() => rest().account());
  const [mfa, { refetch: refetchMfa }] = createResource(() => rest().mfaStatus());
  const [pending, setPending] = createSignal<Pending>();
  const [secret, setSecret] = createSignal<string>();
  const [codes, setCodes] = createSignal<string[]>();

  /** Runs an action that needs a ticket, after the person confirms who they are. */
  const withTicket = (label: string, run: (ticket: string) => Promise<unknown>) => setPending({ label, run });

  return (
    <div class="card wide security">
      <Show when={pending()}>{(p) => <Confirm state={props.state} pending={p()} totp={!!mfa()?.totp_mfa} onDone={() => setPending(undefined)} />}</Show>

      <h2>Email</h2>
      <p class="muted">Your address: {account()?.email ?? "…"}</p>
      <ChangeEmail state={props.state} totp={!!mfa()?.totp_mfa} withTicket={withTicket} />

      <h2>Password</h2>
      <ChangePassword state={props.state} />

      <h2>Username</h2>
      <ChangeUsername state={props.state} />

      <h2>Two-factor authentication</h2>
      <Show when={mfa()}>
        {(m) => (
          <Show
            when={m().totp_mfa}
            fallback={
              <Show
                when={secret()}
                fallback={
                  <>
                    <p class="muted">Two-factor authentication is off. With it on, logging in also asks for a code from an authenticator app.</p>
                    <button onClick={() => withTicket("set up two-factor authentication", async (t) => setSecret((await rest().totpSecret(t)).secret))}>Set up two-factor authentication</button>
                  </>
                }
              >
                {(s) => (
                  <TotpSetup
                    state={props.state}
                    secret={s()}
                    account={account()?.email ?? props.state.client?.user?.username ?? "account"}
                    onEnabled={async () => {
                      setSecret(undefined);
                      await refetchMfa();
                      withTicket("create your recovery codes", async (t) => setCodes(await rest().newRecoveryCodes(t)));
                    }}
                  />
                )}
              </Show>
            }
          >
            <p>Two-factor authentication is on.</p>
            <div class="row wrap">
              <button onClick={() => withTicket("see your recovery codes", async (t) => setCodes(await rest().recoveryCodes(t)))}>Show recovery codes</button>
              <button onClick={() => withTicket("make new recovery codes", async (t) => setCodes(await rest().newRecoveryCodes(t)))}>Regenerate recovery codes</button>
              <button class="danger" onClick={() => withTicket("turn two-factor authentication off", async (t) => (await rest().disableTotp(t), setCodes(undefined), refetchMfa()))}>
                Turn off two-factor authentication
              </button>
            </div>
          </Show>
        )}
      </Show>
      <Show when={codes()}>
        {(list) => (
          <div class="recovery" role="region" aria-label="Recovery codes">
            <p>Keep these recovery codes somewhere safe: each one logs you in once if you lose your authenticator.</p>
            <ul class="codes">
              <For each={list()}>{(c) => <li><code>{c}</code></li>}</For>
            </ul>
            <button onClick={() => setCodes(undefined)}>Hide recovery codes</button>
          </div>
        )}
      </Show>

      <h2>Disable or delete the account</h2>
      <p class="muted">Disabling logs you out everywhere and keeps your data; an administrator can enable it again. Deleting removes it for good after a confirmation.</p>
      <div class="row wrap">
        <button class="danger" onClick={() => withTicket("disable your account", async (t) => (await rest().disableAccount(t), props.state.forget(), props.onLogout()))}>
          Disable account
        </button>
        <button
          class="danger"
          onClick={() =>
            withTicket("delete your account", async (t) => {
              await rest().deleteAccount(t);
              props.state.notify(props.state.config?.features.email ? "Check your mail to confirm the deletion." : "Your account is scheduled for deletion.");
            })
          }
        >
          Delete account
        </button>
      </div>
    </div>
  );
}

/** The MFA ticket form: the password, or an authenticator or recovery code when two-factor is on. */
export function Confirm(props: { state: AppState; pending: Pending; totp: boolean; onDone: () => void }) {
  const [value, setValue] = createSignal("");
  const submit = guard(props.state, async () => {
    const v = value().trim();
    const response: MFAResponse = !props.totp ? { password: value() } : /^\d{6}$/.test(v) ? { totp_code: v } : { recovery_code: v };
    const ticket = await props.state.rest.mfaTicket(response);
    await props.pending.run(ticket.token);
    props.onDone();
  });
  // In the document's body: a settings page scrolls, and a dialog inside
  // it would be clipped where the page is short.
  return (
    <Portal>
    <div class="backdrop">
      <form class="dialog" role="dialog" aria-modal="true" aria-labelledby="confirm-title" onSubmit={submit} onKeyDown={(e) => e.key === "Escape" && props.onDone()}>
        <h2 id="confirm-title">Confirm it is you</h2>
        <p class="muted">To {props.pending.label}, {props.totp ? "enter a code from your authenticator app or a recovery code" : "enter your password"}.</p>
        <label>
          {props.totp ? "Code" : "Current password"}
          <input type={props.totp ? "text" : "password"} autocomplete={props.totp ? "one-time-code" : "current-password"} required autofocus value={value()} onInput={(e) => setValue(e.currentTarget.value)} />
        </label>
        <div class="row">
          <span class="spacer" />
          <button type="button" onClick={() => props.onDone()}>Cancel</button>
          <button type="submit" class="primary">Confirm</button>
        </div>
      </form>
    </div>
    </Portal>
  );
}

/** The secret as a QR code and as text, and the first code that turns two-factor on. */
function TotpSetup(props: { state: AppState; secret: string; account: string; onEnabled: () => void }) {
  const [code, setCode] = createSignal("");
  const uri = () => `otpauth://totp/${encodeURIComponent(`Ermine:${props.account}`)}?secret=${props.secret}&issuer=Ermine`;
  const qr = () => encode(uri(), { ecc: "M", border: 2 });
  const enable = guard(
    props.state,
    async () => {
      await props.state.rest.enableTotp(code().trim());
      props.onEnabled();
    },
    "Two-factor authentication is on",
  );
  return (
    <form class="totp" onSubmit={enable} aria-label="Set up two-factor authentication">
      <p>Scan this code with an authenticator app, or type the secret into it.</p>
      <svg class="qr" role="img" aria-label="QR code of the two-factor secret" viewBox={`0 0 ${qr().size} ${qr().size}`} shape-rendering="crispEdges">
        <rect width={qr().size} height={qr().size} fill="#fff" />
        <For each={qr().data}>{(row, y) => <For each={row}>{(on, x) => (on ? <rect x={x()} y={y()} width="1" height="1" fill="#000" /> : null)}</For>}</For>
      </svg>
      <p>
        Secret: <code class="secret" aria-label="Two-factor secret">{props.secret}</code>
      </p>
      <label>
        Code from the app
        <input inputMode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" required value={code()} onInput={(e) => setCode(e.currentTarget.value)} />
      </label>
      <button type="submit" class="primary">Turn on two-factor authentication</button>
    </form>
  );
}

function ChangeEmail(props: { state: AppState; totp: boolean; withTicket: (label: string, run: (ticket: string) => Promise<unknown>) => void }) {
  const [email, setEmail] = createSignal("");
  const [password, setPassword] = createSignal("");
  const done = () => (props.state.config?.features.email ? "Check your new address for a confirmation link" : "Email changed");
  const change = async (ticket?: string) => {
    await props.state.rest.changeEmail(email().trim(), password(), ticket);
    setEmail("");
    setPassword("");
    props.state.notify(done());
  };
  // With two-factor on the server also asks for a code (an MFA ticket).
  const save = guard(props.state, () => (props.totp ? props.withTicket("change your email", change) : change()));
  return (
    <form class="inline-form" onSubmit={save} aria-label="Change email">
      <label>
        New email
        <input type="email" required value={email()} onInput={(e) => setEmail(e.currentTarget.value)} />
      </label>
      <label>
        Password for the email change
        <input type="password" autocomplete="current-password" required value={password()} onInput={(e) => setPassword(e.currentTarget.value)} />
      </label>
      <button type="submit">Change email</button>
    </form>
  );
}

function ChangePassword(props: { state: AppState }) {
  const [current, setCurrent] = createSignal("");
  const [next, setNext] = createSignal("");
  const save = guard(
    props.state,
    async () => {
      await props.state.rest.changePassword(next(), current());
      setCurrent("");
      setNext("");
    },
    "Password changed",
  );
  return (
    <form class="inline-form" onSubmit={save} aria-label="Change password">
      <label>
        Current password
        <input type="password" autocomplete="current-password" required value={current()} onInput={(e) => setCurrent(e.currentTarget.value)} />
      </label>
      <label>
        New password
        <input type="password" autocomplete="new-password" minLength={8} required value={next()} onInput={(e) => setNext(e.currentTarget.value)} />
      </label>
      <button type="submit">Change password</button>
    </form>
  );
}

function ChangeUsername(props: { state: AppState }) {
  const me = () => props.state.client!.user!;
  const [name, setName] = createSignal("");
  const [password, setPassword] = createSignal("");
  const save = guard(
    props.state,
    async () => {
      await props.state.rest.changeUsername(name().trim(), password());
      setName("");
      setPassword("");
    },
    "Username changed",
  );
  return (
    <form class="inline-form" onSubmit={save} aria-label="Change username">
      <label>
        New username (now {me().username}#{me().discriminator})
        <input required maxLength={32} value={name()} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Password for the username change
        <input type="password" autocomplete="current-password" required value={password()} onInput={(e) => setPassword(e.currentTarget.value)} />
      </label>
      <button type="submit">Change username</button>
    </form>
  );
}
