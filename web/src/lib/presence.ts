// The presences a person chooses from, with the words the client shows.

export type PresenceName = "Online" | "Idle" | "Focus" | "Busy" | "Invisible";

/** [value, label, what others see], in the official client's order. */
export const PRESENCES: [PresenceName, string, string][] = [
  ["Online", "Online", "shown as online"],
  ["Idle", "Idle", "shown as away"],
  ["Focus", "Focus", "shown as focusing"],
  ["Busy", "Do not disturb", "shown as busy"],
  ["Invisible", "Invisible", "shown as offline"],
];
