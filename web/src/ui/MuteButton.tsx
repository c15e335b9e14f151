// Mutes or unmutes a server or channel (synced settings, shared with the official client).

import type { AppState } from "../app/state";
import { guard } from "../lib/errors";
import { isServerMuted } from "../lib/notifications";
import { Icon } from "./Icon";

export function MuteButton(props: { state: AppState; kind: "server" | "channel"; id: string; name: string }) {
  const n = () => props.state.notifications;
  const muted = () => (props.kind === "server" ? isServerMuted(n().options, props.id) : !!n().options.channel_mutes[props.id]);
  const what = () => (props.kind === "server" ? "server" : "channel");
  return (
    <button
      class="small mute"
      aria-pressed={muted()}
      aria-label={`${muted() ? "Unmute" : "Mute"} ${what()} ${props.name}`}
      title={`${muted() ? "Unmute" : "Mute"} this ${what()}`}
      onClick={guard(props.state, () => n().setMute(props.kind, props.id, muted() ? undefined : {}), muted() ? `Unmuted ${props.name}` : `Muted ${props.name}`)}
    >
      <Icon name={muted() ? "bell-off" : "bell"} size={16} />
    </button>
  );
}
