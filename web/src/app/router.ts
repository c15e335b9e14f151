// A small router over the History API. Routes live under /app/; the
// server also serves the page at / and /invite/{code}.

import { createSignal } from "solid-js";

const [path, setPath] = createSignal(location.pathname);
window.addEventListener("popstate", () => setPath(location.pathname));

export { path };

export function navigate(to: string, replace = false) {
  if (to === location.pathname) return;
  if (replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  setPath(to);
}

export type Route =
  | { name: "home" }
  | { name: "friends" }
  | { name: "server"; server: string; channel?: string }
  | { name: "dm"; channel: string }
  | { name: "settings"; tab: string }
  | { name: "server-settings"; server: string; tab: string }
  | { name: "invite"; code: string }
  | { name: "verify"; token: string }
  | { name: "reset"; token: string }
  | { name: "delete"; token: string }
  | { name: "register" }
  | { name: "admin"; tab: string; id?: string }
  | { name: "login" };

/** Reads a path: /app/..., or /invite/{code} as the server serves it. */
export function parse(p: string): Route {
  const parts = p.replace(/^\/app(?=\/|$)/, "").split("/").filter(Boolean).map(decodeURIComponent);
  switch (parts[0]) {
    case "invite":
      if (parts[1]) return { name: "invite", code: parts[1] };
      break;
    case "server":
      if (parts[1] && parts[2] === "settings") return { name: "server-settings", server: parts[1], tab: parts[3] ?? "overview" };
      if (parts[1]) return { name: "server", server: parts[1], channel: parts[2] === "channel" ? parts[3] : undefined };
      break;
    case "channel":
      if (parts[1]) return { name: "dm", channel: parts[1] };
      break;
    case "friends":
      return { name: "friends" };
    case "settings":
      return { name: "settings", tab: parts[1] ?? "profile" };
    case "login":
      if (parts[1] === "verify" && parts[2]) return { name: "verify", token: parts[2] };
      if (parts[1] === "reset" && parts[2]) return { name: "reset", token: parts[2] };
      return { name: "login" };
    case "delete":
      if (parts[1]) return { name: "delete", token: parts[1] };
      break;
    case "register":
      return { name: "register" };
    case "admin":
      return { name: "admin", tab: parts[1] ?? "overview", id: parts[2] };
  }
  return { name: "home" };
}

export const href = {
  home: () => "/app/",
  friends: () => "/app/friends",
  server: (s: string, c?: string) => (c ? `/app/server/${s}/channel/${c}` : `/app/server/${s}`),
  dm: (c: string) => `/app/channel/${c}`,
  settings: (tab = "profile") => `/app/settings/${tab}`,
  serverSettings: (s: string, tab = "overview") => `/app/server/${s}/settings/${tab}`,
  invite: (code: string) => `/invite/${code}`,
  admin: (tab = "overview", id?: string) => (id ? `/app/admin/${tab}/${encodeURIComponent(id)}` : `/app/admin/${tab}`),
};

/** An onClick for in-app links: navigate without a page load. */
export function link(to: string) {
  return (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
}
