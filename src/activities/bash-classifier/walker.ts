// Node: walks the tree-sitter-bash syntax tree of a command and classifies each segment (docs/tools.md §5.2):
// statements split at `;` `&&` `||` `|` `&` and newlines, compound statements opened up, command substitutions
// classified recursively, redirections and path arguments checked against the workspace, and the working directory
// tracked through `cd`.
import type { BashSegment } from '../../protocol/bash-classification.js';
import type { RiskLevel } from '../../protocol/risk-level.js';
import { changeDirectory } from './directory-change.js';
import { checkDynamicOptions, checkOptionGlobs } from './option-globs.js';
import type { SyntaxNode } from './parser.js';
import { nestsDeeperThan, withParsedScript } from './parser.js';
import { checkPaths, checkRedirects } from './path-checks.js';
import type { PathResolution } from './paths.js';
import { resolveShellPath } from './paths.js';
import { matchForbiddenPattern, normalizeCommand } from './patterns.js';
import { commandVerdict, takesPathOperands } from './rules.js';
import type { ClassifierOptions, Scope } from './scope.js';
import { cloneScope } from './scope.js';
import { SegmentDraft } from './segment-draft.js';
import {
  assignedNames,
  destinations,
  findSubstitutions,
  LOOPS,
  REDIRECTS,
  SEQUENCES,
  STATEMENTS,
} from './syntax-kinds.js';
import type { CommandVerdict } from './verdict.js';
import { DANGEROUS_VARIABLE, overrideReason, verdict } from './verdict.js';
import { evaluateWord } from './words.js';
import { commandName, unwrapCommand } from './wrappers.js';

/** `sh -c` scripts are classified recursively up to this depth; deeper is unclassified (§5.2). */
export const MAX_SCRIPT_DEPTH = 3;
// Substitutions nest without a documented limit; this only keeps recursion bounded on adversarial input.
const MAX_SUBSTITUTION_DEPTH = 16;
// The walker recurses along the syntax tree; a chain of thousands of `&&` is one tree level per operator.
const MAX_SYNTAX_DEPTH = 256;

/**
 * Command-form `write` rows auto-allowed by default (`bashWriteAutoAllow`, §5.2). Not `git_write`: a git write
 * changes `.git`, which the command sandbox mounts read-only unless the operator approved the call, so it asks.
 */
export const DEFAULT_BASH_WRITE_AUTO_ALLOW: readonly string[] = ['file_write', 'build_test', 'redirect_write'];

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
        await checkOptionGlobs(name, args, draft, scope);
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
        const resolutions = await checkPaths(this.options, row.paths, draft, scope);
        checkDynamicOptions(name, args, draft);
        if (row.directoryChange) {
          const target = row.directoryChange.target;
          directoryTarget = { row, ...(target ? { resolution: resolutions.get(target) } : {}) };
        }
      }
    }

    await checkRedirects(this.options, redirects, draft, scope, environment);
    if (directoryTarget)
      await changeDirectory(this.options, directoryTarget.row, directoryTarget.resolution, draft, scope);
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

  /** Classifies every substitution's commands; the enclosing segment becomes at least `unclassified` (§5.2). */
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

function isSystemProgram(value: string): boolean {
  const slash = value.lastIndexOf('/');
  return SYSTEM_BIN.has(value.slice(0, slash));
}
