// Node: the static value of shell words (quote removal, escapes, $HOME/$PWD, ANSI-C strings) and option parsing.
// A word whose value depends on the runtime (other variables, substitutions, arithmetic) has no static value.
import type { SyntaxNode } from './parser.js';

/** One word of a simple command. */
export interface ShellWord {
  /** Source text. */
  text: string;
  /** The word after quote removal and the expansions known statically; undefined when only the runtime knows it. */
  value: string | undefined;
  /** Contains unquoted glob or brace characters. */
  glob: boolean;
  /** Offset in the script, to keep words in source order. */
  start: number;
}

/** What static expansion knows. */
export interface WordEnvironment {
  home: string;
  /** The tracked working directory (absolute, real), when known. */
  cwd: string | undefined;
}

interface Evaluated {
  value: string | undefined;
  glob: boolean;
}

const KNOWN = (value: string, glob = false): Evaluated => ({ value, glob });
const DYNAMIC: Evaluated = { value: undefined, glob: false };

/** Evaluates a word-like node. */
export function evaluateWord(node: SyntaxNode, environment: WordEnvironment): ShellWord {
  const evaluated = evaluate(node, environment, true);
  return { text: node.text, value: evaluated.value, glob: evaluated.glob, start: node.startIndex };
}

/** A literal word, for values that come from elsewhere (a wrapper's argument list, a test). */
export function literalWord(value: string, start = 0): ShellWord {
  return { text: value, value, glob: /[*?[{]/.test(value), start };
}

function evaluate(node: SyntaxNode, environment: WordEnvironment, first: boolean): Evaluated {
  switch (node.type) {
    case 'word':
      return unquotedWord(node.text, environment, first);
    case 'number':
    case 'file_descriptor':
    case 'variable_name':
      return KNOWN(node.text);
    case 'raw_string':
      return KNOWN(node.text.slice(1, -1));
    case 'string':
      return doubleQuoted(node, environment);
    case 'translated_string': {
      const inner = node.namedChildren.find((child) => child?.type === 'string');
      return inner ? doubleQuoted(inner, environment) : DYNAMIC;
    }
    case 'ansi_c_string':
      return ansiC(node.text.slice(2, -1));
    case 'concatenation': {
      let value = '';
      let glob = false;
      let index = 0;
      for (const child of node.children) {
        if (!child) continue;
        const part = evaluate(child, environment, first && index === 0);
        index++;
        if (part.value === undefined) return DYNAMIC;
        value += part.value;
        glob ||= part.glob;
      }
      return { value, glob };
    }
    case 'simple_expansion':
    case 'expansion':
      return knownVariable(node, environment);
    case 'brace_expression':
      return KNOWN(node.text, true);
    case '$':
      // tree-sitter splits a lone `$` off a word; on its own it is literal.
      return KNOWN('$');
    default:
      return DYNAMIC;
  }
}

/** Backslash escapes, glob characters and a leading tilde of an unquoted word. */
function unquotedWord(text: string, environment: WordEnvironment, first: boolean): Evaluated {
  let value = '';
  let glob = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    if (char === '\\') {
      const next = text[index + 1];
      index++;
      if (next !== undefined && next !== '\n') value += next;
      continue;
    }
    if (char === '*' || char === '?' || char === '[' || char === '{') glob = true;
    value += char;
  }
  if (first && text.startsWith('~')) {
    const slash = value.indexOf('/');
    const user = slash === -1 ? value.slice(1) : value.slice(1, slash);
    const rest = slash === -1 ? '' : value.slice(slash);
    if (user === '') return { value: environment.home + rest, glob };
    if (user === '+') return environment.cwd === undefined ? DYNAMIC : { value: environment.cwd + rest, glob };
    // `~user` and `~-` stay literal; the boundary check refuses anything that starts with `~`.
  }
  return { value, glob };
}

function doubleQuoted(node: SyntaxNode, environment: WordEnvironment): Evaluated {
  const source = node.text;
  const base = node.startIndex;
  let value = '';
  let cursor = 1;
  const end = source.length - 1;
  for (const child of node.children) {
    if (!child) continue;
    const from = child.startIndex - base;
    const to = child.endIndex - base;
    if (from < 1 || to > end) continue; // the quotes themselves
    if (from > cursor) value += unescapeDoubleQuoted(source.slice(cursor, from));
    if (child.type === 'string_content') value += unescapeDoubleQuoted(child.text);
    else if (child.type === '$') value += '$';
    else {
      const part = evaluate(child, environment, false);
      if (part.value === undefined) return DYNAMIC;
      value += part.value;
    }
    cursor = to;
  }
  if (end > cursor) value += unescapeDoubleQuoted(source.slice(cursor, end));
  return KNOWN(value);
}

/** Inside double quotes a backslash escapes only `$`, backquote, `"`, `\` and newline. */
function unescapeDoubleQuoted(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_match, char: string) => (char === '\n' ? '' : char));
}

