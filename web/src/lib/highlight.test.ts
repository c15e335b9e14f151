import { describe, expect, it } from "vitest";
import { highlight, language } from "./highlight";

describe("code highlighting", () => {
  it("marks keywords, strings, numbers and comments", () => {
    expect(highlight('const a = "x"; // hi\nreturn 42', "js")).toEqual([
      { k: "kw", v: "const" },
      { k: "", v: " a = " },
      { k: "str", v: '"x"' },
      { k: "", v: "; " },
      { k: "com", v: "// hi" },
      { k: "", v: "\n" },
      { k: "kw", v: "return" },
      { k: "", v: " " },
      { k: "num", v: "42" },
    ]);
  });
  it("knows hash comments and aliases", () => {
    expect(language("python")).toBe("py");
    expect(highlight("# note\ndef f(): pass", "python").map((t) => t.k)).toEqual(["com", "", "kw", "", "kw"]);
  });
  it("leaves unknown languages and HTML as plain text", () => {
    expect(highlight("<b>x</b>", "brainfuck")).toEqual([{ k: "", v: "<b>x</b>" }]);
  });
  it("returns the code unchanged when joined", () => {
    const code = 'func main() {\n\tfmt.Println("héllo", 0x1f) /* c */\n}';
    expect(highlight(code, "go").map((t) => t.v).join("")).toBe(code);
  });
});
