import { ConnectionState, type Client } from "stoat.js";

/**
 * Makes a stoat.js client resume its events connection after a drop
 * instead of loading a whole Ready again (Ermine's extension,
 * docs/events-resume.md): it connects with resume=1, remembers the
 * stream's resume_id and the seq of the last frame handled, and
 * reconnects with resume=<id>&seq=<n>. On Resumed the missed frames
 * follow as ordinary events; otherwise the server sends a full Ready
 * (with a new resume_id) and the library loads it as usual.
 */
export function resumeEvents(client: Client, token: string) {
  let id: string | undefined;
  let seq = 0;
  const events = client.events as unknown as {
    connect(uri: string, token: string): void;
    disconnect(): void;
    handle(event: { type: string; seq?: unknown; resume_id?: unknown }): void;
    setState(state: ConnectionState): void;
  };
  const connect = events.connect.bind(events);
  events.connect = (uri: string, t: string) => {
    const url = new URL(uri);
    url.searchParams.set("resume", id ?? "1");
    if (id) url.searchParams.set("seq", String(seq));
    connect(url.toString(), t);
  };
  const handle = events.handle.bind(events);
  events.handle = (event) => {
    if (event.type === "Resumed") {
      // The client's state stands: the missed frames follow.
      events.setState(ConnectionState.Connected);
      return;
    }
    handle(event);
    if (event.type === "Ready") {
      id = typeof event.resume_id === "string" ? event.resume_id : undefined;
      seq = 0;
    } else if (typeof event.seq === "number") {
      seq = event.seq;
    }
  };
  // Reconnecting through Client.connect would mark the client not ready
  // until a Ready that a resume does not send: go to the socket directly.
  const reconnect = client.connect.bind(client);
  client.connect = () => {
    if (!id) return reconnect();
    events.disconnect();
    const ws = (client as unknown as { configuration?: { ws?: string } }).configuration?.ws;
    if (!ws) return reconnect();
    events.connect(ws, token);
  };
}
