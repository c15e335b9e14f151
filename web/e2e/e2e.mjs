// End-to-end test of Ermine's web client in headless Chromium, driven as
// a person would: started by web_test.go against a freshly built Ermine
// (ERMINE_URL). Chromium is Debian's (CHROMIUM, default /usr/bin/chromium).
// On failure it saves a screenshot of every open page in SCREENSHOTS
// (default e2e/screenshots); README_SHOT, when set, is where the
// screenshot for the README is written.

import { apiAt, check, click, control, fill, hover, launch, png, press, reportFailure, seen, select, totp, upload } from "./lib.mjs";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const BASE = process.env.ERMINE_URL;
if (!BASE) throw new Error("ERMINE_URL is not set");
const SHOTS = process.env.SCREENSHOTS || path.join(here, "screenshots");
const TIMEOUT = 20_000;
const started = Date.now();
const pages = [];
const pageErrors = [];
const run = Date.now().toString(36).slice(-5);

function step(name) {
  console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${name}`);
}

const api = apiAt(BASE);

async function newPage(browser, name) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  // Every notification the page shows is also noted in window.shown, for the checks.
  await context.addInitScript(() => {
    const Native = window.Notification;
    window.shown = [];
    window.Notification = class extends Native {
      constructor(title, options) {
        super(title, options);
        window.shown.push({ title, body: options?.body ?? "" });
      }
    };
  });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  page.on("pageerror", (err) => pageErrors.push(`${name}: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error") console.log(`  [${name} console] ${msg.text()}`);
  });
  // Nothing may load from outside the instance.
  await context.route(
    (url) => !url.href.startsWith(BASE) && !url.href.startsWith(BASE.replace("http", "ws")) && !url.protocol.startsWith("data") && !url.protocol.startsWith("blob"),
    (route) => {
      pageErrors.push(`${name}: request outside the instance: ${route.request().url()}`);
      return route.abort();
    },
  );
  pages.push({ name, page });
  return page;
}

/** The message box of the channel on screen. */
const composer = (page) => control(page, "textbox", /^Message /);

/** Types a message into the visible message box and sends it with Enter. */
async function say(page, text) {
  const box = await seen(composer(page), "the message box");
  await box.fill(text);
  await box.press("Enter");
}

async function registerInUI(page, email, username, fromLogin = true) {
  if (fromLogin) await click(page, "link", "Create an account");
  await fill(page, "Email", email);
  await fill(page, "Password", "a long enough password 1", "password");
  await click(page, "button", "Create account");
  // Email is off on this instance: no "check your mail", straight to onboarding.
  // The auth routes allow 3 requests in 10 s per address: the second person waits.
  await page.getByRole("heading", { name: "Choose a username" }).waitFor({ timeout: 30_000 });
  await fill(page, "Username", username);
  await click(page, "button", "Continue");
}

const browser = await launch();

