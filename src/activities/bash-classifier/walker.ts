// Node: walks the tree-sitter-bash syntax tree of a command and classifies each segment (C.5.2): statements split at
// `;` `&&` `||` `|` `&` and newlines, compound statements opened up, command substitutions classified recursively,
// redirections and path arguments checked against the workspace, and the working directory tracked through `cd`.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileWriteRule } from '../../core/permissions/file-rules.js';
import { levelSeverity } from '../../core/permissions/levels.js';
import type { FileWritePolicy } from '../../core/permissions/types.js';
import type { BashSegment, PermissionAction } from '../../protocol/bash-classification.js';
import type { RiskLevel } from '../../protocol/risk-level.js';
import type { SyntaxNode } from './parser.js';
import { nestsDeeperThan, withParsedScript } from './parser.js';
import type { InsidePath, PathResolution, ScratchPath } from './paths.js';
import { isStandardDevice, resolveShellPath, ruleTarget } from './paths.js';
import { matchForbiddenPattern, normalizeCommand } from './patterns.js';
import { commandVerdict, takesPathOperands } from './rules.js';
import type { CommandVerdict, PathUse } from './verdict.js';
import { DANGEROUS_VARIABLE, overrideReason, verdict } from './verdict.js';
import type { ShellWord } from './words.js';
import { evaluateWord, literalWord } from './words.js';
import { commandName, unwrapCommand } from './wrappers.js';

/** `sh -c` scripts are classified recursively up to this depth; deeper is unclassified (C.5.2). */
export const MAX_SCRIPT_DEPTH = 3;
// Substitutions nest without a spec limit; this only keeps recursion bounded on adversarial input.
const MAX_SUBSTITUTION_DEPTH = 16;
// The walker recurses along the syntax tree; a chain of thousands of `&&` is one tree level per operator.
const MAX_SYNTAX_DEPTH = 256;

/**
 * Command-form `write` rows auto-allowed by default (`bashWriteAutoAllow`, C.5.2). Not `git_write`: a git write
 * changes `.git`, which the command sandbox mounts read-only unless the operator approved the call, so it asks.
 */
export const DEFAULT_BASH_WRITE_AUTO_ALLOW: readonly string[] = ['file_write', 'build_test', 'redirect_write'];

/** What every segment of one classification shares. */
export interface ClassifierOptions {
  /** The real (symlink-resolved) workspace root. */
  root: string;
  home: string;
  policy: FileWritePolicy;
  /** Rules of command-form `write` rows that are auto-allowed. */
  bashWriteAutoAllow: ReadonlySet<string>;
}

/** The shell state a statement runs in. */
export interface Scope {
  /** Working directory (absolute, real); undefined once it cannot be known statically. */
  cwd: string | undefined;
  previous: string | undefined;
  stack: (string | undefined)[];
  /** Inside a loop or function body, where a directory change repeats an unknown number of times. */
  repeats: boolean;
}

/** A fresh scope at `cwd`. */
export function initialScope(cwd: string): Scope {
  return { cwd, previous: undefined, stack: [], repeats: false };
}

function cloneScope(scope: Scope, repeats = scope.repeats): Scope {
  return { cwd: scope.cwd, previous: scope.previous, stack: [...scope.stack], repeats };
}

const STATEMENTS = new Set([
  'command',
  'redirected_statement',
  'pipeline',
  'list',
  'subshell',
  'compound_statement',
  'if_statement',
  'while_statement',
  'for_statement',
  'c_style_for_statement',
  'case_statement',
  'function_definition',
  'negated_command',
  'test_command',
  'declaration_command',
  'unset_command',
  'variable_assignment',
  'variable_assignments',
  'do_group',
  'elif_clause',
  'else_clause',
  'case_item',
]);
const SEQUENCES = new Set([
  'program',
  'compound_statement',
  'do_group',
  'else_clause',
  'elif_clause',
  'if_statement',
  'case_statement',
  'case_item',
  'negated_command',
  'list',
]);
const LOOPS = new Set(['while_statement', 'for_statement', 'c_style_for_statement']);
const SUBSTITUTIONS = new Set(['command_substitution', 'process_substitution']);
const REDIRECTS = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect']);
const OUTPUT_OPERATORS = new Set(['>', '>>', '&>', '&>>', '>|', '<>', '>&']);
const TRUNCATING_OPERATORS = new Set(['>', '&>', '>|', '>&']);
/** Directories whose programs are taken by their basename; a program elsewhere (`./ls`) may be anything. */
const SYSTEM_BIN = new Set([
  '/bin',
  '/usr/bin',
  '/usr/local/bin',
  '/sbin',
  '/usr/sbin',
  '/usr/local/sbin',
  '/opt/homebrew/bin',
]);

