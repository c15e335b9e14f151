// The platform's message markdown, parsed into a tree that the message
// view turns into DOM nodes (channel/Markdown.tsx): text stays text, so
// HTML in a message is never markup, and a link keeps only an address
// that safeLink accepts. Constructs: paragraphs with line breaks,
// headings (#…######), block quotes (>), lists (-, *, +, 1.), fenced
// code (```lang) and inline code, bold, italics, strikethrough,
// spoilers (||…||), links ([text](url), <url> and bare http(s) URLs),
// mentions of users (<@id>), roles (<%id>) and channels (<#id>),
// @everyone and @online, custom emoji (:id:), shortcodes (:smile:)
// and Unicode emoji, tables (a header row, a |---|:--:| row, then rows),
// timestamps (<t:1700000000> and <t:1700000000:R>, drawn in the
// reader's time zone), and backslash escapes.

import { SHORTCODES, emojiSegments } from "./emoji";
import { safeLink } from "./urls";

export type Inline =
  | { t: "text"; v: string }
  | { t: "br" }
  | { t: "strong" | "em" | "del" | "spoiler"; c: Inline[] }
  | { t: "code"; v: string }
  | { t: "link"; href: string; c: Inline[] }
  | { t: "user" | "role" | "channel"; id: string }
  | { t: "everyone" | "online" }
  | { t: "custom-emoji"; id: string }
  | { t: "emoji"; v: string }
  | { t: "time"; at: number; style: TimeStyle };

/** How a timestamp is written: t 16:20, T 16:20:30, d 20/04/2021, D 20 April 2021, f (default) both, F with the weekday, R relative. */
export type TimeStyle = "t" | "T" | "d" | "D" | "f" | "F" | "R";

export type Align = "left" | "center" | "right" | "";

export type Block =
  | { t: "p"; c: Inline[] }
  | { t: "h"; level: number; c: Inline[] }
  | { t: "quote"; c: Block[] }
  | { t: "list"; ordered: boolean; start: number; items: Inline[][] }
  | { t: "pre"; lang: string; v: string }
  | { t: "table"; align: Align[]; head: Inline[][]; rows: Inline[][][] };

const ULID = "[0-9A-HJKMNP-TV-Z]{26}";
const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)\s*$/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const QUOTE = /^ {0,3}>\s?(.*)$/;
const ITEM = /^ {0,3}(?:([-*+])|(\d{1,9})[.)])\s+(.*)$/;
const DELIMITER_CELL = /^\s*(:?)-+(:?)\s*$/;
/** The most columns a table keeps; cells beyond are dropped. */
const MAX_COLUMNS = 32;

/** The cells of a table row: split at unescaped pipes, the outer pipes dropped. */
export function cells(line: string): string[] {
  let row = line.trim();
  if (row.startsWith("|")) row = row.slice(1);
  if (row.endsWith("|") && !row.endsWith("\\|")) row = row.slice(0, -1);
  const out: string[] = [];
  let cell = "";
  for (let i = 0; i < row.length; i++) {
    if (row[i] === "\\" && row[i + 1] === "|") {
      cell += "\\|"; // inline() turns the escape into a pipe
      i++;
    } else if (row[i] === "|") {
      out.push(cell.trim());
      cell = "";
    } else cell += row[i];
  }
  out.push(cell.trim());
  return out;
}

/** The alignments of a delimiter row (|---|:--:|--:|), or undefined when line is not one. */
function delimiter(line: string): Align[] | undefined {
  if (!line.includes("-") || !/^[\s|:-]+$/.test(line)) return undefined;
  const parts = cells(line);
  const out: Align[] = [];
  for (const p of parts) {
    const m = DELIMITER_CELL.exec(p);
    if (!m) return undefined;
    out.push(m[1] && m[2] ? "center" : m[2] ? "right" : m[1] ? "left" : "");
  }
  return out;
}

/** Parses message text into blocks. */
export function parse(text: string): Block[] {
  return blocks(text.replace(/\r\n?/g, "\n").split("\n"), 0);
}

