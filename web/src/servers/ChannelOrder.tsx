// The order of a server's channels and categories: dragged, or moved with
// the buttons from the keyboard; saved as the server's category list
// (lib/channels.ts).

import { createSignal, For, Show } from "solid-js";
import type { Server } from "stoat.js";
import type { AppState } from "../app/state";
import { guard } from "../lib/errors";
import { type Category, dropOnChannel, moveCategory, moveChannel } from "../lib/channels";

type Drag = { kind: "channel" | "category"; id: string };

export function ChannelOrder(props: { state: AppState; server: Server; disabled: boolean }) {
  const [dragging, setDragging] = createSignal<Drag>();
  const client = () => props.state.client!;
  const cats = (): Category[] => (props.server.categories ?? []).map((c) => ({ id: c.id, title: c.title, channels: [...c.channels] }));
  const loose = () => props.server.channels.filter((c) => !cats().some((cat) => cat.channels.includes(c.id)));
  const name = (id: string) => client().channels.get(id)?.name ?? id;
  const save = (next: Category[]) => guard(props.state, () => props.state.rest.editServer(props.server.id, { categories: next }), "Channel order saved")();
  const drop = (target: Drag) => (e: DragEvent) => {
    e.preventDefault();
    e.stopPropagation();
    const d = dragging();
    setDragging(undefined);
    if (!d || d.id === target.id) return;
    if (d.kind === "category") {
      if (target.kind === "category") save(moveCategory(cats(), d.id, cats().findIndex((c) => c.id === target.id)));
      return;
    }
    save(target.kind === "channel" ? dropOnChannel(cats(), d.id, target.id) : moveChannel(cats(), d.id, target.id));
  };
  const dragProps = (d: Drag) => ({
    draggable: !props.disabled,
    onDragStart: (e: DragEvent) => {
      e.stopPropagation();
      setDragging(d);
      e.dataTransfer?.setData("text/plain", d.id);
    },
    onDragEnd: () => setDragging(undefined),
    onDragOver: (e: DragEvent) => e.preventDefault(),
    onDrop: drop(d),
  });
  return (
    <section aria-label="Channel order">
      <h2>Channel order</h2>
      <p class="muted">Drag a channel onto another, or onto a category's name; drag categories to order them. The buttons do the same from the keyboard.</p>
      <Show when={loose().length}>
        <ol class="role-order" aria-label="Channels without a category">
          <For each={loose()}>
            {(c) => (
              <li aria-label={`#${c.name}`} {...dragProps({ kind: "channel", id: c.id })} classList={{ dragging: dragging()?.id === c.id }}>
                <span class="grip" aria-hidden="true">⠿</span>
                <span>#{c.name}</span>
                <span class="spacer" />
                <span class="muted">no category</span>
              </li>
            )}
          </For>
        </ol>
      </Show>
      <ol class="category-order">
        <For each={cats()}>
          {(cat, ci) => (
            <li class="category-block" aria-label={`Category ${cat.title}`} {...dragProps({ kind: "category", id: cat.id })} classList={{ dragging: dragging()?.id === cat.id }}>
              <div class="row">
                <span class="grip" aria-hidden="true">⠿</span>
                <strong>{cat.title}</strong>
                <span class="spacer" />
                <button class="small" disabled={props.disabled || ci() === 0} aria-label={`Move category ${cat.title} up`} onClick={() => save(moveCategory(cats(), cat.id, ci() - 1))}>
                  ↑
                </button>
                <button class="small" disabled={props.disabled || ci() === cats().length - 1} aria-label={`Move category ${cat.title} down`} onClick={() => save(moveCategory(cats(), cat.id, ci() + 1))}>
                  ↓
                </button>
              </div>
              <ol class="role-order">
                <For each={cat.channels}>
                  {(id, i) => (
                    <li aria-label={`#${name(id)}`} {...dragProps({ kind: "channel", id })} classList={{ dragging: dragging()?.id === id }}>
                      <span class="grip" aria-hidden="true">⠿</span>
                      <span>#{name(id)}</span>
                      <span class="spacer" />
                      <button class="small" disabled={props.disabled || i() === 0} aria-label={`Move #${name(id)} up`} onClick={() => save(moveChannel(cats(), id, cat.id, i() - 1))}>
                        ↑
                      </button>
                      <button class="small" disabled={props.disabled || i() === cat.channels.length - 1} aria-label={`Move #${name(id)} down`} onClick={() => save(moveChannel(cats(), id, cat.id, i() + 1))}>
                        ↓
                      </button>
                    </li>
                  )}
                </For>
                <Show when={!cat.channels.length}>
                  <li class="muted">Drop a channel here</li>
                </Show>
              </ol>
            </li>
          )}
        </For>
      </ol>
    </section>
  );
}
