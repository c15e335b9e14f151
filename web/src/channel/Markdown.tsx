// Draws the tree of lib/markdown.ts as DOM nodes. Text is always a text
// node (never innerHTML); links open in a new tab with rel="noopener
// noreferrer", after a question when they leave the instance.

import { createSignal, For, type JSX, Match, onCleanup, Switch } from "solid-js";
import { Dynamic } from "solid-js/web";
import type { AppState } from "../app/state";
import { href, link } from "../app/router";
import { formatTime, parse, type Block, type Inline, type TimeStyle } from "../lib/markdown";
import { highlight } from "../lib/highlight";
import { leavesInstance } from "../lib/urls";
import { EmojiView, UnicodeEmoji } from "../ui/Emoji";

export function Markdown(props: { state: AppState; text: string }) {
  const tree = () => parse(props.text);
  return <For each={tree()}>{(b) => <BlockView state={props.state} block={b} />}</For>;
}

function BlockView(props: { state: AppState; block: Block }): JSX.Element {
  const b = props.block;
  switch (b.t) {
    case "p":
      return (
        <p>
          <Inlines state={props.state} nodes={b.c} />
        </p>
      );
    case "h":
      // Message headings are not page headings: styled text, no heading role.
      return (
        <div class={`md-h md-h${b.level}`}>
          <Inlines state={props.state} nodes={b.c} />
        </div>
      );
    case "quote":
      return (
        <blockquote>
          <For each={b.c}>{(c) => <BlockView state={props.state} block={c} />}</For>
        </blockquote>
      );
    case "list":
      return (
        <Dynamic component={b.ordered ? "ol" : "ul"} start={b.ordered ? b.start : undefined}>
          <For each={b.items}>
            {(item) => (
              <li>
                <Inlines state={props.state} nodes={item} />
              </li>
            )}
          </For>
        </Dynamic>
      );
    case "table":
      return (
        <div class="md-table-wrap">
          <table>
            <thead>
              <tr>
                <For each={b.head}>
                  {(cell, i) => (
                    <th style={{ "text-align": b.align[i()] || undefined }}>
                      <Inlines state={props.state} nodes={cell} />
                    </th>
                  )}
                </For>
              </tr>
            </thead>
            <tbody>
              <For each={b.rows}>
                {(row) => (
                  <tr>
                    <For each={row}>
                      {(cell, i) => (
                        <td style={{ "text-align": b.align[i()] || undefined }}>
                          <Inlines state={props.state} nodes={cell} />
                        </td>
                      )}
                    </For>
                  </tr>
                )}
              </For>
            </tbody>
          </table>
        </div>
      );
    case "pre":
      return (
        <pre class="code" data-lang={b.lang || undefined}>
          <code>
            <For each={highlight(b.v, b.lang)}>{(tok) => (tok.k ? <span class={`tok-${tok.k}`}>{tok.v}</span> : tok.v)}</For>
          </code>
        </pre>
      );
  }
}

function Inlines(props: { state: AppState; nodes: Inline[] }) {
  return <For each={props.nodes}>{(n) => <InlineView state={props.state} node={n} />}</For>;
}

function InlineView(props: { state: AppState; node: Inline }): JSX.Element {
  const n = props.node;
  const client = () => props.state.client!;
  switch (n.t) {
    case "text":
      return n.v;
    case "br":
      return <br />;
    case "strong":
      return (
        <strong>
          <Inlines state={props.state} nodes={n.c} />
        </strong>
      );
    case "em":
      return (
        <em>
          <Inlines state={props.state} nodes={n.c} />
        </em>
      );
    case "del":
      return (
        <del>
          <Inlines state={props.state} nodes={n.c} />
        </del>
      );
    case "code":
      return <code class="inline-code">{n.v}</code>;
    case "spoiler":
      return <Spoiler state={props.state} nodes={n.c} />;
    case "link":
      return (
        <a
          href={n.href}
          target="_blank"
          rel="noopener noreferrer"
          onClick={(e) => {
            if (leavesInstance(n.href, location.origin) && !confirm(`This link leaves ${location.host} for:\n\n${n.href}\n\nOpen it?`)) e.preventDefault();
          }}
        >
          <Inlines state={props.state} nodes={n.c} />
        </a>
      );
    case "user": {
      const u = () => client().users.get(n.id);
      return (
        <span
          class={`mention${n.id === client().user?.id ? " me" : ""}`}
          role="button"
          tabIndex={0}
          onClick={() => props.state.showProfile(n.id)}
          onKeyDown={(e) => (e.key === "Enter" || e.key === " ") && (e.preventDefault(), props.state.showProfile(n.id))}
        >
          @{u()?.displayName ?? "unknown user"}
        </span>
      );
    }
    case "role": {
      const role = () => {
        for (const s of client().servers.values()) {
          const r = s.roles.get(n.id);
          if (r) return r;
        }
        return undefined;
      };
      return (
        <span class="mention role" style={{ color: role()?.colour ?? undefined }}>
          @{role()?.name ?? "unknown role"}
        </span>
      );
    }
    case "channel": {
      const c = () => client().channels.get(n.id);
      const to = () => (c()?.serverId ? href.server(c()!.serverId!, n.id) : href.dm(n.id));
      return (
        <a class="mention" href={to()} onClick={link(to())}>
          #{c()?.name ?? "unknown channel"}
        </a>
      );
    }
    case "everyone":
    case "online":
      return <span class="mention">@{n.t}</span>;
    case "custom-emoji":
      return <EmojiView state={props.state} emoji={n.id} />;
    case "emoji":
      return <UnicodeEmoji emoji={n.v} />;
    case "time":
      return <Timestamp at={n.at} style={n.style} />;
  }
}

/** A timestamp in the reader's time zone; a relative one stays current, and the full date shows on hover. */
function Timestamp(props: { at: number; style: TimeStyle }) {
  const [now, setNow] = createSignal(Date.now());
  if (props.style === "R") {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    onCleanup(() => clearInterval(timer));
  }
  const date = new Date(props.at * 1000);
  return (
    <time class="timestamp" dateTime={date.toISOString()} title={formatTime(props.at, "F")}>
      {formatTime(props.at, props.style, now())}
    </time>
  );
}

/** ||text||: covered until clicked (or Enter/Space on it). */
function Spoiler(props: { state: AppState; nodes: Inline[] }) {
  const [shown, setShown] = createSignal(false);
  return (
    <Switch>
      <Match when={shown()}>
        <span class="spoiler shown">
          <Inlines state={props.state} nodes={props.nodes} />
        </span>
      </Match>
      <Match when={!shown()}>
        <span
          class="spoiler"
          role="button"
          tabIndex={0}
          aria-label="Spoiler: show"
          onClick={() => setShown(true)}
          onKeyDown={(e) => (e.key === "Enter" || e.key === " ") && (e.preventDefault(), setShown(true))}
        >
          <span aria-hidden="true">
            <Inlines state={props.state} nodes={props.nodes} />
          </span>
        </span>
      </Match>
    </Switch>
  );
}
