// What two people do with the real libraries: Alice on revolt.js 7.2.0,
// Bob on stoat.js 7.3.4, and a bot. Each step is its own test and builds
// on earlier ones; a step whose routes the server lacks is skipped naming
// the route, and the steps after it that need its result say so (in CI,
// CI set, each of those fails instead: see lib.mjs).

import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, test } from "node:test";
import { Client as RevoltClient } from "revolt.js";
import { Client as StoatClient } from "stoat.js";
import {
  BASE,
  NOBODY,
  needs,
  rawFetch,
  requires,
  retried,
  revolt204,
  stoatError,
  uniqueName,
  until,
  waitFor,
} from "./lib.mjs";

// SendMessage in the permission bits (the contract's Permission, bit 22).
const SEND_MESSAGE = 2 ** 22;
const PASSWORD = "correct horse battery staple";

/** What the steps pass on to each other. */
const s = { done: new Set(), errors: [], clients: [] };

/** Creates a client that records library errors instead of crashing. */
function client(Kind, name) {
  const c = new Kind({ baseURL: BASE, autoReconnect: true });
  c.on("error", (err) => s.errors.push(`${name}: ${err?.data?.type ?? err?.message ?? err?.type ?? err}`));
  s.clients.push(c);
  return c;
}

/**
 * Declares a step: it runs when the earlier steps it names completed and
 * the server has its routes, must pass then, and must not make a client
 * report an error.
 */
function step(name, { routes = [], needs: earlier = [] }, fn) {
  test(name, async (t) => {
    if (!requires(t, s, ...earlier)) return;
    if (!(await needs(t, ...routes))) return;
    s.errors.length = 0;
    await fn(t);
    assert.deepEqual(s.errors, [], "the client libraries reported errors");
    s.done.add(name);
  });
}

after(() => {
  for (const c of s.clients) {
    c.options.autoReconnect = false;
    c.events.disconnect();
  }
  if (retried.count) {
    process.stdout.write(`# waited out ${retried.count} rate-limited requests (${retried.waitedMs} ms)\n`);
  }
});

const REGISTER = "register and log in two users";
const ONBOARD = "onboarding";
const CONNECT = "connect and receive Ready";
const SERVER = "create a server and a channel";
const JOIN = "invite and join";
const MESSAGES = "exchange messages both ways through the events";
const BOT = "a bot connects with its token";

