// End-to-end test of the client's community pages in headless Chromium,
// driven as a person would (visible controls by role and name): channel
// order by dragging and slowmode, webhooks, the audit log with its
// filters, profile cards (mutual servers and friends, message, add
// friend, block), presence and custom status, tables and timestamps in
// messages, adding to a group, upload progress, email change, two-factor
// turned off, account deletion, and the new pages at phone width.
// web_test.go starts Ermine without rate limits (ERMINE_URL); the people
// and their server are set up through the API, as other clients would.

import { apiAt, click, control, fill, launch, reportFailure, png, seen, select, totp, upload } from "./lib.mjs";
import { randomBytes } from "node:crypto";

const BASE = process.env.ERMINE_URL;
if (!BASE) throw new Error("ERMINE_URL is not set");
const SHOTS = process.env.SCREENSHOTS || "screenshots";
const started = Date.now();
const run = Date.now().toString(36).slice(-5);
const password = "a long enough password 1";
const api = apiAt(BASE);
const step = (name) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${name}`);

/** An account, logged in and onboarded, through the API. */
async function person(name) {
  const email = `${name}_${run}@ermine.test`;
  await api("POST", "/auth/account/create", { email, password });
  const s = await api("POST", "/auth/session/login", { email, password });
  const u = await api("POST", "/onboard/complete", { username: `${name}_${run}` }, s.token);
  return { session: { _id: s._id, token: s.token, user_id: s.user_id }, token: s.token, id: s.user_id, email, name: u.username, tag: `${u.username}#${u.discriminator}` };
}

async function befriend(a, b) {
  await api("POST", "/users/friend", { username: b.tag }, a.token);
  await api("PUT", `/users/${a.id}/friend`, undefined, b.token);
}

/** Waits until check(value of get()) holds, polling the API. */
async function until(what, get, ok, ms = 15_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

step("four people, a server with channels in categories, friendships and a group, through the API");
const [alice, bob, carol, dave] = [await person("alice"), await person("bob"), await person("carol"), await person("dave")];
const created = await api("POST", "/servers/create", { name: "Community" }, alice.token);
const serverId = created.server._id;
const general = created.channels[0]._id;
const rules = (await api("POST", `/servers/${serverId}/channels`, { name: "rules", type: "Text" }, alice.token))._id;
const chat = (await api("POST", `/servers/${serverId}/channels`, { name: "chat", type: "Text" }, alice.token))._id;
await api("PATCH", `/servers/${serverId}`, { categories: [{ id: "TALK0001", title: "Talk", channels: [general, rules, chat] }, { id: "MORE0001", title: "More", channels: [] }] }, alice.token);
const invite = await api("POST", `/channels/${general}/invites`, undefined, alice.token);
for (const p of [bob, carol, dave]) await api("POST", `/invites/${invite._id}`, undefined, p.token);
await befriend(alice, bob);
await befriend(alice, carol);
await befriend(bob, carol);
const group = await api("POST", "/channels/create", { name: "Trio", users: [bob.id] }, alice.token);
await api("POST", `/channels/${general}/messages`, { content: "hello from bob" }, bob.token);

const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const pageErrors = [];
// Nothing may load from outside the instance.
await context.route(
  (url) => !url.href.startsWith(BASE) && !url.href.startsWith(BASE.replace("http", "ws")) && !url.protocol.startsWith("data") && !url.protocol.startsWith("blob"),
  (route) => {
    pageErrors.push(`request outside the instance: ${route.request().url()}`);
    return route.abort();
  },
);
await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: BASE });
const a = await context.newPage();
a.setDefaultTimeout(20_000);
a.on("pageerror", (err) => pageErrors.push(err.message));
a.on("console", (msg) => msg.type() === "error" && console.log(`  [console] ${msg.text()}`));

/**
 * Logs the page in as p (the session the API gave) and opens path. The
 * client saves the session it starts with when it starts, so the new one
 * is set once the page's client has started (or found none), then the
 * page is loaded again.
 */
