// Shared helpers of the real-client tests: the server address, raw HTTP,
// route probing, rate-limit tolerance, event waiting and users.
//
// The tests run against the Ermine named by ERMINE_URL (clients_test.go
// builds and starts one). A test first asks `needs(t, "METHOD /path", ...)`:
// a route the server does not know answers
// {"type":"NotFound"|"MethodNotAllowed","location":"router"}. Run by hand
// against an older server, such a test is skipped naming the route; in CI
// (CI set) every route these tests use must exist, so a missing one fails
// the test instead, and so does a step whose earlier step did not complete.

import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import WebSocket from "ws";

// Node 20 has no global WebSocket; both libraries use the global one.
globalThis.WebSocket ??= WebSocket;

/** API base URL of the server under test, without a trailing slash. */
export const BASE = (process.env.ERMINE_URL ?? "").replace(/\/$/, "");
if (!BASE) {
  throw new Error("ERMINE_URL is not set: run these tests through `go test ./clients/`");
}

/** The fetch of the platform, which never retries. */
export const rawFetch = globalThis.fetch;

/** How many requests were retried after a 429, for the diagnostics. */
export const retried = { count: 0, waitedMs: 0 };

// The seed's rate limits are tight (3 calls per 10 s on /auth, 5 per
// server on /servers) and no client library retries a 429. So that a test
// measures behaviour and not the window, every fetch the libraries make
// waits out a 429 and repeats the request; the rate-limit tests use
// rawFetch to see the 429 itself.
globalThis.fetch = async function fetchRetrying(input, init) {
  for (let attempt = 0; ; attempt++) {
    const res = await rawFetch(input, init);
    if (res.status !== 429 || attempt >= 5) return res;
    const body = await res.clone().json().catch(() => ({}));
    const ms = Number(body.retry_after ?? res.headers.get("X-RateLimit-Reset-After") ?? 1000);
    retried.count++;
    retried.waitedMs += ms + 50;
    await sleep(ms + 50);
  }
};

/**
 * Sends a request with the retrying fetch and reads the whole answer.
 * @returns {Promise<{status:number, headers:Headers, text:string, json:any}>}
 */
export async function http(method, path, { body, token, bot, headers = {}, fetchImpl = globalThis.fetch } = {}) {
  const h = { ...headers };
  if (token) h["X-Session-Token"] = token;
  if (bot) h["X-Bot-Token"] = bot;
  const url = path.startsWith("http") ? path : BASE + path;
  const init = { method, headers: h };
  if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
  const res = await fetchImpl(url, init);
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

const probes = new Map();

/**
 * Reports whether the server has a route. route is "METHOD /path" with
 * any ids filled in (they need not exist), or "METHOD http://…" for the
 * file service. The request carries no token and an empty JSON body, so
 * it changes nothing.
 */
export function implemented(route) {
  if (!probes.has(route)) {
    const [method, path] = route.split(" ");
    const body = method === "GET" || method === "HEAD" ? undefined : "{}";
    probes.set(
      route,
      http(method, path, { body }).then(
        (res) =>
          !(
            (res.status === 404 || res.status === 405) &&
            res.json?.location === "router" &&
            ["NotFound", "MethodNotAllowed"].includes(res.json?.type)
          ),
      ),
    );
  }
  return probes.get(route);
}

/** Whether the suite runs in CI, where nothing may be skipped. */
export const strict = !!process.env.CI;

/**
 * Skips the test (fails it in CI) and returns false: nothing of the test
 * after this runs.
 */
function skipOrFail(t, why) {
  if (strict) assert.fail(`${why} (CI is set: the suite skips nothing)`);
  t.skip(why);
  return false;
}

/**
 * Skips the test (fails it in CI) when one of the routes is missing and
 * reports whether all are there:
 * `if (!(await needs(t, "GET /users/@me"))) return;`.
 */
export async function needs(t, ...routes) {
  for (const route of routes) {
    if (!(await implemented(route))) {
      return skipOrFail(t, `route ${route} answers the router's 404: not implemented`);
    }
  }
  return true;
}

/**
 * Skips the test (fails it in CI) when an earlier step it builds on did
 * not complete, and reports whether all did. Earlier steps that failed
 * fail the suite themselves; those that were skipped name the missing
 * route.
 */
export function requires(t, state, ...steps) {
  for (const step of steps) {
    if (!state.done.has(step)) {
      return skipOrFail(t, `needs the earlier step "${step}", which did not complete`);
    }
  }
  return true;
}

/** A placeholder id for probes: a well-formed ULID nothing has. */
export const NOBODY = "01ARZ3NDEKTSV4RRFFQ69G5FAV";

/**
 * Resolves with the arguments of the first `event` emitted by emitter for
 * which pred returns true, or rejects after ms.
 */
export function waitFor(emitter, event, pred = () => true, ms = 5000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      emitter.off(event, listener);
      reject(new Error(`no ${event} event within ${ms} ms`));
    }, ms);
    const listener = (...args) => {
      let ok = false;
      try {
        ok = pred(...args);
      } catch (err) {
        clearTimeout(timer);
        emitter.off(event, listener);
        reject(err);
        return;
      }
      if (ok) {
        clearTimeout(timer);
        emitter.off(event, listener);
        resolve(args);
      }
    };
    emitter.on(event, listener);
  });
}

/** Polls cond every 25 ms until it is truthy or ms pass. */
export async function until(cond, what, ms = 5000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(25);
  }
}

/**
 * Awaits a revolt.js 7.2.0 call to a route the contract answers with 204.
 * Its HTTP layer (revolt-api 0.8.5-1) calls .json() on every response, so
 * an empty 204 rejects with exactly a SyntaxError: that is the expected
 * outcome. Resolving means the server sent a body (the error JSON, which
 * that library returns as data, or a wrong 200).
 */
export async function revolt204(promise) {
  let value;
  try {
    value = await promise;
  } catch (err) {
    assert.ok(
      err instanceof SyntaxError,
      `want the SyntaxError revolt.js raises on an empty 204, got ${err?.stack ?? err}`,
    );
    return;
  }
  assert.fail(`want an empty 204 (a SyntaxError in revolt.js 7.2.0), got a body: ${JSON.stringify(value)}`);
}

/** Parses what stoat-api throws for an error status (the raw body text). */
export function stoatError(err) {
  if (typeof err !== "string") throw err;
  return JSON.parse(err);
}

let serial = 0;

/** A unique lower-case name for this run, e.g. "alice_k2x1". */
export function uniqueName(prefix) {
  serial++;
  return `${prefix}_${Date.now().toString(36).slice(-4)}${serial}`;
}

/** Fails with the server's error when a revolt-api result is an error body. */
export function ok(value, what) {
  if (value && typeof value === "object" && typeof value.type === "string" && value.location !== undefined) {
    assert.fail(`${what}: the server answered an error: ${JSON.stringify(value)}`);
  }
  return value;
}
