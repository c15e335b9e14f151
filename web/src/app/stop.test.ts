import { describe, expect, it, vi } from "vitest";
import { Client } from "stoat.js";
import { stopClient } from "./stop";
import { FakeSocket, useFakeSockets } from "../lib/fakesocket";

describe("stopClient", () => {
  useFakeSockets();

  it("cancels a reconnect the library scheduled after a drop", () => {
    const client = new Client({ baseURL: "http://example.test", autoReconnect: true }, { ws: "ws://example.test/events" } as never);
    client.on("error", () => {});
    client.useExistingSession({ _id: "s", token: "t", user_id: "u", name: "n" } as never);
    client.connect();
    expect(FakeSocket.all).toHaveLength(1);
    FakeSocket.all[0].drop();
    stopClient(client);
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.all).toHaveLength(1);
  });

  it("leaves an unstopped client to reconnect", () => {
    const client = new Client({ baseURL: "http://example.test", autoReconnect: true }, { ws: "ws://example.test/events" } as never);
    client.on("error", () => {});
    client.useExistingSession({ _id: "s", token: "t", user_id: "u", name: "n" } as never);
    client.connect();
    FakeSocket.all[0].drop();
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.all.length).toBeGreaterThan(1);
  });
});
