// Against an instance made by `ermine import revolt` from a generated
// Revolt/Stoat dump (clients_test.go, TestClientLibrariesImported): the
// people of the old instance keep working with the real libraries.
// IMPORT describes the dump: accounts, tokens and the expected history.

import assert from "node:assert/strict";
import { after, test } from "node:test";
import { Client as RevoltClient } from "revolt.js";
import { Client as StoatClient } from "stoat.js";
import { BASE, waitFor } from "../test/lib.mjs";

const clients = [];
after(() => {
  for (const c of clients) {
    c.options.autoReconnect = false;
    c.events.disconnect();
  }
});

const IMPORT = JSON.parse(process.env.ERMINE_IMPORT ?? "{}");

async function readHistory(client) {
  const channel = client.channels.get(IMPORT.channel);
  assert.ok(channel, "the imported channel is in Ready");
  assert.equal(channel.name, "general");
  const ids = [];
  let after;
  for (;;) {
    const page = await channel.fetchMessages({ limit: 100, sort: "Oldest", ...(after ? { after } : {}) });
    if (page.length === 0) break;
    for (const m of page) ids.push(m.id);
    after = page[page.length - 1].id;
  }
  assert.deepEqual(ids, IMPORT.messages, "the whole history, in order, page by page");
  const pinned = await channel.fetchMessage(IMPORT.pinned);
  assert.equal(pinned.content, "welcome to the new home");
  // revolt.js 7.2.0 does not hydrate pinned: read it from the route.
  const raw = await client.api.get(`/channels/${IMPORT.channel}/messages/${IMPORT.pinned}`);
  assert.equal(raw.pinned, true);
  assert.equal(pinned.attachments?.length, 1);
  assert.ok(pinned.reactions.size >= 2, "reactions kept");
}

test("revolt.js logs in with the old password and reads imported history", async () => {
  const c = new RevoltClient({ baseURL: BASE });
  clients.push(c);
  // The login route, then useExistingSession: what for-web does.
  const session = await c.api.post("/auth/session/login", {
    email: IMPORT.email,
    password: IMPORT.password,
    friendly_name: "revolt.js after the move",
  });
  assert.equal(session.result, "Success", JSON.stringify(session));
  assert.equal(session.user_id, IMPORT.alice);
  c.useExistingSession({ _id: session._id, token: session.token, user_id: session.user_id });
  c.configuration = await c.api.get("/");
  const ready = waitFor(c, "ready", () => true, 15000);
  c.connect();
  await ready;
  assert.equal(c.user?.id, IMPORT.alice);
  assert.equal(c.user.username, "alice");
  assert.ok(c.servers.get(IMPORT.server), "the imported server is in Ready");
  await readHistory(c);
});

test("stoat.js keeps the old session and reads imported history", async () => {
  const c = new StoatClient({ baseURL: BASE });
  clients.push(c);
  c.configuration = await c.api.get("/");
  c.useExistingSession({ _id: "old", token: IMPORT.session, user_id: IMPORT.alice });
  const ready = waitFor(c, "ready", () => true, 15000);
  c.connect();
  await ready;
  assert.equal(c.user?.id, IMPORT.alice);
  await readHistory(c);
});

test("the bot token still logs the bot in", async () => {
  const c = new StoatClient({ baseURL: BASE });
  clients.push(c);
  const ready = waitFor(c, "ready", () => true, 15000);
  await c.loginBot(IMPORT.bot);
  await ready;
  assert.equal(c.user?.id, IMPORT.botUser);
});