/** One segment under construction: levels only ever rise. */
class SegmentDraft {
  level: RiskLevel = 'read_only';
  rule = 'read_command';
  reason = 'only reads';
  approvalKey: string | undefined;
  /** False once something other than the network itself makes the segment ask: an approval key cannot cover it. */
  approvable = true;
  writeBlock: { rule: string; reason: string } | undefined;
  deniedPath: string | undefined;
  /** A `sh -c` wrapper with nothing of its own: its script's segments stand for it. */
  transparent = false;
  /** The rule of the command's own row (undefined for bare redirections and assignments). */
  commandRule: string | undefined;
  /** The hosts a network command names, all of them; undefined when they cannot be read off its words. */
  hosts: string[] | undefined;
  runsCode = false;
  /** Set when a glob in an option position was judged on the files there now: sound only if nothing makes files first. */
  expansionJudged: string | undefined;

  constructor(readonly text: string) {}

  /** The command's own row; a floor raised earlier (an assignment, a wrapper option) still wins when more severe. */
  apply(verdict: CommandVerdict): void {
    if (levelSeverity(verdict.level) >= levelSeverity(this.level)) {
      this.level = verdict.level;
      this.rule = verdict.rule;
      this.reason = verdict.reason;
    }
    this.commandRule = verdict.rule;
    this.approvalKey = verdict.approvalKey;
    this.hosts = verdict.hosts;
    this.runsCode ||= verdict.runsCode === true;
  }

  raise(level: RiskLevel, rule: string, reason: string): void {
    this.transparent = false;
    if (level !== 'read_only' && level !== 'write' && level !== 'network_write') this.approvable = false;
    if (levelSeverity(level) > levelSeverity(this.level)) {
      this.level = level;
      this.rule = rule;
      this.reason = reason;
    }
  }

  blockWrite(rule: string, reason: string): void {
    this.transparent = false;
    this.approvable = false;
    this.writeBlock ??= { rule, reason };
  }

  deny(path: string): void {
    this.transparent = false;
    this.deniedPath ??= path;
  }

  finish(bashWriteAutoAllow: ReadonlySet<string>): BashSegment {
    let action: PermissionAction;
    let { rule, reason } = this;
    if (this.level === 'forbidden') action = 'deny';
    else if (this.deniedPath !== undefined) {
      action = 'deny';
      rule = 'path_outside_workspace';
      reason = `Path '${this.deniedPath}' is outside the workspace.`;
    } else if (this.level === 'read_only') action = 'allow';
    else if (this.level === 'write') {
      if (this.writeBlock) {
        action = 'ask';
        ({ rule, reason } = this.writeBlock);
      } else action = bashWriteAutoAllow.has(this.rule) ? 'allow' : 'ask';
    } else action = 'ask';
    const segment: BashSegment = { text: this.text, level: this.level, rule, reason, action };
    if (this.level === 'network_write' && this.approvable && this.approvalKey !== undefined && action === 'ask') {
      segment.approvalKey = this.approvalKey;
    }
    if (this.deniedPath !== undefined && this.level !== 'forbidden') segment.deniedPath = this.deniedPath;
    const offline =
      !this.runsCode &&
      (this.level === 'read_only' || this.level === 'write' || this.level === 'destructive') &&
      (this.commandRule === undefined || OFFLINE_RULES.has(this.commandRule));
    SEGMENT_FACTS.set(segment, {
      offline,
      ...(this.level === 'network_write' && this.hosts ? { hosts: this.hosts } : {}),
      ...(this.expansionJudged !== undefined && action === 'allow' ? { expansionJudged: this.expansionJudged } : {}),
    });
    return segment;
  }
}

/** What the line-level rules need to know about a segment beyond what is recorded (see `finishLine`). */
interface SegmentFacts {
  /** The segment cannot reach the network whatever the sandbox allows (reads, file and git writes, deletions). */
  offline: boolean;
  hosts?: string[];
  expansionJudged?: string;
}

const SEGMENT_FACTS = new WeakMap<BashSegment, SegmentFacts>();

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

/** Rows of commands that open no connection of their own. Build runners, interpreters and unknown programs may. */
const OFFLINE_RULES = new Set([
  'read_command',
  'search',
  'find',
  'sed_print',
  'git_read',
  'cd_inside',
  'assignment',
  'test',
  'version_query',
  'file_write',
  'git_write',
  'git_protected_write',
  'redirect_write',
  'delete',
  'move',
  'permissions',
  'in_place_edit',
  'kill',
  'git_destructive',
]);

