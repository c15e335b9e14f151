import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Client } from "stoat.js";
import { stopClient } from "./stop";

/** Just enough of a WebSocket for the library to open and lose one. */
class FakeSocket {
  static all: FakeSocket[] = [];
  closed = false;
  onopen?: () => void;
  onclose?: () => void;
  onmessage?: (e: { data: string }) => void;
  onerror?: (e: unknown) => void;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  send() {}
  close() {
    this.closed = true;
  }
}

describe("stopClient", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    FakeSocket.all = [];
    vi.stubGlobal("WebSocket", FakeSocket);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it("cancels a reconnect the library scheduled after a drop", () => {
    const client = new Client({ baseURL: "http://example.test", autoReconnect: true }, { ws: "ws://example.test/events" } as never);
    client.on("error", () => {});
    client.useExistingSession({ _id: "s", token: "t", user_id: "u", name: "n" } as never);
    client.connect();
    expect(FakeSocket.all).toHaveLength(1);
    FakeSocket.all[0].closed = true;
    FakeSocket.all[0].onclose?.();
    stopClient(client);
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.all).toHaveLength(1);
  });

  it("leaves an unstopped client to reconnect", () => {
    const client = new Client({ baseURL: "http://example.test", autoReconnect: true }, { ws: "ws://example.test/events" } as never);
    client.on("error", () => {});
    client.useExistingSession({ _id: "s", token: "t", user_id: "u", name: "n" } as never);
    client.connect();
    FakeSocket.all[0].closed = true;
    FakeSocket.all[0].onclose?.();
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.all.length).toBeGreaterThan(1);
  });
});
