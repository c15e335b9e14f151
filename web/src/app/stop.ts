import type { Client } from "stoat.js";

/**
 * Stops a client for good: no reconnecting, not even one the library has
 * already scheduled after a drop; its error listener stays.
 */
export function stopClient(client: Client | undefined) {
  if (!client) return;
  (client.options as { autoReconnect: boolean }).autoReconnect = false;
  client.connect = () => {};
  client.removeAllListeners("logout");
  client.events.disconnect();
}
