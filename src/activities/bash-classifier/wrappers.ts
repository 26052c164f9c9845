// Node: step 2 of docs/tools.md §5.2 segment handling — wrappers that run another command (`env`, `nice`, `nohup`,
// `time`, `command`, `builtin`, `exec`, `timeout <n>`, `xargs [flags]`) are peeled off so the wrapped command is
// classified.
import type { ShellWord } from './words.js';

/** The command left after the wrappers, and what the wrappers told us. */
export interface Unwrapped {
  words: ShellWord[];
  /** Variables set through `env NAME=value`. */
  assignments: string[];
  /** `xargs` appends operands read from stdin, so operand paths cannot be checked. */
  viaXargs: boolean;
  /** A wrapper option that hides what runs (`env -S`, `env -C`). */
  opaque?: string;
}

const XARGS_WITH_VALUE = new Set([
  '-a',
  '-d',
  '-E',
  '-I',
  '-L',
  '-n',
  '-P',
  '-s',
  '--arg-file',
  '--delimiter',
  '--eof',
  '--replace',
  '--max-lines',
  '--max-args',
  '--max-procs',
  '--max-chars',
  '--process-slot-var',
]);
const TIMEOUT_WITH_VALUE = new Set(['-s', '--signal', '-k', '--kill-after']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const MAX_WRAPPERS = 16;

/** The basename of a command word, or undefined when the word is dynamic. */
export function commandName(word: ShellWord | undefined): string | undefined {
  const value = word?.value;
  if (value === undefined) return undefined;
  const slash = value.lastIndexOf('/');
  return slash === -1 ? value : value.slice(slash + 1);
}

/** Skips options; `withValue` options consume the next word. Returns the index of the first operand. */
function skipOptions(args: readonly ShellWord[], withValue: ReadonlySet<string>, attachedNumber = false): number {
  let index = 0;
  while (index < args.length) {
    const value = args[index]?.value;
    if (value === undefined) return index;
    if (value === '--') return index + 1;
    if (!value.startsWith('-') || value === '-') return index;
    if (attachedNumber && /^-\d+$/.test(value)) {
      index++;
      continue;
    }
    index += withValue.has(value) ? 2 : 1;
  }
  return index;
}

/** Peels wrappers off a command until the wrapped command remains (or a wrapper stands alone). */
export function unwrapCommand(words: readonly ShellWord[]): Unwrapped {
  let current = [...words];
  const assignments: string[] = [];
  let viaXargs = false;
  for (let depth = 0; depth < MAX_WRAPPERS; depth++) {
    const name = commandName(current[0]);
    const args = current.slice(1);
    let start: number;
    switch (name) {
      case 'env': {
        let index = 0;
        while (index < args.length) {
          const value = args[index]?.value;
          if (value === undefined) break;
          if (value === '--') {
            index++;
            break;
          }
          if (
            value.startsWith('-S') ||
            value.startsWith('--split-string') ||
            value.startsWith('-C') ||
            value.startsWith('--chdir')
          ) {
            return { words: current, assignments, viaXargs, opaque: 'env -S/-C hides what runs and where' };
          }
          if (value === '-u' || value === '--unset') {
            index += 2;
            continue;
          }
          if (value.startsWith('-') && value !== '-') {
            index++;
            continue;
          }
          if (ASSIGNMENT.test(value)) {
            assignments.push(value.slice(0, value.indexOf('=')));
            index++;
            continue;
          }
          break;
        }
        start = index;
        break;
      }
      case 'nice':
        start = skipOptions(args, new Set(['-n', '--adjustment']), true);
        break;
      case 'nohup':
      case 'builtin':
        start = skipOptions(args, new Set());
        break;
      case 'time':
        start = skipOptions(args, new Set(['-f', '--format', '-o', '--output']));
        break;
      case 'command':
        // `command -v x` / `command -V x` only look the name up: the row table treats them as read-only.
        if (args.some((word) => word.value === '-v' || word.value === '-V'))
          return { words: current, assignments, viaXargs };
        start = skipOptions(args, new Set());
        break;
      case 'exec':
        start = skipOptions(args, new Set(['-a']));
        break;
      case 'timeout': {
        const duration = skipOptions(args, TIMEOUT_WITH_VALUE);
        start = duration + 1;
        break;
      }
      case 'xargs':
        start = skipOptions(args, XARGS_WITH_VALUE);
        viaXargs = true;
        break;
      default:
        return { words: current, assignments, viaXargs };
    }
    const rest = args.slice(start);
    if (rest.length === 0) return { words: current, assignments, viaXargs };
    current = rest;
  }
  return { words: current, assignments, viaXargs, opaque: 'too many nested wrappers' };
}
