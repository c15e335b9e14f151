// End-to-end test of the operator's console (web/src/admin) in headless
// Chromium, on an invite-only instance started by web_test.go
// (TestConsole). The script prints "GRANT <user id>" and waits for "OK"
// while the test runs `ermine admin grant-privileged` on the instance's
// data directory; INVITES holds registration codes made with `ermine
// invite create` before the server started. Everything the operator does
// is done through visible controls found by role and name.

import { apiAt, click, control, fill, launch, reportFailure, seen, select } from "./lib.mjs";
import readline from "node:readline";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const BASE = process.env.ERMINE_URL;
if (!BASE) throw new Error("ERMINE_URL is not set");
const SHOTS = process.env.SCREENSHOTS || path.join(here, "screenshots");
const invites = (process.env.INVITES || "").split(/\s+/).filter(Boolean);
const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const api = apiAt(BASE);
const run = Date.now().toString(36).slice(-5);
const started = Date.now();
const pages = [];
const pageErrors = [];
const PASSWORD = "a long enough password 1";

function step(name) {
  console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${name}`);
}

/** A person registered with an invite code, onboarded, and logged in through the API. */
async function person(username) {
  const email = `${username}@ermine.test`;
  await api("POST", "/auth/account/create", { email, password: PASSWORD, invite: invites.shift() });
  const s = await api("POST", "/auth/session/login", { email, password: PASSWORD });
  const u = await api("POST", "/onboard/complete", { username }, s.token);
  return { email, token: s.token, id: s.user_id, name: `${u.username}#${u.discriminator}` };
}

async function newPage(browser, name) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  page.on("pageerror", (err) => pageErrors.push(`${name}: ${err.message}`));
  pages.push({ name, page });
  return page;
}

/** Logs a person in through the login form. */
async function loginInUI(page, who) {
  await page.goto(BASE + "/");
  await page.getByRole("heading", { name: "Log in to Ermine" }).waitFor();
  await fill(page, "Email", who.email);
  await fill(page, "Password", PASSWORD, "password");
  await click(page, "button", "Log in");
  await page.getByRole("navigation", { name: "Channels" }).waitFor();
}

