// The person's own presence and custom status, set from their avatar in
// the bar under the channel list: Online, Idle, Focus, Busy or Invisible,
// and a status text.

import { createSignal, For, onCleanup, Show } from "solid-js";
import type { AppState } from "../app/state";
import { guard } from "../lib/errors";
import { PRESENCES, type PresenceName } from "../lib/presence";
import { avatar } from "../ui/media";
import { Presence } from "../ui/common";

export function StatusPicker(props: { state: AppState }) {
  const me = () => props.state.client!.user!;
  const [open, setOpen] = createSignal(false);
  const [text, setText] = createSignal("");
  const current = (): PresenceName => me().status?.presence ?? "Online";
  const status = (presence: PresenceName, t: string) => ({ status: { ...(t ? { text: t } : {}), presence } });
  const setPresence = (p: PresenceName) => guard(props.state, () => props.state.rest.editMe(status(p, me().status?.text ?? "")))();
  const saveText = guard(props.state, async () => {
    const t = text().trim();
    await props.state.rest.editMe(t ? status(current(), t) : { remove: ["StatusText"] });
    setOpen(false);
  }, "Status saved");
  let root!: HTMLDivElement;
  const away = (e: MouseEvent) => open() && !root.contains(e.target as Node) && setOpen(false);
  document.addEventListener("mousedown", away);
  onCleanup(() => document.removeEventListener("mousedown", away));
  return (
    <div class="status-picker" ref={root}>
      <button
        class="avatar-button"
        aria-label={`Set your status (now ${PRESENCES.find((p) => p[0] === current())?.[1] ?? current()})`}
        aria-expanded={open()}
        onClick={() => (setText(me().status?.text ?? ""), setOpen(!open()))}
      >
        <span class="avatar-wrap">
          <img class="avatar" src={avatar(me())} alt="" />
          <Presence user={me()} />
        </span>
      </button>
      <Show when={open()}>
        <div class="status-menu" role="dialog" aria-label="Your status" onKeyDown={(e) => e.key === "Escape" && setOpen(false)}>
          <div role="radiogroup" aria-label="Presence">
            <For each={PRESENCES}>
              {([p, label, hint]) => (
                <button role="radio" aria-checked={current() === p} class="presence-choice" onClick={() => setPresence(p)}>
                  <span class={`dot ${p.toLowerCase()}`} aria-hidden="true" />
                  <span class="who">
                    <span>{label}</span>
                    <span class="muted">{hint}</span>
                  </span>
                </button>
              )}
            </For>
          </div>
          <form class="inline-form" onSubmit={saveText} aria-label="Custom status">
            <input aria-label="Custom status" placeholder="What are you up to?" maxLength={128} value={text()} onInput={(e) => setText(e.currentTarget.value)} />
            <button type="submit" class="primary">
              Save status
            </button>
            <Show when={me().status?.text}>
              <button type="button" onClick={() => (setText(""), saveText(new Event("submit")))}>
                Clear
              </button>
            </Show>
          </form>
        </div>
      </Show>
    </div>
  );
}
