import { describe, expect, it } from "vitest";
import { cells, formatTime, inline, parse, plain, type Block, type Inline } from "./markdown";
import { emojiFile, emojiSegments } from "./emoji";
import { leavesInstance, safeLink } from "./urls";

const U = "01HZZZZZZZZZZZZZZZZZZZZZZZ";
const t = (v: string): Inline => ({ t: "text", v });
const p = (...c: Inline[]): Block => ({ t: "p", c });

/** Every link address anywhere in a tree. */
function hrefs(blocks: Block[]): string[] {
  const out: string[] = [];
  const walk = (n: Inline[]) =>
    n.forEach((x) => {
      if (x.t === "link") out.push(x.href);
      if ("c" in x) walk(x.c);
    });
  for (const b of blocks) {
    if (b.t === "p" || b.t === "h") walk(b.c);
    if (b.t === "quote") out.push(...hrefs(b.c));
    if (b.t === "list") b.items.forEach(walk);
    if (b.t === "table") [b.head, ...b.rows].forEach((r) => r.forEach(walk));
  }
  return out;
}

describe("markdown constructs", () => {
  it("plain text and line breaks", () => {
    expect(parse("hello\nworld")).toEqual([p(t("hello"), { t: "br" }, t("world"))]);
    expect(parse("one\n\ntwo")).toEqual([p(t("one")), p(t("two"))]);
  });
  it("bold", () => {
    expect(inline("a **b** c")).toEqual([t("a "), { t: "strong", c: [t("b")] }, t(" c")]);
    expect(inline("__b__")).toEqual([{ t: "strong", c: [t("b")] }]);
  });
  it("italics, not inside snake_case", () => {
    expect(inline("*i* _j_")).toEqual([{ t: "em", c: [t("i")] }, t(" "), { t: "em", c: [t("j")] }]);
    expect(inline("snake_case_name")).toEqual([t("snake_case_name")]);
    expect(inline("2 * 3 * 4")).toEqual([t("2 * 3 * 4")]);
  });
  it("bold inside italics and the other way round", () => {
    expect(inline("*a **b** c*")).toEqual([{ t: "em", c: [t("a "), { t: "strong", c: [t("b")] }, t(" c")] }]);
    expect(inline("**a *b***")).toEqual([{ t: "strong", c: [t("a "), { t: "em", c: [t("b")] }] }]);
  });
  it("strikethrough", () => {
    expect(inline("~~gone~~")).toEqual([{ t: "del", c: [t("gone")] }]);
  });
  it("inline code keeps markup as text", () => {
    expect(inline("`**x** <b>`")).toEqual([{ t: "code", v: "**x** <b>" }]);
    expect(inline("``a ` b``")).toEqual([{ t: "code", v: "a ` b" }]);
    expect(inline("**a `**` b**")).toEqual([{ t: "strong", c: [t("a "), { t: "code", v: "**" }, t(" b")] }]);
  });
  it("fenced code with a language, and an unclosed fence", () => {
    expect(parse("```js\nconst a = '**';\n```\nafter")).toEqual([{ t: "pre", lang: "js", v: "const a = '**';" }, p(t("after"))]);
    expect(parse("```\nopen")).toEqual([{ t: "pre", lang: "", v: "open" }]);
  });
  it("block quotes, nested", () => {
    expect(parse("> a\n> b\nc")).toEqual([{ t: "quote", c: [p(t("a"), { t: "br" }, t("b"))] }, p(t("c"))]);
    expect(parse("> > deep")).toEqual([{ t: "quote", c: [{ t: "quote", c: [p(t("deep"))] }] }]);
  });
  it("spoilers", () => {
    expect(inline("a ||secret|| b")).toEqual([t("a "), { t: "spoiler", c: [t("secret")] }, t(" b")]);
    expect(plain(inline("||secret||"))).toBe("▒▒▒");
  });
  it("headings", () => {
    expect(parse("# Title\n### Small #")).toEqual([
      { t: "h", level: 1, c: [t("Title")] },
      { t: "h", level: 3, c: [t("Small")] },
    ]);
    expect(parse("#hashtag")).toEqual([p(t("#hashtag"))]);
  });
  it("lists, ordered and not", () => {
    expect(parse("- a\n- **b**\n\n3. x\n4. y")).toEqual([
      { t: "list", ordered: false, start: 1, items: [[t("a")], [{ t: "strong", c: [t("b")] }]] },
      { t: "list", ordered: true, start: 3, items: [[t("x")], [t("y")]] },
    ]);
  });
  it("links: [text](url), <url> and bare URLs", () => {
    expect(inline("[site](https://example.org/a_b)")).toEqual([{ t: "link", href: "https://example.org/a_b", c: [t("site")] }]);
    expect(inline("see https://example.org/x.")).toEqual([t("see "), { t: "link", href: "https://example.org/x", c: [t("https://example.org/x")] }, t(".")]);
    expect(inline("<https://example.org>")).toEqual([{ t: "link", href: "https://example.org/", c: [t("https://example.org")] }]);
    expect(inline("(https://example.org/a)")).toEqual([t("("), { t: "link", href: "https://example.org/a", c: [t("https://example.org/a")] }, t(")")]);
  });
  it("mentions of users, roles and channels; @everyone and @online", () => {
    expect(inline(`hi <@${U}> <%${U}> <#${U}> @everyone @online`)).toEqual([
      t("hi "),
      { t: "user", id: U },
      t(" "),
      { t: "role", id: U },
      t(" "),
      { t: "channel", id: U },
      t(" "),
      { t: "everyone" },
      t(" "),
      { t: "online" },
    ]);
    expect(inline("<@nope>")).toEqual([t("<@nope>")]);
  });
  it("custom emoji and shortcodes", () => {
    expect(inline(`:${U}:`)).toEqual([{ t: "custom-emoji", id: U }]);
    expect(inline(":fire: :not_a_code:")).toEqual([{ t: "emoji", v: "🔥" }, t(" :not_a_code:")]);
    expect(inline("10:30:fire:")).toEqual([t("10:30"), { t: "emoji", v: "🔥" }]);
  });
  it("Unicode emoji become emoji nodes", () => {
    expect(inline("ok 👍🏽!")).toEqual([t("ok "), { t: "emoji", v: "👍🏽" }, t("!")]);
    expect(inline("© 2026")).toEqual([t("© 2026")]);
  });
  it("backslash escapes", () => {
    expect(inline("\\*not em\\*")).toEqual([t("*not em*")]);
    expect(inline("\\<@" + U + ">")).toEqual([t("<@" + U + ">")]);
    // The shrug as the example plugin writes it shows as typed.
    expect(inline("¯\\\\\\_(ツ)\\_/¯")).toEqual([t("¯\\_(ツ)_/¯")]);
  });
});