let failed = false;
try {
  const alice = `alice_${run}`;
  const bob = `bob_${run}`;

  step("a browser asking for / gets the app: register and onboard");
  const a = await newPage(browser, "alice");
  await a.goto(BASE + "/");
  await a.getByRole("heading", { name: "Log in to Ermine" }).waitFor();
  if (await a.evaluate(() => typeof window.state?.plugins?.add !== "function")) throw new Error("window.state.plugins is missing before login");
  await registerInUI(a, `${alice}@ermine.test`, alice);
  await a.getByRole("heading", { name: "Friends", exact: true }).waitFor();

  step("create a server and a channel");
  await click(a, "button", "Create a server");
  await fill(a, "Server name", "E2E Server");
  await click(a, "button", "Create", { exact: true });
  await a.getByRole("heading", { name: "E2E Server" }).waitFor();
  await a.getByRole("button", { name: /Create a channel in/ }).first().click();
  await fill(a, "New channel name", "e2e-room");
  await click(a, "button", "Create", { exact: true });
  await a.getByRole("heading", { name: "# e2e-room" }).waitFor();
  const channelId = a.url().split("/channel/")[1];

  step("send a message");
  const box = composer(a);
  await say(a, "hello from the browser");
  await a.locator(".message .content", { hasText: "hello from the browser" }).waitFor();

  step("create an invite; a second person joins with it in another browser context");
  await click(a, "button", "Invite");
  const link = await a.getByLabel("Invite link").inputValue();
  if (!link.startsWith(BASE + "/invite/")) throw new Error(`invite link ${link}`);
  const b = await newPage(browser, "bob");
  await b.goto(link);
  await b.getByText("You were invited to").waitFor();
  await click(b, "button", "Create an account instead");
  await registerInUI(b, `${bob}@ermine.test`, bob, false);
  await b.getByRole("heading", { name: "Join E2E Server" }).waitFor();
  await click(b, "button", "Join");
  await click(b, "link", /e2e-room/);
  await b.getByRole("heading", { name: "# e2e-room" }).waitFor();
  await b.locator(".message .content", { hasText: "hello from the browser" }).waitFor();

  step("a message sent through the API arrives live");
  const bobSession = await b.evaluate(() => JSON.parse(localStorage.getItem("ermine:session")));
  await api("POST", `/channels/${channelId}/messages`, { content: "hi alice, from the API" }, bobSession.token);
  await a.locator(".message .content", { hasText: "hi alice, from the API" }).waitFor();
  await api("POST", `/channels/${channelId}/messages`, { content: "with an embed", embeds: [{ title: "An embed", description: "sent through the API", colour: "#6c8cff" }] }, bobSession.token);
  await a.locator(".message", { hasText: "with an embed" }).locator(".embed", { hasText: "An embed" }).filter({ hasText: "sent through the API" }).waitFor();

  step("markdown: constructs render, injection attempts stay text, spoilers hide, emoji come from the instance");
  const md = [
    "**bold** *italic* ~~gone~~ `a <b>code</b>` ||the secret|| :fire: 👍",
    '[a site](https://example.org/page) [bad](javascript:alert(1)) <img src=x onerror="window.injected=1">',
    "> quoted",
    "```js",
    "const answer = 42; // comment",
    "```",
  ].join("\n");
  await api("POST", `/channels/${channelId}/messages`, { content: md }, bobSession.token);
  const mdMsg = a.locator(".message", { hasText: "quoted" });
  await mdMsg.locator("strong", { hasText: "bold" }).waitFor();
  await mdMsg.locator("em", { hasText: "italic" }).waitFor();
  await mdMsg.locator("del", { hasText: "gone" }).waitFor();
  await mdMsg.locator("code.inline-code", { hasText: "a <b>code</b>" }).waitFor();
  await mdMsg.locator("blockquote", { hasText: "quoted" }).waitFor();
  await mdMsg.locator("pre.code .tok-kw", { hasText: "const" }).waitFor();
  await mdMsg.locator("pre.code .tok-com", { hasText: "// comment" }).waitFor();
  const siteLink = control(mdMsg, "link", "a site");
  if ((await siteLink.getAttribute("rel")) !== "noopener noreferrer" || (await siteLink.getAttribute("href")) !== "https://example.org/page") {
    throw new Error(`link attributes: ${await siteLink.evaluate((el) => el.outerHTML)}`);
  }
  if (await mdMsg.locator('a[href^="javascript"], img[src="x"], b').count()) throw new Error("markup or a javascript: link from a message was rendered");
  if (!(await mdMsg.getByText('<img src=x onerror="window.injected=1">').count())) throw new Error("the HTML of a message is not shown as text");
  for (const src of ["1f525.svg", "1f44d.svg"]) {
    const img = mdMsg.locator(`img.emoji[src="/app/emoji/${src}"]`);
    await img.waitFor();
    await a.waitForFunction((el) => el.complete && el.naturalWidth > 0, await img.elementHandle());
  }
  if (await mdMsg.getByText("the secret").isVisible()) throw new Error("a spoiler shows before it is clicked");
  await click(mdMsg, "button", "Spoiler: show");
  await seen(mdMsg.getByText("the secret"), "the revealed spoiler");
  let asked = "";
  a.once("dialog", (d) => ((asked = d.message()), d.dismiss()));
  await click(mdMsg, "link", "a site");
  if (!asked.includes("https://example.org/page")) throw new Error(`leaving the instance was not asked first (${asked})`);
  if (await a.evaluate(() => window.injected)) throw new Error("injected HTML ran");

  step("unread marks: a message in another channel marks it");
  const serverId = (await api("GET", `/channels/${channelId}`, undefined, bobSession.token)).server;
  const server = await api("GET", `/servers/${serverId}`, undefined, bobSession.token);
  const general = server.channels.find((id) => id !== channelId);
  await api("POST", `/channels/${general}/messages`, { content: "over in general" }, bobSession.token);
  await a.getByRole("link", { name: "General (unread)" }).waitFor();
  await a.getByRole("link", { name: "e2e-room", exact: true }).waitFor();

  step("notifications: permission asked from a button, a mention in another channel shows a badge, the tab title and a notification");
  await a.context().grantPermissions(["notifications"], { origin: BASE });
  await click(control(a, "region", "Notifications"), "button", "Turn on notifications");
  await a.getByRole("region", { name: "Notifications" }).waitFor({ state: "detached" });
  const aliceId = await a.evaluate(() => window.state.client.user.id);
  await api("POST", `/channels/${general}/messages`, { content: `<@${aliceId}> look at **this**` }, bobSession.token);
  await a.getByRole("link", { name: /^General \(unread\), 1 mention/ }).waitFor();
  await a.getByRole("link", { name: /^E2E Server.*1 mention/ }).waitFor();
  await a.waitForFunction(() => document.title === "(1) Ermine");
  await a.waitForFunction((who) => window.shown.some((n) => n.title.startsWith(who)), bob);
  const shown = await a.evaluate(() => window.shown);
  if (!shown.some((n) => n.title.includes(bob) && n.title.includes("#General") && n.body === `@${alice} look at this`)) throw new Error(`notifications shown: ${JSON.stringify(shown)}`);

  step("mute: a muted server shows no notification and no unread mark; the setting is synced");
  await click(a, "button", "Mute server E2E Server");
  await a.getByRole("link", { name: /^E2E Server.*\(muted\)/ }).waitFor();
  await api("POST", `/channels/${general}/messages`, { content: `<@${aliceId}> again` }, bobSession.token);
  await a.getByRole("link", { name: /^General.*2 mentions.*\(muted\)/ }).waitFor();
  const synced = await api("POST", "/sync/settings/fetch", { keys: ["notifications"] }, await a.evaluate(() => JSON.parse(localStorage.getItem("ermine:session")).token));
  if (!(serverId in JSON.parse(synced.notifications[1]).server_mutes)) throw new Error(`synced notifications: ${JSON.stringify(synced)}`);
  if ((await a.evaluate(() => window.shown.length)) !== shown.length) throw new Error("a muted server still notified");
  await click(a, "button", "Unmute server E2E Server");
  await a.getByRole("link", { name: /^E2E Server \(unread\), 2 mentions$/ }).waitFor();
  await click(a, "link", /^General/);
  await a.waitForFunction(() => document.title === "Ermine");
  await click(a, "link", "e2e-room", { exact: true });

  step("search: across the server from another channel, a result opens its channel at the message");
  await click(a, "button", "Search", { exact: true });
  const search = control(a, "complementary", "Search");
  await fill(search, "Search messages", "general", "searchbox");
  await select(search, "Search in", "server");
  await click(search, "button", "Search", { exact: true });
  await click(control(search, "list", "Search results"), "button", /over in general/);
  await a.getByRole("heading", { name: "# General" }).waitFor();
  await a.locator(".message.highlight", { hasText: "over in general" }).waitFor();
  await click(a, "button", "Close search");
  await click(a, "link", "e2e-room", { exact: true });

  step("mention with autocomplete, reply, edit, delete");
  await seen(box, "the message box");
  await box.fill("hi @" + bob.slice(0, 5));
  await a.getByRole("option", { name: new RegExp(bob) }).waitFor();
  await box.press("Enter"); // completes the mention
  await box.pressSequentially("there");
  await box.press("Enter");
  await a.locator(".message .content", { hasText: `hi @${bob} there` }).locator(".mention").waitFor();
  await b.locator(".message.mentioned", { hasText: `hi @${bob} there` }).waitFor();
  const fromApi = a.locator(".message", { hasText: "hi alice, from the API" });
  await fromApi.hover();
  await click(fromApi, "button", "Reply");
  await say(a, "a reply");
  await a.locator(".message", { hasText: "a reply" }).locator(".reply-preview", { hasText: "hi alice, from the API" }).waitFor();
  const first = a.locator(".message", { hasText: "hello from the browser" });
  await first.hover();
  await click(first, "button", "Edit");
  const edit = a.getByRole("textbox", { name: "Edit message" });
  await seen(edit, "the edit box");
  await edit.fill("hello, edited");
  await edit.press("Enter");
  await b.locator(".message", { hasText: "hello, edited" }).locator(".edited").waitFor();
  a.once("dialog", (d) => d.accept());
  const edited = a.locator(".message", { hasText: "hello, edited" });
  await edited.hover();
  await click(edited, "button", "Delete");
  await b.locator(".message", { hasText: "hello, edited" }).waitFor({ state: "detached" });

  step("drafts stay with their channel; ↑ in an empty box edits the last message; a dropped file is sent");
  await (await seen(composer(a), "the message box")).fill("an unsent draft");
  await click(a, "link", /^General/);
  await a.getByRole("heading", { name: "# General" }).waitFor();
  if ((await composer(a).inputValue()) !== "") throw new Error("a draft followed to another channel");
  await click(a, "link", "e2e-room", { exact: true });
  await a.waitForFunction(() => document.querySelector('textarea[name="message"]')?.value === "an unsent draft");
  await composer(a).fill("");
  await composer(a).press("ArrowUp");
  const lastEdit = control(a, "textbox", "Edit message");
  await seen(lastEdit, "the edit box opened with ↑");
  if (!(await lastEdit.inputValue()).startsWith("a reply")) throw new Error(`↑ edits ${await lastEdit.inputValue()}`);
  await lastEdit.press("Escape");
  const dropped = await a.evaluateHandle(() => {
    const d = new DataTransfer();
    d.items.add(new File(["dropped bytes"], "dropped.txt", { type: "text/plain" }));
    return d;
  });
  await composer(a).dispatchEvent("drop", { dataTransfer: dropped });
  await a.locator(".chip", { hasText: "dropped.txt" }).waitFor();
  await say(a, "a dropped file");
  await control(b.locator(".message", { hasText: "a dropped file" }), "link", /dropped\.txt/).waitFor();

  step("typing: one person types, the other sees it");
  await (await seen(composer(b), "bob's message box")).pressSequentially("typing something");
  await a.locator(".typing", { hasText: `${bob} is typing` }).waitFor();
  await composer(b).fill("");

  step("react");
  const bobsMessage = a.locator(".message", { hasText: "hi alice, from the API" }).first();
  await bobsMessage.hover();
  await click(bobsMessage, "button", "Add reaction");
  await click(a.getByRole("dialog", { name: "Pick a reaction" }), "button", "👍");
  await bobsMessage.getByRole("button", { name: "👍 1" }).waitFor();
  await b.locator(".message", { hasText: "hi alice, from the API" }).first().getByRole("button", { name: "👍 1" }).waitFor();

  step("upload an image and see it");
  await upload(a, a, "Attach files", { name: "gradient.png", mimeType: "image/png", buffer: png(320, 200) });
  await say(a, "a picture");
  const img = a.locator(".message", { hasText: "a picture" }).locator("img.attachment");
  await img.waitFor();
  await a.waitForFunction((el) => el.complete && el.naturalWidth > 0, await img.elementHandle());
  await b.locator(".message", { hasText: "a picture" }).locator("img.attachment").waitFor();
  await click(a, "link", "View gradient.png");
  const viewer = control(a, "dialog", "Image gradient.png");
  await seen(viewer.getByRole("img", { name: "gradient.png" }), "the image in the viewer");
  await a.keyboard.press("Escape");
  await viewer.waitFor({ state: "detached" });

  if (process.env.README_SHOT) {
    await a.mouse.move(0, 0);
    await a.screenshot({ path: process.env.README_SHOT });
    step(`README screenshot written to ${process.env.README_SHOT}`);
  }

  step("a custom emoji: add it in the server settings, react with it");
  await click(a, "link", "Server settings");
  await click(a, "link", "Emoji", { exact: true });
  await fill(a, "Emoji name", "ermine");
  await upload(a, a, "Choose emoji image", { name: "ermine.png", mimeType: "image/png", buffer: png(64, 64) });
  await click(a, "button", "Add emoji");
  await a.getByRole("list", { name: "Custom emoji" }).getByText(":ermine:").waitFor();
  await a.goto(`${BASE}/app/server/${serverId}/channel/${channelId}`);
  const pictured = a.locator(".message", { hasText: "a picture" }).first();
  await pictured.hover();
  await click(pictured, "button", "Add reaction");
  await click(a.getByRole("dialog", { name: "Pick a reaction" }), "button", ":ermine:");
  await b.locator(".message", { hasText: "a picture" }).first().locator(".reaction img.emoji.custom").waitFor();

  step("roles and a channel override: denying Everyone SendMessage silences the other person");
  await click(a, "link", "Server settings");
  await click(a, "link", "Roles", { exact: true });
  await fill(a, "New role name", "Mods");
  await click(a, "button", "Create role");
  await select(a, "ManageMessages", "allow");
  await a.waitForFunction(
    ([sid]) => [...window.state.client.servers.get(sid).roles.values()].some((r) => r.name === "Mods" && Number(r.permissions.a) === 8388608),
    [serverId],
  );
  await fill(a, "Colour (a CSS colour or gradient)", "linear-gradient(90deg, #ff0000, #0000ff)");
  await click(a, "button", "Save colour");
  await a.waitForFunction((sid) => [...window.state.client.servers.get(sid).roles.values()].some((r) => r.name === "Mods" && r.colour?.startsWith("linear-gradient")), serverId);
  await fill(a, "New role name", "Helpers");
  await click(a, "button", "Create role");
  const roleOrder = control(a, "region", "Role order");
  const roleNames = () => a.evaluate((sid) => window.state.client.servers.get(sid).orderedRoles.map((r) => r.name).join(","), serverId);
  await a.waitForFunction((sid) => window.state.client.servers.get(sid).orderedRoles.length === 2, serverId);
  const before = await roleNames();
  const [top, bottom] = before.split(",");
  await seen(control(roleOrder, "listitem", bottom), `the ${bottom} role`);
  await control(roleOrder, "listitem", bottom).dragTo(await seen(control(roleOrder, "listitem", top), `the ${top} role`));
  await a.waitForFunction(([sid, want]) => window.state.client.servers.get(sid).orderedRoles.map((r) => r.name).join(",") === want, [serverId, `${bottom},${top}`]);
  await click(roleOrder, "button", `Move ${bottom} down`);
  await a.waitForFunction(([sid, want]) => window.state.client.servers.get(sid).orderedRoles.map((r) => r.name).join(",") === want, [serverId, before]);
  await click(a, "link", "Channels", { exact: true });
  await select(a, "Channel", { label: "#e2e-room" }, { exact: true });
  await select(a, "SendMessage", "deny");
  await b.getByRole("textbox", { name: /^Message #e2e-room/ }).and(b.locator("[disabled]")).waitFor();
  await select(a, "SendMessage", "neutral");
  await composer(b).and(b.locator(":not([disabled])")).waitFor();
  await fill(a, "Channel description", "where the tests talk");
  await click(a, "button", "Save", { exact: true });
  await fill(a, "New category name", "Talk");
  await click(a, "button", "Create and move here");
  await b.getByRole("region", { name: "Talk" }).getByRole("link", { name: /e2e-room/ }).waitFor();
  await b.locator(".channel-head", { hasText: "where the tests talk" }).waitFor();
  await a.goto(`${BASE}/app/server/${serverId}/channel/${channelId}`);

  step("add a plugin from the settings page; it changes the page");
  const banner = JSON.parse(readFileSync(path.join(here, "..", "plugins", "hello-banner.json"), "utf8"));
  const tools = JSON.parse(readFileSync(path.join(here, "..", "plugins", "message-tools.json"), "utf8"));
  await click(a, "link", "Settings", { exact: true });
  await click(a, "link", "Plugins", { exact: true });
  await a.getByText("Plugins run unsandboxed").waitFor();
  const manifest = (text) => fill(a, "Add from manifest JSON", text);
  await manifest(JSON.stringify({ ...banner, version: "x" }));
  await click(a, "button", "Add plugin");
  await a.getByRole("alert").filter({ hasText: "version: must be a semantic version" }).waitFor();
  await manifest(JSON.stringify(banner));
  await click(a, "button", "Add plugin");
  await a.locator("#hello-banner", { hasText: `Hello, ${alice}` }).waitFor();
  await manifest(JSON.stringify(tools));
  await click(a, "button", "Add plugin");
  await a.locator('[data-plugin="ermine/message-tools"]', { hasText: "running" }).waitFor();

  step("a plugin that throws is reported and the client goes on");
  await manifest(JSON.stringify({ format: 1, version: "0.0.1", namespace: "e2e", id: "thrower", entrypoint: "() => { throw new Error('plugin went wrong') }" }));
  await click(a, "button", "Add plugin");
  await a.locator('[data-plugin="e2e/thrower"]', { hasText: "plugin went wrong" }).waitFor();
  await a.locator(".notice.error", { hasText: "plugin went wrong" }).waitFor();
  a.once("dialog", (d) => d.accept());
  await click(a.getByRole("listitem").filter({ hasText: "e2e/thrower" }), "button", "Remove");
  await a.locator('[data-plugin="e2e/thrower"]').waitFor({ state: "detached" });

  step("unload the banner plugin");
  await check(a, "Enable ermine/hello-banner", false);
  await a.locator("#hello-banner").waitFor({ state: "detached" });
  await a.locator('[data-plugin="ermine/hello-banner"]', { hasText: "disabled" }).waitFor();

  step("reload: enabled plugins load again, the disabled one stays off");
  await a.reload();
  await a.getByRole("heading", { name: "Plugins" }).waitFor();
  await a.locator('[data-plugin="ermine/message-tools"]', { hasText: "running" }).waitFor();
  await a.locator('[data-plugin="ermine/hello-banner"]', { hasText: "disabled" }).waitFor();
  if (await a.locator("#hello-banner").count()) throw new Error("a disabled plugin loaded after the reload");
  await check(a, "Enable ermine/hello-banner");
  await a.locator("#hello-banner").waitFor();
  await a.reload();
  await a.locator("#hello-banner", { hasText: `Hello, ${alice}` }).waitFor();
  const list = await a.evaluate(() => window.state.plugins.list().map((p) => `${p.namespace}/${p.id}:${p.enabled}:${p.loaded}`));
  if (list.join(" ") !== "ermine/hello-banner:true:true ermine/message-tools:true:true") {
    throw new Error(`plugins after reload: ${list}`);
  }

  step("a plugin's slash command works");
  await a.goto(`${BASE}/app/server/${serverId}/channel/${channelId}`);
  await say(a, "/shrug so it goes");
  await b.locator(".message .content", { hasText: "so it goes ¯\\_(ツ)_/¯" }).waitFor();

  step("the message action of a plugin works");
  const quoted = a.locator(".message", { hasText: "a picture" }).first();
  await quoted.hover();
  await click(quoted, "button", "Quote");
  await b.locator(".message .content blockquote", { hasText: "a picture" }).waitFor();

  step("keyboard: the history, then a message's actions, are reached with Tab");
  await control(a, "log", "Messages").focus();
  const focused = () =>
    a.evaluate(() => {
      const el = document.activeElement;
      const bar = el?.closest(".actions");
      return { label: el?.getAttribute("aria-label"), shown: bar ? getComputedStyle(bar).opacity : "" };
    });
  let f = { label: "", shown: "" };
  for (let i = 0; i < 6 && f.label !== "Reply"; i++) {
    await a.keyboard.press("Tab"); // the first message's reaction, then its actions
    f = await focused();
  }
  if (f.label !== "Reply" || f.shown !== "1") throw new Error(`Tab from the history reached ${JSON.stringify(f)}`);
  await a.keyboard.press("Enter");
  await a.locator(".reply-bar .chip", { hasText: "Replying to" }).waitFor();
  await a.keyboard.press("Escape"); // the reply is dropped from the message box
  await (await seen(composer(a), "the message box")).focus();
  await a.keyboard.press("Escape");
  await a.locator(".reply-bar .chip", { hasText: "Replying to" }).waitFor({ state: "detached" });

  step("friends: a request by username, accepted; a direct message both ways; a group");
  const aliceTag = await a.evaluate(() => `${window.state.client.user.username}#${window.state.client.user.discriminator}`);
  await click(b, "link", "Home");
  await fill(b, "Add a friend by username", aliceTag);
  await click(b, "button", "Send request");
  await b.getByRole("heading", { name: "Pending" }).waitFor();
  await click(a, "link", "Home");
  await click(a, "link", "Friends");
  await a.getByRole("heading", { name: "Requests" }).waitFor();
  await click(a, "button", "Accept");
  await a.getByRole("heading", { name: "Friends — 1" }).waitFor();
  await b.getByRole("heading", { name: "Friends — 1" }).waitFor();
  await click(a, "button", "Message");
  await a.getByRole("heading", { name: `@${bob}` }).waitFor();
  await say(a, "hello in private");
  await b.getByRole("link", { name: new RegExp(`^${alice}`) }).click();
  await b.locator(".message .content", { hasText: "hello in private" }).waitFor();
  await say(b, "private reply");
  await a.locator(".message .content", { hasText: "private reply" }).waitFor();
  await click(b, "link", "Friends");
  await check(b, "in group");
  await fill(b, "Group name", "Pair");
  await click(b, "button", /Create group with 1/);
  await b.getByRole("heading", { name: "Pair" }).waitFor();
  await say(b, "hello group");
  await click(a, "link", /^Pair/);
  await a.locator(".message .content", { hasText: "hello group" }).waitFor();
  if (!(await control(a, "button", "Add people").isDisabled())) throw new Error("Add people offers friends who are all in the group");
  a.once("dialog", (d) => d.accept());
  await click(a, "button", "Leave group");
  await a.getByRole("link", { name: /^Pair/ }).waitFor({ state: "detached" });
  await b.locator(".message .content", { hasText: "left" }).waitFor();
  await a.goto(`${BASE}/app/server/${serverId}/channel/${channelId}`);

  step("phone width: the channel list opens from the menu button");
  await a.setViewportSize({ width: 390, height: 760 });
  await seen(composer(a), "the message box at phone width");
  await click(a, "button", "Show channels");
  await click(a, "link", /^General/);
  await a.getByRole("heading", { name: "# General" }).waitFor();
  await a.locator(".message .content", { hasText: "over in general" }).waitFor();

  step("profile: display name and status show to others");
  await b.goto(`${BASE}/app/server/${serverId}/channel/${channelId}`);
  await b.locator(".members .member", { hasText: alice }).waitFor();
  await a.goto(`${BASE}/app/settings/profile`);
  await fill(a, "Display name", "Alice E2E");
  await fill(a, "Status", "testing Ermine");
  await click(a, "button", "Save");
  await b.locator(".members .member", { hasText: "Alice E2E" }).filter({ hasText: "testing Ermine" }).waitFor();
  await upload(a, a, "Change avatar", { name: "me.png", mimeType: "image/png", buffer: png(96, 96) });
  await b.locator(".members .member", { hasText: "Alice E2E" }).locator('img[src*="/avatars/"]').waitFor();
  await click(a, "link", "Sessions", { exact: true });
  await a.locator(".person", { hasText: "this browser" }).waitFor();
  await a.goto(`${BASE}/app/server/${serverId}/settings/overview`);
  await upload(a, a, "Change icon", { name: "icon.png", mimeType: "image/png", buffer: png(128, 128) });
  await b.locator(`.rail a[href="/app/server/${serverId}"] img[src*="/icons/"]`).waitFor();
  await a.goto(`${BASE}/app/settings/profile`);

  step("account security: password and username changed; two-factor set up from its QR code and secret; recovery codes");
  await a.setViewportSize({ width: 1280, height: 800 });
  await a.goto(`${BASE}/app/settings/security`);
  const changePassword = control(a, "form", "Change password");
  await fill(changePassword, "Current password", "a long enough password 1", "password");
  await fill(changePassword, "New password", "a new long password 2", "password");
  await click(changePassword, "button", "Change password");
  await a.getByText("Password changed").waitFor({ timeout: 30_000 });
  await fill(a, /^New username/, `alice2_${run}`);
  await fill(a, "Password for the username change", "a new long password 2", "password");
  await click(a, "button", "Change username");
  await b.locator(".members .member", { hasText: "Alice E2E" }).waitFor();
  await a.getByText(`now alice2_${run}#`).waitFor({ timeout: 30_000 });
  await click(a, "button", "Set up two-factor authentication");
  const confirmDialog = control(a, "dialog", "Confirm it is you");
  await fill(confirmDialog, "Current password", "a new long password 2", "password");
  await click(confirmDialog, "button", "Confirm");
  await seen(control(a, "img", "QR code of the two-factor secret"), "the QR code");
  const secret = (await a.getByLabel("Two-factor secret", { exact: true }).textContent()).trim();
  await fill(a, "Code from the app", totp(secret));
  await click(a, "button", "Turn on two-factor authentication");
  // Each code works once: the ticket for the recovery codes takes the next step's.
  await fill(confirmDialog, "Code", totp(secret, Date.now() + 30_000));
  await click(confirmDialog, "button", "Confirm");
  const recovery = control(a, "region", "Recovery codes");
  await seen(recovery, "the recovery codes");
  if (process.env.SETTINGS_SHOT) {
    await a.mouse.move(0, 0);
    await a.screenshot({ path: process.env.SETTINGS_SHOT });
    step(`settings screenshot written to ${process.env.SETTINGS_SHOT}`);
  }
  const codes = (await recovery.locator("code").allTextContents()).map((c) => c.trim());
  if (codes.length < 8) throw new Error(`recovery codes: ${codes}`);

  step("two-factor login with a recovery code");
  await click(a, "link", "Profile", { exact: true });
  await click(a, "button", "Log out");
  await a.getByRole("heading", { name: "Log in to Ermine" }).waitFor();
  await fill(a, "Email", `${alice}@ermine.test`);
  await fill(a, "Password", "a new long password 2", "password");
  await click(a, "button", "Log in");
  await a.getByText("Two-factor authentication is on").waitFor({ timeout: 30_000 });
  await fill(a, /authenticator app/, codes[0]);
  await click(a, "button", "Log in");
  await a.getByRole("heading", { name: "Settings", exact: true }).waitFor({ timeout: 30_000 });

  step("server settings: members (search, a role, a timeout), invites (revoke), bans (ban, unban)");
  await a.goto(`${BASE}/app/server/${serverId}/settings/members`);
  await fill(a, "Search members", bob.slice(0, 8), "searchbox");
  const bobRow = control(control(a, "list", "Members"), "listitem", bob);
  await check(bobRow, `Mods role for ${bob}`);
  const mods = await a.evaluate((sid) => [...window.state.client.servers.get(sid).roles.values()].find((r) => r.name === "Mods").id, serverId);
  for (let i = 0; ; i++) {
    const member = await api("GET", `/servers/${serverId}/members/${bobSession.user_id}`, undefined, bobSession.token);
    if (member.roles?.includes(mods)) break;
    if (i > 50) throw new Error(`bob's roles: ${JSON.stringify(member.roles)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await select(bobRow, `Timeout length for ${bob}`, "3600000");
  await click(bobRow, "button", "Time out");
  await bobRow.getByText("timed out until").waitFor();
  await b.getByRole("textbox", { name: /^Message / }).and(b.locator("[disabled]")).waitFor();
  await click(bobRow, "button", "End timeout");
  await control(bobRow, "button", "Time out").waitFor();
  await click(a, "link", "Invites", { exact: true });
  const code = link.split("/invite/")[1];
  await click(control(control(a, "list", "Invites"), "listitem", code), "button", "Revoke");
  await a.getByText("No invites.").waitFor();
  if ((await fetch(`${BASE}/invites/${code}`)).status !== 404) throw new Error("a revoked invite still answers");
  await click(a, "link", "Members", { exact: true });
  a.once("dialog", (d) => d.accept("testing bans"));
  await click(bobRow, "button", "Ban");
  await b.getByRole("link", { name: /^E2E Server/ }).waitFor({ state: "detached" });
  await click(a, "link", "Bans", { exact: true });
  const banRow = control(control(a, "list", "Bans"), "listitem", new RegExp(bob));
  await banRow.getByText("testing bans").waitFor();
  await click(banRow, "button", "Unban");
  await a.getByText("Nobody is banned.").waitFor();

  step("bob disables his account from the settings; he is logged out");
  await b.goto(`${BASE}/app/settings/security`);
  await click(b, "button", "Disable account");
  const bobConfirm = control(b, "dialog", "Confirm it is you");
  await fill(bobConfirm, "Current password", "a long enough password 1", "password");
  await click(bobConfirm, "button", "Confirm");
  await b.getByRole("heading", { name: "Log in to Ermine" }).waitFor();

  if (pageErrors.length) throw new Error(`page errors:\n${pageErrors.join("\n")}`);
  step("passed");
} catch (err) {
  failed = true;
  await reportFailure(err, pages, pageErrors, SHOTS, "");
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
