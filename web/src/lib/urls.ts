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

