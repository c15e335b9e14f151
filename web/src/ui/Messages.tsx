// A channel: header, history with infinite scroll, live messages,
// typing, and the message box (replies, mentions, attachments, slash
// commands).

import { createEffect, createMemo, createSignal, For, Index, type JSX, on, onCleanup, onMount, Show } from "solid-js";
import type { Channel, Message, User } from "stoat.js";
import { errorText, type AppState } from "../state";
import { href } from "../router";
import { link } from "./Auth";
import { avatar } from "./media";
import { EMOJI, SHORTCODES, isCustomEmoji } from "./emoji";
import { Icon } from "./Icon";

const PAGE = 50;

export function ChannelView(props: { state: AppState; channel: Channel }) {
  const [replyTo, setReplyTo] = createSignal<Message[]>([]);
  const [invite, setInvite] = createSignal<string>();
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

function History(props: { state: AppState; channel: Channel; onReply: (m: Message) => void }) {
  const client = () => props.state.client!;
  const [ids, setIds] = createSignal<string[]>([]);
  const [more, setMore] = createSignal(true);
  const [loading, setLoading] = createSignal(false);
  const [error, setError] = createSignal("");
  let scroller!: HTMLDivElement;
  const atBottom = () => scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80;
  const toBottom = () => queueMicrotask(() => (scroller.scrollTop = scroller.scrollHeight));

  const loadOlder = async () => {
    if (loading() || !more()) return;
    setLoading(true);
    try {
      const before = ids()[0];
      const { messages } = await props.channel.fetchMessagesWithUsers({ limit: PAGE, ...(before ? { before } : {}) } as never);
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

  createEffect(
    on(
      () => props.channel.id,
      () => {
        setIds([]);
        setMore(true);
        setError("");
        loadOlder().then(() => props.channel.ack(undefined, false, false).catch?.(() => {}));
      },
    ),
  );

  onMount(() => {
    const created = (m: Message) => {
      if (m.channelId !== props.channel.id) return;
      const stick = atBottom() || m.authorId === client().user?.id;
      setIds((cur) => (cur.includes(m.id) ? cur : [...cur, m.id]));
      if (stick) toBottom();
      if (document.visibilityState === "visible") props.channel.ack(m, false, false)?.catch?.(() => {});
    };
    const deleted = (m: { _id: string; channel: string }) => {
      if (m.channel === props.channel.id) setIds((cur) => cur.filter((id) => id !== m._id));
    };
    client().on("messageCreate", created);
    client().on("messageDelete", deleted as never);
    onCleanup(() => {
      client().off("messageCreate", created);
      client().off("messageDelete", deleted as never);
    });
  });

  return (
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
  );
}

function MessageItem(props: { state: AppState; message: Message; grouped: boolean; onReply: (m: Message) => void }) {
  const m = () => props.message;
  const client = () => props.state.client!;
  const mine = () => m().authorId === client().user?.id;
  const [editing, setEditing] = createSignal(false);
  const [picker, setPicker] = createSignal(false);
  const canDelete = () => mine() || !!m().channel?.havePermission("ManageMessages");
  const canReact = () => !!m().channel?.havePermission("React");

  const remove = async () => {
    if (!confirm("Delete this message?")) return;
    try {
      await m().delete();
    } catch (err) {
      props.state.notify(errorText(err), "error");
    }
  };
  const toggle = async (emoji: string) => {
    const users = m().reactions.get(emoji);
    try {
      if (users?.has(client().user!.id)) await m().unreact(emoji);
      else await m().react(emoji);
    } catch (err) {
      props.state.notify(errorText(err), "error");
    }
  };

  return (
    <article class="message" classList={{ grouped: props.grouped, mentioned: m().mentioned }} aria-label={`Message from ${m().username ?? "someone"}`} tabIndex={-1} data-id={m().id}>
      <Show when={m().replyIds?.length}>
        <div class="replies">
          <For each={m().replyIds}>{(id) => <ReplyPreview state={props.state} id={id} channel={m().channelId} />}</For>
        </div>
      </Show>
      <Show when={!props.grouped}>
        <img class="avatar" src={m().masqueradeAvatarURL ?? m().avatarURL ?? (m().author ? avatar(m().author!) : "")} alt="" />
      </Show>
      <div class="body">
        <Show when={!props.grouped}>
          <header>
            <strong class="author" style={{ color: m().roleColour ?? undefined }}>
              {m().username}
            </strong>
            <time class="muted" dateTime={m().createdAt.toISOString()}>
              {m().createdAt.toLocaleString()}
            </time>
          </header>
        </Show>
        <Show
          when={!editing()}
          fallback={
            <EditBox
              initial={m().content}
              onSave={async (text) => {
                try {
                  await m().edit({ content: text });
                  setEditing(false);
                } catch (err) {
                  props.state.notify(errorText(err), "error");
                }
              }}
              onCancel={() => setEditing(false)}
            />
          }
        >
          <Show when={m().systemMessage} fallback={<div class="content">{renderContent(props.state, m().content)}</div>}>
            <div class="content system muted">{systemText(props.state, m())}</div>
          </Show>
          <Show when={m().editedAt}>
            <span class="muted edited" title={m().editedAt!.toLocaleString()}>
              (edited)
            </span>
          </Show>
        </Show>
        <For each={m().attachments ?? []}>{(f) => <Attachment file={f} />}</For>
        <For each={m().embeds ?? []}>{(e) => <Embed state={props.state} embed={e as never} />}</For>
        <Show when={m().reactions.size > 0}>
          <div class="reactions" role="group" aria-label="Reactions">
            <For each={[...m().reactions.keys()]}>
              {(emoji) => {
                const users = () => m().reactions.get(emoji);
                const me = () => !!users()?.has(client().user!.id);
                return (
                  <Show when={(users()?.size ?? 0) > 0}>
                    <button class="reaction" classList={{ mine: me() }} aria-pressed={me()} aria-label={`${emoji} ${users()!.size}`} onClick={() => toggle(emoji)} disabled={!canReact() && !me()}>
                      <EmojiView state={props.state} emoji={emoji} />
                      <span>{users()!.size}</span>
                    </button>
                  </Show>
                );
              }}
            </For>
          </div>
        </Show>
      </div>
      <div class="actions" role="toolbar" aria-label="Message actions">
        <button onClick={() => props.onReply(m())} aria-label="Reply" title="Reply">
          <Icon name="reply" />
        </button>
        <Show when={canReact()}>
          <button onClick={() => setPicker(!picker())} aria-label="Add reaction" aria-expanded={picker()} title="React">
            <Icon name="smile" />
          </button>
        </Show>
        <Show when={mine()}>
          <button onClick={() => setEditing(true)} aria-label="Edit" title="Edit">
            <Icon name="edit" />
          </button>
        </Show>
        <Show when={canDelete()}>
          <button onClick={remove} aria-label="Delete" title="Delete">
            <Icon name="trash" />
          </button>
        </Show>
        <For each={props.state.messageActions()}>
          {(a) => (
            <button
              class="plugin-action"
              onClick={async () => {
                try {
                  await a.onClick(m());
                } catch (err) {
                  props.state.notify(`${a.label}: ${errorText(err)}`, "error");
                }
              }}
            >
              {a.label}
            </button>
          )}
        </For>
      </div>
      <Show when={picker()}>
        <EmojiPicker
          state={props.state}
          serverId={m().channel?.serverId}
          onPick={(e) => {
            setPicker(false);
            toggle(e);
          }}
          onClose={() => setPicker(false)}
        />
      </Show>
    </article>
  );
}

function systemText(state: AppState, m: Message): string {
  const s = m.systemMessage as unknown as { type: string; id?: string; by?: string; name?: string; content?: string; user?: { displayName?: string }; from?: string; to?: string };
  const name = (id?: string) => (id ? state.client!.users.get(id)?.displayName ?? "someone" : "someone");
  const raw = (m as unknown as { system?: Record<string, string> }).system ?? {};
  switch (s?.type ?? raw.type) {
    case "user_joined":
      return `${name(raw.id)} joined.`;
    case "user_left":
      return `${name(raw.id)} left.`;
    case "user_added":
      return `${name(raw.by)} added ${name(raw.id)}.`;
    case "user_remove":
      return `${name(raw.by)} removed ${name(raw.id)}.`;
    case "user_kicked":
      return `${name(raw.id)} was kicked.`;
    case "user_banned":
      return `${name(raw.id)} was banned.`;
    case "channel_renamed":
      return `${name(raw.by)} renamed the channel to ${raw.name}.`;
    case "channel_description_changed":
      return `${name(raw.by)} changed the channel description.`;
    case "channel_icon_changed":
      return `${name(raw.by)} changed the channel icon.`;
    case "channel_ownership_changed":
      return `${name(raw.from)} gave the group to ${name(raw.to)}.`;
    case "text":
      return raw.content ?? "";
    default:
      return m.content || "(system message)";
  }
}

function ReplyPreview(props: { state: AppState; id: string; channel: string }) {
  const client = () => props.state.client!;
  const m = () => client().messages.get(props.id);
  onMount(() => {
    if (!m()) client().channels.get(props.channel)?.fetchMessage(props.id).catch(() => {});
  });
  return (
    <div class="reply-preview muted">
      ↪ <Show when={m()} fallback={<em>message not loaded</em>}>
        <strong>{m()!.username}</strong> {m()!.content.slice(0, 120)}
      </Show>
    </div>
  );
}

function EditBox(props: { initial: string; onSave: (text: string) => void; onCancel: () => void }) {
  const [text, setText] = createSignal(props.initial);
  let area!: HTMLTextAreaElement;
  onMount(() => area.focus());
  return (
    <div class="edit">
      <textarea
        ref={area}
        aria-label="Edit message"
        value={text()}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey) {
            e.preventDefault();
            if (text().trim()) props.onSave(text());
          } else if (e.key === "Escape") props.onCancel();
        }}
      />
      <span class="muted">Enter to save · Escape to cancel</span>
    </div>
  );
}