async function as(p, to) {
  await a.goto(BASE + to);
  await a.waitForFunction(() => window.state && (window.state.client || !localStorage.getItem("ermine:session")));
  await a.evaluate((s) => localStorage.setItem("ermine:session", JSON.stringify(s)), p.session);
  await a.reload();
  await a.waitForFunction((id) => window.state?.client?.user?.id === id, p.id);
}
const categories = () => a.evaluate((sid) => window.state.client.servers.get(sid).categories.map((c) => `${c.title}:${c.channels.join(",")}`).join(" "), serverId);
const waitOrder = (want) =>
  a.waitForFunction(
    ([sid, w]) => window.state.client.servers.get(sid).categories.map((c) => `${c.title}:${c.channels.join(",")}`).join(" ") === w,
    [serverId, want],
  );

let failed = false;
try {
  step("channel order: drag a channel up, move it with its button, drag one into another category, move a category");
  await as(alice, `/app/server/${serverId}/settings/channels`);
  const order = control(a, "region", "Channel order");
  await seen(control(order, "listitem", "#chat"), "the #chat row");
  await control(order, "listitem", "#chat").dragTo(await seen(control(order, "listitem", "#general"), "the #general row"));
  await waitOrder(`Talk:${chat},${general},${rules} More:`);
  await click(order, "button", "Move #chat down");
  await waitOrder(`Talk:${general},${chat},${rules} More:`);
  await control(order, "listitem", "#rules").dragTo(await seen(control(order, "listitem", "Category More"), "the More category"));
  await waitOrder(`Talk:${general},${chat} More:${rules}`);
  await click(order, "button", "Move category More up");
  await waitOrder(`More:${rules} Talk:${general},${chat}`);
  const sidebar = await a.locator(".sidebar .category").evaluateAll((els) => els.map((e) => e.getAttribute("aria-label")).join(","));
  if (!(sidebar.indexOf("More") >= 0 && sidebar.indexOf("More") < sidebar.indexOf("Talk"))) throw new Error(`sidebar categories: ${sidebar} (${await categories()})`);

  step("slowmode: set on #chat, a member sending twice is held back");
  await select(a, "Channel", { label: "#chat" }, { exact: true });
  await select(a, "Slowmode", "30");
  await until("the channel's slowmode", () => api("GET", `/channels/${chat}`, undefined, bob.token), (c) => c.slowmode === 30);
  await api("POST", `/channels/${chat}/messages`, { content: "first" }, bob.token);
  const second = await fetch(`${BASE}/channels/${chat}/messages`, { method: "POST", headers: { "content-type": "application/json", "x-session-token": bob.token }, body: JSON.stringify({ content: "second" }) });
  if (second.status !== 429 || !(await second.text()).includes("InSlowmode")) throw new Error(`a second message in slowmode answered ${second.status}`);
  await select(a, "Slowmode", "0");
  await until("slowmode off", () => api("GET", `/channels/${chat}`, undefined, bob.token), (c) => !c.slowmode);

  step("webhooks: create one, copy its URL, post through it, rename it, give it an avatar, delete it");
  await click(a, "link", "Webhooks", { exact: true });
  await select(a, "Webhook channel", { label: "#General" });
  await fill(a, "New webhook name", "CI Bot");
  await click(a, "button", "Create webhook");
  const hooks = control(a, "list", "Webhooks");
  const ci = control(hooks, "listitem", "Webhook CI Bot");
  const url = await (await seen(control(ci, "textbox", "URL of CI Bot"), "the webhook URL")).inputValue();
  if (!url.startsWith(`${BASE}/webhooks/`)) throw new Error(`webhook URL ${url}`);
  await click(ci, "button", "Copy URL");
  await a.getByText("Webhook URL copied").waitFor();
  if ((await a.evaluate(() => navigator.clipboard.readText())) !== url) throw new Error("the copied text is not the webhook URL");
  const posted = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ content: "deployed from CI" }) });
  if (!posted.ok) throw new Error(`posting through the webhook: ${posted.status} ${await posted.text()}`);
  await fill(ci, "Name of CI Bot", "Deploy Bot");
  await click(ci, "button", "Rename");
  const deploy = control(hooks, "listitem", "Webhook Deploy Bot");
  await seen(deploy, "the renamed webhook");
  await upload(a, deploy, "Change avatar of Deploy Bot", { name: "bot.png", mimeType: "image/png", buffer: png(64, 64) });
  await seen(control(deploy, "img", "Avatar of Deploy Bot"), "the webhook's avatar");
  a.once("dialog", (d) => d.accept());
  await click(deploy, "button", "Delete");
  await a.getByText("No webhooks in this channel.").waitFor();

  step("audit log: the actions are listed; filtered by action and by who did them");
  await click(a, "link", "Audit log", { exact: true });
  const log = control(a, "list", "Audit log");
  await log.getByText(`${alice.name} created the webhook CI Bot`).waitFor();
  await log.getByText(`${alice.name} edited #chat`).first().waitFor();
  await select(a, "Action", "WebhookDelete");
  await log.getByText(`${alice.name} deleted the webhook Deploy Bot`).waitFor();
  await log.getByText("created the webhook").waitFor({ state: "detached" });
  if ((await log.getByRole("listitem").count()) !== 1) throw new Error(`entries for WebhookDelete: ${await log.innerText()}`);
  await select(a, "Action", "");
  await select(a, "Done by", { label: bob.name });
  await a.getByText("Nothing recorded.").waitFor();
  await select(a, "Done by", { label: alice.name });
  await log.getByText(`${alice.name} created the webhook CI Bot`).waitFor();

  step("profile card from a message: mutual server and friend; Message opens the conversation");
  await a.goto(`${BASE}/app/server/${serverId}/channel/${general}`);
  await a.locator(".message", { hasText: "deployed from CI" }).waitFor();
  await click(a.locator(".message", { hasText: "hello from bob" }), "button", `Profile of ${bob.name}`);
  const bobCard = control(a, "dialog", `Profile of ${bob.name}`);
  await seen(control(bobCard, "region", "Mutual servers").getByRole("link", { name: "Community" }), "the mutual server");
  await seen(control(bobCard, "region", "Mutual friends").getByRole("button", { name: carol.name }), "the mutual friend");
  await click(bobCard, "button", "Message");
  await a.getByRole("heading", { name: `@${bob.name}` }).waitFor();

  step("profile card from the member list: add a friend, block, unblock");
  await a.goto(`${BASE}/app/server/${serverId}/channel/${general}`);
  await click(control(a, "complementary", "Members"), "button", `Profile of ${dave.name}`);
  const daveCard = control(a, "dialog", `Profile of ${dave.name}`);
  await click(daveCard, "button", "Add friend");
  await daveCard.getByText("Friend request sent").waitFor();
  await until("dave's incoming request", () => api("GET", `/users/${alice.id}`, undefined, dave.token), (u) => u.relationship === "Incoming");
  a.once("dialog", (d) => d.accept());
  await click(daveCard, "button", "Block");
  await click(daveCard, "button", "Unblock");
  await control(daveCard, "button", "Add friend").waitFor();
  await until("dave unblocked", () => api("GET", `/users/${alice.id}`, undefined, dave.token), (u) => u.relationship === "None");
  await a.keyboard.press("Escape");
  await daveCard.waitFor({ state: "detached" });

  step("presence and custom status from the avatar under the channel list");
  await click(a, "button", /^Set your status/);
  const statusMenu = control(a, "dialog", "Your status");
  await click(statusMenu, "radio", /^Do not disturb/);
  await until("alice's presence", () => api("GET", `/users/${alice.id}`, undefined, bob.token), (u) => u.status?.presence === "Busy");
  await fill(statusMenu, "Custom status", "On a train");
  await click(statusMenu, "button", "Save status");
  await until("alice's status text", () => api("GET", `/users/${alice.id}`, undefined, bob.token), (u) => u.status?.text === "On a train" && u.status?.presence === "Busy");
  await control(a, "button", "Set your status (now Do not disturb)").waitFor();

  step("markdown: a table with alignments and timestamps in the reader's time");
  const inAnHour = Math.floor(Date.now() / 1000) + 3600;
  await api("POST", `/channels/${general}/messages`, { content: `| Name | Score |\n|:-----|------:|\n| ann | 3 |\n| **ben** | 12 |\n\nstarts <t:${inAnHour}:R>, on <t:${inAnHour}:D>` }, bob.token);
  const tableMsg = a.locator(".message", { hasText: "starts" });
  await seen(tableMsg.locator("table th", { hasText: "Name" }), "the table header");
  await tableMsg.locator("table td strong", { hasText: "ben" }).waitFor();
  if ((await tableMsg.locator("td", { hasText: "12" }).evaluate((el) => getComputedStyle(el).textAlign)) !== "right") throw new Error("a right-aligned column is not");
  await tableMsg.locator("time.timestamp", { hasText: "in 1 hour" }).waitFor();
  const long = await tableMsg.locator("time.timestamp").nth(1).textContent();
  if (!long.includes(String(new Date(inAnHour * 1000).getFullYear()))) throw new Error(`a long date timestamp reads ${long}`);

  step("upload progress: a file sent over a slow link shows how far it is");
  const cdp = await context.newCDPSession(a);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 400 * 1024 });
  await upload(a, a, "Attach files", { name: "big.bin", mimeType: "application/octet-stream", buffer: randomBytes(1_500_000) });
  const box = await seen(control(a, "textbox", /^Message /), "the message box");
  await box.fill("a big file");
  await box.press("Enter");
  await control(a, "status", "Upload progress").filter({ hasText: /big\.bin: \d+ %/ }).waitFor();
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await control(a.locator(".message", { hasText: "a big file" }), "link", /big\.bin/).waitFor({ timeout: 60_000 });

  step("groups: a friend is added to a group");
  await a.goto(`${BASE}/app/channel/${group._id}`);
  await click(a, "button", "Add people");
  await select(a, "Friend to add", { label: carol.name });
  await click(control(a, "form", "Add to the group"), "button", "Add", { exact: true });
  await until("the group's members", () => api("GET", `/channels/${group._id}`, undefined, alice.token), (g) => g.recipients.includes(carol.id));

  step("phone width: the new pages fit, nothing is clipped or covered");
  await a.setViewportSize({ width: 390, height: 844 });
  await a.goto(`${BASE}/app/server/${serverId}/settings/channels`);
  await seen(control(control(a, "region", "Channel order"), "button", "Move #chat up"), "a channel's move button at phone width");
  await seen(control(a, "combobox", "Slowmode"), "the slowmode choice at phone width");
  await click(a, "link", "Webhooks", { exact: true });
  await fill(a, "New webhook name", "Phone Bot");
  await click(a, "button", "Create webhook");
  const phoneHook = control(control(a, "list", "Webhooks"), "listitem", "Webhook Phone Bot");
  for (const name of ["Rename", "Copy URL", "Delete"]) await seen(control(phoneHook, "button", name, { exact: true }), `the webhook's ${name} at phone width`);
  await click(a, "link", "Audit log", { exact: true });
  await seen(control(a, "combobox", "Action"), "the action filter at phone width");
  await seen(control(a, "list", "Audit log").getByText(`${alice.name} created the webhook Phone Bot`), "an audit entry at phone width");
  await a.goto(`${BASE}/app/server/${serverId}/channel/${general}`);
  await seen(a.locator(".message table").first(), "a table at phone width");
  await click(a.locator(".message", { hasText: "hello from bob" }), "button", `Profile of ${bob.name}`);
  await seen(control(control(a, "dialog", `Profile of ${bob.name}`), "button", "Block"), "the profile card's actions at phone width");
  await a.keyboard.press("Escape");
  await click(a, "button", "Show channels");
  await click(a, "button", /^Set your status/);
  await seen(control(control(a, "dialog", "Your status"), "radio", /^Invisible/), "the presence choices at phone width");
  await a.setViewportSize({ width: 1280, height: 800 });

  step("bob, with two-factor on, changes his email and logs another session out (a code first each time), then turns two-factor authentication off");
  const codesTicket = await api("PUT", "/auth/mfa/ticket", { password }, bob.token);
  const recovery = await api("PATCH", "/auth/mfa/recovery", {}, bob.token, { "x-mfa-ticket": codesTicket.token });
  await api("POST", "/auth/session/login", { email: bob.email, password, friendly_name: "bob's phone" });
  const ticket = await api("PUT", "/auth/mfa/ticket", { password }, bob.token);
  const { secret } = await api("POST", "/auth/mfa/totp", {}, bob.token, { "x-mfa-ticket": ticket.token });
  // Codes are accepted once each and only for increasing steps: the
  // previous step's code turns it on, the current one changes the email,
  // the next one turns it off.
  await api("PUT", "/auth/mfa/totp", { totp_code: totp(secret, Date.now() - 30_000) }, bob.token);
  await as(bob, "/app/settings/security");
  await control(a, "button", "Turn off two-factor authentication").waitFor();
  const newEmail = `bob2_${run}@ermine.test`;
  await fill(a, "New email", newEmail);
  await fill(a, "Password for the email change", password, "password");
  await click(a, "button", "Change email");
  const emailDialog = control(a, "dialog", "Confirm it is you");
  await fill(emailDialog, "Code", totp(secret));
  await click(emailDialog, "button", "Confirm");
  await a.getByText("Email changed").waitFor();
  await until("bob's account email", () => api("GET", "/auth/account/", undefined, bob.token), (acc) => acc.email === newEmail);
  // bob's other session is logged out from the list with a recovery code.
  await as(bob, "/app/settings/sessions");
  await click(a.locator(".person", { hasText: "bob's phone" }), "button", "Log out");
  const sessionDialog = control(a, "dialog", "Confirm it is you");
  await fill(sessionDialog, "Code", recovery[0]);
  await click(sessionDialog, "button", "Confirm");
  await a.getByText("Session logged out").waitFor();
  await until("bob's sessions", () => api("GET", "/auth/session/all", undefined, bob.token), (all) => !all.some((x) => x.name === "bob's phone"));
  await as(bob, "/app/settings/security");
  await click(a, "button", "Turn off two-factor authentication");
  const confirmDialog = control(a, "dialog", "Confirm it is you");
  await fill(confirmDialog, "Code", totp(secret, Date.now() + 30_000));
  await click(confirmDialog, "button", "Confirm");
  await control(a, "button", "Set up two-factor authentication").waitFor();
  await until("bob's two-factor state", () => api("GET", "/auth/mfa/", undefined, bob.token), (m) => !m.totp_mfa);

  step("carol deletes her account");
  await as(carol, "/app/settings/security");
  await click(a, "button", "Delete account");
  const carolConfirm = control(a, "dialog", "Confirm it is you");
  await fill(carolConfirm, "Current password", password, "password");
  await click(carolConfirm, "button", "Confirm");
  await a.getByText("Your account is scheduled for deletion.").waitFor();

  if (pageErrors.length) throw new Error(`page errors:\n${pageErrors.join("\n")}`);
  step("community passed");
} catch (err) {
  failed = true;
  await reportFailure(err, [{ name: "page", page: a }], pageErrors, SHOTS, "community-");
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
