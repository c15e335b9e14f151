import { describe, expect, it } from "vitest";
import { ConnectionState, type Client } from "stoat.js";
import { resumeEvents } from "./resume";

/** A stand-in for the parts of a stoat.js Client that resumeEvents wraps. */
function fakeClient() {
  const urls: string[] = [];
  const handled: string[] = [];
  const states: ConnectionState[] = [];
  const events = {
    connect(uri: string) {
      urls.push(uri);
    },
    disconnect() {},
    handle(event: { type: string }) {
      handled.push(event.type);
    },
    setState(state: ConnectionState) {
      states.push(state);
    },
  };
  const client = {
    events,
    configuration: { ws: "ws://example.test/events" },
    connect() {
      events.connect("ws://example.test/events");
    },
  };
  return { client: client as unknown as Client, events, urls, handled, states };
}

describe("resumeEvents", () => {
  it("asks for a stream, then resumes it after the last frame handled", () => {
    const f = fakeClient();
    resumeEvents(f.client, "token");
    f.client.connect();
    expect(new URL(f.urls[0]).searchParams.get("resume")).toBe("1");
    f.events.handle({ type: "Ready", resume_id: "abc", seq: 0 } as { type: string });
    f.events.handle({ type: "Message", seq: 3 } as { type: string });
    f.client.connect();
    const again = new URL(f.urls[1]).searchParams;
    expect(again.get("resume")).toBe("abc");
    expect(again.get("seq")).toBe("3");
    f.events.handle({ type: "Resumed", seq: 3 } as { type: string });
    expect(f.states).toEqual([ConnectionState.Connected]);
    expect(f.handled).toEqual(["Ready", "Message"]);
  });
  it("starts over from a full Ready", () => {
    const f = fakeClient();
    resumeEvents(f.client, "token");
    f.events.handle({ type: "Ready", resume_id: "abc", seq: 0 } as { type: string });
    f.events.handle({ type: "Message", seq: 9 } as { type: string });
    f.events.handle({ type: "Ready", resume_id: "def", seq: 0 } as { type: string });
    f.client.connect();
    const q = new URL(f.urls[0]).searchParams;
    expect([q.get("resume"), q.get("seq")]).toEqual(["def", "0"]);
  });
});