step(REGISTER, { routes: ["POST /auth/account/create", "POST /auth/session/login"] }, async () => {
  const config = await new RevoltClient({ baseURL: BASE }).api.get("/");
  s.alice = { email: `${uniqueName("alice")}@ermine.test`, client: client(RevoltClient, "alice") };
  s.bob = { email: `${uniqueName("bob")}@ermine.test`, client: client(StoatClient, "bob") };
  s.alice.client.configuration = config;

  // revolt.js: account creation answers 204, which its HTTP layer cannot read.
  await revolt204(s.alice.client.api.post("/auth/account/create", { email: s.alice.email, password: PASSWORD }));
  // stoat.js reads the 204 as null.
  assert.equal(await s.bob.client.api.post("/auth/account/create", { email: s.bob.email, password: PASSWORD }), null);

  // Alice logs in the way for-web and test scripts do: the login route,
  // then useExistingSession.
  const session = await s.alice.client.api.post("/auth/session/login", {
    email: s.alice.email,
    password: PASSWORD,
    friendly_name: "revolt.js",
  });
  assert.equal(session.result, "Success", JSON.stringify(session));
  assert.match(session.token, /^[A-Za-z0-9_-]+$/, "tokens must be URL-safe: revolt.js puts them in the ws URL raw");
  assert.match(session.user_id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
  s.alice.client.useExistingSession({ _id: session._id, token: session.token, user_id: session.user_id });
  s.alice.id = session.user_id;

  // Bob uses the library's own login(), which also fetches GET /.
  await s.bob.client.login({ email: s.bob.email, password: PASSWORD, friendly_name: "stoat.js" });
  assert.ok(s.bob.client.configuration?.ws, "login() fetched the configuration");
  const [header, token] = s.bob.client.authenticationHeader;
  assert.equal(header, "X-Session-Token");
  s.bob.client.useExistingSession({ _id: s.bob.client.sessionId, token, user_id: "" });

});

step(ONBOARD, { routes: ["GET /onboard/hello", "POST /onboard/complete"], needs: [REGISTER] }, async () => {
  for (const [who, prefix] of [
    [s.alice, "alice"],
    [s.bob, "bob"],
  ]) {
    const api = who.client.api;
    assert.deepEqual(await api.get("/onboard/hello"), { onboarding: true });
    who.username = uniqueName(prefix);
    const user = await api.post("/onboard/complete", { username: who.username });
    assert.equal(user.username, who.username, JSON.stringify(user));
    assert.match(user.discriminator, /^\d{4}$/);
    assert.equal(user.relationship, "User");
    who.id = user._id;
    who.user = user;
    assert.deepEqual(await api.get("/onboard/hello"), { onboarding: false });
  }
});

step(CONNECT, { routes: ["GET /events"], needs: [ONBOARD] }, async () => {
  for (const who of [s.alice, s.bob]) {
    const c = who.client;
    c.configuration ??= await c.api.get("/");
    const ready = waitFor(c, "ready", () => true, 10000);
    c.connect();
    await ready;
    assert.equal(c.user?.id, who.id, "Ready lists the user itself with relationship User");
    assert.equal(c.user.username, who.username);
  }
});

step(SERVER, { routes: ["POST /servers/create", `POST /servers/${NOBODY}/channels`], needs: [CONNECT] }, async () => {
  const alice = s.alice.client;
  const server = await alice.servers.createServer({ name: "Ermine real clients" });
  assert.equal(server.ownerId, s.alice.id);
  assert.ok(server.channelIds.size >= 1, "a new server comes with a channel");
  // The permission calculator needs default_permissions as a number.
  assert.equal(typeof server.defaultPermissions, "number");
  const channel = await server.createChannel({ type: "Text", name: "talk" });
  assert.equal(channel.name, "talk");
  assert.equal(channel.serverId, server.id);
  // createChannel does not add the channel to its server: the
  // ServerUpdate {channels} event does, or it never shows in the sidebar.
  await until(() => server.channelIds.has(channel.id), "the ServerUpdate adding the channel");
  s.server = server.id;
  s.channel = channel.id;
});

step(
  JOIN,
  {
    routes: [`POST /channels/${NOBODY}/invites`, `GET /invites/${NOBODY}`, `POST /invites/${NOBODY}`],
    needs: [SERVER],
  },
  async () => {
    const alice = s.alice.client;
    const bob = s.bob.client;
    const invite = await alice.channels.get(s.channel).createInvite();
    assert.equal(invite.type, "Server", JSON.stringify(invite));
    assert.equal(invite.channel, s.channel);
    const code = invite._id;

    const info = await bob.api.get(`/invites/${code}`);
    assert.equal(info.type, "Server");
    assert.equal(info.server_id, s.server);
    assert.equal(info.channel_id, s.channel);
    assert.equal(info.user_name, s.alice.username);

    const joined = waitFor(alice, "serverMemberJoin", (m) => m.id.user === s.bob.id && m.id.server === s.server);
    const created = waitFor(bob, "serverCreate", (srv) => srv.id === s.server);
    const res = await bob.api.post(`/invites/${code}`);
    assert.equal(res.type, "Server");
    assert.equal(res.server._id, s.server);
    await Promise.all([joined, created]);
    assert.ok(bob.channels.get(s.channel), "the joining user's client knows the server's channels");
    assert.ok(bob.servers.get(s.server).channelIds.has(s.channel));
  },
);

step(MESSAGES, { routes: [`POST /channels/${NOBODY}/messages`], needs: [JOIN] }, async () => {
  const alice = s.alice.client;
  const bob = s.bob.client;
  const hello = `hello from revolt.js ${Date.now()}`;
  const atBob = waitFor(bob, "messageCreate", (m) => m.content === hello);
  const sent = await alice.channels.get(s.channel).sendMessage(hello);
  assert.equal(sent.content, hello);
  const [got] = await atBob;
  assert.equal(got.id, sent.id);
  assert.equal(got.channelId, s.channel);
  assert.equal(got.authorId, s.alice.id);
  // The event carries the author, so the client knows who wrote it.
  assert.equal(got.author?.username, s.alice.username);
  assert.ok(got.createdAt instanceof Date && !Number.isNaN(got.createdAt.getTime()), "ids are ULIDs");

  const reply = `hello back from stoat.js ${Date.now()}`;
  const atAlice = waitFor(alice, "messageCreate", (m) => m.content === reply);
  await bob.channels.get(s.channel).sendMessage(reply);
  const [back] = await atAlice;
  assert.equal(back.authorId, s.bob.id);
  assert.equal(back.author?.username, s.bob.username);
  s.message = sent.id;
});

step("edit a message", { routes: [`PATCH /channels/${NOBODY}/messages/${NOBODY}`], needs: [MESSAGES] }, async () => {
  const atBob = waitFor(s.bob.client, "messageUpdate", (m) => m.id === s.message && m.content === "edited by alice");
  const edited = await s.alice.client.messages.get(s.message).edit({ content: "edited by alice" });
  assert.equal(edited.content, "edited by alice", JSON.stringify(edited));
  assert.ok(edited.edited, "an edited message says when");
  const [m] = await atBob;
  assert.ok(m.editedAt instanceof Date);
});

step(
  "react and unreact",
  {
    routes: [
      `PUT /channels/${NOBODY}/messages/${NOBODY}/reactions/x`,
      `DELETE /channels/${NOBODY}/messages/${NOBODY}/reactions/x`,
    ],
    needs: [MESSAGES],
  },
  async () => {
    const emoji = "👍";
    const alice = s.alice.client;
    const bob = s.bob.client;
    const atBob = waitFor(bob, "messageReactionAdd", (m, user, e) => m.id === s.message && user === s.alice.id && e === emoji);
    // The contract answers 204, which revolt.js 7.2.0 cannot read.
    await revolt204(alice.messages.get(s.message).react(emoji));
    await atBob;
    const atAlice = waitFor(alice, "messageReactionAdd", (m, user) => m.id === s.message && user === s.bob.id);
    assert.equal(await bob.messages.get(s.message).react(emoji), null);
    await atAlice;
    assert.deepEqual([...alice.messages.get(s.message).reactions.get(emoji)].sort(), [s.alice.id, s.bob.id].sort());

    const removed = waitFor(alice, "messageReactionRemove", (m, user, e) => m.id === s.message && user === s.bob.id && e === emoji);
    assert.equal(await bob.messages.get(s.message).unreact(emoji), null);
    await removed;
    assert.deepEqual([...alice.messages.get(s.message).reactions.get(emoji)], [s.alice.id]);
  },
);

step("delete a message", { routes: [`DELETE /channels/${NOBODY}/messages/${NOBODY}`], needs: [MESSAGES] }, async () => {
  const alice = s.alice.client;
  const doomed = await alice.channels.get(s.channel).sendMessage("this one goes away");
  await until(() => s.bob.client.messages.get(doomed.id), "Bob's client to see the message");
  const atBob = waitFor(s.bob.client, "messageDelete", (m) => m.id === doomed.id);
  await revolt204(alice.messages.get(doomed.id).delete());
  await atBob;
  assert.equal(s.bob.client.messages.get(doomed.id), undefined);
});

step(
  "a webhook posts a message both libraries receive",
  { routes: [`POST /channels/${NOBODY}/webhooks`, `POST /webhooks/${NOBODY}/x`], needs: [MESSAGES] },
  async () => {
    const alice = s.alice.client;
    const bob = s.bob.client;
    const hook = await alice.api.post(`/channels/${s.channel}/webhooks`, { name: "Ermine CI" });
    assert.equal(hook.name, "Ermine CI", JSON.stringify(hook));
    assert.equal(hook.channel_id, s.channel);
    assert.match(hook.token, /^[A-Za-z0-9_-]{64}$/);

    // A CI job posts with the token alone, no session: a plain fetch.
    const text = `deployed ${Date.now()}`;
    const atAlice = waitFor(alice, "messageCreate", (m) => m.content === text);
    const atBob = waitFor(bob, "messageCreate", (m) => m.content === text);
    const res = await rawFetch(`${BASE}/webhooks/${hook.id}/${hook.token}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ content: text, embeds: [{ title: "Build", description: "all green", colour: "#0f890f" }] }),
    });
    assert.equal(res.status, 200);
    const sent = await res.json();
    assert.equal(sent.webhook?.name, "Ermine CI", JSON.stringify(sent));
    for (const [m] of await Promise.all([atAlice, atBob])) {
      assert.equal(m.id, sent._id);
      assert.equal(m.authorId, hook.id);
      assert.equal(m.webhook?.name, "Ermine CI");
      assert.equal(m.username, "Ermine CI", "clients show the webhook's name");
      assert.equal(m.embeds?.[0]?.title, "Build");
    }

    // revolt.js lists the channel's webhooks and edits one through its token.
    const listed = await alice.channels.get(s.channel).fetchWebhooks();
    const mine = listed.find((w) => w.id === hook.id);
    assert.ok(mine, "the new webhook is listed");
    await mine.edit({ name: "Ermine CD" });
    assert.equal(mine.name, "Ermine CD");

    // stoat.js finds it from its id and token, posts through it and deletes it.
    const found = await bob.channelWebhooks.fromToken(hook.id, hook.token);
    assert.equal(found.name, "Ermine CD");
    const again = `again ${Date.now()}`;
    const seen = waitFor(bob, "messageCreate", (m) => m.content === again);
    await rawFetch(`${BASE}/webhooks/${hook.id}/${hook.token}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ content: again }),
    });
    const [m] = await seen;
    assert.equal(m.webhook?.name, "Ermine CD");
    await found.delete();
    const gone = await rawFetch(`${BASE}/webhooks/${hook.id}/${hook.token}`);
    assert.equal(gone.status, 404);
  },
);

