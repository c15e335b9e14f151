// What the end-to-end scripts share: Chromium as they launch it, and the
// API as a client library calls it.

import { chromium } from "playwright-core";
import { createHmac } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { deflateSync } from "node:zlib";

/** Debian's Chromium (CHROMIUM, default /usr/bin/chromium), headless, with extra flags. */
export function launch(extraArgs = []) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      ...extraArgs,
    ],
  });
}

/**
 * A function making requests to the API at base as a client library
 * does: JSON bodies, the session token header, the parsed answer; it
 * waits out a 429 (the auth routes allow 3 in 10 s) and throws on any
 * other error.
 */
export function apiAt(base) {
  return async function api(method, route, body, token, headers = {}) {
    for (;;) {
      const res = await fetch(base + route, {
        method,
        headers: { "content-type": "application/json", ...(token ? { "x-session-token": token } : {}), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status === 429) {
        await new Promise((r) => setTimeout(r, JSON.parse(text).retry_after + 50));
        continue;
      }
      if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text}`);
      return text ? JSON.parse(text) : null;
    }
  };
}

/**
 * Reports a failed run: the error, the page errors seen, and a screenshot
 * of each page ({name, page}) in dir (SCREENSHOTS), named prefix + name.
 */
export async function reportFailure(err, pages, pageErrors, dir, prefix = "") {
  console.error(`FAILED: ${err?.stack ?? err}`);
  if (pageErrors.length) console.error(`page errors:\n${pageErrors.join("\n")}`);
  mkdirSync(dir, { recursive: true });
  for (const { name, page } of pages) {
    const file = path.join(dir, `${prefix}${name}.png`);
    await page.screenshot({ path: file, fullPage: true }).catch(() => {});
    console.error(`screenshot: ${file}`);
  }
}

// ---------------------------------------------------------------------
// Acting as a person: controls are found only by their role and
// accessible name, and a step fails when a person could not do it: the
// control has no size, is hidden or transparent, lies outside the
// window, is clipped by a scrolling or overflow-hidden ancestor, is only
// reachable by scrolling sideways, or something else is drawn over the
// point that would be clicked (document.elementFromPoint).

const SEEN_TIMEOUT = 10_000;

/**
 * The control of a role and accessible name in scope (a page or a
 * locator). "password" is a password field by its label's name (ARIA
 * gives such a field no role).
 */
export function control(scope, role, name, options = {}) {
  if (role === "password") return scope.getByLabel(name, { exact: true, ...options }).and(scope.locator('input[type="password"]')).first();
  return scope.getByRole(role, { name, ...options }).first();
}

/**
 * Why a person could not use el, or "" when they can. Runs in the page.
 * A label drawn over its own control (a checkbox inside a label) counts
 * as the control.
 */
function whyNotSeen(el) {
  const describe = (e) => {
    if (!e) return "nothing";
    const label = e.getAttribute("aria-label") || e.textContent?.trim().slice(0, 40) || "";
    return `<${e.tagName.toLowerCase()}${e.className && typeof e.className === "string" ? ` class="${e.className}"` : ""}>${label ? ` "${label}"` : ""}`;
  };
  el.scrollIntoView({ block: "nearest", inline: "nearest" });
  const r = el.getBoundingClientRect();
  if (r.width < 2 || r.height < 2) return `has no size (${r.width}×${r.height})`;
  for (let e = el; e; e = e.parentElement) {
    const s = getComputedStyle(e);
    if (s.display === "none") return `is not displayed (${describe(e)} has display: none)`;
    if (Number(s.opacity) < 0.1) return `is transparent (${describe(e)} has opacity ${s.opacity})`;
  }
  if (getComputedStyle(el).visibility !== "visible") return "is hidden (visibility)";
  const x = r.left + r.width / 2;
  const y = r.top + r.height / 2;
  if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return `is outside the window (centre at ${Math.round(x)},${Math.round(y)})`;
  for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
    const s = getComputedStyle(p);
    if (s.overflowX === "visible" && s.overflowY === "visible") continue;
    const pr = p.getBoundingClientRect();
    if (x < pr.left || x > pr.right || y < pr.top || y > pr.bottom) return `is clipped by ${describe(p)}`;
    if (p.scrollLeft > 0) return `is only reachable by scrolling ${describe(p)} sideways`;
  }
  if ((document.scrollingElement?.scrollLeft ?? 0) > 0) return "is only reachable by scrolling the page sideways";
  const hit = document.elementFromPoint(x, y);
  if (!hit) return "has nothing drawn at its centre";
  if (hit === el || el.contains(hit)) return "";
  const label = hit.closest("label");
  if (label && (label.control === el || label.contains(el))) return "";
  return `is covered by ${describe(hit)} at ${Math.round(x)},${Math.round(y)}`;
}

/** Waits until a person could use the locator's element; throws saying why not. */
export async function seen(locator, what = String(locator), timeout = SEEN_TIMEOUT) {
  await locator.waitFor({ state: "attached" });
  const deadline = Date.now() + timeout;
  for (;;) {
    const why = await locator.evaluate(whyNotSeen).catch((err) => `cannot be inspected (${err.message})`);
    if (!why) return locator;
    if (Date.now() > deadline) throw new Error(`${what} ${why}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Clicks the visible control of role and name in scope. */
export async function click(scope, role, name, options = {}) {
  const c = control(scope, role, name, options);
  await seen(c, `${role} "${name}"`);
  await c.click();
  return c;
}

/** Types text into the visible text box (or other role) named name. */
export async function fill(scope, name, text, role = "textbox", options = {}) {
  const c = control(scope, role, name, options);
  await seen(c, `${role} "${name}"`);
  await c.fill(text);
  return c;
}

/** Presses a key in the visible text box named name. */
export async function press(scope, name, key, role = "textbox", options = {}) {
  const c = control(scope, role, name, options);
  await seen(c, `${role} "${name}"`);
  await c.press(key);
  return c;
}

/** Checks or unchecks the visible checkbox named name. */
export async function check(scope, name, on = true, options = {}) {
  const c = control(scope, "checkbox", name, options);
  await seen(c, `checkbox "${name}"`);
  await (on ? c.check() : c.uncheck());
  return c;
}

/** Chooses an option in the visible select (combobox) named name. */
export async function select(scope, name, value, options = {}) {
  const c = control(scope, "combobox", name, options);
  await seen(c, `combobox "${name}"`);
  await c.selectOption(value);
  return c;
}

/**
 * Uploads files as a person does: clicks the visible button named name
 * and answers the file chooser it opens.
 */
export async function upload(page, scope, name, files, role = "button") {
  const chooser = page.waitForEvent("filechooser");
  await click(scope, role, name);
  await (await chooser).setFiles(files);
}

/** Points at el (a locator) so that controls shown on hover appear. */
export async function hover(locator) {
  await locator.scrollIntoViewIfNeeded();
  await locator.hover();
  return locator;
}

/** The TOTP code (RFC 6238: SHA-1, 6 digits, 30 s) of a base32 secret at a time. */
export function totp(secret, at = Date.now()) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const ch of secret.replace(/=+$/, "").toUpperCase()) bits += alphabet.indexOf(ch).toString(2).padStart(5, "0");
  const key = Buffer.from(bits.match(/.{8}/g).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 1000 / 30)));
  const mac = createHmac("sha1", key).update(counter).digest();
  const o = mac[mac.length - 1] & 0xf;
  return String((mac.readUInt32BE(o) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}

/** A PNG of w×h pixels in a colour gradient, made here (no fixture file). */
export function png(w, h) {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const raw = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) {
    raw[y * (w * 3 + 1)] = 0;
    for (let x = 0; x < w; x++) {
      const o = y * (w * 3 + 1) + 1 + x * 3;
      raw[o] = (x * 255) / w;
      raw[o + 1] = (y * 255) / h;
      raw[o + 2] = 160;
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