describe("markdown injection attempts", () => {
  it("HTML is text, never markup", () => {
    const tree = parse('<img src=x onerror="alert(1)"><script>alert(2)</script>');
    expect(tree).toEqual([p(t('<img src=x onerror="alert(1)"><script>alert(2)</script>'))]);
  });
  it("javascript:, data: and vbscript: links are not links", () => {
    for (const bad of ["javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "data:text/html,<b>x</b>", "vbscript:msgbox(1)", "java\tscript:alert(1)"]) {
      const tree = parse(`[click](${bad})`);
      expect(hrefs(tree), bad).toEqual([]);
      expect(plain((tree[0] as { c: Inline[] }).c)).toContain("click");
    }
    expect(hrefs(parse("<javascript:alert(1)>"))).toEqual([]);
  });
  it("an address cannot break out of its attribute", () => {
    const tree = parse('[x](https://a.example/"onmouseover="alert(1))');
    for (const h of hrefs(tree)) expect(h).not.toMatch(/["<> ]/);
    const bare = parse('https://a.example/"><script>alert(1)</script>');
    for (const h of hrefs(bare)) expect(h).not.toMatch(/["<> ]/);
    expect(hrefs(parse("[x](https://a.example/'x')"))[0]).not.toContain(" ");
  });
  it("link text is parsed as markdown, not as HTML", () => {
    expect(parse("[<b>bold</b>](https://a.example)")).toEqual([p({ t: "link", href: "https://a.example/", c: [t("<b>bold</b>")] })]);
  });
  it("deep nesting does not blow up", () => {
    expect(() => parse(">".repeat(5000) + " x")).not.toThrow();
    expect(() => inline("*".repeat(2000))).not.toThrow();
  });
});

describe("safe URLs", () => {
  it("keeps http, https and mailto", () => {
    expect(safeLink("https://example.org")).toBe("https://example.org/");
    expect(safeLink("mailto:a@example.org")).toBe("mailto:a@example.org");
    expect(safeLink("ftp://example.org")).toBeUndefined();
    expect(safeLink("/relative")).toBeUndefined();
  });
  it("knows which links leave the instance", () => {
    expect(leavesInstance("https://other.example/x", "https://chat.example")).toBe(true);
    expect(leavesInstance("https://chat.example/app/", "https://chat.example")).toBe(false);
  });
});

describe("emoji", () => {
  it("splits text into emoji and not", () => {
    expect(emojiSegments("a👍b🇫🇷")).toEqual([
      { text: "a", emoji: false },
      { text: "👍", emoji: true },
      { text: "b", emoji: false },
      { text: "🇫🇷", emoji: true },
    ]);
    expect(emojiSegments("👨‍👩‍👧")).toEqual([{ text: "👨‍👩‍👧", emoji: true }]);
  });
  it("names the served file as the set does", () => {
    expect(emojiFile("👍")).toBe("1f44d.svg");
    expect(emojiFile("❤️")).toBe("2764.svg");
    expect(emojiFile("3️⃣")).toBe("33-20e3.svg");
    expect(emojiFile("❤️‍🔥")).toBe("2764-fe0f-200d-1f525.svg");
    expect(emojiFile("🏳️‍🌈")).toBe("1f3f3-fe0f-200d-1f308.svg");
  });
});

describe("markdown tables", () => {
  it("a header, its alignments and rows", () => {
    expect(parse("| Name | Age | Town |\n|:-----|:---:|-----:|\n| ann | 3 | Oslo |\n| bob | 40 | |")).toEqual([
      {
        t: "table",
        align: ["left", "center", "right"],
        head: [[t("Name")], [t("Age")], [t("Town")]],
        rows: [
          [[t("ann")], [t("3")], [t("Oslo")]],
          [[t("bob")], [t("40")], []],
        ],
      },
    ]);
  });
  it("outer pipes are optional; rows are padded and cut to the header's width; markdown works in cells", () => {
    expect(parse("a | b\n--- | ---\n**x** |\n1 | 2 | 3")).toEqual([
      { t: "table", align: ["", ""], head: [[t("a")], [t("b")]], rows: [[[{ t: "strong", c: [t("x")] }], []], [[t("1")], [t("2")]]] },
    ]);
  });
  it("an escaped pipe stays in its cell", () => {
    expect(cells("| a \\| b | c |")).toEqual(["a \\| b", "c"]);
    const [table] = parse("| x |\n|---|\n| a \\| b |");
    expect(table).toMatchObject({ t: "table", rows: [[[t("a | b")]]] });
  });
  it("ends at a blank line or a line without pipes; a paragraph before it stays one", () => {
    expect(parse("intro\n| a |\n|---|\n| 1 |\n\nafter").map((b) => b.t)).toEqual(["p", "table", "p"]);
    expect(parse("| a |\n|---|\n| 1 |\nplain text").map((b) => b.t)).toEqual(["table", "p"]);
  });
  it("is not a table without a matching delimiter row", () => {
    expect(parse("a | b\n--- | --- | ---").map((b) => b.t)).toEqual(["p"]);
    expect(parse("a | b\nnot a delimiter").map((b) => b.t)).toEqual(["p"]);
    expect(parse("just | pipes").map((b) => b.t)).toEqual(["p"]);
    expect(parse("heading\n---").map((b) => b.t)).toEqual(["p"]);
  });
  it("markup in a cell stays text and a javascript: link in a cell is no link", () => {
    const tree = parse('| <img src=x onerror="alert(1)"> | [x](javascript:alert(1)) |\n|---|---|');
    expect(hrefs(tree)).toEqual([]);
    expect(tree).toMatchObject([{ t: "table", head: [[t('<img src=x onerror="alert(1)">')], [t("[x](javascript:alert(1))")]] }]);
  });
});

describe("markdown timestamps", () => {
  it("<t:seconds> and <t:seconds:style>", () => {
    expect(inline("at <t:1700000000> or <t:1700000000:R>.")).toEqual([
      t("at "),
      { t: "time", at: 1700000000, style: "f" },
      t(" or "),
      { t: "time", at: 1700000000, style: "R" },
      t("."),
    ]);
    expect(inline("<t:1700000000:x> <t:abc> <t:99999999999999>")).toEqual([t("<t:1700000000:x> <t:abc> <t:99999999999999>")]);
    expect(inline("`<t:1700000000>`")).toEqual([{ t: "code", v: "<t:1700000000>" }]);
  });
  it("is written in each style", () => {
    const at = 1700000000; // 2023-11-14 22:13:20 UTC, a Tuesday
    const f = (s: Parameters<typeof formatTime>[1], now = at * 1000) => formatTime(at, s, now, "en-GB", "UTC");
    expect(f("t")).toBe("22:13");
    expect(f("T")).toBe("22:13:20");
    expect(f("d")).toBe("14/11/2023");
    expect(f("D")).toBe("14 November 2023");
    // ICU versions differ in the joining words only.
    expect(f("f")).toMatch(/^14 November 2023(,| at) 22:13$/);
    expect(f("F")).toMatch(/^Tuesday,? 14 November 2023(,| at) 22:13$/);
    expect(formatTime(at, "t", 0, "en-GB", "Asia/Tokyo")).toBe("07:13");
  });
  it("is relative to the reader's now", () => {
    const at = 1700000000;
    const rel = (now: number) => formatTime(at, "R", now * 1000, "en");
    expect(rel(at)).toBe("now");
    expect(rel(at - 300)).toBe("in 5 minutes");
    expect(rel(at - 3598)).toBe("in 1 hour");
    expect(rel(at - 45 * 60)).toBe("in 45 minutes");
    expect(rel(at + 125)).toBe("2 minutes ago");
    expect(rel(at + 3 * 86400)).toBe("3 days ago");
    expect(rel(at + 86400)).toBe("yesterday");
    expect(rel(at - 2 * 365 * 86400)).toBe("in 2 years");
  });
  it("plain text of a timestamp is its written form", () => {
    expect(plain(inline("<t:1700000000:R>"))).toMatch(/ago|in /);
  });
});