function knownVariable(node: SyntaxNode, environment: WordEnvironment): Evaluated {
  const named = node.namedChildren.filter((child) => child !== null);
  const only = named.length === 1 ? named[0] : undefined;
  if (!only || only.type !== 'variable_name') return DYNAMIC;
  if (node.type === 'expansion' && node.text !== `\${${only.text}}`) return DYNAMIC;
  if (only.text === 'HOME') return KNOWN(environment.home);
  if (only.text === 'PWD' && environment.cwd !== undefined) return KNOWN(environment.cwd);
  return DYNAMIC;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** Bash's `$'…'` escapes, so `$'\x72m'` is seen as `rm`. */
function ansiC(body: string): Evaluated {
  let value = '';
  for (let index = 0; index < body.length; index++) {
    const char = body[index] as string;
    if (char !== '\\') {
      value += char;
      continue;
    }
    const next = body[index + 1];
    if (next === undefined) return DYNAMIC;
    index++;
    const simple = SIMPLE_ESCAPES[next];
    if (simple !== undefined) {
      value += simple;
      continue;
    }
    const numeric = /^(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|([0-7]{1,3}))/.exec(
      body.slice(index),
    );
    if (numeric) {
      const [match, hex, unicode, wide, octal] = numeric;
      const code = hex ?? unicode ?? wide;
      const point = code !== undefined ? parseInt(code, 16) : parseInt(octal ?? '0', 8);
      if (point > 0x10ffff) return DYNAMIC;
      value += String.fromCodePoint(point);
      index += match.length - 1;
      continue;
    }
    if (next === 'c') return DYNAMIC; // control characters: never part of a real command name
    value += `\\${next}`;
  }
  return KNOWN(value);
}

/** A parsed option, with its value when it takes one. */
export interface ParsedOption {
  /** The option as written, before any `=value` (`-o`, `--output`, `-abc`). */
  name: string;
  word: ShellWord;
  value?: ShellWord;
  /**
   * The listed option this word stands for when it is not spelled out: the letter of a short cluster that took the
   * value (`-t` of `-rtDIR`), or the long option an abbreviation names (`--target-directory` of `--targ=DIR`).
   */
  canonical?: string;
}

/** Options and operands of an argument list. */
export interface ParsedArguments {
  options: ParsedOption[];
  positionals: ShellWord[];
  /** A `--` ended the options. */
  endOfOptions: boolean;
}

/** How to split an argument list. */
export interface OptionGrammar {
  /** Options that take the next word as their value (`-o`, `--output`); `--name=value` is always recognised. */
  withValue?: readonly string[];
  /** Stop option parsing at the first operand (git, env, xargs: what follows belongs to the inner command). */
  stopAtFirstPositional?: boolean;
  /** Words starting with `+` are options too (chmod `+x`, find-style). */
  plusOptions?: boolean;
}

/** True for a word that is statically an option (`-x`, `--x`), not `-` (stdin). */
export function isOptionWord(word: ShellWord): boolean {
  return word.value !== undefined && word.value.length > 1 && word.value.startsWith('-');
}

/** Splits arguments into options (with their values) and operands; `--` ends the options. */
export function splitShellArguments(args: readonly ShellWord[], grammar: OptionGrammar = {}): ParsedArguments {
  const withValue = new Set(grammar.withValue ?? []);
  const options: ParsedOption[] = [];
  const positionals: ShellWord[] = [];
  let ended = false;
  let endOfOptions = false;
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as ShellWord;
    if (ended) {
      positionals.push(word);
      continue;
    }
    if (word.value === '--') {
      ended = true;
      endOfOptions = true;
      continue;
    }
    const isOption =
      isOptionWord(word) || (grammar.plusOptions === true && word.value !== undefined && /^\+./.test(word.value));
    if (!isOption) {
      positionals.push(word);
      if (grammar.stopAtFirstPositional) ended = true;
      continue;
    }
    const text = word.value as string;
    const equals = text.startsWith('--') ? text.indexOf('=') : -1;
    const name = equals === -1 ? text : text.slice(0, equals);
    // getopt_long takes any unambiguous prefix of a long option (`--outp` for `--output`).
    const long = name.startsWith('--') && !withValue.has(name) ? longOptionNamed(name, withValue) : undefined;
    const canonical = long !== undefined ? { canonical: long } : {};
    if (equals !== -1) {
      const value = text.slice(equals + 1);
      options.push({ name, word, value: { ...word, value, text: value }, ...canonical });
    } else if ((withValue.has(name) || long !== undefined) && index + 1 < args.length) {
      options.push({ name, word, value: args[index + 1] as ShellWord, ...canonical });
      index++;
    } else if (/^-[^-]./.test(name) && !withValue.has(name)) {
      // A short cluster: the first letter that takes a value takes the rest of the word, or else the next word.
      const at = [...name].findIndex((letter, position) => position > 0 && withValue.has(`-${letter}`));
      if (at === -1) options.push({ name, word });
      else {
        const rest = text.slice(at + 1);
        const value = rest !== '' ? { ...word, value: rest, text: rest } : (args[index + 1] as ShellWord | undefined);
        if (rest === '' && value !== undefined) index++;
        options.push({ name, word, ...(value ? { value } : {}), canonical: `-${name[at] as string}` });
      }
    } else {
      options.push({ name, word });
    }
  }
  return { options, positionals, endOfOptions };
}

