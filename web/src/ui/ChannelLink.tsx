import { Show } from "solid-js";
import type { Channel, User } from "stoat.js";
import type { AppState } from "../app/state";
import { link } from "../app/router";
import { avatar, iconURL } from "./media";
import { Icon } from "./Icon";

/** A channel (or conversation) in a sidebar list, with its unread mark and mention count. */
export function ChannelLink(props: { state: AppState; channel: Channel; to: string; label?: string; user?: User }) {
  const current = () => props.state.channelId === props.channel.id;
  const mentions = () => props.channel.mentions?.size ?? 0;
  const muted = () => props.state.notifications.muted({ id: props.channel.id, type: props.channel.type, serverId: props.channel.serverId });
  const unread = () => props.channel.unread && !current() && !muted();
  const label = () =>
    `${props.label ?? props.channel.name}${unread() ? " (unread)" : ""}${mentions() > 0 && !current() ? `, ${mentions()} mention${mentions() === 1 ? "" : "s"}` : ""}${muted() ? " (muted)" : ""}`;
  return (
    <li>
      <a
        class="channel-link"
        classList={{ unread: unread(), current: current(), muted: muted() }}
        href={props.to}
        onClick={link(props.to)}
        aria-current={current() ? "page" : undefined}
        aria-label={label()}
      >
        <Show when={props.user} fallback={<Show when={iconURL(props.channel.icon, 64)} fallback={<span class="hash" aria-hidden="true">{props.channel.isVoice ? <Icon name="speaker" size={16} /> : props.channel.type === "Group" ? <Icon name="people" size={16} /> : "#"}</span>}>{(src) => <img class="avatar small" src={src()} alt="" />}</Show>}>
          <img class="avatar small" src={avatar(props.user!)} alt="" />
        </Show>
        <span class="name">{props.label ?? props.channel.name}</span>
        <Show when={mentions() > 0 && !current()}>
          <span class="badge" aria-hidden="true">{mentions()}</span>
        </Show>
      </a>
    </li>
  );
}

