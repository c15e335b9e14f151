// Pure helpers of the operator's console (admin/): names, account
// states, durations and the time an id was made.

import type { AdminUser } from "./api";

/** "name#1234". */
export const userName = (u: { username: string; discriminator: string }) => `${u.username}#${u.discriminator}`;

/** When an id (a ULID) was made. */
export function idTime(id: string): Date {
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  let ms = 0;
  for (const ch of id.slice(0, 10).toUpperCase()) ms = ms * 32 + alphabet.indexOf(ch);
  return new Date(ms);
}

/** Seconds as "3d 4h 5m". */
export function duration(s: number): string {
  const d = Math.floor(s / 86400),
    h = Math.floor((s % 86400) / 3600),
    m = Math.floor((s % 3600) / 60);
  return d ? `${d}d ${h}h ${m}m` : h ? `${h}h ${m}m` : `${m}m ${s % 60}s`;
}

/** An account's state in words: privileged, disabled, unverified, banned, deleted, or active. */
export function accountState(u: AdminUser): string {
  const s: string[] = [];
  if (u.user.privileged) s.push("privileged");
  if (u.disabled) s.push("disabled");
  if (u.email && !u.verified) s.push("unverified");
  if ((u.user.flags ?? 0) & 8) s.push("banned");
  if ((u.user.flags ?? 0) & 2) s.push("deleted");
  return s.join(", ") || "active";
}
