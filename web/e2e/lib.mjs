// What the end-to-end scripts share: Chromium as they launch it, and the
// API as a client library calls it.

import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";
import path from "node:path";

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
