// Web Push end to end (web_test.go TestPush talks to it on stdin and
// stdout). Alice opens the client, turns notifications on from its
// button (the client registers its service worker and asks to
// subscribe); the loopback push subscription is handed to Ermine for
// her browser's session (Chromium's own push service is not reachable
// here); her tab is closed, so she is offline; Bob sends her a direct
// message; Ermine pushes it to the loopback service, which decrypts it;
// the payload is delivered to the service worker (DevTools protocol
// ServiceWorker.deliverPushMessage), which must show the notification.

import { apiAt, click, control, launch, reportFailure } from "./lib.mjs";
import readline from "node:readline";

const BASE = process.env.ERMINE_URL;
if (!BASE) throw new Error("ERMINE_URL is not set");
const SHOTS = process.env.SCREENSHOTS || "screenshots";
const run = Date.now().toString(36).slice(-5);
const started = Date.now();
const step = (name) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${name}`);
const api = apiAt(BASE);

const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
/** Asks the Go test a question (one line) and returns its one-line answer. */
async function ask(question) {
  console.log(question);
  const { value } = await lines.next();
  return value;
}

async function person(name) {
  const email = `${name}@ermine.test`;
  await api("POST", "/auth/account/create", { email, password: "a long enough password 1" });
  const session = await api("POST", "/auth/session/login", { email, password: "a long enough password 1", friendly_name: "push e2e" });
  const user = await api("POST", "/onboard/complete", { username: name }, session.token);
  return { session, user };
}

const browser = await launch();
const pages = [];
const pageErrors = [];
let failed = false;
try {
  step("alice and bob register and become friends");
  const alice = await person(`alice_${run}`);
  const bob = await person(`bob_${run}`);
  await api("POST", "/users/friend", { username: `${alice.user.username}#${alice.user.discriminator}` }, bob.session.token);
  await api("PUT", `/users/${bob.user._id}/friend`, undefined, alice.session.token);

  step("alice opens the client and turns notifications on");
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  page.on("pageerror", (err) => pageErrors.push(err.message));
  pages.push({ name: "push-alice", page });
  await page.goto(`${BASE}/app/`);
  await page.evaluate((s) => localStorage.setItem("ermine:session", JSON.stringify(s)), { _id: alice.session._id, token: alice.session.token, user_id: alice.session.user_id });
  await page.goto(`${BASE}/app/friends`);
  await context.grantPermissions(["notifications"], { origin: BASE });
  await click(control(page, "region", "Notifications"), "button", "Turn on notifications");
  const scope = await page.evaluate(async () => {
    const reg = await navigator.serviceWorker.ready;
    return reg.scope;
  });
  if (!scope.endsWith("/app/")) throw new Error(`service worker scope ${scope}`);
  const manifest = await page.evaluate(async () => (await fetch(document.querySelector('link[rel="manifest"]').href)).json());
  if (manifest.start_url !== "/app/" || !manifest.icons.some((i) => i.sizes === "512x512")) throw new Error(`manifest ${JSON.stringify(manifest)}`);

  step("the loopback subscription stands for the browser's; alice closes her tab");
  const sub = JSON.parse(await ask("PUSH-SUBSCRIPTION?"));
  await api("POST", "/push/subscribe", sub, alice.session.token);
  const cdp = await context.newCDPSession(page);
  const registrations = [];
  cdp.on("ServiceWorker.workerRegistrationUpdated", (e) => registrations.push(...e.registrations));
  await cdp.send("ServiceWorker.enable");
  await new Promise((r) => setTimeout(r, 300));
  const registration = registrations.find((r) => r.scopeURL.endsWith("/app/") && !r.isDeleted);
  if (!registration) throw new Error(`no service worker registration: ${JSON.stringify(registrations)}`);
  const watcher = await context.newPage(); // same origin, without the app: alice stays offline
  pages.push({ name: "push-watcher", page: watcher });
  await watcher.goto(`${BASE}/healthz`);
  const watcherCdp = await context.newCDPSession(watcher);
  // The worker's versions as DevTools reports them, for waiting on its
  // state and for the failure report.
  const versions = new Map();
  const workerLog = [];
  const since = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
  watcherCdp.on("ServiceWorker.workerVersionUpdated", (e) => {
    for (const v of e.versions) {
      if (v.registrationId !== registration.registrationId) continue;
      versions.set(v.versionId, v);
      workerLog.push(`${since()} version ${v.versionId}: ${v.status}, ${v.runningStatus}`);
    }
  });
  watcherCdp.on("ServiceWorker.workerErrorReported", (e) => workerLog.push(`${since()} error: ${e.errorMessage.errorMessage}`));
  await watcherCdp.send("ServiceWorker.enable");
  await page.close();
  // Ermine sees her offline once her events connection has closed.
  for (let i = 0; i < 50; i++) {
    const u = await api("GET", `/users/${alice.user._id}`, undefined, bob.session.token);
    if (!u.online) break;
    await new Promise((r) => setTimeout(r, 200));
  }

  step("bob sends a direct message; Ermine pushes it");
  const dm = await api("GET", `/users/${alice.user._id}/dm`, undefined, bob.session.token);
  await api("POST", `/channels/${dm._id}/messages`, { content: "are you there? **push** test" }, bob.session.token);
  const payload = await ask("PUSH?");
  const n = JSON.parse(payload);
  if (n.type !== "Message" || !n.body.includes("are you there")) throw new Error(`push payload ${payload}`);

  step("the service worker shows it");
  // DevTools' delivery reports nothing back. Twice in CI, with the
  // race-detector suites beside Chromium, no notification came (once not
  // within 10 s, once not within 30 s), and neither this machine nor a
  // loaded one reproduced it. So the delivery waits until the activated
  // worker is running or stopped (not between the two), is made again
  // when no notification has come within 10 s (the tag makes a second one
  // replace the first; the log says so), and a failure tells the worker's
  // states and the page's permission.
  const settled = () => [...versions.values()].some((v) => v.status === "activated" && (v.runningStatus === "running" || v.runningStatus === "stopped"));
  for (let i = 0; i < 100 && !settled(); i++) await new Promise((r) => setTimeout(r, 100));
  let shown = [];
  let mine;
  for (let attempt = 1; attempt <= 3 && !mine; attempt++) {
    if (attempt > 1) step(`no notification 10 s after delivery ${attempt - 1}; the worker: ${workerLog.join("; ")}; delivering again`);
    await watcherCdp.send("ServiceWorker.deliverPushMessage", { origin: new URL(BASE).origin, registrationId: registration.registrationId, data: payload });
    for (let i = 0; i < 50 && !mine; i++) {
      shown = await watcher.evaluate(async () => {
        const reg = await navigator.serviceWorker.getRegistration("/app/");
        return (await reg.getNotifications()).map((x) => ({ title: x.title, body: x.body, url: x.data?.url }));
      });
      mine = shown.find((x) => x.title === bob.user.username && x.body.includes("are you there"));
      if (!mine) await new Promise((r) => setTimeout(r, 200));
    }
  }
  if (!mine) {
    const permission = await watcher.evaluate(() => Notification.permission);
    throw new Error(`notifications shown by the service worker: ${JSON.stringify(shown)}; permission ${permission}; the worker: ${workerLog.join("; ")}`);
  }
  if (!mine.url.startsWith(`${BASE}/app/`)) throw new Error(`notification opens ${mine.url}`);
  step(`"${mine.title}: ${mine.body}" shown by the service worker — passed`);
} catch (err) {
  failed = true;
  await reportFailure(err, pages.filter((p) => !p.page.isClosed()), pageErrors, SHOTS, "push-");
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