function Attachment(props: { file: NonNullable<Message["attachments"]>[number] }) {
  const f = () => props.file;
  const meta = () => f().metadata as { type: string; width?: number; height?: number };
  return (
    <Show
      when={meta()?.type === "Image"}
      fallback={
        <Show
          when={meta()?.type === "Video"}
          fallback={
            <a class="file" href={f().originalUrl} target="_blank" rel="noopener" download={f().filename}>
              <Icon name="clip" size={14} /> {f().filename} <span class="muted">({f().humanReadableSize})</span>
            </a>
          }
        >
          <video class="attachment" controls preload="metadata" src={f().originalUrl} width={meta().width} height={meta().height} />
        </Show>
      }
    >
      <a href={f().originalUrl} target="_blank" rel="noopener" class="image-link">
        <img
          class="attachment"
          src={f().previewUrl}
          alt={f().filename}
          loading="lazy"
          width={meta().width}
          height={meta().height}
          style={{ "aspect-ratio": meta().width && meta().height ? `${meta().width} / ${meta().height}` : undefined }}
        />
      </a>
    </Show>
  );
}

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
function Embed(props: { state: AppState; embed: EmbedView }) {
  const e = () => props.embed;
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

function safeURL(url?: string): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === "https:" || u.protocol === "http:" ? u.href : undefined;
  } catch {
    return undefined;
  }
}