/**
 * The rules that look at the whole command line once every segment is known:
 * - a network approval covers exactly what it names: when any other part of the line may reach the network too (a
 *   build runner, an interpreter, anything not known to be offline), no segment keeps an approval key, so the line
 *   asks every time and approving it remembers nothing;
 * - a glob judged on today's files holds only when no other part of the line can make files first;
 * - `networkHosts`: every host the network segments name, when each of them names its hosts.
 */
export function finishLine(segments: BashSegment[]): { segments: BashSegment[]; networkHosts?: string[] } {
  const facts = segments.map((segment) => SEGMENT_FACTS.get(segment) ?? { offline: false });
  const network = segments.filter((segment) => segment.level === 'network_write');
  const reachesNetwork = segments.some(
    (segment, index) => segment.level !== 'network_write' && facts[index]?.offline !== true,
  );
  const othersRead = (index: number): boolean =>
    segments.every((segment, other) => other === index || segment.level === 'read_only');
  const finished = segments.map((segment, index) => {
    let result = segment;
    const judged = facts[index]?.expansionJudged;
    if (judged !== undefined && !othersRead(index)) {
      result = {
        ...result,
        level: levelSeverity(result.level) > levelSeverity('unclassified') ? result.level : 'unclassified',
        rule: 'option_like_glob',
        reason: `${judged}, and another part of the command line can create files before it expands`,
        action: result.action === 'deny' ? 'deny' : 'ask',
      };
    }
    if (network.length > 0 && reachesNetwork && result.approvalKey !== undefined) {
      const { approvalKey: _dropped, ...rest } = result;
      result = {
        ...rest,
        reason: `${rest.reason}; another part of the command line may reach the network too, so an approval covers only this call`,
      };
    }
    return result;
  });
  const hosts = network.map((segment) => facts[segments.indexOf(segment)]?.hosts);
  if (network.length === 0 || hosts.some((list) => list === undefined)) return { segments: finished };
  return { segments: finished, networkHosts: [...new Set(hosts.flat() as string[])].sort() };
}

/** Classifies a script (the whole command, or the script of `sh -c`) into segments. */
export async function classifyScript(
  script: string,
  scope: Scope,
  options: ClassifierOptions,
  depth: number,
): Promise<BashSegment[]> {
  const text = normalizeCommand(script);
  const forbidden = matchForbiddenPattern(script);
  if (forbidden) return [{ text, level: 'forbidden', rule: forbidden.rule, reason: forbidden.reason, action: 'deny' }];
  return withParsedScript(script, async (root) => {
    if (!root) {
      return [
        { text, level: 'unclassified', rule: 'parse_error', reason: 'the command could not be parsed', action: 'ask' },
      ];
    }
    if (nestsDeeperThan(root, MAX_SYNTAX_DEPTH)) {
      return [
        {
          text,
          level: 'unclassified',
          rule: 'too_complex',
          reason: 'the command nests too deeply to classify',
          action: 'ask',
        },
      ];
    }
    const walker = new Walker(options, depth, 0);
    await walker.visitSequence(root, scope);
    return walker.segments;
  });
}

class Walker {
  readonly segments: BashSegment[] = [];

  constructor(
    private readonly options: ClassifierOptions,
    private readonly depth: number,
    private readonly substitutionDepth: number,
  ) {}

  /** Children of a sequence run one after another in the same shell; one followed by `&` runs in its own. */
  async visitSequence(node: SyntaxNode, scope: Scope, piped = false): Promise<void> {
    let first = true;
    for (const child of node.namedChildren) {
      if (!child || child.type === 'comment') continue;
      if (STATEMENTS.has(child.type)) {
        const background = child.nextSibling?.type === '&';
        await this.visitStatement(child, background ? cloneScope(scope) : scope, piped && first);
      } else {
        await this.visitExpression(child, scope);
      }
      first = false;
    }
  }

