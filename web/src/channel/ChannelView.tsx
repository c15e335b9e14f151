// A channel: header, history, typing, and the message box.

import { createSignal, onCleanup, Show } from "solid-js";
import type { Channel, Message } from "stoat.js";
import type { AppState } from "../app/state";
import { href } from "../app/router";
import { errorText } from "../lib/errors";
import { Composer } from "../composer/Composer";
import { History } from "./History";
import { Typing } from "./Typing";
import { MuteButton } from "../ui/MuteButton";
import { Icon } from "../ui/Icon";
import { SearchPanel } from "./SearchPanel";
import { GroupControls } from "./GroupControls";
import { VoiceParticipants } from "./VoiceParticipants";

export function ChannelView(props: { state: AppState; channel: Channel }) {
  const [replyTo, setReplyTo] = createSignal<Message[]>([]);
  const [invite, setInvite] = createSignal<string>();
  const [searching, setSearching] = createSignal(false);
  const client = () => props.state.client!;
  const createInvite = async () => {
    try {
      const inv = await props.channel.createInvite();
      setInvite(`${location.origin}${href.invite(inv._id)}`);
    } catch (err) {
      props.state.notify(errorText(err), "error");
    }
  };
  const voice = () => props.channel.isVoice && !!props.state.config?.features.livekit?.enabled;
  return (
    <section class="channel" aria-label={`Channel ${props.channel.name ?? ""}`}>
      <header class="channel-head">
        <h1>
          <Show when={props.channel.type === "DirectMessage"} fallback={<>{props.channel.type === "Group" ? "" : "# "}{props.channel.name}</>}>
            @{props.channel.recipient?.displayName}
          </Show>
        </h1>
        <Show when={props.channel.description}>
          <span class="muted description">{props.channel.description}</span>
        </Show>
        <span class="spacer" />
        <Show when={voice()}>
          <VoiceButton state={props.state} channel={props.channel} />
        </Show>
        <button class="small" aria-label="Search" aria-expanded={searching()} title="Search" onClick={() => setSearching(!searching())}>
          <Icon name="search" size={18} />
        </button>
        <MuteButton state={props.state} kind="channel" id={props.channel.id} name={props.channel.type === "DirectMessage" ? `@${props.channel.recipient?.displayName ?? ""}` : `#${props.channel.name ?? ""}`} />
        <Show when={props.channel.type === "Group"}>
          <GroupControls state={props.state} channel={props.channel} />
        </Show>
        <Show when={props.channel.type === "TextChannel" || props.channel.type === "Group"}>
          <Show when={props.channel.havePermission("InviteOthers")}>
            <button onClick={createInvite}>Invite</button>
          </Show>
        </Show>
      </header>
      <Show when={invite()}>
        <div class="invite-link" role="status">
          <span>Invite link:</span>
          <input readonly value={invite()} aria-label="Invite link" onFocus={(e) => e.currentTarget.select()} />
          <button onClick={() => navigator.clipboard?.writeText(invite()!).catch(() => {})}>Copy</button>
          <button aria-label="Close" onClick={() => setInvite(undefined)}>
            ×
          </button>
        </div>
      </Show>
      <Show when={props.channel.isVoice}>
        <div class="voice-bar">
          <span class="muted">{props.channel.voiceParticipants?.size ? "In the call:" : "Nobody is in the call."}</span>
          <VoiceParticipants state={props.state} channel={props.channel} />
        </div>
      </Show>
      <Show when={searching()}>
        <SearchPanel state={props.state} channel={props.channel} onClose={() => setSearching(false)} />
      </Show>
      <History state={props.state} channel={props.channel} onReply={(m) => setReplyTo((r) => (r.includes(m) ? r : [...r, m].slice(-5)))} />
      <Typing channel={props.channel} me={client().user!.id} />
      <Composer state={props.state} channel={props.channel} replies={replyTo()} clearReplies={() => setReplyTo([])} dropReply={(m) => setReplyTo((r) => r.filter((x) => x !== m))} />
    </section>
  );
}

/**
 * Joins the channel's voice call: the API hands a LiveKit address and
 * token (POST /channels/{id}/join_call); LiveKit's JS client, loaded only
 * now, connects and publishes the microphone.
 */
function VoiceButton(props: { state: AppState; channel: Channel }) {
  const [room, setRoom] = createSignal<{ disconnect: () => Promise<void> }>();
  const [busy, setBusy] = createSignal(false);
  const join = async () => {
    setBusy(true);
    try {
      const node = props.state.config?.features.livekit?.nodes[0]?.name;
      const { url, token } = await props.channel.joinCall(node);
      const { Room, RoomEvent } = await import("livekit-client");
      const r = new Room();
      r.on(RoomEvent.Disconnected, () => setRoom(undefined));
      r.on(RoomEvent.TrackSubscribed, (track) => {
        if (track.kind === "audio") document.body.appendChild(track.attach()).classList.add("voice-audio");
      });
      await r.connect(url, token);
      await r.localParticipant.setMicrophoneEnabled(true).catch(() => props.state.notify("Joined without a microphone", "error"));
      setRoom(r);
    } catch (err) {
      props.state.notify(`Voice: ${errorText(err)}`, "error");
    } finally {
      setBusy(false);
    }
  };
  const leave = async () => {
    await room()?.disconnect();
    document.querySelectorAll("audio.voice-audio").forEach((a) => a.remove());
    setRoom(undefined);
  };
  onCleanup(() => void room()?.disconnect());
  return (
    <Show when={room()} fallback={<button onClick={join} disabled={busy()}>Join voice</button>}>
      <button class="danger" onClick={leave}>
        Leave voice
      </button>
    </Show>
  );
}

