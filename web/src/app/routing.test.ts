import { describe, expect, it, vi } from "vitest";

// router.ts reads location and listens to popstate: give it a minimal window.
vi.stubGlobal("location", { pathname: "/app/" });
vi.stubGlobal("window", { addEventListener() {} });
const { parse, href } = await import("./router");
const { retryAfter, retrying, errorText } = await import("../lib/errors");

describe("routes", () => {
  it("reads the paths the server serves the app at", () => {
    expect(parse("/")).toEqual({ name: "home" });
    expect(parse("/app/")).toEqual({ name: "home" });
    expect(parse("/app")).toEqual({ name: "home" });
    expect(parse("/invite/AbC123")).toEqual({ name: "invite", code: "AbC123" });
    expect(parse("/app/invite/AbC123")).toEqual({ name: "invite", code: "AbC123" });
  });
  it("reads the links sent by mail", () => {
    expect(parse("/app/login/verify/tok")).toEqual({ name: "verify", token: "tok" });
    expect(parse("/app/login/reset/tok")).toEqual({ name: "reset", token: "tok" });
    expect(parse("/app/delete/tok")).toEqual({ name: "delete", token: "tok" });
  });
  it("round-trips the app's own links", () => {
    expect(parse(href.server("S", "C"))).toEqual({ name: "server", server: "S", channel: "C" });
    expect(parse(href.server("S"))).toEqual({ name: "server", server: "S", channel: undefined });
    expect(parse(href.dm("D"))).toEqual({ name: "dm", channel: "D" });
    expect(parse(href.settings("plugins"))).toEqual({ name: "settings", tab: "plugins" });
    expect(parse(href.serverSettings("S", "roles"))).toEqual({ name: "server-settings", server: "S", tab: "roles" });
    expect(parse(href.friends())).toEqual({ name: "friends" });
    expect(parse("/app/register")).toEqual({ name: "register" });
    expect(parse(href.admin())).toEqual({ name: "admin", tab: "overview", id: undefined });
    expect(parse(href.admin("users", "01U"))).toEqual({ name: "admin", tab: "users", id: "01U" });
    expect(parse("/app/nonsense/x")).toEqual({ name: "home" });
  });
});

describe("API errors", () => {
  it("describes error bodies", () => {
    expect(errorText('{"type":"InvalidCredentials"}')).toBe("Invalid Credentials");
    expect(errorText('{"type":"MissingPermission","permission":"SendMessage"}')).toBe("Missing Permission · permission SendMessage");
    expect(errorText("plain text")).toBe("plain text");
    expect(errorText(new Error("boom"))).toBe("boom");
  });
  it("waits out a rate limit and tries again", async () => {
    vi.useFakeTimers();
    expect(retryAfter('{"retry_after":1200}')).toBe(1200);
    expect(retryAfter('{"type":"NotFound"}')).toBeUndefined();
    let calls = 0;
    const waits: number[] = [];
    const p = retrying(async () => {
      if (++calls < 3) throw '{"retry_after":500}';
      return "ok";
    }, (ms) => waits.push(ms));
    await vi.runAllTimersAsync();
    expect(await p).toBe("ok");
    expect(calls).toBe(3);
    expect(waits).toEqual([500, 500]);
    // Other errors, and waits too long to sit through, are thrown at once.
    await expect(retrying(async () => Promise.reject('{"type":"NotFound"}'))).rejects.toBe('{"type":"NotFound"}');
    await expect(retrying(async () => Promise.reject('{"retry_after":60000}'))).rejects.toBe('{"retry_after":60000}');
    vi.useRealTimers();
  });
});