  async visitStatement(node: SyntaxNode, scope: Scope, piped = false): Promise<void> {
    switch (node.type) {
      case 'command':
        return this.visitCommand(node, [], scope, piped, node.text);
      case 'redirected_statement': {
        const body = node.childForFieldName('body');
        const redirects = node.children.filter(
          (child): child is SyntaxNode => child !== null && REDIRECTS.has(child.type),
        );
        if (body?.type === 'command') return this.visitCommand(body, redirects, scope, piped, node.text);
        if (body) await this.visitStatement(body, scope, piped);
        return this.visitCommand(
          undefined,
          redirects,
          scope,
          false,
          redirects.map((redirect) => redirect.text).join(' '),
        );
      }
      case 'pipeline': {
        // Every element of a pipeline runs in its own subshell; all but the first read the previous one's output.
        let index = 0;
        for (const child of node.namedChildren) {
          if (!child || child.type === 'comment') continue;
          await this.visitStatement(child, cloneScope(scope), piped || index > 0);
          index++;
        }
        return;
      }
      case 'subshell':
        return this.visitSequence(node, cloneScope(scope));
      case 'function_definition': {
        const body = node.childForFieldName('body');
        // A function body runs whenever (and however often) it is called.
        if (body) await this.visitStatement(body, cloneScope(scope, true));
        return;
      }
      case 'variable_assignment':
      case 'variable_assignments':
      case 'declaration_command':
      case 'unset_command':
        return this.visitAssignments(node, scope);
      case 'test_command':
        return this.visitConstruct(node, scope, 'read_only', 'test', 'tests a condition');
      default:
        if (LOOPS.has(node.type)) {
          const repeats = scope.repeats;
          scope.repeats = true;
          try {
            await this.visitSequence(node, scope);
          } finally {
            scope.repeats = repeats;
          }
          return;
        }
        if (SEQUENCES.has(node.type)) return this.visitSequence(node, scope, piped);
        return this.visitConstruct(
          node,
          scope,
          'unclassified',
          'unsupported_syntax',
          `unsupported shell syntax (${node.type})`,
        );
    }
  }

  /** A word or expression inside a compound statement (`for x in $(ls)`, `case $(id) in`): only substitutions matter. */
  private async visitExpression(node: SyntaxNode, scope: Scope): Promise<void> {
    const substitutions = findSubstitutions([node]);
    if (substitutions.length === 0) return;
    const insertAt = this.segments.length;
    const draft = new SegmentDraft(normalizeCommand(node.text));
    await this.substitute(substitutions, draft, scope);
    this.segments.splice(insertAt, 0, draft.finish(this.options.bashWriteAutoAllow));
  }

  private async visitConstruct(
    node: SyntaxNode,
    scope: Scope,
    level: RiskLevel,
    rule: string,
    reason: string,
  ): Promise<void> {
    const insertAt = this.segments.length;
    const draft = new SegmentDraft(normalizeCommand(node.text));
    draft.apply(verdict(level, rule, reason));
    await this.substitute(findSubstitutions([node]), draft, scope);
    this.segments.splice(insertAt, 0, draft.finish(this.options.bashWriteAutoAllow));
  }

  /** `X=1`, `export X=1`, `unset X`: harmless unless the variable changes which program runs. */
  private async visitAssignments(node: SyntaxNode, scope: Scope): Promise<void> {
    const insertAt = this.segments.length;
    const draft = new SegmentDraft(normalizeCommand(node.text));
    draft.apply(verdict('read_only', 'assignment', 'sets shell variables'));
    for (const name of assignedNames(node)) {
      if (DANGEROUS_VARIABLE.test(name))
        draft.raise('unclassified', 'environment_override', overrideReason(name, 'later commands'));
    }
    await this.substitute(findSubstitutions([node]), draft, scope);
    this.segments.splice(insertAt, 0, draft.finish(this.options.bashWriteAutoAllow));
  }

