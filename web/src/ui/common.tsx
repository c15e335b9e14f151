// Small pieces every feature uses: an empty page, a presence dot, the
// tabs of a settings page.

import { For } from "solid-js";
import type { User } from "stoat.js";
import { link } from "../app/router";

export function Empty(props: { text: string }) {
  return <div class="empty">{props.text}</div>;
}

const PRESENCE_LABEL: Record<string, string> = { Online: "online", Idle: "idle", Focus: "focus", Busy: "busy", Invisible: "offline" };

export function Presence(props: { user: User }) {
  const p = () => (props.user.online ? props.user.status?.presence ?? "Online" : "Invisible");
  return <span class={`presence ${p().toLowerCase()}`} role="img" aria-label={PRESENCE_LABEL[p()] ?? "offline"} title={PRESENCE_LABEL[p()] ?? "offline"} />;
}


/** The sections of a settings page, as links (the route names the tab). */
export function Tabs(props: { tabs: [string, string][]; current: string; to: (tab: string) => string; label?: string }) {
  return (
    <nav class="tabs" aria-label={props.label ?? "Settings sections"}>
      <For each={props.tabs}>
        {([id, label]) => (
          <a href={props.to(id)} onClick={link(props.to(id))} aria-current={props.current === id ? "page" : undefined}>
            {label}
          </a>
        )}
      </For>
    </nav>
  );
}

/** Up to two initials of a name, for an icon that has no image. */
export function initials(name: string) {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => [...w][0])
    .join("")
    .toUpperCase();
}
