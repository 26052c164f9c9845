// Node: the whole-command forbidden patterns of docs/tools.md §5.2, checked before parsing on the normalised,
// lower-cased command.

/** A whole-command pattern that makes a command forbidden. */
export interface ForbiddenPattern {
  rule: string;
  reason: string;
  pattern: RegExp;
}

/** The patterns of §5.2; the specific ones first, so the reported rule names the actual trick. */
export const FORBIDDEN_PATTERNS: readonly ForbiddenPattern[] = [
  { rule: 'fork_bomb', reason: 'fork bomb', pattern: /:\(\)\s*\{.*:\s*\|\s*:.*&.*\}/ },
  {
    rule: 'base64_to_shell',
    reason: 'decodes base64 into a shell',
    pattern: /base64\b[^|]*\s(-[a-z]*d[a-z]*|--decode)\b.*\|\s*(sudo\s+)?(sh|bash|zsh|dash|ksh)\b/,
  },
  {
    rule: 'download_to_shell',
    reason: 'runs a download through process substitution',
    pattern: /(bash|sh|source|\.)\s+<\(\s*(curl|wget)\b/,
  },
  {
    rule: 'pipe_to_shell',
    reason: 'pipes downloaded or generated text into a shell',
    pattern: /\|\s*(sudo\s+)?(sh|bash|zsh|dash|ksh)\b(\s+-s)?\s*($|[;&|)])/,
  },
];

/** The command with whitespace collapsed (§5.2 "normalized form"). */
export function normalizeCommand(command: string): string {
  return command.replace(/\s+/g, ' ').trim();
}

/** The first whole-command pattern the command matches, if any. */
export function matchForbiddenPattern(command: string): ForbiddenPattern | undefined {
  const normalized = normalizeCommand(command).toLowerCase();
  return FORBIDDEN_PATTERNS.find((entry) => entry.pattern.test(normalized));
}