  /** One simple command (or, with `node` undefined, the redirections of a compound statement). */
  private async visitCommand(
    node: SyntaxNode | undefined,
    outerRedirects: SyntaxNode[],
    scope: Scope,
    piped: boolean,
    text: string,
  ): Promise<void> {
    const insertAt = this.segments.length;
    const draft = new SegmentDraft(normalizeCommand(text));
    const environment = { home: this.options.home, cwd: scope.cwd };

    let nameNode: SyntaxNode | undefined;
    const wordNodes: SyntaxNode[] = [];
    const assignments: SyntaxNode[] = [];
    const redirects: SyntaxNode[] = [];
    if (node) {
      node.children.forEach((child, index) => {
        if (!child) return;
        const field = node.fieldNameForChild(index);
        if (field === 'name') nameNode = child.namedChildren.find((inner) => inner !== null) ?? child;
        else if (field === 'argument') wordNodes.push(child);
        else if (child.type === 'variable_assignment') assignments.push(child);
        else if (REDIRECTS.has(child.type)) redirects.push(child);
      });
    }
    redirects.push(...outerRedirects);
    // `cat <<EOF > out`: tree-sitter nests the redirections that follow a here-document start inside it.
    for (const redirect of [...redirects]) {
      if (redirect.type !== 'heredoc_redirect') continue;
      for (const child of redirect.namedChildren) if (child?.type === 'file_redirect') redirects.push(child);
    }
    // tree-sitter attaches the words after a redirection (`echo >out hi`) to it as extra destinations.
    for (const redirect of redirects) {
      if (redirect.type === 'file_redirect') wordNodes.push(...destinations(redirect).slice(1));
    }
    wordNodes.sort((left, right) => left.startIndex - right.startIndex);

    for (const assignment of assignments) {
      const name = assignment.childForFieldName('name')?.text ?? '';
      if (DANGEROUS_VARIABLE.test(name))
        draft.raise('unclassified', 'environment_override', overrideReason(name, 'the command'));
    }

    let directoryTarget: { row: CommandVerdict; resolution?: PathResolution } | undefined;
    if (!nameNode) {
      draft.apply(
        verdict('read_only', 'assignment', assignments.length > 0 ? 'sets shell variables' : 'only redirects'),
      );
    } else {
      const words = [evaluateWord(nameNode, environment), ...wordNodes.map((word) => evaluateWord(word, environment))];
      const unwrapped = unwrapCommand(words);
      for (const name of unwrapped.assignments) {
        if (DANGEROUS_VARIABLE.test(name))
          draft.raise('unclassified', 'environment_override', overrideReason(name, 'the command'));
      }
      if (unwrapped.opaque) draft.raise('unclassified', 'wrapper_option', unwrapped.opaque);
      const [commandWord, ...args] = unwrapped.words;
      const name = commandName(commandWord);
      if (name === undefined) {
        draft.raise('unclassified', 'dynamic_command', 'the command name is only known at run time');
      } else {
        const row = await commandVerdict(name, args, {
          piped,
          resolve: (word) => resolveShellPath(this.options.root, scope.cwd, word, this.options.home),
        });
        draft.apply(row);
        if (row.protectedWrite !== undefined) draft.blockWrite('protected_path', row.protectedWrite);
        await this.checkOptionGlobs(name, args, draft, scope);
        if (row.script !== undefined) {
          // Shown only when it adds something of its own (an assignment, a redirect): otherwise its script stands for it.
          draft.transparent = draft.level === 'read_only';
          await this.nestedScript(row.script, draft, scope);
        }
        if (commandWord?.value?.includes('/') && !isSystemProgram(commandWord.value)) {
          draft.raise(
            'unclassified',
            'path_program',
            `${commandWord.value} is a program outside the system directories`,
          );
        }
        if (unwrapped.viaXargs && takesPathOperands(name)) {
          draft.raise('unclassified', 'xargs_operands', `xargs gives ${name} operands that are only known at run time`);
        }
        const resolutions = await this.checkPaths(row.paths, draft, scope);
        checkDynamicOptions(name, args, draft);
        if (row.directoryChange) {
          const target = row.directoryChange.target;
          directoryTarget = { row, ...(target ? { resolution: resolutions.get(target) } : {}) };
        }
      }
    }

    await this.checkRedirects(redirects, draft, scope, environment);
    if (directoryTarget) await this.changeDirectory(directoryTarget.row, directoryTarget.resolution, draft, scope);
    await this.substitute(findSubstitutions([...(node ? [node] : []), ...outerRedirects]), draft, scope);
    if (!draft.transparent) this.segments.splice(insertAt, 0, draft.finish(this.options.bashWriteAutoAllow));
    await this.visitHeredocStatements(redirects, scope);
  }

  private async nestedScript(script: string, draft: SegmentDraft, scope: Scope): Promise<void> {
    if (this.depth + 1 > MAX_SCRIPT_DEPTH) {
      draft.raise('unclassified', 'nesting_depth', `shell scripts nested deeper than ${MAX_SCRIPT_DEPTH}`);
      return;
    }
    this.segments.push(...(await classifyScript(script, cloneScope(scope), this.options, this.depth + 1)));
  }

