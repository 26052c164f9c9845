// Workflow-safe: the file write rules of docs/tools.md §5.1 step 4 and the lexical path normalisation they match on.
// picomatch's posix entry point never reads `process` or `path`, so it bundles into the workflow isolate.
import picomatch from 'picomatch/posix.js';
import type { FileWritePolicy } from './types.js';

/** Paths a write may touch without asking (§5.1 step 4). */
export const DEFAULT_WRITE_AUTO_ALLOW: readonly string[] = ['**'];

/** Paths a write always asks about, even when auto-allowed (§5.1 step 4). */
export const DEFAULT_WRITE_PROTECTED: readonly string[] = [
  '.git/**',
  '**/.git/**',
  '.env',
  '**/.env',
  '**/.env.*',
  '**/*.pem',
  '**/*.key',
  '**/id_rsa*',
  '**/id_ed25519*',
  '.agent/**',
];

/** The verdict of the file write rules for one workspace-relative path. */
export interface FileWriteVerdict {
  action: 'allow' | 'ask';
  /** `protected_path`, `auto_allow_pattern` or `not_auto_allowed`. */
  rule: string;
}

type Matcher = (candidate: string) => boolean;

// Compiled once per pattern: the same few lists are matched on every write of a task.
const matchers = new Map<string, Matcher>();

function matcher(pattern: string): Matcher {
  let compiled = matchers.get(pattern);
  if (!compiled) {
    compiled = picomatch(pattern, { dot: true });
    matchers.set(pattern, compiled);
  }
  return compiled;
}

function matchesAny(candidate: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => matcher(pattern)(candidate));
}

/**
 * §5.1 step 4 for WriteFile, EditFile and Bash write targets: ASK (`protected_path`) when the path matches
 * `writeProtected`, ALLOW when it matches `writeAutoAllow`, ASK otherwise. Matching is minimatch-style with `dot:true`.
 */
export function fileWriteRule(relPath: string, policy: FileWritePolicy = {}): FileWriteVerdict {
  const rel = normalizeRelativePath(relPath);
  const autoAllow = policy.writeAutoAllow ?? DEFAULT_WRITE_AUTO_ALLOW;
  const protectedPatterns = policy.writeProtected ?? DEFAULT_WRITE_PROTECTED;
  if (rel === '.') {
    // The root directory itself (`cp a .`): no pattern names it, so it follows a catch-all auto-allow.
    return autoAllow.includes('**')
      ? { action: 'allow', rule: 'auto_allow_pattern' }
      : { action: 'ask', rule: 'not_auto_allowed' };
  }
  if (matchesAny(rel, protectedPatterns)) return { action: 'ask', rule: 'protected_path' };
  if (matchesAny(rel, autoAllow)) return { action: 'allow', rule: 'auto_allow_pattern' };
  return { action: 'ask', rule: 'not_auto_allowed' };
}

/**
 * Lexical POSIX normalisation: collapses `.`, `..` and repeated slashes; `"."` for the root. An absolute path inside
 * `workspaceRoot` becomes relative to it; anything else keeps its escaping form (`../x`, `/etc/x`, `~/x`). Symlinks are
 * not resolved here: the executor enforces the real boundary.
 */
export function normalizeRelativePath(inputPath: string, workspaceRoot?: string): string {
  if (inputPath.startsWith('/')) {
    const absolute = normalizeSegments(inputPath, true);
    if (workspaceRoot !== undefined) {
      const root = normalizeSegments(workspaceRoot, true);
      if (absolute === root) return '.';
      const prefix = root === '/' ? '/' : `${root}/`;
      if (absolute.startsWith(prefix)) return absolute.slice(prefix.length);
    }
    return absolute;
  }
  return normalizeSegments(inputPath, false);
}

/** True when a normalised path leaves the workspace lexically (`..`, `../…`, absolute, `~`). */
export function escapesWorkspace(normalizedPath: string): boolean {
  return (
    normalizedPath === '..' ||
    normalizedPath.startsWith('../') ||
    normalizedPath.startsWith('/') ||
    normalizedPath.startsWith('~')
  );
}

function normalizeSegments(inputPath: string, absolute: boolean): string {
  const parts: string[] = [];
  for (const part of inputPath.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
      else if (!absolute) parts.push('..');
      continue;
    }
    parts.push(part);
  }
  if (absolute) return `/${parts.join('/')}`;
  return parts.length === 0 ? '.' : parts.join('/');
}
