// Link previews and webhook embeds.

import { Show } from "solid-js";
import type { MessageEmbed } from "stoat.js";
import type { AppState } from "../app/state";
import { safeURL } from "../lib/urls";

/** The fields of stoat.js's MessageEmbed classes (Website, Text, Image, Video). */
interface EmbedView {
  type: string;
  url?: string;
  title?: string;
  description?: string;
  siteName?: string;
  colour?: string;
  image?: { url: string };
  media?: { previewUrl: string; metadata?: { type: string } };
}

/**
 * Link previews and webhook embeds. Images of outside sites load only
 * through the instance's proxy (January) when it has one, and not at all
 * otherwise: the page loads nothing from outside the instance.
 */
export function Embed(props: { state: AppState; embed: MessageEmbed }) {
  // The subclasses share these fields; reading them through one view is safe.
  const e = () => props.embed as unknown as EmbedView;
  const january = () => props.state.config?.features.january;
  const proxied = (url?: string) => (url && january()?.enabled ? `${january()!.url}/proxy?url=${encodeURIComponent(url)}` : undefined);
  return (
    <Show
      when={e().type === "Website" || e().type === "Text"}
      fallback={<Show when={e().type === "Image" && proxied(e().url)}>{(src) => <img class="attachment" src={src()} alt="" loading="lazy" />}</Show>}
    >
      <div class="embed" style={{ "border-color": e().colour ?? undefined }}>
        <Show when={e().siteName}>
          <div class="muted">{e().siteName}</div>
        </Show>
        <Show when={e().title}>
          <Show when={safeURL(e().url)} fallback={<strong>{e().title}</strong>}>
            <a href={safeURL(e().url)} target="_blank" rel="noopener noreferrer">
              <strong>{e().title}</strong>
            </a>
          </Show>
        </Show>
        <Show when={e().description}>
          <p>{e().description}</p>
        </Show>
        <Show when={proxied(e().image?.url)}>{(src) => <img class="embed-image" src={src()} alt="" loading="lazy" />}</Show>
        <Show when={e().media?.metadata?.type === "Image" && e().media}>{(m) => <img class="embed-image" src={m().previewUrl} alt="" loading="lazy" />}</Show>
      </div>
    </Show>
  );
}

