// The settings that name several things (variables, origins, paths) separate them with commas.

/** The trimmed, non-empty entries of a comma-separated setting. */
export function commaList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}
