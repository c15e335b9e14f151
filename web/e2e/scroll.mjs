// History with infinite scroll: 120 messages are seeded through the API
// (against an Ermine started without rate limits, by web_test.go), the
// page shows the newest, and scrolling up loads the older pages until the
// start of the channel. Before that, a reply to the very first message
// jumps to it: the history around it loads and it is marked.

import { apiAt, click, launch, seen } from "./lib.mjs";
import { mkdirSync } from "node:fs";
import path from "node:path";

const BASE = process.env.ERMINE_URL;
if (!BASE) throw new Error("ERMINE_URL is not set");
const SHOTS = process.env.SCREENSHOTS || "screenshots";
const TOTAL = 120;

const api = apiAt(BASE);

const email = `scroll_${Date.now().toString(36)}@ermine.test`;
const password = "a long enough password 1";
await api("POST", "/auth/account/create", { email, password });
const session = await api("POST", "/auth/session/login", { email, password });
await api("POST", "/onboard/complete", { username: `scroll_${Date.now().toString(36).slice(-5)}` }, session.token);
const server = await api("POST", "/servers/create", { name: "Scroll" }, session.token);
const channel = server.channels[0]._id;
let firstId;
for (let i = 1; i <= TOTAL; i++) {
  const m = await api("POST", `/channels/${channel}/messages`, { content: `message number ${i}` }, session.token);
  firstId ??= m._id;
}
await api("POST", `/channels/${channel}/messages`, { content: "a late reply", replies: [{ id: firstId, mention: false }] }, session.token);

const browser = await launch();
const page = await (await browser.newContext({ viewport: { width: 1000, height: 700 } })).newPage();
page.setDefaultTimeout(20_000);
let failed = false;
try {
  await page.goto(`${BASE}/app/`);
  await page.evaluate((s) => localStorage.setItem("ermine:session", JSON.stringify(s)), { _id: session._id, token: session.token, user_id: session.user_id });
  await page.goto(`${BASE}/app/server/${server.server._id}/channel/${channel}`);
  await page.locator(".message .content", { hasText: `message number ${TOTAL}` }).waitFor();

  // Jump to the replied message, far outside the loaded page.
  await click(page, "button", /^Jump to the replied message/);
  const target = page.locator(`.message[data-id="${firstId}"]`);
  await target.and(page.locator(".highlight")).waitFor();
  await seen(target, "the replied message after the jump");
  await click(page, "button", "Jump to present");
  await page.locator(".message .content", { hasText: "a late reply" }).waitFor();
  console.log("jump to a replied message outside the page: passed");

  const count = () => page.locator(".message").count();
  const first = await count();
  if (first >= TOTAL) throw new Error(`the first page already holds ${first} messages`);
  // Scroll to the top until the start of the channel shows.
  for (let i = 0; i < 10 && !(await page.getByText("This is the start of").isVisible()); i++) {
    await page.locator(".history").evaluate((el) => (el.scrollTop = 0));
    await page.waitForTimeout(300);
  }
  await page.locator(".message .content", { hasText: /^message number 1$/ }).waitFor();
  const all = await count();
  if (all !== TOTAL + 1) throw new Error(`after scrolling up: ${all} messages, want ${TOTAL + 1}`);
  const order = await page.locator(".message .content").allTextContents();
  for (let i = 0; i < TOTAL; i++) {
    if (order[i] !== `message number ${i + 1}`) throw new Error(`message ${i} is ${order[i]}`);
  }
  console.log(`infinite scroll: ${first} messages at first, all ${TOTAL} in order after scrolling up — passed`);
} catch (err) {
  failed = true;
  console.error(`FAILED: ${err?.stack ?? err}`);
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, "scroll.png") }).catch(() => {});
  console.error(`screenshot: ${path.join(SHOTS, "scroll.png")}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
