// The message box: replies, mentions, emoji and command completion,
// attachments, slash commands.

import { createEffect, createMemo, createSignal, For, Index, on, Show } from "solid-js";
import type { Channel, Message, User } from "stoat.js";
import type { AppState } from "../app/state";
import { errorText } from "../lib/errors";
import { SHORTCODES } from "../lib/emoji";
import { avatar } from "../ui/media";
import { Icon } from "../ui/Icon";
import { FilePicker } from "../ui/FilePicker";

export function Composer(props: { state: AppState; channel: Channel; replies: Message[]; clearReplies: () => void; dropReply: (m: Message) => void }) {
  const client = () => props.state.client!;
  const [text, setText] = createSignal("");
  const [progress, setProgress] = createSignal("");
  const [files, setFiles] = createSignal<File[]>([]);
  const [busy, setBusy] = createSignal(false);
  const [suggest, setSuggest] = createSignal(0);
  let area!: HTMLTextAreaElement;

  // Drafts are kept per channel (in this tab) while the person is elsewhere.
  createEffect(
    on(
      () => props.channel.id,
      (id, prev) => {
        if (prev) props.state.drafts.set(prev, text());
        setText(props.state.drafts.get(id) ?? "");
        queueMicrotask(() => area?.focus());
      },
    ),
  );

  /** ↑ in an empty box edits the person's last message in the channel. */
  const editLast = () => {
    const me = client().user?.id;
    const mine = client()
      .messages.filter((m) => m.channelId === props.channel.id && m.authorId === me && !m.systemMessage)
      .sort((a, b) => (a.id < b.id ? 1 : -1))[0];
    if (!mine) return false;
    props.state.editMessage(mine.id);
    return true;
  };

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
      for (const f of files()) {
        attachments.push(await props.state.rest.upload(props.state.config!.features.autumn.url, "attachments", f, (p) => setProgress(`${f.name}: ${Math.round(p * 100)} %`)));
      }
      setProgress("");
      await props.channel.sendMessage({
        content: body || undefined,
        attachments: attachments.length ? attachments : undefined,
        replies: props.replies.length ? props.replies.map((m) => ({ id: m.id, mention: false })) : undefined,
      });
      setText("");
      props.state.drafts.delete(props.channel.id);
      setFiles([]);
      props.clearReplies();
      typing(props.channel, false);
    } catch (err) {
      props.state.notify(errorText(err), "error");
    } finally {
      setBusy(false);
      area.focus();
    }
  };

  const canSend = () => props.channel.havePermission("SendMessage");
  return (
    <div
      class="composer"
      onDragOver={(e) => {
        if (e.dataTransfer?.types.includes("Files")) e.preventDefault();
      }}
      onDrop={(e) => {
        const dropped = Array.from(e.dataTransfer?.files ?? []);
        if (!dropped.length) return;
        e.preventDefault();
        setFiles([...files(), ...dropped].slice(0, 5));
      }}
    >
      <Show when={progress()}>
        <div class="upload-progress" role="status" aria-label="Upload progress">
          Uploading {progress()}
        </div>
      </Show>
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
          <FilePicker label="Attach files" multiple disabled={!canSend()} onFiles={(f) => setFiles([...files(), ...f].slice(0, 5))}>
            <Icon name="clip" />
          </FilePicker>
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
            typing(props.channel, !!e.currentTarget.value);
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
            } else if (e.key === "ArrowUp" && !text() && editLast()) {
              e.preventDefault();
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

// typing tells the others that the person started or stopped typing. It
// is best effort: while the events socket reconnects the client library
// throws instead of sending, and nothing is lost by skipping it.
function typing(channel: { startTyping(): void; stopTyping(): void }, on: boolean) {
  try {
    if (on) channel.startTyping();
    else channel.stopTyping();
  } catch {
    // the socket is closed; the next keystroke after it reconnects sends it
  }
}
