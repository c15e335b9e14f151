// Emoji as drawn in messages and reactions, and the reaction picker.

import { createMemo, createSignal, For, onMount, Show } from "solid-js";
import type { AppState } from "../app/state";
import { EMOJI, emojiFile, isCustomEmoji } from "../lib/emoji";

/** Where the binary serves the emoji set (web/vite.config.ts copies it into the build). */
export const EMOJI_BASE = `${import.meta.env.BASE_URL}emoji/`;

/**
 * A Unicode emoji drawn from the set the instance serves, so it looks
 * the same everywhere; its text when the set has no picture for it.
 */
export function UnicodeEmoji(props: { emoji: string }) {
  const [missing, setMissing] = createSignal(false);
  return (
    <Show when={!missing()} fallback={<span class="emoji">{props.emoji}</span>}>
      <img class="emoji" src={EMOJI_BASE + emojiFile(props.emoji)} alt={props.emoji} draggable={false} onError={() => setMissing(true)} />
    </Show>
  );
}

export function EmojiView(props: { state: AppState; emoji: string }) {
  return (
    <Show when={isCustomEmoji(props.emoji)} fallback={<UnicodeEmoji emoji={props.emoji} />}>
      <img class="emoji custom" src={`${props.state.config?.features.autumn.url}/emojis/${props.emoji}`} alt={`:${props.state.client?.emojis.get(props.emoji)?.name ?? props.emoji}:`} />
    </Show>
  );
}

export function EmojiPicker(props: { state: AppState; serverId?: string; onPick: (emoji: string) => void; onClose: () => void }) {
  const custom = createMemo(() => (props.serverId ? props.state.client!.emojis.filter((e) => (e as unknown as { parent?: { id: string } }).parent?.id === props.serverId) : []));
  let first!: HTMLButtonElement;
  onMount(() => first?.focus());
  return (
    <div class="picker" role="dialog" aria-label="Pick a reaction" onKeyDown={(e) => e.key === "Escape" && props.onClose()}>
      <For each={EMOJI}>
        {(e, i) => (
          <button ref={(el) => i() === 0 && (first = el)} onClick={() => props.onPick(e)} aria-label={e}>
            <UnicodeEmoji emoji={e} />
          </button>
        )}
      </For>
      <For each={custom()}>
        {(e) => (
          <button onClick={() => props.onPick(e.id)} aria-label={`:${e.name}:`}>
            <EmojiView state={props.state} emoji={e.id} />
          </button>
        )}
      </For>
    </div>
  );
}

