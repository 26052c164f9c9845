// Node: a command's options as one table, from which its parsing (node:util parseArgs), the check of values with a
// fixed set of choices, its `--help` text and the README's CLI reference are all produced.
import { parseArgs } from 'node:util';
import { UsageError } from './exit-codes.js';

/** One option of a command. The first three fields are parseArgs' own. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  /** Given more than once, each value is kept (in help: `…`). */
  multiple?: boolean;
  short?: string;
  default?: boolean | string;
  /** The value's name in help and usage lines (`--cwd DIR`). */
  value?: string;
  /** The values it accepts, checked before the command runs; help names them unless `help` does. */
  choices?: readonly string[];
  /** Values accepted besides `choices` without being shown (another spelling of one of them). */
  alsoAccepted?: readonly string[];
  /** The usage line shows it as required (`ID --from-step N`), not in brackets. */
  required?: boolean;
  /** What it does, as one paragraph: wrapped to the help's width. */
  help: string;
}

/** A table of options: flag name (without `--`) to its spec, in the order help lists them. */
export type OptionTable = Readonly<Record<string, OptionSpec>>;

/** A command's help and options: what `durable-agent NAME --help` prints, and what its handler parses. */
export interface CommandOptions<T extends OptionTable = OptionTable> {
  /** The arguments besides options: `ID`, `"<task>"`; written after the name, or last with `argumentsLast`. */
  arguments: string;
  /** The arguments go after the options (`run [options] "<task>"`: the task is the rest of the line). */
  argumentsLast?: boolean;
  /** Whether arguments other than options are taken (default true; the command checks them). */
  positionals?: boolean;
  /** `inline` lists each option in the usage line; `options` writes `[options]` there (a command with many). */
  usage: 'inline' | 'options';
  /** Printed after the usage line. */
  description: string;
  options: T;
  /** Printed after the options (exit codes). */
  epilogue?: string;
}

/** The help's width, as the rest of the CLI's text is written. */
const WIDTH = 120;

/** parseArgs over the command's table, then every value with choices checked: a bad one is a UsageError. */
export function parseCommandLine<T extends OptionTable>(command: CommandOptions<T>, argv: string[]) {
  const parsed = parseArgs({
    args: argv,
    options: command.options,
    allowPositionals: command.positionals ?? true,
    strict: true,
  });
  for (const [name, spec] of Object.entries(command.options)) {
    if (!spec.choices) continue;
    const given = (parsed.values as Record<string, unknown>)[name];
    for (const value of Array.isArray(given) ? given : given === undefined ? [] : [given]) {
      const text = String(value);
      if (!spec.choices.includes(text) && !spec.alsoAccepted?.includes(text))
        throw new UsageError(`--${name} must be ${alternatives(spec.choices)}, got "${text}"`);
    }
  }
  return parsed;
}

/** `a, b or c`; a longer list as `one of a, b, c, d`. */
export function alternatives(choices: readonly string[]): string {
  if (choices.length > 3) return `one of ${choices.join(', ')}`;
  return choices.length < 2 ? choices.join('') : `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)!}`;
}

/** `--name VALUE` of an option. */
function flag(name: string, spec: OptionSpec): string {
  const short = spec.short ? `-${spec.short}, ` : '';
  return `${short}--${name}${spec.type === 'string' ? ` ${spec.value ?? 'VALUE'}` : ''}`;
}

/**
 * The options as the usage line shows them, `[--cwd DIR] [--env-pass NAME]…`; with `choices`, as the README's reference
 * does, a fixed set of values in place of the value's name (`[--mode default|read-only]`).
 */
export function synopsis(table: OptionTable, { choices = false }: { choices?: boolean } = {}): string {
  return Object.entries(table)
    .map(([name, spec]) => {
      const value = choices && spec.choices ? spec.choices.join('|') : (spec.value ?? 'VALUE');
      const text = `--${name}${spec.type === 'string' ? ` ${value}` : ''}`;
      return `${spec.required ? text : `[${text}]`}${spec.multiple ? '…' : ''}`;
    })
    .join(' ');
}

/** What follows `durable-agent name`: its arguments and its options (all of them, or `[options]` when `brief`). */
export function invocation(command: CommandOptions, { brief = false, choices = false } = {}): string {
  const options =
    brief && command.usage === 'options' ? requiredFirst(command.options) : synopsis(command.options, { choices });
  const parts = command.argumentsLast ? [options, command.arguments] : [command.arguments, options];
  return parts.filter(Boolean).join(' ');
}

/** The usage line of `durable-agent name`. */
export function usageLine(name: string, command: CommandOptions): string {
  return `Usage: durable-agent ${name} ${invocation(command, { brief: true })}`.trimEnd();
}

/** `--from-step N [options]`: the required options, then the rest as `[options]`. */
function requiredFirst(table: OptionTable): string {
  const required = Object.fromEntries(Object.entries(table).filter(([, spec]) => spec.required));
  return [synopsis(required), '[options]'].filter(Boolean).join(' ');
}

/** The full `--help` text of `durable-agent name`. */
export function commandHelp(name: string, command: CommandOptions): string {
  const entries = [
    ...Object.entries(command.options),
    ['help', { type: 'boolean', short: 'h', help: 'show this help' }],
  ];
  const flags = entries.map(([flagName, spec]) => flag(flagName as string, spec as OptionSpec));
  const column = Math.min(Math.max(...flags.map((text) => text.length)), 20) + 4;
  const lines = entries.flatMap(([, spec], index) => {
    const head = `  ${flags[index]!}`;
    const body = wrap((spec as OptionSpec).help, WIDTH - column);
    const first =
      head.length + 2 <= column ? [`${head.padEnd(column)}${body[0] ?? ''}`] : [head, ' '.repeat(column) + body[0]];
    return [...first, ...body.slice(1).map((line) => ' '.repeat(column) + line)];
  });
  return [
    usageLine(name, command),
    '',
    command.description,
    '',
    'Options:',
    ...lines,
    ...(command.epilogue ? ['', command.epilogue] : []),
  ].join('\n');
}

/** `text` in lines of at most `width` characters, broken at spaces. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}
