import { describe, expect, it, vi } from "vitest";
import { ConnectionState, EventClient } from "stoat.js";
import { FakeSocket, useFakeSockets } from "./fakesocket";

describe("stoat.js EventClient, as the build mends it (vite.config.ts)", () => {
  useFakeSockets();

  it("stops its heartbeat when the server closes the socket", () => {
    const events = new EventClient(1, "json", { heartbeatInterval: 30, pongTimeout: 10 });
    events.on("error", () => {});
    events.connect("ws://example.test/events", "token");
    const first = FakeSocket.all[0];
    first.onopen?.();
    first.onmessage?.({ data: JSON.stringify({ type: "Authenticated" }) });
    vi.advanceTimersByTime(30_000);
    expect(first.pings()).toBe(1);
    first.onmessage?.({ data: JSON.stringify({ type: "Pong", data: 0 }) });

    first.drop();
    expect(events.state()).toBe(ConnectionState.Disconnected);
    // Unmended, the orphaned heartbeat throws here ("Socket closed,
    // trying to send.") every 30 s until the client reconnects.
    expect(() => vi.advanceTimersByTime(120_000)).not.toThrow();
    expect(first.pings()).toBe(1);

    // After a reconnect one heartbeat runs, not two, and answered Pings
    // keep the new connection open.
    events.connect("ws://example.test/events", "token");
    const second = FakeSocket.all[1];
    second.onopen?.();
    second.onmessage?.({ data: JSON.stringify({ type: "Authenticated" }) });
    for (let i = 0; i < 4; i++) {
      vi.advanceTimersByTime(30_000);
      second.onmessage?.({ data: JSON.stringify({ type: "Pong", data: 0 }) });
    }
    expect(second.pings()).toBe(4);
    expect(second.closed).toBe(false);
  });

  it("clears its connect timer when a connection attempt fails", () => {
    const events = new EventClient(1, "json", { pongTimeout: 10 });
    events.on("error", () => {});
    events.connect("ws://example.test/events", "token");
    FakeSocket.all[0].drop();
    events.connect("ws://example.test/events", "token");
    const second = FakeSocket.all[1];
    second.onopen?.();
    second.onmessage?.({ data: JSON.stringify({ type: "Authenticated" }) });
    // The failed attempt's 10 s timer must not close the second socket.
    vi.advanceTimersByTime(15_000);
    expect(second.closed).toBe(false);
  });
});
