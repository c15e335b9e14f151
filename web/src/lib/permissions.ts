// Permission bits (seed part 2) as numbers: reading, setting and
// clearing one bit of an allow or deny value. Values above 2^31 are
// exact in a double up to 2^53, so no BigInt is needed for 36 bits.

/** Permission bits of seed part 2 that apply to servers and channels. */
export const PERMISSIONS: [string, number][] = [
  ["ManageChannel", 0], ["ManageServer", 1], ["ManagePermissions", 2], ["ManageRole", 3], ["ManageCustomisation", 4],
  ["KickMembers", 6], ["BanMembers", 7], ["TimeoutMembers", 8], ["AssignRoles", 9], ["ChangeNickname", 10],
  ["ManageNicknames", 11], ["ChangeAvatar", 12], ["RemoveAvatars", 13], ["ViewChannel", 20], ["ReadMessageHistory", 21],
  ["SendMessage", 22], ["ManageMessages", 23], ["ManageWebhooks", 24], ["InviteOthers", 25], ["SendEmbeds", 26],
  ["UploadFiles", 27], ["Masquerade", 28], ["React", 29], ["Connect", 30], ["Speak", 31], ["Video", 32],
  ["MuteMembers", 33], ["DeafenMembers", 34], ["MoveMembers", 35],
];
export const bit = (b: number) => 2 ** b;
export const has = (v: number, b: number) => Math.floor(v / bit(b)) % 2 === 1;
export const flip = (v: number, b: number, on: boolean) => (has(v, b) === on ? v : on ? v + bit(b) : v - bit(b));

