// A user's badges: the platform's badge bits (users.badges) and their
// names, as the official client shows them.

export const BADGES: [number, string][] = [
  [1, "Developer"],
  [2, "Translator"],
  [4, "Supporter"],
  [8, "Responsible disclosure"],
  [16, "Founder"],
  [32, "Platform moderation"],
  [64, "Active supporter"],
  [128, "Paw"],
  [256, "Early adopter"],
  [512, "Relevant joke badge 1"],
  [1024, "Relevant joke badge 2"],
];

/** The names of the badges set in bits, in the order above. */
export function badgeNames(bits: number | undefined): string[] {
  const b = Number(bits ?? 0);
  return BADGES.filter(([bit]) => (b & bit) !== 0).map(([, name]) => name);
}