const browser = await launch();
let failed = false;
try {
  if (invites.length < 5) throw new Error(`INVITES holds ${invites.length} codes, want 5`);
  step("people registered with codes: an operator, a member, a spammer, a reporter");
  const admin = await person(`operator_${run}`);
  const member = await person(`member_${run}`);
  const spammer = await person(`spammer_${run}`);
  const reporter = await person(`reporter_${run}`);
  const created = await api("POST", "/servers/create", { name: `Den ${run}` }, reporter.token);
  const server = created.server._id;
  const channel = created.channels[0]._id;
  const inv = await api("POST", `/channels/${channel}/invites`, {}, reporter.token);
  await api("POST", `/invites/${inv._id}`, undefined, spammer.token);
  const spam = await api("POST", `/channels/${channel}/messages`, { content: `buy cheap stuff ${run}` }, spammer.token);
  await api("POST", "/safety/report", { content: { type: "Message", id: spam._id, report_reason: "UnsolicitedSpam" }, additional_context: "he spams" }, reporter.token);

  step("a person without the privilege: no Instance entry, a refusal at its address, 401/403 from the routes");
  const r = await newPage(browser, "reporter");
  await loginInUI(r, reporter);
  if (await r.getByRole("link", { name: "Instance" }).count()) throw new Error("a plain user sees the Instance entry");
  await r.goto(BASE + "/app/admin/overview");
  await seen(r.getByRole("heading", { name: "Not allowed" }), "the refusal");
  for (const [token, want] of [[reporter.token, 403], [undefined, 401]]) {
    const res = await fetch(BASE + "/admin/overview", { headers: token ? { "x-session-token": token } : {} });
    if (res.status !== want) throw new Error(`GET /admin/overview = ${res.status}, want ${want}`);
  }
  await r.goto(BASE + `/app/server/${server}/channel/${channel}`);
  await seen(r.getByText(`buy cheap stuff ${run}`), "the spam, before the ban");

  step("ermine admin grant-privileged makes the operator privileged");
  console.log(`GRANT ${admin.id}`);
  const answer = (await lines.next()).value;
  if (answer !== "OK") throw new Error(`grant-privileged answered ${answer}`);

  step("the operator finds the console and sees the figures");
  const a = await newPage(browser, "operator");
  await loginInUI(a, admin);
  await click(a, "link", "Instance");
  const figures = a.getByRole("definition").filter({ hasText: /^\d+$/ });
  await seen(a.getByRole("heading", { name: "Overview" }), "the overview");
  await seen(a.getByText("Connections now"), "the connections figure");
  if ((await figures.count()) < 8) throw new Error(`${await figures.count()} figures on the overview`);
  await seen(a.getByText(/Push notifications are not configured/), "the push warning");

  step("finds a user by name and disables them: their session gets 401 and their socket Logout");
  const root = await api("GET", "/");
  const m = await newPage(browser, "member");
  await m.goto(BASE + "/app/");
  const logout = m.evaluate(
    ({ ws, token }) =>
      new Promise((resolve, reject) => {
        const s = new WebSocket(`${ws}?version=1&format=json&token=${token}`);
        const timer = setTimeout(() => reject(new Error("no Logout within 20 s")), 20_000);
        s.onmessage = (e) => {
          const f = JSON.parse(e.data);
          if (f.type === "Ready") window.__ready = true;
          if (f.type === "Logout") (clearTimeout(timer), resolve(true));
        };
      }),
    { ws: root.ws, token: member.token },
  );
  await m.waitForFunction(() => window.__ready === true);
  await click(a, "link", "Users");
  await fill(a, "Username, email or id", `member_${run}`);
  await click(a, "button", "Search");
  await click(a, "link", member.name);
  await click(a, "button", "Disable account");
  await seen(a.getByRole("button", { name: "Enable account" }), "the enable button after disabling");
  await logout;
  const me = await fetch(BASE + "/users/@me", { headers: { "x-session-token": member.token } });
  if (me.status !== 401) throw new Error(`the disabled member's session answered ${me.status}`);

  step("resolves the reporter's report, seeing its snapshot, with a ban: the spam disappears for the reporter");
  await click(a, "link", "Reports");
  const report = a.getByRole("article", { name: `Report of message ${spam._id}` });
  await seen(report.getByText(`buy cheap stuff ${run}`), "the snapshot of the reported message");
  await seen(report.getByText("he spams"), "the reporter's reason");
  await select(report, "Action", "BanUser");
  await fill(report, "Note", "spam account");
  await click(report, "button", "Resolve");
  await seen(a.getByText("No open report."), "the empty queue");
  await r.getByText(`buy cheap stuff ${run}`).waitFor({ state: "detached" });

  step("deletes a server");
  await click(a, "link", "Servers");
  await fill(a, "Server name or id", `Den ${run}`);
  await click(a, "button", "Search");
  await click(a, "link", `Den ${run}`);
  await click(a, "button", "Delete server…");
  await click(a, "button", "Confirm deletion");
  await seen(a.getByRole("heading", { name: "Servers" }), "the server list after deleting");
  const gone = await fetch(BASE + `/servers/${server}`, { headers: { "x-session-token": reporter.token } });
  if (gone.status !== 404) throw new Error(`the deleted server answered ${gone.status}`);

  step("creates a registration invite that lets a new person register on the invite-only instance");
  await click(a, "link", "Registration");
  await seen(a.getByText(/Registration is invite only/), "the invite-only note");
  const rows = a.getByRole("table", { name: "Registration invites" }).locator("tbody tr[data-invite]");
  await rows.first().waitFor();
  const before = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-invite")));
  await click(a, "button", "Create an invite");
  await a.waitForFunction((n) => document.querySelectorAll("tbody tr[data-invite]").length > n, before.length);
  const after = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-invite")));
  const code = after.find((c) => !before.includes(c)) ?? "";
  if (!/^[0-9A-Za-z]{10}$/.test(code)) throw new Error(`invite code ${code}`);
  await seen(a.getByText(code), "the new code");
  const n = await newPage(browser, "newcomer");
  await n.goto(BASE + "/");
  await click(n, "link", "Create an account");
  await fill(n, "Email", `newcomer_${run}@ermine.test`);
  await fill(n, "Password", PASSWORD, "password");
  await fill(n, "Invite code (this instance is invite-only)", code);
  await click(n, "button", "Create account");
  await n.getByRole("heading", { name: "Choose a username" }).waitFor({ timeout: 30_000 });

  step("the audit log lists what the operator did");
  await click(a, "link", "Audit log");
  for (const action of ["DisableUser", "WipeUser", "ResolveReport", "DeleteServer", "CreateRegistrationInvite"]) {
    await seen(a.getByRole("cell", { name: action, exact: true }).first(), `the ${action} entry`);
  }
  if (pageErrors.length) throw new Error(`page errors:\n${pageErrors.join("\n")}`);
  console.log("console passed");
} catch (err) {
  failed = true;
  await reportFailure(err, pages, pageErrors, SHOTS, "console-");
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