step("a link gets a preview both libraries show, its image through the proxy", { needs: [MESSAGES] }, async () => {
  const alice = s.alice.client;
  const bob = s.bob.client;
  for (const c of [alice, bob]) {
    assert.equal(c.configuration?.features?.january?.enabled, true, "features.january is advertised");
  }
  // A site on loopback, which the suite's Ermine is configured to allow.
  const png = Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAADUlEQVR4nGP4zwAE/wEHAAH/4iOeWQAAAABJRU5ErkJggg==",
    "base64",
  );
  const site = createServer((req, res) => {
    if (req.url === "/page") {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      res.end('<html><head><meta property="og:title" content="Ermine preview"><meta property="og:image" content="/pic.png"></head></html>');
    } else if (req.url === "/pic.png") {
      res.writeHead(200, { "Content-Type": "image/png" });
      res.end(png);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((resolve) => site.listen(0, "127.0.0.1", resolve));
  try {
    const text = `have a look: http://127.0.0.1:${site.address().port}/page`;
    const previewed = (c) =>
      waitFor(c, "messageUpdate", (m) => m.content === text && (m.embeds ?? []).some((e) => e.type === "Website"), 15000);
    const atAlice = previewed(alice);
    const atBob = previewed(bob);
    const sent = await alice.channels.get(s.channel).sendMessage(text);
    for (const [m] of await Promise.all([atAlice, atBob])) {
      assert.equal(m.id, sent.id);
      const e = m.embeds.find((x) => x.type === "Website");
      assert.equal(e.title, "Ermine preview");
      assert.equal(e.image?.width, 2, "the image was probed for its size");
      const proxied = e.image.proxiedURL;
      assert.ok(proxied.includes("/january/proxy?url="), proxied);
      const res = await rawFetch(proxied);
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^image\/(jpeg|png)$/);
    }
  } finally {
    site.close();
  }
});

const FRIENDS = "friend request and acceptance";

step(
  FRIENDS,
  { routes: [`GET /users/${NOBODY}`, "POST /users/friend", `PUT /users/${NOBODY}/friend`], needs: [CONNECT] },
  async () => {
    const alice = s.alice.client;
    const bob = s.bob.client;
    // Strangers cannot fetch each other: Alice knows Bob's name#tag and
    // her client holds his user as Bob's onboarding returned it.
    const bobSeenByAlice = alice.users.getOrCreate(s.bob.id, { ...s.bob.user, relationship: "None" });
    // revolt.js sends {username: "name#1234"} to POST /users/friend.
    const outgoing = await bobSeenByAlice.addFriend();
    assert.equal(outgoing.id, s.bob.id);
    // addFriend returns the cached user; the route's answer and the
    // UserRelationship event bring the new status to it.
    await until(() => bobSeenByAlice.relationship === "Outgoing", "Alice's client to see the request");
    // The request lets Bob see Alice.
    const aliceSeenByBob = await bob.users.fetch(s.alice.id);
    assert.equal(aliceSeenByBob.username, s.alice.username);
    // Bob's client may hold Alice already (they share a server), so the
    // status arrives with the UserRelationship event on his own socket.
    await until(() => aliceSeenByBob.relationship === "Incoming", "Bob's client to see the request");

    const accepted = await bob.api.put(`/users/${s.alice.id}/friend`);
    assert.equal(accepted.relationship, "Friend");
    // UserRelationship reaches Alice with Bob as she sees him now.
    await until(() => bobSeenByAlice.relationship === "Friend", "Alice's client to see the friendship");
    await until(() => aliceSeenByBob.relationship === "Friend", "Bob's client to see the friendship");
  },
);

step(
  "direct messages",
  { routes: [`GET /users/${NOBODY}/dm`, `POST /channels/${NOBODY}/messages`], needs: [FRIENDS] },
  async () => {
    const alice = s.alice.client;
    const bob = s.bob.client;
    const dm = await alice.users.get(s.bob.id).openDM();
    assert.equal(dm.type, "DirectMessage");
    await until(() => bob.channels.get(dm.id), "the DM's ChannelCreate at Bob");
    const text = `psst ${Date.now()}`;
    const atBob = waitFor(bob, "messageCreate", (m) => m.content === text);
    await dm.sendMessage(text);
    const [got] = await atBob;
    assert.equal(got.channelId, dm.id);
    assert.equal(got.authorId, s.alice.id);
    const answer = `hi ${Date.now()}`;
    const atAlice = waitFor(alice, "messageCreate", (m) => m.content === answer);
    await bob.channels.get(dm.id).sendMessage(answer);
    await atAlice;
  },
);

step("an upload used as an attachment", { routes: [`POST /channels/${NOBODY}/messages`], needs: [JOIN] }, async (t) => {
  const bob = s.bob.client;
  const autumn = bob.configuration.features.autumn.url;
  if (!(await needs(t, `POST ${autumn}/attachments`))) return;
  const content = `hello from an Ermine upload ${Date.now()}\n`;
  // stoat.js uploads multipart "file" with the auth header and reads {id}.
  const id = await bob.uploadFile("attachments", new File([content], "hello.txt", { type: "text/plain" }));
  assert.equal(typeof id, "string", "the upload answers {id}");

  const atAlice = waitFor(s.alice.client, "messageCreate", (m) => m.attachments?.length === 1);
  await bob.channels.get(s.channel).sendMessage({ content: "a file", attachments: [id] });
  const [m] = await atAlice;
  const file = m.attachments[0];
  assert.equal(file.id, id);
  assert.equal(file.filename, "hello.txt");
  assert.equal(file.size, Buffer.byteLength(content));
  // Downloads are plain GETs, as revolt.js and stoat.js build them.
  for (const url of [file.url, file.downloadURL, bob.messages.get(m.id).attachments[0].originalUrl]) {
    const res = await rawFetch(url);
    assert.equal(res.status, 200, url);
    assert.equal(await res.text(), content, url);
  }
});

step(
  "roles and a channel permission override that takes effect",
  {
    routes: [
      `POST /servers/${NOBODY}/roles`,
      `PATCH /servers/${NOBODY}/members/${NOBODY}`,
      `PUT /channels/${NOBODY}/permissions/${NOBODY}`,
    ],
    needs: [MESSAGES],
  },
  async () => {
    const alice = s.alice.client;
    const bob = s.bob.client;
    const server = alice.servers.get(s.server);
    const role = await server.createRole("quiet");
    assert.equal(role.role.name, "quiet", JSON.stringify(role));
    // stoat.js builds a ServerRole from each role: it needs permissions {a, d}.
    await until(() => bob.servers.get(s.server).roles?.get(role.id)?.name === "quiet", "the ServerRoleUpdate at Bob");

    const member = await alice.api.patch(`/servers/${s.server}/members/${s.bob.id}`, { roles: [role.id] });
    assert.deepEqual(member.roles, [role.id], JSON.stringify(member));
    await until(
      () => bob.serverMembers.getByKey({ server: s.server, user: s.bob.id })?.roles?.includes(role.id),
      "the ServerMemberUpdate at Bob",
    );

    const bobChannel = bob.channels.get(s.channel);
    assert.ok(bobChannel.havePermission("SendMessage"));
    const updated = await alice.channels.get(s.channel).setPermissions(role.id, { allow: 0, deny: SEND_MESSAGE });
    assert.deepEqual(updated.role_permissions?.[role.id], { a: 0, d: SEND_MESSAGE }, JSON.stringify(updated));
    await until(() => !bobChannel.havePermission("SendMessage"), "Bob's client to apply the override (ChannelUpdate)");
    await assert.rejects(bobChannel.sendMessage("am I muted?"), (err) => {
      const e = stoatError(err);
      return e.type === "MissingPermission" && e.permission === "SendMessage";
    });

    await alice.channels.get(s.channel).setPermissions(role.id, { allow: 0, deny: 0 });
    await until(() => bobChannel.havePermission("SendMessage"), "the override's removal at Bob");
    const text = `allowed again ${Date.now()}`;
    const atAlice = waitFor(alice, "messageCreate", (m) => m.content === text);
    await bobChannel.sendMessage(text);
    await atAlice;
  },
);

step(BOT, { routes: ["POST /bots/create", "GET /events"], needs: [CONNECT] }, async () => {
  const name = uniqueName("bot");
  const bot = await s.alice.client.api.post("/bots/create", { name });
  assert.equal(bot.owner, s.alice.id, JSON.stringify(bot));
  assert.equal(bot.user.username, name);
  assert.equal(bot.user.bot?.owner, s.alice.id);
  assert.match(bot.token, /^[A-Za-z0-9_-]+$/);

  // loginBot fetches GET /, sends X-Bot-Token and connects.
  const c = client(RevoltClient, "bot");
  const ready = waitFor(c, "ready", () => true, 10000);
  await c.loginBot(bot.token);
  await ready;
  assert.equal(c.user?.id, bot._id);
  assert.equal(c.user.bot?.owner, s.alice.id);
  const self = await c.api.get("/users/@me");
  assert.equal(self._id, bot._id, JSON.stringify(self));
  s.bot = { id: bot._id, client: c };
});

step("the bot joins the server and talks", { routes: [`POST /bots/${NOBODY}/invite`], needs: [BOT, MESSAGES] }, async () => {
  const bot = s.bot.client;
  const joined = waitFor(bot, "serverCreate", (srv) => srv.id === s.server);
  // 204 again: the revolt.js SyntaxError is the expected outcome.
  await revolt204(s.alice.client.api.post(`/bots/${s.bot.id}/invite`, { server: s.server }));
  await joined;
  const text = `beep ${Date.now()}`;
  const atAlice = waitFor(s.alice.client, "messageCreate", (m) => m.content === text);
  await bot.channels.get(s.channel).sendMessage(text);
  const [m] = await atAlice;
  assert.equal(m.authorId, s.bot.id);
  assert.ok(m.author?.bot, "the author is a bot");
});

step(
  "an ephemeral bot message reaches only its user (reference pull request #929)",
  { routes: [`POST /channels/${NOBODY}/messages`], needs: ["the bot joins the server and talks"] },
  async () => {
    const text = `for bob only ${Date.now()}`;
    const atBob = waitFor(s.bob.client, "messageCreate", (m) => m.content === text);
    // revolt.js passes the body through: the library knows no ephemeral
    // field, the server does.
    const atAlice = waitFor(s.alice.client, "messageCreate", (m) => m.content === text, 1500).then(
      () => assert.fail("Alice got Bob's ephemeral message"),
      () => {},
    );
    const sent = await s.bot.client.channels.get(s.channel).sendMessage({ content: text, ephemeral: s.bob.id });
    assert.equal(sent.content, text);
    const [m] = await atBob;
    assert.equal(m.authorId, s.bot.id);
    await atAlice;
    // History: Bob's shows it, Alice's does not.
    const bobs = await s.bob.client.api.get(`/channels/${s.channel}/messages`, { limit: 10 });
    assert.ok(bobs.some((x) => x.content === text && x.ephemeral === s.bob.id), "Bob's history lacks it");
    const alices = await s.alice.client.api.get(`/channels/${s.channel}/messages`, { limit: 10 });
    assert.ok(!alices.some((x) => x.content === text), "Alice's history shows it");
  },
);

step("the mentions inbox (reference pull request #715)", { routes: ["GET /users/@me/notifications"], needs: [MESSAGES] }, async () => {
  const text = `hey <@${s.bob.id}> ${Date.now()}`;
  const atBob = waitFor(s.bob.client, "messageCreate", (m) => m.content === text);
  await s.alice.client.channels.get(s.channel).sendMessage(text);
  await atBob;
  // Neither library has a method for it: its API client calls the route.
  const inbox = await s.bob.client.api.get("/users/@me/notifications");
  assert.equal(inbox.messages[0]?.content, text, JSON.stringify(inbox).slice(0, 500));
  assert.ok(inbox.users.some((u) => u._id === s.alice.id), "the inbox lacks the author");
  const none = await s.alice.client.api.get("/users/@me/notifications");
  assert.ok(!none.messages.some((x) => x.content === text), "Alice's inbox holds Bob's mention");
});

step(
  "revoke a session with an MFA ticket (reference HEAD; stoat.js 7.3.7 sends it)",
  { routes: ["PUT /auth/mfa/ticket", `DELETE /auth/session/${NOBODY}`], needs: [REGISTER] },
  async () => {
    const api = s.bob.client.api;
    const extra = await api.post("/auth/session/login", { email: s.bob.email, password: PASSWORD, friendly_name: "spare" });
    assert.equal(extra.result, "Success", JSON.stringify(extra));
    // stoat.js's own MFA classes make the ticket; its HTTP layer carries it.
    const ticket = await (await s.bob.client.account.mfa()).createTicket({ password: PASSWORD });
    assert.ok(ticket.token, "a validated ticket");
    const withTicket = { headers: { "X-MFA-Ticket": ticket.token } };
    assert.equal(await api.delete(`/auth/session/${extra._id}`, undefined, withTicket), null);
    const left = await api.get("/auth/session/all");
    assert.ok(!left.some((x) => x._id === extra._id), "the revoked session is still listed");
    // The ticket was used up.
    const other = await api.post("/auth/session/login", { email: s.bob.email, password: PASSWORD, friendly_name: "spare2" });
    await assert.rejects(api.delete(`/auth/session/${other._id}`, undefined, withTicket));
    assert.equal(await api.delete(`/auth/session/${other._id}`), null, "without MFA no ticket is needed");
  },
);

step("typing indicators", { needs: [JOIN] }, async () => {
  const alice = s.alice.client;
  const bobChannel = s.bob.client.channels.get(s.channel);
  const started = waitFor(alice, "channelStartTyping", (ch, user) => ch.id === s.channel && user?.id === s.bob.id);
  bobChannel.startTyping();
  await started;
  const stopped = waitFor(alice, "channelStopTyping", (ch, user) => ch.id === s.channel && user?.id === s.bob.id, 3000);
  bobChannel.stopTyping();
  await stopped;
});

step("a reconnect gets a fresh Ready and events again", { needs: [MESSAGES] }, async () => {
  const alice = s.alice.client;
  const disconnected = waitFor(alice, "disconnected");
  const ready = waitFor(alice, "ready", () => true, 15000);
  // Drop the socket: the library reconnects on its own and is sent a
  // whole new Ready (a second Ready on one socket would make it throw).
  alice.events.disconnect();
  await disconnected;
  await ready;
  assert.ok(alice.servers.get(s.server), "the server is still known after the new Ready");
  const text = `after the reconnect ${Date.now()}`;
  const atAlice = waitFor(alice, "messageCreate", (m) => m.content === text);
  await s.bob.client.channels.get(s.channel).sendMessage(text);
  await atAlice;
});
