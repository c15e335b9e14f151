// A channel's history with infinite scroll and live messages.

import { createEffect, createSignal, Index, on, onCleanup, onMount, Show } from "solid-js";
import type { Channel, Message } from "stoat.js";
import type { AppState } from "../app/state";
import { errorText } from "../lib/errors";
import { MessageItem } from "./MessageItem";

const PAGE = 50;

export function History(props: { state: AppState; channel: Channel; onReply: (m: Message) => void }) {
  const client = () => props.state.client!;
  const [ids, setIds] = createSignal<string[]>([]);
  const [more, setMore] = createSignal(true);
  const [loading, setLoading] = createSignal(false);
  const [error, setError] = createSignal("");
  let scroller!: HTMLDivElement;
  const atBottom = () => scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80;
  const toBottom = () => queueMicrotask(() => (scroller.scrollTop = scroller.scrollHeight));

  // Each reset of the list (the present, a jump) starts a generation; a
  // page that arrives for an older one is dropped.
  let generation = 0;
  const loadOlder = async () => {
    if (loading() || !more()) return;
    setLoading(true);
    const gen = generation;
    try {
      const before = ids()[0];
      const { messages } = await props.channel.fetchMessagesWithUsers({ limit: PAGE, ...(before ? { before } : {}) });
      if (gen !== generation) return;
      const older = messages.map((m) => m.id).reverse();
      const height = scroller.scrollHeight;
      setIds((cur) => [...older.filter((id) => !cur.includes(id)), ...cur]);
      setMore(messages.length === PAGE);
      if (before) scroller.scrollTop += scroller.scrollHeight - height;
      else toBottom();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setLoading(false);
    }
  };

  // Showing history around an older message (a jump): live messages
  // are not appended until the person goes back to the present.
  const [detached, setDetached] = createSignal(false);
  const present = () => {
    generation++;
    setLoading(false);
    setIds([]);
    setMore(true);
    setDetached(false);
    setError("");
    return loadOlder();
  };

  createEffect(
    on(
      () => props.channel.id,
      () => present().then(() => props.channel.ack(undefined, false, false).catch?.(() => {})),
    ),
  );

  /** Scrolls to a message and marks it for a moment, loading the history around it when needed. */
  const jumpTo = async (id: string) => {
    if (!ids().includes(id)) {
      try {
        const gen = ++generation;
        const { messages } = await props.channel.fetchMessagesWithUsers({ nearby: id, limit: PAGE });
        if (gen !== generation) return;
        setLoading(false);
        setIds(messages.map((m) => m.id).sort());
        setMore(true);
        setDetached(true);
      } catch (err) {
        props.state.notify(errorText(err), "error");
        return;
      }
    }
    queueMicrotask(() => {
      const el = scroller.querySelector<HTMLElement>(`[data-id="${CSS.escape(id)}"]`);
      if (!el) return props.state.notify("That message is no longer there.", "error");
      el.scrollIntoView({ block: "center" });
      el.classList.add("highlight");
      el.focus({ preventScroll: true });
      setTimeout(() => el.classList.remove("highlight"), 2500);
    });
  };
  createEffect(
    on(
      () => props.state.jumpTarget,
      (target) => {
        if (target && target.channel === props.channel.id) jumpTo(target.id);
      },
    ),
  );

  onMount(() => {
    const created = (m: Message) => {
      if (m.channelId !== props.channel.id || detached()) return;
      const stick = atBottom() || m.authorId === client().user?.id;
      setIds((cur) => (cur.includes(m.id) ? cur : [...cur, m.id]));
      if (stick) toBottom();
      if (document.visibilityState === "visible") props.channel.ack(m, false, false)?.catch?.(() => {});
    };
    const deleted = (m: { id: string; channelId: string }) => {
      if (m.channelId === props.channel.id) setIds((cur) => cur.filter((id) => id !== m.id));
    };
    client().on("messageCreate", created);
    client().on("messageDelete", deleted);
    onCleanup(() => {
      client().off("messageCreate", created);
      client().off("messageDelete", deleted);
    });
  });

  return (
    <>
    <div
      class="history"
      ref={scroller}
      role="log"
      aria-label="Messages"
      aria-busy={loading()}
      tabIndex={0}
      onScroll={() => {
        if (scroller.scrollTop < 200) loadOlder();
      }}
    >
      <Show when={!more()}>
        <p class="muted start">This is the start of {props.channel.type === "DirectMessage" ? "your conversation" : `#${props.channel.name}`}.</p>
      </Show>
      <Show when={error()}>
        <p class="error">{error()}</p>
      </Show>
      <Index each={ids()}>
        {(id, i) => {
          const m = () => client().messages.get(id());
          const grouped = () => {
            const prev = i > 0 ? client().messages.get(ids()[i - 1]) : undefined;
            const cur = m();
            return !!prev && !!cur && prev.authorId === cur.authorId && !cur.replyIds?.length && cur.createdAt.getTime() - prev.createdAt.getTime() < 5 * 60_000 && !prev.systemMessage;
          };
          return <Show when={m()}>{(msg) => <MessageItem state={props.state} message={msg()} grouped={grouped()} onReply={props.onReply} />}</Show>;
        }}
      </Index>
    </div>
    <Show when={detached()}>
      <div class="jump-bar">
        <span class="muted">You are reading older messages.</span>
        <button onClick={() => present()}>Jump to present</button>
      </div>
    </Show>
    </>
  );
}