/** The one long option of `names` that `prefix` abbreviates (at least one letter after `--`). */
export function longOptionNamed(prefix: string, names: Iterable<string>): string | undefined {
  if (prefix.length < 3) return undefined;
  const matches = [...names].filter((name) => name.startsWith('--') && name.startsWith(prefix));
  return matches.length === 1 ? matches[0] : undefined;
}

/** The option's name as listed: its canonical spelling when it was abbreviated or clustered. */
export function optionName(option: ParsedOption): string {
  return option.canonical ?? option.name;
}

/** True when the option is, or abbreviates, one of `names` (over-matching an ambiguous prefix errs on the safe side). */
export function optionMatches(option: ParsedOption, names: Iterable<string>): boolean {
  const list = [...names];
  const name = optionName(option);
  if (list.includes(name)) return true;
  return name.startsWith('--') && name.length >= 3 && list.some((candidate) => candidate.startsWith(name));
}

/** True when any option has one of these names. */
export function hasOption(parsed: ParsedArguments, ...names: string[]): boolean {
  return parsed.options.some(
    (option) => names.includes(option.name) || (option.canonical !== undefined && names.includes(option.canonical)),
  );
}

/** True when a short-option cluster (`-abc`) contains the letter; long options are not searched. */
export function hasShortLetter(parsed: ParsedArguments, letter: string): boolean {
  return parsed.options.some((option) => {
    if (!/^-[^-]/.test(option.name)) return false;
    // Letters after the one that took a value are that value (`-t.git/hooks`), not options.
    const valueAt = option.canonical !== undefined ? option.name.indexOf(option.canonical.slice(1), 1) : -1;
    return option.name.slice(1, valueAt === -1 ? undefined : valueAt + 1).includes(letter);
  });
}

/** The words' static values, or undefined when any of them is dynamic. */
export function staticValues(words: readonly ShellWord[]): string[] | undefined {
  const values: string[] = [];
  for (const word of words) {
    if (word.value === undefined) return undefined;
    values.push(word.value);
  }
  return values;
}