  /**
   * Globs in option positions (before `--`; `find` takes no `--`) that can expand to a name starting with `-`: a file
   * named `--pre=sh` makes `rg x *` run programs. Judged on the files there now when that is all it depends on.
   */
  private async checkOptionGlobs(
    name: string,
    args: readonly ShellWord[],
    draft: SegmentDraft,
    scope: Scope,
  ): Promise<void> {
    if (OPTION_SAFE.has(name)) return;
    const end = name === 'find' ? -1 : args.findIndex((word) => word.value === '--');
    for (const word of end === -1 ? args : args.slice(0, end)) {
      if (!word.glob || word.value === undefined) continue;
      const risk = optionGlobRisk(word.value);
      if (risk === 'none') continue;
      const shown = `${word.text} can expand to an option of ${name}`;
      if (risk === 'option') {
        draft.raise('unclassified', 'option_like_glob', `${shown} (its expansion starts with '-')`);
        continue;
      }
      const dashed = scope.cwd === undefined ? undefined : await dashedEntry(scope.cwd);
      if (dashed === undefined)
        draft.raise('unclassified', 'option_like_glob', `${shown} (the directory cannot be listed)`);
      else if (dashed !== null)
        draft.raise('unclassified', 'option_like_glob', `${shown} (the file '${dashed}' is here)`);
      else if (scope.repeats)
        draft.raise('unclassified', 'option_like_glob', `${shown} (it repeats, and files may appear in between)`);
      else draft.expansionJudged ??= shown;
    }
  }

  /** Checks path arguments; returns each word's resolution (cd needs its target's). */
  private async checkPaths(
    uses: readonly PathUse[],
    draft: SegmentDraft,
    scope: Scope,
  ): Promise<Map<ShellWord, PathResolution>> {
    const resolutions = new Map<ShellWord, PathResolution>();
    for (const use of uses) {
      const resolution = use.linkFrom
        ? await this.resolveLinkTarget(use.word, use.linkFrom, scope)
        : await resolveShellPath(this.options.root, scope.cwd, use.word, this.options.home);
      resolutions.set(use.word, resolution);
      if (resolution.kind === 'outside') draft.deny(resolution.shown);
      else if (resolution.kind === 'unknown') unknownPath(draft, resolution.why);
      else if (use.write && use.word.glob && resolution.kind === 'inside' && !globJudgedAsPattern(use, resolution))
        globWriteTarget(draft, use.word);
      else if (resolution.kind === 'inside' && use.write) {
        this.writeTarget(draft, resolution, use.truncates === true, use.linkFrom !== undefined);
      } else if (resolution.kind === 'scratch' && use.write) this.homeWrite(draft, resolution, use.word);
    }
    return resolutions;
  }

  /** HOME is scratch space, except the dotfiles that make later commands run programs (`~/.gitconfig`, `~/.ssh`). */
  private homeWrite(draft: SegmentDraft, resolution: ScratchPath, word: ShellWord): void {
    const rel = path.relative(path.resolve(this.options.home), resolution.real).split(path.sep).join('/');
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
  private async resolveLinkTarget(
    target: ShellWord,
    from: { word: ShellWord; directory: boolean },
    scope: Scope,
  ): Promise<PathResolution> {
    if (target.value !== undefined && target.value.startsWith('/')) {
      return resolveShellPath(this.options.root, scope.cwd, target, this.options.home);
    }
    const place = await resolveShellPath(this.options.root, scope.cwd, from.word, this.options.home);
    if (place.kind === 'unknown') return place;
    if (place.kind === 'outside' || place.kind === 'none') return { kind: 'unknown', why: 'unresolvable' };
    if (from.word.glob) return { kind: 'unknown', why: 'dynamic' };
    const directory = from.directory ? place.real : path.dirname(place.real);
    return resolveShellPath(this.options.root, directory, target, this.options.home);
  }

  private writeTarget(draft: SegmentDraft, resolution: InsidePath, truncates: boolean, linkTarget = false): void {
    const target = ruleTarget(resolution);
    const rule = fileWriteRule(target, this.options.policy);
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

  private async checkRedirects(
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
      const resolution = await resolveShellPath(this.options.root, scope.cwd, word, this.options.home);
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
        this.homeWrite(draft, resolution, word);
        continue;
      }
      if (resolution.kind !== 'inside') continue;
      draft.raise('write', 'redirect_write', `writes ${resolution.rel}`);
      if (word.glob) globWriteTarget(draft, word);
      else this.writeTarget(draft, resolution, TRUNCATING_OPERATORS.has(operator));
    }
  }

