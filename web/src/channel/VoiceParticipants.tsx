// Who is in a voice channel's call, from the events the server sends
// (Ready's voice_states, VoiceChannelJoin/Leave/Move and
// UserVoiceStateUpdate, which the client library keeps per channel).

import { For, Show } from "solid-js";
import type { Channel } from "stoat.js";
import type { AppState } from "../app/state";
import { avatar } from "../ui/media";

export function VoiceParticipants(props: { state: AppState; channel: Channel; compact?: boolean }) {
  const list = () => [...(props.channel.voiceParticipants?.values() ?? [])].sort((a, b) => a.joinedAt.getTime() - b.joinedAt.getTime());
  return (
    <Show when={list().length}>
      <ul class="voice-participants" classList={{ compact: props.compact }} aria-label={`In the call in ${props.channel.name ?? "this channel"}`}>
        <For each={list()}>
          {(p) => {
            const user = () => props.state.client!.users.get(p.userId);
            const name = () => user()?.displayName ?? p.userId;
            const state = () => [p.isPublishing() ? "" : "muted", p.isScreensharing() ? "sharing the screen" : "", p.isCamera() ? "camera on" : ""].filter(Boolean).join(", ");
            return (
              <li>
                <button class="participant" aria-label={`${name()}${state() ? ` (${state()})` : ""}`} onClick={() => props.state.showProfile(p.userId)}>
                  <Show when={user()}>{(u) => <img class="avatar small" src={avatar(u())} alt="" />}</Show>
                  <span class="name">{name()}</span>
                  <Show when={state()}>
                    <span class="muted">{state()}</span>
                  </Show>
                </button>
              </li>
            );
          }}
        </For>
      </ul>
    </Show>
  );
}
