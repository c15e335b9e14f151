// The order of a server's channels as the platform keeps it: the
// server's category list, each with its channels in order; a channel in
// no category is listed first, in the server's own order, which no route
// changes. Moving a channel or a category gives the new category list to
// PATCH /servers/{id} {categories}.

export interface Category {
  id: string;
  title: string;
  channels: string[];
}

/** A copy of cats (the server's may be frozen or reactive). */
const copy = (cats: readonly Category[]): Category[] => cats.map((c) => ({ id: c.id, title: c.title, channels: [...c.channels] }));

/** The category holding channel, or "" when it is in none. */
export function categoryOf(cats: readonly Category[], channel: string): string {
  return cats.find((c) => c.channels.includes(channel))?.id ?? "";
}

/**
 * Moves channel into category to ("" takes it out of every category) at
 * index in that category's list (clamped; counted after the channel has
 * left its old place). Returns the new list; cats is not changed.
 */
export function moveChannel(cats: readonly Category[], channel: string, to: string, index = Infinity): Category[] {
  const out = copy(cats).map((c) => ({ ...c, channels: c.channels.filter((x) => x !== channel) }));
  const target = out.find((c) => c.id === to);
  if (target) target.channels.splice(Math.max(0, Math.min(target.channels.length, index)), 0, channel);
  return out;
}

/** Moves category id to index in the list (clamped). */
export function moveCategory(cats: readonly Category[], id: string, index: number): Category[] {
  const out = copy(cats);
  const from = out.findIndex((c) => c.id === id);
  if (from < 0) return out;
  const [cat] = out.splice(from, 1);
  out.splice(Math.max(0, Math.min(out.length, index)), 0, cat);
  return out;
}

/**
 * Where dropping channel on target (another channel) puts it: target's
 * category, at target's place; a channel dragged down lands after the
 * target, one dragged up before it, as a person expects of a list.
 */
export function dropOnChannel(cats: readonly Category[], channel: string, target: string): Category[] {
  const to = categoryOf(cats, target);
  if (!to) return moveChannel(cats, channel, "");
  const list = cats.find((c) => c.id === to)!.channels;
  const from = list.indexOf(channel);
  let at = list.indexOf(target);
  if (from >= 0 && from < at) at -= 1; // counted after the channel has left
  if (from >= 0 && from <= at) at += 1; // dragged down: after the target
  return moveChannel(cats, channel, to, at);
}

/** The slowmode choices offered, in seconds (0 is off); the platform allows up to 6 hours. */
export const SLOWMODES = [0, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600] as const;

/** A slowmode in words: "Off", "30 seconds", "5 minutes", "1 hour". */
export function slowmodeLabel(s: number): string {
  if (!s) return "Off";
  const unit = (n: number, u: string) => `${n} ${u}${n === 1 ? "" : "s"}`;
  if (s % 3600 === 0) return unit(s / 3600, "hour");
  if (s % 60 === 0) return unit(s / 60, "minute");
  return unit(s, "second");
}