  private async changeDirectory(
    row: CommandVerdict,
    resolution: PathResolution | undefined,
    draft: SegmentDraft,
    scope: Scope,
  ): Promise<void> {
    const change = row.directoryChange;
    if (!change) return;
    if (scope.repeats) {
      draft.raise(
        'unclassified',
        'cd_in_loop',
        `${change.command} inside a loop or function leaves the directory unknown`,
      );
      scope.cwd = undefined;
      return;
    }
    const from = scope.cwd;
    if (change.command === 'popd') {
      if (scope.stack.length === 0) {
        draft.raise('unclassified', 'unknown_cwd', 'popd with an empty directory stack');
        scope.cwd = undefined;
      } else scope.cwd = scope.stack.pop();
      return;
    }
    let next: string | undefined;
    if (change.target?.value === '-') {
      next = scope.previous;
      if (next === undefined)
        draft.raise('unclassified', 'unknown_cwd', `${change.command} - returns to a directory that is not known`);
    } else {
      // `cd` alone goes to $HOME, which has to pass the same boundary check.
      const resolved = resolution ?? (change.target ? undefined : await this.checkHome(draft, scope));
      // A glob names a directory only the shell knows (`cd .gi*` may enter .git): the cwd is unknown after it.
      if (change.target?.glob) next = undefined;
      else if (resolved?.kind === 'inside') next = resolved.directory ? resolved.real : from;
      else if (resolved?.kind === 'scratch') next = resolved.exists && resolved.directory ? resolved.real : undefined;
      else if (resolved?.kind === 'outside') next = undefined;
    }
    scope.previous = from;
    if (change.command === 'pushd') scope.stack.push(from);
    scope.cwd = next;
  }

  private async checkHome(draft: SegmentDraft, scope: Scope): Promise<PathResolution> {
    const home = literalWord(this.options.home);
    const resolution = await resolveShellPath(
      this.options.root,
      scope.cwd,
      { ...home, glob: false },
      this.options.home,
    );
    if (resolution.kind === 'outside') draft.deny(this.options.home);
    return resolution;
  }

  /** Classifies every substitution's commands; the enclosing segment becomes at least `unclassified` (C.5.2). */
  private async substitute(substitutions: readonly SyntaxNode[], draft: SegmentDraft, scope: Scope): Promise<void> {
    if (substitutions.length === 0) return;
    draft.raise('unclassified', 'command_substitution', 'contains a command substitution');
    if (this.substitutionDepth >= MAX_SUBSTITUTION_DEPTH) {
      draft.raise('unclassified', 'nesting_depth', 'command substitutions nested too deeply');
      return;
    }
    const inner = new Walker(this.options, this.depth, this.substitutionDepth + 1);
    for (const substitution of substitutions) await inner.visitSequence(substitution, cloneScope(scope));
    this.segments.push(...inner.segments);
  }

