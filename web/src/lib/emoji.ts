// Emoji are Unicode text drawn by the system's emoji font: nothing is
// fetched from outside the instance. Custom emoji are the instance's own
// files (/emojis/{id} on the file service).

export const EMOJI: string[] = [
  "👍", "👎", "😀", "😂", "🤣", "😊", "😍", "🥰", "😘", "😎", "🤔", "🙄", "😴", "😢", "😭", "😡",
  "🤯", "😱", "🥳", "🤝", "🙏", "👏", "🙌", "💪", "👀", "🎉", "✨", "🔥", "💯", "❤️", "🧡", "💛",
  "💚", "💙", "💜", "🖤", "✅", "❌", "⚠️", "❓", "❗", "💡", "📌", "🚀", "🐛", "☕", "🍕", "🌟",
];

/** Reads "<name>:" shortcodes typed in the message box. */
export const SHORTCODES: Record<string, string> = {
  "+1": "👍", "-1": "👎", smile: "😀", joy: "😂", heart: "❤️", fire: "🔥", tada: "🎉", eyes: "👀",
  thinking: "🤔", pray: "🙏", clap: "👏", rocket: "🚀", check: "✅", x: "❌", wave: "👋", ok: "👌",
  sob: "😭", cool: "😎", hundred: "💯", star: "🌟", coffee: "☕", bug: "🐛", warning: "⚠️",
};

export const isCustomEmoji = (e: string) => /^[0-9A-HJKMNP-TV-Z]{26}$/.test(e);

/**
 * Unicode emoji in text: pictographs with their variation selectors,
 * skin tones and ZWJ sequences, flags (two regional indicators) and
 * keycaps.
 */
const EMOJI_RE =
  /(?:\p{Regional_Indicator}{2}|[#*0-9]\uFE0F?\u20E3|\p{Extended_Pictographic}(?:\uFE0F|\p{Emoji_Modifier})?(?:\u200D\p{Extended_Pictographic}(?:\uFE0F|\p{Emoji_Modifier})?)*)/gu;

/** Text split into runs of plain text and single emoji. */
export function emojiSegments(text: string): { text: string; emoji: boolean }[] {
  const out: { text: string; emoji: boolean }[] = [];
  let last = 0;
  for (const m of text.matchAll(EMOJI_RE)) {
    // A bare text-style symbol (©, ®, ™, ↔ …) without U+FE0F stays text.
    if (m[0].length === 1 && m[0].codePointAt(0)! < 0x2000 + 0x1000 && !/\p{Emoji_Presentation}/u.test(m[0])) continue;
    if (m.index! > last) out.push({ text: text.slice(last, m.index), emoji: false });
    out.push({ text: m[0], emoji: true });
    last = m.index! + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last), emoji: false });
  return out;
}

/**
 * The file name of an emoji in the served set (Twemoji's naming: code
 * points in lower-case hex joined by "-", without U+FE0F unless the
 * sequence has a zero-width joiner).
 */
export function emojiFile(emoji: string): string {
  const points = [...emoji].map((c) => c.codePointAt(0)!);
  const kept = emoji.includes("\u200D") ? points : points.filter((p) => p !== 0xfe0f);
  return kept.map((p) => p.toString(16)).join("-") + ".svg";
}
