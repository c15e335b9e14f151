// The voice join button in Chromium against a real LiveKit server:
// web_test.go starts livekit-server and an Ermine that advertises it
// (ERMINE_URL, LIVEKIT_URL). Alice opens a voice channel, presses "Join
// voice"; the client asks Ermine for a token, connects to LiveKit with
// LiveKit's JS client and publishes Chromium's fake microphone. Bob, a
// member of the server, watches his events socket: LiveKit tells Ermine
// (webhooks) and Ermine tells Bob, VoiceChannelJoin, UserVoiceStateUpdate
// (publishing) then, after "Leave voice", VoiceChannelLeave. Screenshots of a failure go to SCREENSHOTS.

import { apiAt, click, control, fill, launch, reportFailure, seen } from "./lib.mjs";

const BASE = process.env.ERMINE_URL;
const LIVEKIT = process.env.LIVEKIT_URL;
if (!BASE || !LIVEKIT) throw new Error("ERMINE_URL and LIVEKIT_URL must be set");
const SHOTS = process.env.SCREENSHOTS || "screenshots";
const run = Date.now().toString(36).slice(-5);
const started = Date.now();
const step = (name) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${name}`);

const api = apiAt(BASE);

/** Registers, logs in and onboards a person; returns the login answer (the client's saved session). */
async function person(name) {
  const email = `${name}@ermine.test`;
  await api("POST", "/auth/account/create", { email, password: "a long enough password 1" });
  const session = await api("POST", "/auth/session/login", { email, password: "a long enough password 1", friendly_name: "voice e2e" });
  if (session.result !== "Success") throw new Error(`login of ${name}: ${JSON.stringify(session)}`);
  await api("POST", "/onboard/complete", { username: name }, session.token);
  return session;
}

// A microphone without a device or a prompt: a generated tone.
const browser = await launch(["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream"]);
const pages = [];
const pageErrors = [];
let failed = false;
try {
  step("alice and bob register; alice makes a server with a voice channel and bob joins it");
  const alice = await person(`alice_${run}`);
  const bob = await person(`bob_${run}`);
  const { server } = await api("POST", "/servers/create", { name: "Voice E2E" }, alice.token);
  const channel = await api("POST", `/servers/${server._id}/channels`, { type: "Voice", name: "Lounge" }, alice.token);
  const invite = await api("POST", `/channels/${server.channels[0]}/invites`, undefined, alice.token);
  await api("POST", `/invites/${invite._id}`, undefined, bob.token);
  const root = await api("GET", "/");
  if (!root.features.livekit?.enabled) throw new Error(`features.livekit is ${JSON.stringify(root.features.livekit)}`);

  step("bob watches his events socket");
  const watcher = await (await browser.newContext()).newPage();
  pages.push({ name: "bob", page: watcher });
  await watcher.goto(`${BASE}/healthz`);
  await watcher.evaluate(
    ([ws, token]) =>
      new Promise((resolve, reject) => {
        window.frames_ = [];
        const s = new WebSocket(`${ws}?version=1&format=json&token=${token}`);
        s.onmessage = (e) => window.frames_.push(JSON.parse(e.data));
        s.onerror = () => reject(new Error("events socket failed"));
        s.onopen = () => resolve();
        window.socket_ = s;
      }),
    [root.ws, bob.token],
  );
  const waitFrame = (match, what) =>
    watcher.waitForFunction(
      ([m]) => window.frames_.some((f) => Object.entries(m).every(([k, v]) => (k === "user" ? f.user === v || f.state?.id === v : f[k] === v))),
      [match],
      { timeout: 30_000 },
    ).catch(async () => {
      throw new Error(`${what} never came; bob's frames: ${JSON.stringify(await watcher.evaluate(() => window.frames_.map((f) => f.type)))}`);
    });
  await waitFrame({ type: "Ready" }, "Ready");

  step("alice opens the voice channel and presses Join voice");
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, permissions: ["microphone"] });
  // The client keeps its session here; starting with one is logging in.
  await context.addInitScript((s) => localStorage.setItem("ermine:session", JSON.stringify(s)), { _id: alice._id, token: alice.token, user_id: alice.user_id });
  // Nothing loads from outside the instance and its voice server.
  const wsBase = BASE.replace("http", "ws");
  const lkWs = LIVEKIT.replace("http", "ws");
  await context.route(
    (url) => ![BASE, wsBase, LIVEKIT, lkWs].some((p) => url.href.startsWith(p)) && !url.protocol.startsWith("data") && !url.protocol.startsWith("blob"),
    (route) => {
      pageErrors.push(`request outside the instance: ${route.request().url()}`);
      return route.abort();
    },
  );
  const a = await context.newPage();
  a.setDefaultTimeout(30_000);
  a.on("pageerror", (err) => pageErrors.push(`alice: ${err.message}`));
  a.on("console", (msg) => msg.type() === "error" && console.log(`  [alice console] ${msg.text()}`));
  pages.push({ name: "alice", page: a });
  await a.goto(`${BASE}/app/server/${server._id}/channel/${channel._id}`);
  await click(a, "button", "Join voice");
  await a.getByRole("button", { name: "Leave voice" }).waitFor();

  step("bob sees alice join the call (LiveKit's webhook, then Ermine's event)");
  await waitFrame({ type: "VoiceChannelJoin", id: channel._id, user: alice.user_id }, "VoiceChannelJoin");
  const joined = await watcher.evaluate(
    ([id]) => window.frames_.find((f) => f.type === "VoiceChannelJoin" && f.id === id),
    [channel._id],
  );
  console.log(`  VoiceChannelJoin: ${JSON.stringify(joined)}`);

  step("alice's fake microphone is published: bob sees her voice state change");
  await watcher
    .waitForFunction(
      ([user, ch]) => window.frames_.some((f) => f.type === "UserVoiceStateUpdate" && f.id === user && f.channel_id === ch && f.data?.is_publishing === true),
      [alice.user_id, channel._id],
      { timeout: 30_000 },
    )
    .catch(async () => {
      throw new Error(`no UserVoiceStateUpdate with is_publishing; bob's frames: ${JSON.stringify(await watcher.evaluate(() => window.frames_.filter((f) => f.type !== "Ready")))}`);
    });

  step("the participants list shows alice in the call, unmuted, beside the channel and in its view");
  for (const list of await a.getByRole("list", { name: "In the call in Lounge" }).all()) {
    await seen(control(list, "button", `alice_${run}`, { exact: true }), "alice in the call's participants");
  }
  if ((await a.getByRole("list", { name: "In the call in Lounge" }).count()) !== 2) throw new Error("the participants are not listed in both the sidebar and the channel");

  step("alice presses Leave voice; bob sees her leave");
  await click(a, "button", "Leave voice");
  await a.getByRole("button", { name: "Join voice" }).waitFor();
  await waitFrame({ type: "VoiceChannelLeave", id: channel._id, user: alice.user_id }, "VoiceChannelLeave");
  await a.getByText("Nobody is in the call.").waitFor();
  if (await a.getByRole("list", { name: "In the call in Lounge" }).count()) throw new Error("alice is still listed in the call after leaving");

  if (pageErrors.length) throw new Error(`page errors:\n${pageErrors.join("\n")}`);
  step("voice: join through LiveKit, VoiceChannelJoin, microphone published, leave, VoiceChannelLeave — passed");
} catch (err) {
  failed = true;
  await reportFailure(err, pages, pageErrors, SHOTS, "voice-");
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
