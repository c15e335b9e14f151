// The one place errors are turned into words and handled: what the
// API throws (stoat-api throws the error body's text), rate limits waited
// out, and guard() for a person's action that may fail.

/** The message of what stoat-api throws (the error body text, parsed). */
export function errorText(err: unknown): string {
  let body: unknown = err;
  if (typeof err === "string") {
    try {
      body = JSON.parse(err);
    } catch {
      return err;
    }
  }
  if (body && typeof body === "object" && "type" in body) {
    const b = body as Record<string, unknown>;
    const extra = ["error", "max", "permission", "retry_after"].filter((k) => k in b).map((k) => `${k} ${b[k]}`);
    return [String(b.type).replace(/([a-z])([A-Z])/g, "$1 $2"), ...extra].join(" · ");
  }
  if (err instanceof Error) return err.message;
  return String(err);
}

/** The wait a 429 answer asks for (its body's retry_after, in ms), if err is one. */
export function retryAfter(err: unknown): number | undefined {
  let body: unknown = err;
  if (typeof err === "string") {
    try {
      body = JSON.parse(err);
    } catch {
      return undefined;
    }
  }
  const ms = (body as { retry_after?: unknown } | null)?.retry_after;
  return typeof ms === "number" && ms >= 0 ? ms : undefined;
}

/**
 * Runs a request again after the wait a rate limit asks for (up to 20 s,
 * three times): the auth routes allow few requests, and a person should
 * see a short wait, not an error.
 */
export async function retrying<T>(request: () => Promise<T>, onWait?: (ms: number) => void): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await request();
    } catch (err) {
      const ms = retryAfter(err);
      if (ms === undefined || ms > 20_000 || attempt >= 3) throw err;
      onWait?.(ms);
      await new Promise((r) => setTimeout(r, ms + 50));
    }
  }
}

/** Where a guarded action reports: AppState is one. */
export interface Notifier {
  notify(text: string, kind?: "info" | "error"): void;
}

/**
 * Wraps a person's action (a form submit or a click): runs f, reports
 * its failure as a notice, and done (if given) on success. The event's
 * default (a form's submit) is prevented.
 */
export function guard(to: Notifier, f: () => Promise<unknown> | unknown, done?: string) {
  return async (e?: Event): Promise<boolean> => {
    e?.preventDefault();
    try {
      await f();
      if (done) to.notify(done);
      return true;
    } catch (err) {
      to.notify(errorText(err), "error");
      return false;
    }
  };
}
