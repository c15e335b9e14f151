// Ermine's service worker: shows the Web Push notifications the server
// sends while no tab of the client is open (payload: the server's
// PushNotification JSON: type, author, icon, body, tag, timestamp, url,
// channel, message), and opens the client where a notification points
// when it is clicked. It caches nothing and fetches nothing.

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let n = {};
  try {
    n = event.data ? event.data.json() : {};
  } catch {
    n = { body: event.data ? event.data.text() : "" };
  }
  const title = n.type === "FriendRequest" ? `${n.author ?? "Someone"} sent a friend request` : n.type === "Call" ? `${n.author ?? "Someone"} is calling` : n.author ?? "Ermine";
  event.waitUntil(
    self.registration.showNotification(title, {
      body: n.body ?? "",
      icon: n.icon || "/app/icons/icon-192.png",
      tag: n.tag,
      timestamp: n.timestamp,
      data: { url: sameOrigin(n.url) ?? "/app/" },
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = event.notification.data?.url ?? "/app/";
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((tabs) => {
      const tab = tabs.find((t) => new URL(t.url).origin === self.location.origin);
      if (tab) return tab.focus().then(() => tab.navigate(url));
      return self.clients.openWindow(url);
    }),
  );
});

/** url when it is on this origin (the server's own client), else undefined. */
function sameOrigin(url) {
  try {
    const u = new URL(url, self.location.origin);
    return u.origin === self.location.origin ? u.href : undefined;
  } catch {
    return undefined;
  }
}
