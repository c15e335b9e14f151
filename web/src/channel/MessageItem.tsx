// One message: author, content, attachments, embeds, reactions and
// its actions.

import { createEffect, createSignal, For, type JSX, onMount, Show } from "solid-js";
import type { Message } from "stoat.js";
import type { AppState } from "../app/state";
import { href, link } from "../app/router";
import { errorText } from "../lib/errors";
import { avatar } from "../ui/media";
import { EmojiPicker, EmojiView } from "../ui/Emoji";
import { Icon } from "../ui/Icon";
import { Embed } from "./Embed";
import { Markdown } from "./Markdown";
import { inline, plain } from "../lib/markdown";

export function MessageItem(props: { state: AppState; message: Message; grouped: boolean; onReply: (m: Message) => void }) {
  const m = () => props.message;
  const client = () => props.state.client!;
  const mine = () => m().authorId === client().user?.id;
  const [editing, setEditing] = createSignal(false);
  createEffect(() => {
    if (props.state.editing === m().id) {
      setEditing(true);
      props.state.editMessage(undefined);
    }
  });
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
        <Show when={m().author && !m().masquerade} fallback={<img class="avatar" src={m().masqueradeAvatarURL ?? m().avatarURL ?? (m().author ? avatar(m().author!) : "")} alt="" />}>
          <button class="avatar-button" tabIndex={-1} aria-hidden="true" onClick={() => props.state.showProfile(m().authorId)}>
            <img class="avatar" src={m().masqueradeAvatarURL ?? m().avatarURL ?? avatar(m().author!)} alt="" />
          </button>
        </Show>
      </Show>
      <div class="body">
        <Show when={!props.grouped}>
          <header>
            <Show
              when={m().author && !m().masquerade}
              fallback={
                <strong class="author" style={{ color: m().roleColour ?? undefined }}>
                  {m().username}
                </strong>
              }
            >
              <button class="author link" style={{ color: m().roleColour ?? undefined }} aria-label={`Profile of ${m().username}`} onClick={() => props.state.showProfile(m().authorId)}>
                {m().username}
              </button>
            </Show>
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
          <Show when={m().systemMessage} fallback={<div class="content markdown"><Markdown state={props.state} text={m().content ?? ""} /></div>}>
            <div class="content system muted">{systemText(props.state, m())}</div>
          </Show>
          <Show when={m().editedAt}>
            <span class="muted edited" title={m().editedAt!.toLocaleString()}>
              (edited)
            </span>
          </Show>
        </Show>
        <For each={m().attachments ?? []}>{(f) => <Attachment file={f} />}</For>
        <For each={m().embeds ?? []}>{(e) => <Embed state={props.state} embed={e} />}</For>
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
    <button class="reply-preview muted" aria-label={`Jump to the replied message${m() ? ` from ${m()!.username}` : ""}`} onClick={() => props.state.jump(props.channel, props.id)}>
      ↪ <Show when={m()} fallback={<em>message not loaded</em>}>
        <strong>{m()!.username}</strong> <span>{plain(inline(m()!.content ?? "")).slice(0, 120)}</span>
      </Show>
    </button>
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
  const [viewing, setViewing] = createSignal(false);
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
      <a
        href={f().originalUrl}
        target="_blank"
        rel="noopener"
        class="image-link"
        aria-label={`View ${f().filename}`}
        onClick={(e) => {
          if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
          e.preventDefault();
          setViewing(true);
        }}
      >
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
      <Show when={viewing()}>
        <ImageViewer url={f().originalUrl ?? f().previewUrl ?? ""} name={f().filename ?? "image"} onClose={() => setViewing(false)} />
      </Show>
    </Show>
  );
}

/** An image at full size over the page; Escape, the close button or a click beside it closes it. */
function ImageViewer(props: { url: string; name: string; onClose: () => void }) {
  let close!: HTMLButtonElement;
  onMount(() => close.focus());
  return (
    <div class="backdrop viewer" onClick={(e) => e.target === e.currentTarget && props.onClose()} onKeyDown={(e) => e.key === "Escape" && props.onClose()}>
      <div class="viewer-box" role="dialog" aria-modal="true" aria-label={`Image ${props.name}`}>
        <img src={props.url} alt={props.name} />
        <div class="row">
          <a href={props.url} target="_blank" rel="noopener" download={props.name}>
            Open original
          </a>
          <span class="spacer" />
          <button ref={close} onClick={() => props.onClose()}>
            Close
          </button>
        </div>
      </div>
    </div>
  );
}