function EmojiView(props: { state: AppState; emoji: string }) {
  return (
    <Show when={isCustomEmoji(props.emoji)} fallback={<span class="emoji">{props.emoji}</span>}>
      <img class="emoji custom" src={`${props.state.config?.features.autumn.url}/emojis/${props.emoji}`} alt={`:${props.state.client?.emojis.get(props.emoji)?.name ?? props.emoji}:`} />
    </Show>
  );
}

function EmojiPicker(props: { state: AppState; serverId?: string; onPick: (emoji: string) => void; onClose: () => void }) {
  const custom = createMemo(() => (props.serverId ? props.state.client!.emojis.filter((e) => (e as unknown as { parent?: { id: string } }).parent?.id === props.serverId) : []));
  let first!: HTMLButtonElement;
  onMount(() => first?.focus());
  return (
    <div class="picker" role="dialog" aria-label="Pick a reaction" onKeyDown={(e) => e.key === "Escape" && props.onClose()}>
      <For each={EMOJI}>
        {(e, i) => (
          <button ref={(el) => i() === 0 && (first = el)} onClick={() => props.onPick(e)} aria-label={e}>
            <span class="emoji">{e}</span>
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

const TOKEN = /<@([0-9A-HJKMNP-TV-Z]{26})>|<#([0-9A-HJKMNP-TV-Z]{26})>|:([0-9A-HJKMNP-TV-Z]{26}):|(https?:\/\/[^\s<>]+[^\s<>.,;:!?'")\]])/g;

/** Message text as nodes: mentions, channel links, custom emoji and links; never HTML. */
function renderContent(state: AppState, text: string): JSX.Element {
  const client = state.client!;
  const out: JSX.Element[] = [];
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    if (match.index! > last) out.push(text.slice(last, match.index));
    const [whole, user, channel, emoji, url] = match;
    if (user) {
      const u = client.users.get(user);
      out.push(<span class={`mention${user === client.user?.id ? " me" : ""}`}>@{u?.displayName ?? "unknown"}</span>);
    } else if (channel) {
      const c = client.channels.get(channel);
      const to = c?.serverId ? href.server(c.serverId, c.id) : href.dm(channel);
      out.push(
        <a class="mention" href={to} onClick={link(to)}>
          #{c?.name ?? "unknown"}
        </a>,
      );
    } else if (emoji) out.push(<EmojiView state={state} emoji={emoji} />);
    else if (url)
      out.push(
        <a href={url} target="_blank" rel="noopener noreferrer">
          {url}
        </a>,
      );
    else out.push(whole);
    last = match.index! + whole.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

function Typing(props: { channel: Channel; me: string }) {
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

function Composer(props: { state: AppState; channel: Channel; replies: Message[]; clearReplies: () => void; dropReply: (m: Message) => void }) {
  const client = () => props.state.client!;
  const [text, setText] = createSignal("");
  const [files, setFiles] = createSignal<File[]>([]);
  const [busy, setBusy] = createSignal(false);
  const [suggest, setSuggest] = createSignal(0);
  let area!: HTMLTextAreaElement;
  let fileInput!: HTMLInputElement;

  createEffect(on(() => props.channel.id, () => queueMicrotask(() => area?.focus())));

  // Autocomplete: "@name" for members, "/name" for plugin commands, ":name" for emoji.
  const query = createMemo(() => {
    const t = text();
    const at = /(^|\s)@([^\s@]{0,32})$/.exec(t);
    if (at) return { kind: "user" as const, q: at[2].toLowerCase(), start: t.length - at[2].length - 1 };
    const slash = /^\/([a-z0-9_-]*)$/.exec(t);
    if (slash) return { kind: "command" as const, q: slash[1], start: 0 };
    const colon = /(^|\s):([a-z0-9_+-]{2,32})$/.exec(t);
    if (colon) return { kind: "emoji" as const, q: colon[2], start: t.length - colon[2].length - 1 };
    return undefined;
  });
  const candidates = createMemo((): { label: string; detail?: string; insert: string; user?: User }[] => {
    const q = query();
    if (!q) return [];
    if (q.kind === "command")
      return props.state
        .slashCommands()
        .filter((c) => c.name.startsWith(q.q))
        .map((c) => ({ label: `/${c.name}`, detail: c.description, insert: `/${c.name} ` }));
    if (q.kind === "emoji")
      return Object.entries(SHORTCODES)
        .filter(([k]) => k.startsWith(q.q))
        .slice(0, 8)
        .map(([k, v]) => ({ label: `${v} :${k}:`, insert: `${v} ` }));
    const ch = props.channel;
    const users = ch.serverId
      ? client()
          .serverMembers.filter((m) => m.id.server === ch.serverId)
          .map((m) => m.user)
      : ch.recipients;
    return users
      .filter((u): u is User => !!u && (u.username.toLowerCase().startsWith(q.q) || u.displayName.toLowerCase().startsWith(q.q)))
      .slice(0, 8)
      .map((u) => ({ label: u.displayName, detail: `${u.username}#${u.discriminator}`, insert: `<@${u.id}> `, user: u }));
  });
  createEffect(on(candidates, () => setSuggest(0)));

  const complete = (i: number) => {
    const q = query();
    const c = candidates()[i];
    if (!q || !c) return;
    setText(text().slice(0, q.start) + c.insert);
    area.focus();
  };

  const send = async () => {
    const content = text().trim();
    if (!content && files().length === 0) return;
    setBusy(true);
    try {
      let body = content;
      const cmd = /^\/([a-z0-9_-]+)(?:\s+([\s\S]*))?$/.exec(content);
      const command = cmd && props.state.slashCommands().find((c) => c.name === cmd[1]);
      if (command) {
        const result = await command.run(cmd![2] ?? "", props.channel);
        if (typeof result !== "string" || !result.trim()) {
          setText("");
          return;
        }
        body = result;
      }
      const attachments: string[] = [];
      for (const f of files()) attachments.push(await client().uploadFile("attachments", f));
      await props.channel.sendMessage({
        content: body || undefined,
        attachments: attachments.length ? attachments : undefined,
        replies: props.replies.length ? props.replies.map((m) => ({ id: m.id, mention: false })) : undefined,
      } as never);
      setText("");
      setFiles([]);
      props.clearReplies();
      props.channel.stopTyping();
    } catch (err) {
      props.state.notify(errorText(err), "error");
    } finally {
      setBusy(false);
      area.focus();
    }
  };

  const canSend = () => props.channel.havePermission("SendMessage");
  return (
    <div class="composer">
      <Show when={props.replies.length}>
        <div class="reply-bar">
          <For each={props.replies}>
            {(m) => (
              <span class="chip">
                Replying to {m.username}
                <button aria-label={`Stop replying to ${m.username}`} onClick={() => props.dropReply(m)}>
                  ×
                </button>
              </span>
            )}
          </For>
        </div>
      </Show>
      <Show when={files().length}>
        <div class="reply-bar">
          <For each={files()}>
            {(f) => (
              <span class="chip">
                <Icon name="clip" size={14} /> {f.name}
                <button aria-label={`Remove ${f.name}`} onClick={() => setFiles(files().filter((x) => x !== f))}>
                  ×
                </button>
              </span>
            )}
          </For>
        </div>
      </Show>
      <Show when={candidates().length}>
        <ul class="suggest" role="listbox" aria-label="Suggestions">
          <Index each={candidates()}>
            {(c, i) => (
              <li role="option" aria-selected={i === suggest()} classList={{ active: i === suggest() }} onMouseDown={(e) => (e.preventDefault(), complete(i))}>
                <Show when={c().user}>
                  <img class="avatar small" src={avatar(c().user!)} alt="" />
                </Show>
                <span>{c().label}</span>
                <Show when={c().detail}>
                  <span class="muted">{c().detail}</span>
                </Show>
              </li>
            )}
          </Index>
        </ul>
      </Show>
      <div class="composer-row">
        <Show when={props.channel.havePermission("UploadFiles")}>
          <button aria-label="Attach files" title="Attach files" onClick={() => fileInput.click()} disabled={!canSend()}>
            <Icon name="clip" />
          </button>
          <input ref={fileInput} type="file" multiple hidden name="attachments" onChange={(e) => setFiles([...files(), ...Array.from(e.currentTarget.files ?? [])].slice(0, 5))} />
        </Show>
        <textarea
          ref={area}
          rows={1}
          name="message"
          aria-label={`Message ${props.channel.type === "DirectMessage" ? "@" + (props.channel.recipient?.displayName ?? "") : "#" + (props.channel.name ?? "")}`}
          placeholder={canSend() ? `Message ${props.channel.type === "DirectMessage" ? "@" + (props.channel.recipient?.displayName ?? "") : "#" + (props.channel.name ?? "")}` : "You cannot send messages here"}
          disabled={!canSend()}
          value={text()}
          onInput={(e) => {
            setText(e.currentTarget.value);
            if (e.currentTarget.value) props.channel.startTyping();
            else props.channel.stopTyping();
          }}
          onPaste={(e) => {
            const pasted = Array.from(e.clipboardData?.files ?? []);
            if (pasted.length) setFiles([...files(), ...pasted].slice(0, 5));
          }}
          onKeyDown={(e) => {
            const n = candidates().length;
            if (n && (e.key === "ArrowDown" || e.key === "ArrowUp")) {
              e.preventDefault();
              setSuggest((suggest() + (e.key === "ArrowDown" ? 1 : n - 1)) % n);
            } else if (n && (e.key === "Tab" || (e.key === "Enter" && !e.shiftKey && query()?.kind !== "command"))) {
              e.preventDefault();
              complete(suggest());
            } else if (e.key === "Enter" && !e.shiftKey) {
              e.preventDefault();
              if (!busy()) send();
            } else if (e.key === "Escape") props.clearReplies();
          }}
        />
        <button class="primary" onClick={send} disabled={busy() || !canSend()}>
          Send
        </button>
      </div>
    </div>
  );
}
