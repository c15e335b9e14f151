// Who is typing in a channel.

import { Show } from "solid-js";
import type { Channel } from "stoat.js";

export function Typing(props: { channel: Channel; me: string }) {
  const others = () => props.channel.typing.filter((u) => u && u.id !== props.me);
  return (
    <div class="typing muted" aria-live="polite">
      <Show when={others().length > 0}>
        {others()
          .map((u) => u.displayName)
          .join(", ")}{" "}
        {others().length === 1 ? "is" : "are"} typing…
      </Show>
    </div>
  );
}

