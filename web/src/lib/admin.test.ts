import { describe, expect, it } from "vitest";
import { accountState, duration, idTime, userName } from "./admin";
import type { AdminUser } from "./api";

describe("console helpers", () => {
  it("reads the time of a ULID", () => {
    expect(idTime("01ARZ3NDEKTSV4RRFFQ69G5FAV").getTime()).toBe(1469922850259);
  });
  it("writes durations", () => {
    expect(duration(59)).toBe("0m 59s");
    expect(duration(3 * 3600 + 120)).toBe("3h 2m");
    expect(duration(2 * 86400 + 3600)).toBe("2d 1h 0m");
  });
  it("names accounts and their state", () => {
    const u = (extra: Partial<AdminUser>, flags = 0) =>
      ({ user: { _id: "U", username: "stoat", discriminator: "0001", flags }, verified: true, disabled: false, sessions: 0, online: false, ...extra }) as AdminUser;
    expect(userName(u({}).user)).toBe("stoat#0001");
    expect(accountState(u({}))).toBe("active");
    expect(accountState(u({ disabled: true, email: "a@b", verified: false }, 8))).toBe("disabled, unverified, banned");
  });
});
