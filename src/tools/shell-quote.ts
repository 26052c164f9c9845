// Workflow-safe: POSIX single-quote escaping for commands the workflow builds itself (fallback chains).

/** Quotes one word for bash: 'it'\''s' style, so nothing inside is expanded. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_\-./=:,+@%]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
