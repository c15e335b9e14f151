import { describe, expect, it } from "vitest";
import { badgeNames } from "./badges";

describe("badges", () => {
  it("names the bits that are set, and nothing else", () => {
    expect(badgeNames(undefined)).toEqual([]);
    expect(badgeNames(0)).toEqual([]);
    expect(badgeNames(1 | 16)).toEqual(["Developer", "Founder"]);
    expect(badgeNames(256)).toEqual(["Early adopter"]);
    expect(badgeNames(1 << 20)).toEqual([]);
  });
});