function blocks(lines: string[], depth: number): Block[] {
  const out: Block[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length) out.push({ t: "p", c: inline(para.join("\n")) });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = FENCE.exec(line);
    if (fence) {
      const close = lines.findIndex((l, j) => j > i && l.trim().startsWith(fence[1]) && l.trim().replace(/[`~]/g, "") === "");
      // An unclosed fence runs to the end of the message.
      const end = close < 0 ? lines.length : close;
      flush();
      out.push({ t: "pre", lang: fence[2].toLowerCase(), v: lines.slice(i + 1, end).join("\n") });
      i = end;
      continue;
    }
    if (!line.trim()) {
      flush();
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flush();
      out.push({ t: "h", level: heading[1].length, c: inline(heading[2]) });
      continue;
    }
    if (QUOTE.test(line) && depth < 8) {
      flush();
      const quoted: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i])) quoted.push(QUOTE.exec(lines[i++])![1]);
      i--;
      out.push({ t: "quote", c: blocks(quoted, depth + 1) });
      continue;
    }
    // A table: a row with pipes over a delimiter row with as many cells.
    const align = line.includes("|") && i + 1 < lines.length ? delimiter(lines[i + 1]) : undefined;
    if (align && align.length === cells(line).length) {
      flush();
      const width = Math.min(align.length, MAX_COLUMNS);
      const row = (l: string) => {
        const c = cells(l).slice(0, width);
        while (c.length < width) c.push("");
        return c.map(inline);
      };
      const head = row(line);
      const rows: Inline[][][] = [];
      for (i += 2; i < lines.length && lines[i].trim() && lines[i].includes("|"); i++) rows.push(row(lines[i]));
      i--;
      out.push({ t: "table", align: align.slice(0, width), head, rows });
      continue;
    }
    const item = ITEM.exec(line);
    if (item) {
      flush();
      const ordered = !item[1];
      const items: string[] = [];
      while (i < lines.length) {
        const m = ITEM.exec(lines[i]);
        if (m && !m[1] === ordered) items.push(m[3]);
        else if (items.length && /^\s{2,}\S/.test(lines[i])) items[items.length - 1] += "\n" + lines[i].trim();
        else break;
        i++;
      }
      i--;
      out.push({ t: "list", ordered, start: ordered ? Number(item[2]) : 1, items: items.map(inline) });
      continue;
    }
    para.push(line);
  }
  flush();
  return out;
}

/** Delimited spans: the delimiter, the node it makes, and whether it may hold other spans. */
const SPANS: [string, "strong" | "em" | "del" | "spoiler"][] = [
  ["||", "spoiler"],
  ["**", "strong"],
  ["__", "strong"],
  ["~~", "del"],
  ["*", "em"],
  ["_", "em"],
];

const TOKEN = new RegExp(
  [
    `<@(${ULID})>`, // 1 user
    `<%(${ULID})>`, // 2 role
    `<#(${ULID})>`, // 3 channel
    `:(${ULID}):`, // 4 custom emoji
    `:([a-z0-9_+-]{1,32}):`, // 5 shortcode
    `<(https?:\\/\\/[^\\s<>]+)>`, // 6 <url>
    `(https?:\\/\\/[^\\s<>]*[^\\s<>.,;:!?'")\\]*_~|])`, // 7 bare url
    `(@everyone|@online)\\b`, // 8
    `<t:(-?\\d{1,13})(?::([tTdDfFR]))?>`, // 9 timestamp, 10 style
  ].join("|"),
  "y",
);

/** Parses inline markdown. */
export function inline(src: string): Inline[] {
  const out: Inline[] = [];
  let text = "";
  const push = (n: Inline) => {
    if (text) out.push(...textNodes(text));
    text = "";
    out.push(n);
  };
  let i = 0;
  while (i < src.length) {
    const ch = src[i];
    if (ch === "\\" && i + 1 < src.length && /[\\`*_~|[\]()#>:<@!.+-]/.test(src[i + 1])) {
      text += src[i + 1];
      i += 2;
      continue;
    }
    if (ch === "\n") {
      push({ t: "br" });
      i++;
      continue;
    }
    if (ch === "`") {
      const ticks = /^`+/.exec(src.slice(i))![0];
      const end = src.indexOf(ticks, i + ticks.length);
      if (end > 0) {
        push({ t: "code", v: src.slice(i + ticks.length, end).replace(/^ (.*) $/s, "$1") });
        i = end + ticks.length;
        continue;
      }
      text += ticks;
      i += ticks.length;
      continue;
    }
    if (ch === "[") {
      const link = /^\[([^\]\n]{1,500})\]\(\s*<?([^\s()<>]+(?:\([^\s()<>]*\))?[^\s()<>]*)>?\s*\)/.exec(src.slice(i));
      if (link) {
        const href = safeLink(link[2]);
        if (href) push({ t: "link", href, c: inline(link[1]) });
        else text += link[0]; // not a safe address: the whole thing stays text
        i += link[0].length;
        continue;
      }
    }
    const span = SPANS.find(([d]) => src.startsWith(d, i));
    if (span) {
      const [d, t] = span;
      const end = closing(src, d, i + d.length);
      // Intraword underscores (snake_case) are not emphasis.
      const wordy = d[0] === "_" && (/\w/.test(src[i - 1] ?? "") || /\w/.test(src[end + d.length] ?? ""));
      if (end > i + d.length && !/\s/.test(src[i + d.length]) && !/\s/.test(src[end - 1]) && !wordy) {
        push({ t, c: inline(src.slice(i + d.length, end)) });
        i = end + d.length;
        continue;
      }
    }
    TOKEN.lastIndex = i;
    const m = TOKEN.exec(src);
    if (m) {
      if (m[1]) push({ t: "user", id: m[1] });
      else if (m[2]) push({ t: "role", id: m[2] });
      else if (m[3]) push({ t: "channel", id: m[3] });
      else if (m[4]) push({ t: "custom-emoji", id: m[4] });
      else if (m[5]) {
        const e = SHORTCODES[m[5]];
        if (e) push({ t: "emoji", v: e });
        else {
          text += m[0].slice(0, -1);
          i += m[0].length - 1; // the closing colon may open the next shortcode
          continue;
        }
      } else if (m[6] || m[7]) {
        const url = m[6] ?? m[7];
        const href = safeLink(url);
        if (href) push({ t: "link", href, c: [{ t: "text", v: url }] });
        else text += m[0];
      } else if (m[8]) push({ t: m[8] === "@everyone" ? "everyone" : "online" });
      else if (m[9]) {
        const at = Number(m[9]);
        // Beyond what a Date holds (±8.64e15 ms) it stays text.
        if (Math.abs(at) <= 8.64e12) push({ t: "time", at, style: (m[10] ?? "f") as TimeStyle });
        else text += m[0];
      }
      i += m[0].length;
      continue;
    }
    text += ch;
    i++;
  }
  if (text) out.push(...textNodes(text));
  return out;
}

/** The index of the delimiter closing a span opened before from, on the same paragraph, or -1. */
function closing(src: string, d: string, from: number): number {
  let i = from;
  while (i < src.length) {
    if (src[i] === "\\") {
      i += 2;
      continue;
    }
    if (src[i] === "`") {
      const ticks = /^`+/.exec(src.slice(i))![0];
      const end = src.indexOf(ticks, i + ticks.length);
      i = end > 0 ? end + ticks.length : i + ticks.length;
      continue;
    }
    if (src.startsWith(d, i)) {
      // "**" is not the end of "*"-emphasis.
      if (d.length === 1 && src[i + 1] === d) {
        const end = closing(src, d + d, i + 2);
        if (end > 0) {
          i = end + 2;
          continue;
        }
      }
      // In a longer run ("***") the outer span closes last.
      if (d.length === 2) {
        let run = i;
        while (src[run] === d[0]) run++;
        return run - d.length;
      }
      return i;
    }
    i++;
  }
  return -1;
}

/** Plain text split into text and Unicode emoji nodes. */
function textNodes(text: string): Inline[] {
  return emojiSegments(text).map((s) => (s.emoji ? { t: "emoji", v: s.text } : { t: "text", v: s.text }));
}

/** The text of inline nodes without markup (previews, notifications, search). */
export function plain(nodes: Inline[], name: (n: Inline) => string = () => ""): string {
  return nodes
    .map((n): string => {
      switch (n.t) {
        case "text":
        case "code":
        case "emoji":
          return n.v;
        case "br":
          return "\n";
        case "strong":
        case "em":
        case "del":
        case "link":
          return plain(n.c, name);
        case "spoiler":
          return "▒▒▒";
        case "time":
          return formatTime(n.at, n.style);
        default:
          return name(n);
      }
    })
    .join("");
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 86400],
  ["month", 30 * 86400],
  ["week", 7 * 86400],
  ["day", 86400],
  ["hour", 3600],
  ["minute", 60],
  ["second", 1],
];

/**
 * A timestamp (seconds since 1970) as text in a style, for a reader at
 * now (milliseconds) in a time zone and locale (the browser's when not
 * given).
 */
export function formatTime(at: number, style: TimeStyle, now = Date.now(), locale?: string, timeZone?: string): string {
  const date = new Date(at * 1000);
  const f = (o: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat(locale, { ...o, timeZone }).format(date);
  switch (style) {
    case "t":
      return f({ hour: "2-digit", minute: "2-digit" });
    case "T":
      return f({ hour: "2-digit", minute: "2-digit", second: "2-digit" });
    case "d":
      return f({ year: "numeric", month: "2-digit", day: "2-digit" });
    case "D":
      return f({ year: "numeric", month: "long", day: "numeric" });
    case "F":
      return f({ weekday: "long", year: "numeric", month: "long", day: "numeric", hour: "2-digit", minute: "2-digit" });
    case "R": {
      const diff = at - now / 1000;
      // The largest unit the distance nearly reaches: 59 min 58 s is "in 1 hour".
      const [unit, size] = UNITS.find(([, s]) => Math.abs(diff) >= s * 0.98) ?? ["second", 1];
      return new Intl.RelativeTimeFormat(locale, { numeric: "auto" }).format(Math.round(diff / size), unit);
    }
    default:
      return f({ year: "numeric", month: "long", day: "numeric", hour: "2-digit", minute: "2-digit" });
  }
}
