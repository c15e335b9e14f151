import { afterEach, beforeEach, vi } from "vitest";

/**
 * A WebSocket stand-in for tests of the events client: records what is
 * sent, and opens and closes when the test says so.
 */
export class FakeSocket {
  static all: FakeSocket[] = [];
  sent: string[] = [];
  closed = false;
  onopen?: () => void;
  onclose?: () => void;
  onmessage?: (e: { data: string }) => void;
  onerror?: (e: unknown) => void;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  send(data: string) {
    if (this.closed) throw new Error("send on a closed socket");
    this.sent.push(data);
  }
  close() {
    this.closed = true;
  }
  /** The server closes the connection. */
  drop() {
    this.closed = true;
    this.onclose?.();
  }
  pings() {
    return this.sent.filter((s) => JSON.parse(s).type === "Ping").length;
  }
}

/**
 * Puts FakeSocket in WebSocket's place and fakes the timers around each
 * test of the calling suite.
 */
export function useFakeSockets() {
  beforeEach(() => {
    vi.useFakeTimers();
    FakeSocket.all = [];
    vi.stubGlobal("WebSocket", FakeSocket);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });
}
