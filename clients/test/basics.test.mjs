// What every client relies on before it logs in: GET / read through each
// library's HTTP layer, error bodies as each library sees them, the
// rate-limit headers and 429, CORS for browser clients.

import assert from "node:assert/strict";
import { test } from "node:test";
import { API as RevoltAPI } from "revolt-api";
import { API as StoatAPI } from "stoat-api";
import { Client as RevoltClient } from "revolt.js";
import { Client as StoatClient } from "stoat.js";
import { BASE, NOBODY, http, needs, rawFetch, stoatError } from "./lib.mjs";

function checkConfiguration(config) {
  assert.equal(typeof config.revolt, "string");
  // revolt.js appends "?version=1&format=json&token=…" to ws as a string.
  assert.match(config.ws, /^wss?:\/\/[^?#]+$/);
  assert.equal(new URL(config.ws).host, new URL(BASE).host);
  assert.equal(config.features.autumn.enabled, true);
  assert.match(config.features.autumn.url, /^https?:\/\//);
  assert.equal(typeof config.features.january.enabled, "boolean");
  assert.equal(typeof config.features.captcha.enabled, "boolean");
  assert.equal(typeof config.features.email, "boolean");
  assert.equal(typeof config.features.invite_only, "boolean");
}

test("GET / through revolt-api and stoat-api", async () => {
  checkConfiguration(await new RevoltAPI({ baseURL: BASE }).get("/"));
  checkConfiguration(await new StoatAPI({ baseURL: BASE }).get("/"));
});

test("GET / through the Client classes, also under /api and /0.8", async () => {
  for (const base of [BASE, `${BASE}/api`, `${BASE}/0.8`]) {
    const revolt = new RevoltClient({ baseURL: base });
    checkConfiguration(await revolt.api.get("/"));
    const stoat = new StoatClient({ baseURL: base });
    checkConfiguration(await stoat.api.get("/"));
  }
});

test("error bodies as the libraries see them", async () => {
  // revolt-api 0.8.5-1 ignores the status and returns the error JSON.
  const revolt = await new RevoltAPI({ baseURL: BASE }).get("/no/such/route");
  assert.equal(revolt.type, "NotFound");
  assert.equal(typeof revolt.location, "string");
  // stoat-api throws the raw error text.
  await assert.rejects(new StoatAPI({ baseURL: BASE }).get("/no/such/route"), (err) => {
    assert.equal(stoatError(err).type, "NotFound");
    return true;
  });
});

test("an authenticated route without a token answers 401 NotAuthenticated", async (t) => {
  if (!(await needs(t, "GET /users/@me"))) return;
  await assert.rejects(new StoatAPI({ baseURL: BASE }).get("/users/@me"), (err) => {
    assert.equal(stoatError(err).type, "NotAuthenticated");
    return true;
  });
  const res = await http("GET", "/users/@me", { token: "not-a-session-token" });
  assert.equal(res.status, 401);
  assert.equal(res.json.type, "InvalidSession");
});

test("rate-limit headers on every response, as integers", async () => {
  for (const path of ["/", "/no/such/route", `/servers/${NOBODY}`]) {
    const res = await rawFetch(BASE + path);
    await res.arrayBuffer();
    for (const name of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset-After"]) {
      // revoltgo parses them with strconv.Atoi.
      assert.match(res.headers.get(name) ?? "", /^\d+$/, `${path}: ${name}`);
    }
    assert.ok(res.headers.get("X-RateLimit-Bucket"), `${path}: X-RateLimit-Bucket`);
  }
});

test("a spent bucket answers 429 with retry_after in milliseconds", async () => {
  // /servers allows 5 calls per 10 s per server: a server id of its own
  // keeps this from touching the window of any other test.
  const path = `/servers/${NOBODY.slice(0, 20)}${Date.now().toString(36).toUpperCase().slice(-6)}`;
  let last;
  for (let i = 0; i < 6; i++) {
    last = await rawFetch(BASE + path);
    if (i < 5) {
      assert.notEqual(last.status, 429, `call ${i + 1} was refused`);
      assert.equal(last.headers.get("X-RateLimit-Remaining"), String(4 - i));
      await last.arrayBuffer();
    }
  }
  assert.equal(last.status, 429);
  const body = await last.json();
  assert.ok(Number.isInteger(body.retry_after) && body.retry_after > 0 && body.retry_after <= 10000, JSON.stringify(body));
  assert.equal(last.headers.get("X-RateLimit-Remaining"), "0");
  const reset = Number(last.headers.get("X-RateLimit-Reset-After"));
  assert.ok(Number.isInteger(reset) && reset > 0 && reset <= 10000, `Reset-After ${reset}`);
});

test("CORS: preflight and exposed headers for browser clients", async () => {
  const pre = await rawFetch(`${BASE}/users/@me`, {
    method: "OPTIONS",
    headers: {
      Origin: "https://app.example.com",
      "Access-Control-Request-Method": "PATCH",
      "Access-Control-Request-Headers": "x-session-token, content-type",
    },
  });
  assert.ok(pre.status === 204 || pre.status === 200, `preflight status ${pre.status}`);
  const origin = pre.headers.get("Access-Control-Allow-Origin");
  assert.ok(origin === "*" || origin === "https://app.example.com", `Allow-Origin ${origin}`);
  const methods = pre.headers.get("Access-Control-Allow-Methods") ?? "";
  for (const m of ["GET", "POST", "PUT", "PATCH", "DELETE"]) assert.ok(methods.includes(m), `Allow-Methods ${methods}`);
  const allowed = (pre.headers.get("Access-Control-Allow-Headers") ?? "").toLowerCase();
  for (const h of ["x-session-token", "x-bot-token", "content-type", "idempotency-key"]) {
    assert.ok(allowed.includes(h), `Allow-Headers ${allowed} lacks ${h}`);
  }
  const res = await rawFetch(`${BASE}/`, { headers: { Origin: "https://app.example.com" } });
  await res.arrayBuffer();
  const exposed = (res.headers.get("Access-Control-Expose-Headers") ?? "").toLowerCase();
  for (const h of ["x-ratelimit-limit", "x-ratelimit-bucket", "x-ratelimit-remaining", "x-ratelimit-reset-after"]) {
    assert.ok(exposed.includes(h), `Expose-Headers ${exposed} lacks ${h}`);
  }
});

test("JSON bodies are read whatever the Content-Type, unknown fields ignored", async (t) => {
  if (!(await needs(t, "POST /auth/session/login"))) return;
  // The libraries send no Content-Type (fetch makes it text/plain);
  // revolt.py adds "nonce" and for-web "captcha": null to every body.
  const res = await http("POST", "/auth/session/login", {
    body: JSON.stringify({ email: "nobody@ermine.test", password: "wrong password", nonce: "x", captcha: null }),
    headers: { "Content-Type": "text/plain;charset=UTF-8" },
  });
  assert.equal(res.status, 401, res.text);
  assert.equal(res.json.type, "InvalidCredentials");
});
