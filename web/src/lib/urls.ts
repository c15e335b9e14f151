// Which addresses a link or image may point at.

/** url when it is an http(s) address, else undefined (javascript:, data: and the like). */
export function safeURL(url?: string): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === "https:" || u.protocol === "http:" ? u.href : undefined;
  } catch {
    return undefined;
  }
}


/**
 * The address a message link may open: http, https or mailto, in the
 * URL parser's normal form (quotes, spaces and angle brackets are
 * percent-encoded, so it cannot break out of an attribute); anything
 * else (javascript:, data:, vbscript:, relative paths) gives undefined.
 */
export function safeLink(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return undefined;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:" && u.protocol !== "mailto:") return undefined;
  if ((u.protocol === "http:" || u.protocol === "https:") && !u.hostname) return undefined;
  return u.href;
}

/** Whether href leaves the instance (another origin than origin): the client asks first. */
export function leavesInstance(href: string, origin: string): boolean {
  try {
    return new URL(href).origin !== new URL(origin).origin;
  } catch {
    return true;
  }
}
