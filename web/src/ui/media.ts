import type { File as StoatFile, User } from "stoat.js";

/** An icon or avatar at the size the seed defines for previews (max_side, at most 256). */
export function iconURL(file: StoatFile | undefined, side = 256): string | undefined {
  const url = file?.createFileURL();
  return url ? `${url}?max_side=${side}` : undefined;
}

export function avatar(user: User): string {
  return iconURL(user.avatar, 128) ?? user.defaultAvatarURL;
}
