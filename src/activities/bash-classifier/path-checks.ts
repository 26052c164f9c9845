// Node: the checks on the paths a command names, as arguments or redirection targets: outside the workspace is
// denied, a path only known at run time asks, a write is judged by the file-write rules (protected paths, globs,
// overwrites), and a write in the commands' HOME is free except for the dotfiles that make programs run.
import path from 'node:path';
import { fileWriteRule } from '../../core/permissions/file-rules.js';
import type { InsidePath, PathResolution, ScratchPath } from './paths.js';
import { isStandardDevice, resolveShellPath, ruleTarget } from './paths.js';
import type { SyntaxNode } from './parser.js';
import type { ClassifierOptions, Scope } from './scope.js';
import type { SegmentDraft } from './segment-draft.js';
import { destinations, SUBSTITUTIONS } from './syntax-kinds.js';
import type { PathUse } from './verdict.js';
import type { ShellWord } from './words.js';
import { evaluateWord } from './words.js';

const OUTPUT_OPERATORS = new Set(['>', '>>', '&>', '&>>', '>|', '<>', '>&']);
const TRUNCATING_OPERATORS = new Set(['>', '&>', '>|', '>&']);

/** Dotfiles in the commands' HOME that make git, ssh, curl, wget or package managers run programs or go elsewhere. */
const HOME_PROTECTED: readonly string[] = [
  '.gitconfig',
  '.config/git/**',
  '.ssh/**',
  '.curlrc',
  '.wgetrc',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.config/pip/**',
  '.pip/**',
  '.netrc',
  '.bashrc',
  '.profile',
  '.bash_profile',
];

/** Checks path arguments; returns each word's resolution (cd needs its target's). */
export async function checkPaths(
  options: ClassifierOptions,
  uses: readonly PathUse[],
  draft: SegmentDraft,
  scope: Scope,
): Promise<Map<ShellWord, PathResolution>> {
  const resolutions = new Map<ShellWord, PathResolution>();
  for (const use of uses) {
    const resolution = use.linkFrom
      ? await resolveLinkTarget(options, use.word, use.linkFrom, scope)
      : await resolveShellPath(options.root, scope.cwd, use.word, options.home);
    resolutions.set(use.word, resolution);
    if (resolution.kind === 'outside') draft.deny(resolution.shown);
    else if (resolution.kind === 'unknown') unknownPath(draft, resolution.why);
    else if (use.write && use.word.glob && resolution.kind === 'inside' && !globJudgedAsPattern(use, resolution))
      globWriteTarget(draft, use.word);
    else if (resolution.kind === 'inside' && use.write) {
      writeTarget(options, draft, resolution, use.truncates === true, use.linkFrom !== undefined);
    } else if (resolution.kind === 'scratch' && use.write) homeWrite(options, draft, resolution, use.word);
  }
  return resolutions;
}

/** HOME is scratch space, except the dotfiles that make later commands run programs (`~/.gitconfig`, `~/.ssh`). */
function homeWrite(options: ClassifierOptions, draft: SegmentDraft, resolution: ScratchPath, word: ShellWord): void {
  const rel = path.relative(path.resolve(options.home), resolution.real).split(path.sep).join('/');
  if (word.glob && !rel.includes('/')) {
    globWriteTarget(draft, word);
    return;
  }
  if (rel !== '' && fileWriteRule(rel, { writeProtected: HOME_PROTECTED }).rule === 'protected_path') {
    draft.blockWrite(
      'protected_path',
      `writes ~/${rel}, configuration in the commands' home that can make later commands run programs`,
    );
  }
}

/** A symbolic link's target, as the link will resolve it: from the directory the link is made in. */
async function resolveLinkTarget(
  options: ClassifierOptions,
  target: ShellWord,
  from: { word: ShellWord; directory: boolean },
  scope: Scope,
): Promise<PathResolution> {
  if (target.value !== undefined && target.value.startsWith('/')) {
    return resolveShellPath(options.root, scope.cwd, target, options.home);
  }
  const place = await resolveShellPath(options.root, scope.cwd, from.word, options.home);
  if (place.kind === 'unknown') return place;
  if (place.kind === 'outside' || place.kind === 'none') return { kind: 'unknown', why: 'unresolvable' };
  if (from.word.glob) return { kind: 'unknown', why: 'dynamic' };
  const directory = from.directory ? place.real : path.dirname(place.real);
  return resolveShellPath(options.root, directory, target, options.home);
}

function writeTarget(
  options: ClassifierOptions,
  draft: SegmentDraft,
  resolution: InsidePath,
  truncates: boolean,
  linkTarget = false,
): void {
  const target = ruleTarget(resolution);
  const rule = fileWriteRule(target, options.policy);
  if (rule.action === 'ask') {
    const reason =
      rule.rule === 'protected_path'
        ? linkTarget
          ? `makes a link to protected path ${target}, which writes through the link would change`
          : `writes protected path ${target}`
        : `writes ${target}, which is not in writeAutoAllow`;
    draft.blockWrite(rule.rule, reason);
  }
  if (truncates && resolution.exists && !resolution.directory) {
    draft.raise('destructive', 'overwrite_existing_file', `overwrites existing file ${resolution.rel}`);
  }
}

export async function checkRedirects(
  options: ClassifierOptions,
  redirects: readonly SyntaxNode[],
  draft: SegmentDraft,
  scope: Scope,
  environment: { home: string; cwd: string | undefined },
): Promise<void> {
  for (const redirect of redirects) {
    if (redirect.type !== 'file_redirect') continue;
    const operator = redirect.children.find((child) => child !== null && !child.isNamed)?.type ?? '';
    const target = destinations(redirect)[0];
    if (!target) continue;
    // `2>&1`, `>&2`, `<&0`, `>&-`: descriptor duplication, no file involved.
    if ((operator === '>&' || operator === '<&') && (target.type === 'number' || target.text === '-')) continue;
    if (SUBSTITUTIONS.has(target.type)) continue; // classified as a substitution
    const word = evaluateWord(target, environment);
    if (word.value !== undefined && isStandardDevice(word.value)) continue;
    // bash expands a glob in a redirection target when it matches one file: `>> .gi?/config` writes .git/config.
    const resolution = await resolveShellPath(options.root, scope.cwd, word, options.home);
    if (resolution.kind === 'outside') {
      draft.deny(resolution.shown);
      continue;
    }
    if (resolution.kind === 'unknown') {
      unknownPath(draft, resolution.why);
      continue;
    }
    if (!OUTPUT_OPERATORS.has(operator)) continue;
    if (resolution.kind === 'scratch') {
      draft.raise('write', 'redirect_write', `writes ${word.value ?? word.text} in the command's home`);
      homeWrite(options, draft, resolution, word);
      continue;
    }
    if (resolution.kind !== 'inside') continue;
    draft.raise('write', 'redirect_write', `writes ${resolution.rel}`);
    if (word.glob) globWriteTarget(draft, word);
    else writeTarget(options, draft, resolution, TRUNCATING_OPERATORS.has(operator));
  }
}

/** See `PathUse.glob`: whether the write rules may match this glob as a pattern rather than ask. */
function globJudgedAsPattern(use: PathUse, resolution: InsidePath): boolean {
  if (use.glob === 'source') return true;
  if (use.glob !== 'entry' || resolution.globRest === undefined) return false;
  const rest = resolution.globRest;
  return !rest.includes('/') && !rest.startsWith('.') && !rest.startsWith('{');
}

/** A write target with glob characters: what it names is up to the shell, and may be a protected path. */
function globWriteTarget(draft: SegmentDraft, word: ShellWord): void {
  draft.blockWrite(
    'glob_write_target',
    `writes ${word.text}, a pattern the shell expands when the command runs, so what it writes (perhaps a protected path) is not known before`,
  );
}

function unknownPath(draft: SegmentDraft, why: 'dynamic' | 'unknown_cwd' | 'unresolvable'): void {
  if (why === 'dynamic') draft.raise('unclassified', 'dynamic_path', 'a path is only known at run time');
  else if (why === 'unknown_cwd')
    draft.raise('unclassified', 'unknown_cwd', 'a relative path after a directory change that cannot be followed');
  else draft.raise('unclassified', 'unresolvable_path', 'a path could not be resolved');
}
