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
