import { describe, expect, it } from "vitest";
import { categoryOf, dropOnChannel, moveCategory, moveChannel, slowmodeLabel } from "./channels";

const cats = () => [
  { id: "A", title: "Talk", channels: ["a1", "a2", "a3"] },
  { id: "B", title: "Games", channels: ["b1"] },
];

describe("channel order", () => {
  it("finds a channel's category", () => {
    expect(categoryOf(cats(), "a2")).toBe("A");
    expect(categoryOf(cats(), "zz")).toBe("");
  });
  it("moves a channel within and between categories without changing the input", () => {
    const before = cats();
    expect(moveChannel(before, "a3", "A", 0)[0].channels).toEqual(["a3", "a1", "a2"]);
    const moved = moveChannel(before, "a1", "B", 0);
    expect(moved.map((c) => c.channels)).toEqual([["a2", "a3"], ["a1", "b1"]]);
    expect(before).toEqual(cats());
    expect(moveChannel(before, "a1", "B").at(1)!.channels).toEqual(["b1", "a1"]);
    expect(moveChannel(before, "a1", "B", -5).at(1)!.channels).toEqual(["a1", "b1"]);
  });
  it("takes a channel out of every category, or puts an uncategorised one in", () => {
    expect(moveChannel(cats(), "a2", "").map((c) => c.channels)).toEqual([["a1", "a3"], ["b1"]]);
    expect(moveChannel(cats(), "new", "B", 0).at(1)!.channels).toEqual(["new", "b1"]);
  });
  it("drops on a channel: before it when dragged up, after it when dragged down", () => {
    expect(dropOnChannel(cats(), "a3", "a1")[0].channels).toEqual(["a3", "a1", "a2"]);
    expect(dropOnChannel(cats(), "a1", "a2")[0].channels).toEqual(["a2", "a1", "a3"]);
    expect(dropOnChannel(cats(), "a1", "a3")[0].channels).toEqual(["a2", "a3", "a1"]);
    expect(dropOnChannel(cats(), "b1", "a2").map((c) => c.channels)).toEqual([["a1", "b1", "a2", "a3"], []]);
    expect(dropOnChannel(cats(), "a1", "loose").map((c) => c.channels)).toEqual([["a2", "a3"], ["b1"]]);
  });
  it("moves categories", () => {
    expect(moveCategory(cats(), "B", 0).map((c) => c.id)).toEqual(["B", "A"]);
    expect(moveCategory(cats(), "A", 9).map((c) => c.id)).toEqual(["B", "A"]);
    expect(moveCategory(cats(), "none", 0).map((c) => c.id)).toEqual(["A", "B"]);
  });
  it("names slowmodes", () => {
    expect(slowmodeLabel(0)).toBe("Off");
    expect(slowmodeLabel(1)).toBe("1 second");
    expect(slowmodeLabel(30)).toBe("30 seconds");
    expect(slowmodeLabel(300)).toBe("5 minutes");
    expect(slowmodeLabel(3600)).toBe("1 hour");
    expect(slowmodeLabel(21600)).toBe("6 hours");
    expect(slowmodeLabel(90)).toBe("90 seconds");
  });
});