  /** `cat <<EOF | sh` and `cat <<EOF && x`: tree-sitter nests what follows the here-document start inside it. */
  private async visitHeredocStatements(redirects: readonly SyntaxNode[], scope: Scope): Promise<void> {
    for (const redirect of redirects) {
      if (redirect.type !== 'heredoc_redirect') continue;
      for (const child of redirect.namedChildren) {
        if (!child || !STATEMENTS.has(child.type)) continue;
        if (child.type === 'pipeline') {
          for (const element of child.namedChildren) {
            if (element && STATEMENTS.has(element.type)) await this.visitStatement(element, cloneScope(scope), true);
          }
        } else await this.visitStatement(child, scope);
      }
    }
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

/**
 * A word only known at run time in an option position (`read X < f; rg $X .`) may be `--pre=sh` as much as a glob
 * may: it asks. After `--` it is an operand; `printf` takes options only before its format.
 */
function checkDynamicOptions(name: string, args: readonly ShellWord[], draft: SegmentDraft): void {
  if (OPTION_SAFE.has(name)) return;
  const end = name === 'find' ? -1 : args.findIndex((word) => word.value === '--');
  const positions = name === 'printf' ? args.slice(0, 1) : end === -1 ? args : args.slice(0, end);
  const dynamic = positions.find((word) => word.value === undefined);
  if (dynamic) {
    draft.raise(
      'unclassified',
      'dynamic_option',
      `${dynamic.text} is only known at run time and may be an option of ${name}`,
    );
  }
}

/** Programs with no option that runs a program or writes a file, whatever a glob expands to. */
const OPTION_SAFE = new Set(['echo', 'true', 'false', ':', 'test', '[']);

/**
 * Whether a glob's expansion can start with `-`: `option` when it certainly does (a brace alternative starts with `-`), `files` when only the files it matches decide (`*`, `?`, `[!a]`, `[+--]`), `none` otherwise.
 */
export function optionGlobRisk(pattern: string): 'option' | 'files' | 'none' {
  const first = pattern[0];
  // Already an option as written; a file whose name it matches (`--p*` → `--pre=sh`) would make it another one.
  if (first === '-') return 'files';
  if (first === '*' || first === '?') return 'files';
  if (first === '[') {
    const close = pattern.indexOf(']', pattern[1] === '!' || pattern[1] === '^' ? 3 : 2);
    if (close === -1) return 'none';
    const body = pattern.slice(1, close);
    return body.startsWith('!') || body.startsWith('^') || body.includes('-') ? 'files' : 'none';
  }
  if (first === '{') {
    const group = braceGroup(pattern);
    if (group === undefined) return 'none';
    if (group.sequence !== undefined) {
      return /^(\d+\.\.\d+|[a-zA-Z]\.\.[a-zA-Z])(\.\.\d+)?$/.test(group.sequence) ? 'none' : 'option';
    }
    let worst: 'option' | 'files' | 'none' = 'none';
    for (const alternative of group.alternatives) {
      // Brace expansion makes words, not patterns: an alternative that starts with `-` is an option, files or not.
      if ((alternative + group.rest).startsWith('-')) return 'option';
      const risk = optionGlobRisk(alternative + group.rest);
      if (risk === 'option') return 'option';
      if (risk === 'files') worst = 'files';
    }
    return worst;
  }
  return 'none';
}

/** The leading `{a,b}` (or `{1..3}`) of a word: its alternatives and what follows; undefined when it is literal. */
function braceGroup(pattern: string): { alternatives: string[]; sequence?: string; rest: string } | undefined {
  let depth = 0;
  let start = 1;
  const alternatives: string[] = [];
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === '\\') {
      index++;
      continue;
    }
    if (char === '{') depth++;
    else if (char === '}') {
      depth--;
      if (depth === 0) {
        const rest = pattern.slice(index + 1);
        const last = pattern.slice(start, index);
        if (alternatives.length === 0)
          return last.includes('..') ? { alternatives: [], sequence: last, rest } : undefined;
        return { alternatives: [...alternatives, last], rest };
      }
    } else if (char === ',' && depth === 1) {
      alternatives.push(pattern.slice(start, index));
      start = index + 1;
    }
  }
  return undefined;
}

/** The first entry of `directory` whose name starts with `-`; null when there is none, undefined when unreadable. */
async function dashedEntry(directory: string): Promise<string | null | undefined> {
  try {
    const names = await readdir(directory);
    return names.find((entry) => entry.startsWith('-')) ?? null;
  } catch {
    return undefined;
  }
}

function unknownPath(draft: SegmentDraft, why: 'dynamic' | 'unknown_cwd' | 'unresolvable'): void {
  if (why === 'dynamic') draft.raise('unclassified', 'dynamic_path', 'a path is only known at run time');
  else if (why === 'unknown_cwd')
    draft.raise('unclassified', 'unknown_cwd', 'a relative path after a directory change that cannot be followed');
  else draft.raise('unclassified', 'unresolvable_path', 'a path could not be resolved');
}

function destinations(redirect: SyntaxNode): SyntaxNode[] {
  return redirect.childrenForFieldName('destination').filter((child): child is SyntaxNode => child !== null);
}

function isSystemProgram(value: string): boolean {
  const slash = value.lastIndexOf('/');
  return SYSTEM_BIN.has(value.slice(0, slash));
}

/** Substitution nodes below `nodes`, outermost only; statements nested in here-document redirects are visited apart. */
function findSubstitutions(nodes: readonly SyntaxNode[]): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  const visit = (node: SyntaxNode, inHeredoc: boolean): void => {
    if (SUBSTITUTIONS.has(node.type)) {
      found.push(node);
      return;
    }
    if (inHeredoc && STATEMENTS.has(node.type)) return;
    for (const child of node.namedChildren) if (child) visit(child, inHeredoc || node.type === 'heredoc_redirect');
  };
  for (const node of nodes) visit(node, false);
  return found;
}

function assignedNames(node: SyntaxNode): string[] {
  const names: string[] = [];
  const visit = (current: SyntaxNode): void => {
    if (current.type === 'variable_assignment') {
      names.push(current.childForFieldName('name')?.text ?? '');
      return;
    }
    if (current.type === 'variable_name' && current.parent?.type !== 'variable_assignment') names.push(current.text);
    for (const child of current.namedChildren) if (child && !SUBSTITUTIONS.has(child.type)) visit(child);
  };
  visit(node);
  return names;
}
