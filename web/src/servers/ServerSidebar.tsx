// A server's channel list by category, with channel creation.

import { createSignal, For, Show } from "solid-js";
import type { Server } from "stoat.js";
import type { AppState } from "../app/state";
import { href, link, navigate } from "../app/router";
import { errorText } from "../lib/errors";
import { ChannelLink } from "../ui/ChannelLink";
import { Empty } from "../ui/common";
import { Icon } from "../ui/Icon";
import { MuteButton } from "../ui/MuteButton";
import { VoiceParticipants } from "../channel/VoiceParticipants";

export function ServerSidebar(props: { state: AppState; server?: Server }) {
  const [adding, setAdding] = createSignal<string | undefined>();
  const [name, setName] = createSignal("");
  const [voice, setVoice] = createSignal(false);
  const create = async (e: Event) => {
    e.preventDefault();
    const s = props.server!;
    try {
      const ch = { id: (await props.state.rest.createChannel(s.id, { name: name().trim(), type: voice() ? "Voice" : "Text" }))._id };
      const cat = adding();
      if (cat && cat !== "default") {
        const categories = (s.categories ?? []).map((c) => (c.id === cat ? { ...c, channels: [...c.channels, ch.id] } : c));
        await props.state.rest.editServer(s.id, { categories });
      }
      setAdding(undefined);
      setName("");
      navigate(href.server(s.id, ch.id));
    } catch (err) {
      props.state.notify(errorText(err), "error");
    }
  };
  return (
    <Show when={props.server} fallback={<Empty text="This server is not in your list." />}>
      {(s) => (
        <div class="channels">
          <header class="sidebar-head">
            <h2 title={s().name}>{s().name}</h2>
            <MuteButton state={props.state} kind="server" id={s().id} name={s().name} />
            <a href={href.serverSettings(s().id)} onClick={link(href.serverSettings(s().id))} aria-label="Server settings" title="Server settings">
              <Icon name="gear" />
            </a>
          </header>
          <For each={s().orderedChannels}>
            {(cat) => (
              <section class="category" aria-label={cat.title || "Channels"}>
                <div class="category-head">
                  <span>{cat.id === "default" ? "Channels" : cat.title}</span>
                  <Show when={s().havePermission("ManageChannel")}>
                    <button class="small" aria-label={`Create a channel in ${cat.title || "Channels"}`} onClick={() => setAdding(adding() === cat.id ? undefined : cat.id)}>
                      <Icon name="plus" size={14} />
                    </button>
                  </Show>
                </div>
                <Show when={adding() === cat.id}>
                  <form class="inline-form" onSubmit={create} aria-label="Create a channel">
                    <input name="channel-name" aria-label="New channel name" placeholder="new-channel" required maxLength={32} value={name()} onInput={(e) => setName(e.currentTarget.value)} autofocus />
                    <label class="check">
                      <input type="checkbox" checked={voice()} onChange={(e) => setVoice(e.currentTarget.checked)} /> voice
                    </label>
                    <button type="submit" class="primary">Create</button>
                  </form>
                </Show>
                <ul>
                  <For each={cat.channels}>
                    {(ch) => (
                      <>
                        <ChannelLink state={props.state} channel={ch} to={href.server(s().id, ch.id)} />
                        <Show when={ch.isVoice && ch.voiceParticipants?.size}>
                          <li>
                            <VoiceParticipants state={props.state} channel={ch} compact />
                          </li>
                        </Show>
                      </>
                    )}
                  </For>
                </ul>
              </section>
            )}
          </For>
        </div>
      )}
    </Show>
  );
}

