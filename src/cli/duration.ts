// Node: durations as the CLI takes them (`gc --older-than 30d`, `run --session --idle 30m`).

const UNITS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };

/** `30d`, `12h`, `90m`, `45s` in milliseconds; undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)([dhms])$/.exec(text.trim());
  if (!match) return undefined;
  const milliseconds = Number(match[1]) * UNITS[match[2]!]!;
  return Number.isSafeInteger(milliseconds) ? milliseconds : undefined;
}
