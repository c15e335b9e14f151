// Syntax highlighting of fenced code for common languages: a small
// tokenizer (comments, strings, numbers, keywords) whose tokens the
// message view draws as spans of text; never HTML.

export type Token = { k: "" | "kw" | "str" | "com" | "num"; v: string };

const C_LIKE = "break case catch class const continue default do else enum export extends false final finally for function if import in instanceof interface let new null return static super switch this throw true try typeof var void while yield async await of";
const KEYWORDS: Record<string, string> = {
  js: C_LIKE,
  ts: C_LIKE + " type implements private public protected readonly as keyof namespace declare abstract any unknown never number string boolean",
  json: "true false null",
  go: "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false error string int int64 byte",
  py: "and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield self",
  rs: "as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while Some None Ok Err",
  sh: "if then else elif fi for while do done case esac in function return export local echo exit set",
  sql: "select from where insert into values update set delete create table index drop alter and or not null primary key join left right inner on group by order limit as distinct returning",
  c: "auto break case char const continue default do double else enum extern float for goto if int long register return short signed sizeof static struct switch typedef union unsigned void volatile while include define nullptr class public private protected template typename namespace using new delete true false",
  java: C_LIKE + " public private protected abstract boolean byte char double float int long short package synchronized throws",
  css: "important media import",
};
const ALIASES: Record<string, string> = {
  javascript: "js", jsx: "js", mjs: "js", typescript: "ts", tsx: "ts", golang: "go", python: "py", rust: "rs",
  bash: "sh", shell: "sh", zsh: "sh", cpp: "c", "c++": "c", h: "c", hpp: "c", cs: "java", csharp: "java", kotlin: "java", kt: "java", scss: "css",
};
const HASH_COMMENTS = new Set(["py", "sh", "rb", "yaml", "toml"]);

/** The language key a fence names, if it is one the highlighter knows. */
export function language(lang: string): string | undefined {
  const l = ALIASES[lang] ?? lang;
  return l in KEYWORDS || HASH_COMMENTS.has(l) ? l : undefined;
}

/** Tokens of code in lang; one plain token when the language is unknown. */
export function highlight(code: string, lang: string): Token[] {
  const l = language(lang.toLowerCase());
  if (!l) return [{ k: "", v: code }];
  const words = new Set((KEYWORDS[l] ?? "").split(" "));
  const comment = HASH_COMMENTS.has(l) ? "#[^\\n]*" : l === "sql" ? "--[^\\n]*" : l === "css" || l === "json" ? "\\/\\*[\\s\\S]*?\\*\\/" : "\\/\\/[^\\n]*|\\/\\*[\\s\\S]*?\\*\\/";
  const re = new RegExp(`(${comment})|("(?:[^"\\\\\\n]|\\\\.)*"|'(?:[^'\\\\\\n]|\\\\.)*'|\`(?:[^\`\\\\]|\\\\.)*\`)|(\\b\\d[\\d_]*(?:\\.\\d+)?(?:e[+-]?\\d+)?\\b|\\b0x[\\da-f]+\\b)|([A-Za-z_$][\\w$]*)`, "gi");
  const out: Token[] = [];
  let last = 0;
  const push = (k: Token["k"], v: string) => {
    const prev = out[out.length - 1];
    if (prev && prev.k === k) prev.v += v;
    else out.push({ k, v });
  };
  for (const m of code.matchAll(re)) {
    if (m.index! > last) push("", code.slice(last, m.index));
    if (m[1]) push("com", m[1]);
    else if (m[2]) push("str", m[2]);
    else if (m[3]) push("num", m[3]);
    else push(words.has(l === "sql" ? m[4].toLowerCase() : m[4]) ? "kw" : "", m[4]);
    last = m.index! + m[0].length;
  }
  if (last < code.length) push("", code.slice(last));
  return out;
}
