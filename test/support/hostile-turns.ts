// fast-check generators of hostile model output: one assistant turn of tool calls with broken ids, names and
// arguments, cut-off streams, and turns of up to 100 calls. A generated turn renders as a scripted-server turn, so the
// same value drives the pure pipeline (through the stream assembler) and a real run (through the openai client).
//
// Nothing generated can do harm when it runs: valid mutating calls only name paths inside the workspace (anything else
// is refused by the executors' boundary), and every valid command is one of a few read-only or refused ones.
import fc from 'fast-check';
import type { ScriptTurn } from '../../src/scripted-model/server.js';

/** How the stream of a turn ends. */
export type TurnEnding = 'complete' | 'length' | 'cut';

/** One tool call as the model sends it: any id (or none), any name, any arguments text. */
export interface HostileCall {
  id?: string;
  name: string;
  arguments: string;
}

/** One assistant turn. */
export interface HostileTurn {
  content?: string;
  calls: HostileCall[];
  ending: TurnEnding;
  /** Characters per streamed delta; undefined sends each call's arguments in one delta. */
  chunkSize?: number;
}

/** Sizes of the huge strings: most are large, a few are a full megabyte. */
export const HUGE_SIZES = [10_000, 100_000, 1024 * 1024] as const;

const READ_TOOLS = ['ReadFile', 'Glob', 'Grep'] as const;
const MUTATING_TOOLS = ['WriteFile', 'EditFile', 'Bash'] as const;
const ALIASES = ['read_file', 'cat_file', 'grep', 'search', 'find_files', 'write_file', 'str_replace', 'shell'];

/** Commands that either only read or are refused before they run (askPolicy deny refuses every ASK). */
const HARMLESS_COMMANDS = ['ls', 'pwd', 'echo hi', 'cat missing.txt', 'rm -rf /', 'curl http://example.invalid'];
/** Paths inside the workspace, and paths the boundary refuses. */
const PATHS = ['notes.txt', 'dir/a.txt', 'a.t', '.', '../escape.txt', '/etc/passwd', '~/x', 'dir/../../up.txt'];

/** Names: the six tools, aliases, and names no registry has (prototype members included). */
export const toolNameArbitrary: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...READ_TOOLS) },
  { weight: 3, arbitrary: fc.constantFrom(...MUTATING_TOOLS) },
  { weight: 2, arbitrary: fc.constantFrom(...ALIASES) },
  {
    weight: 3,
    arbitrary: fc.constantFrom('', ' ', '\t\n', 'FormatDisk', 'toString', '__proto__', 'constructor', 'hasOwnProperty'),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.constantFrom('A'.repeat(10_000), 'ReadFile'.repeat(500)) },
);

/** Arguments that are right for the tool (so valid calls of every tool occur). */
function validArguments(name: string): fc.Arbitrary<Record<string, unknown>> {
  const path = fc.constantFrom(...PATHS);
  switch (name) {
    case 'Glob':
    case 'find_files':
      return fc.record({ pattern: fc.constantFrom('*', '**/*.txt', '[', '{a,b}') }, { requiredKeys: ['pattern'] });
    case 'Grep':
    case 'grep':
    case 'search':
      return fc.record({ pattern: fc.constantFrom('a', '(', 'x+', '\\d'), path: fc.constantFrom('.', 'dir') });
    case 'WriteFile':
    case 'write_file':
      return fc.record({ path, content: fc.string({ maxLength: 200 }) });
    case 'EditFile':
    case 'str_replace':
      return fc.record({ path, old_string: fc.string({ maxLength: 20 }), new_string: fc.string({ maxLength: 20 }) });
    case 'Bash':
    case 'shell':
      return fc.record({ command: fc.constantFrom(...HARMLESS_COMMANDS) });
    default:
      return fc.record({ path, offset: fc.integer({ min: -5, max: 100 }), limit: fc.integer({ min: 0, max: 50 }) });
  }
}

/** The keys the tools know, each given a value of any JSON type. */
const wrongTypes: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(
  fc.constantFrom('path', 'content', 'pattern', 'command', 'offset', 'limit', 'edits', 'timeout_ms', 'cwd', 'extra'),
  fc.jsonValue({ maxDepth: 3 }),
  { maxKeys: 5 },
);

/** A huge string value under a key the tool reads (file content, a pattern, a command). */
const hugeArguments: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    key: fc.constantFrom('content', 'path', 'pattern', 'command', 'old_string'),
    size: fc.oneof(
      { weight: 8, arbitrary: fc.constant(HUGE_SIZES[0]) },
      { weight: 3, arbitrary: fc.constant(HUGE_SIZES[1]) },
      { weight: 1, arbitrary: fc.constant(HUGE_SIZES[2]) },
    ),
    unit: fc.constantFrom('x', 'line with "quotes" and \\ backslashes\n', 'ünïcödé ☃ ', '\u0000\u001f'),
  })
  .map(({ key, size, unit }) => ({
    path: 'big.txt',
    [key]: unit.repeat(Math.ceil(size / unit.length)).slice(0, size),
  }));

/** Nesting deep enough to overflow any recursive walk of the value. */
const deepJson: fc.Arbitrary<string> = fc
  .record({
    depth: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(100, 10_000) },
      { weight: 1, arbitrary: fc.constant(200_000) },
    ),
    open: fc.constantFrom('[', '{"a":'),
  })
  .map(({ depth, open }) => {
    const close = open === '[' ? ']' : '}';
    return `{"path":"a.txt","pattern":${open.repeat(depth)}1${close.repeat(depth)}}`;
  });

/** Ways models break JSON text, applied to a valid rendering. */
function breakJson(text: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.nat({ max: Math.max(0, text.length - 1) }).map((at) => text.slice(0, at)),
    fc.nat({ max: text.length }).map((at) => `${text.slice(0, at)}${text.slice(at + 1)}`),
    fc
      .tuple(fc.nat({ max: text.length }), fc.constantFrom('"', "'", '{', '}', '[', ']', ',', ':', '\\', '\n'))
      .map(([at, char]) => `${text.slice(0, at)}${char}${text.slice(at)}`),
    fc.constant(text.replace(/"/g, "'")),
    fc.constant(text.replace(/}$/, ',}')),
    fc.constant(text.replace(/"([A-Za-z_]+)":/g, '$1:')),
    fc.constant(`\`\`\`json\n${text}\n\`\`\``),
    fc.constant(`Here you go: ${text} hope that helps}}}`),
    fc.constant(`// arguments\n${text.replace(/true/g, 'True').replace(/null/g, 'None')}`),
    fc.constant(JSON.stringify(text)),
    fc.constant(JSON.stringify(JSON.stringify(text))),
  );
}

/** Arguments text for a call to `name`: valid, broken, truncated, mistyped, huge, deep, not an object, or garbage. */
export function argumentsArbitrary(name: string): fc.Arbitrary<string> {
  const valid = validArguments(name).map((value) => JSON.stringify(value));
  return fc.oneof(
    { weight: 8, arbitrary: valid },
    { weight: 6, arbitrary: valid.chain(breakJson) },
    { weight: 3, arbitrary: wrongTypes.map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: hugeArguments.map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: hugeArguments.map((value) => JSON.stringify(value)).chain(breakJson) },
    { weight: 1, arbitrary: deepJson },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '',
        '   ',
        '\uFEFF{}',
        'null',
        '42',
        'true',
        '"just text"',
        '[1,2,3]',
        '["a.txt"]',
        '{"__proto__":{"polluted":true},"path":"a.txt"}',
        '{"constructor":{"prototype":{"x":1}},"pattern":"*"}',
        '{"path":"\\ud800"}',
        '{"path":"a","path":"b"}',
        '}{',
        '{"a":1}{"b":2}',
        '{"expected_sha256":"0","path":"a.txt","content":"x"}',
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  );
}

type IdKind = 'fresh' | 'duplicate' | 'suffix-collision' | 'empty' | 'missing' | 'whitespace' | 'odd';

const idKindArbitrary: fc.Arbitrary<{ kind: IdKind; pick: number; odd: string }> = fc.record({
  kind: fc.constantFrom<IdKind>(
    'fresh',
    'fresh',
    'fresh',
    'duplicate',
    'suffix-collision',
    'empty',
    'missing',
    'whitespace',
    'odd',
  ),
  pick: fc.nat(),
  odd: fc.string({ maxLength: 30 }),
});

/** Gives each call its id: fresh, a copy of an earlier one, one that collides with a rewritten duplicate, or none. */
function assignIds(
  count: number,
  kinds: readonly { kind: IdKind; pick: number; odd: string }[],
): (string | undefined)[] {
  const ids: (string | undefined)[] = [];
  for (let index = 0; index < count; index++) {
    const { kind, pick, odd } = kinds[index]!;
    const earlier = ids.filter((id): id is string => typeof id === 'string' && id.trim() !== '');
    const previous = earlier.length > 0 ? earlier[pick % earlier.length] : undefined;
    switch (kind) {
      case 'duplicate':
        ids.push(previous ?? `call_${index}`);
        break;
      case 'suffix-collision':
        // What the id normalisation would rename a duplicate of `previous` to.
        ids.push(previous ? `${previous}#2` : `call_${index}`);
        break;
      case 'empty':
        ids.push('');
        break;
      case 'missing':
        ids.push(undefined);
        break;
      case 'whitespace':
        ids.push('  ');
        break;
      case 'odd':
        ids.push(odd);
        break;
      default:
        ids.push(`call_${index}`);
    }
  }
  return ids;
}

const callArbitrary = toolNameArbitrary.chain((name) =>
  argumentsArbitrary(name).map((text): Omit<HostileCall, 'id'> => ({ name, arguments: text })),
);

/** Options of {@link hostileTurnArbitrary}. */
export interface HostileTurnOptions {
  /** Most calls in one turn (default 100). */
  maxCalls?: number;
  /** Generate no text-only turns (a run would end on one). */
  withCalls?: boolean;
}

/** One hostile assistant turn. */
export function hostileTurnArbitrary(options: HostileTurnOptions = {}): fc.Arbitrary<HostileTurn> {
  const maxCalls = options.maxCalls ?? 100;
  const minCalls = options.withCalls ? 1 : 0;
  // Mostly a few calls, sometimes a flood: the size of the list is drawn first so 100-call turns really occur.
  const count = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: minCalls, max: Math.min(maxCalls, 8) }) },
    { weight: 1, arbitrary: fc.integer({ min: minCalls, max: maxCalls }) },
    { weight: 1, arbitrary: fc.constant(maxCalls) },
  );
  return count.chain((size) =>
    fc
      .record({
        calls: fc.array(callArbitrary, { minLength: size, maxLength: size }),
        ids: fc.array(idKindArbitrary, { minLength: size, maxLength: size }),
        content: fc.option(fc.string({ maxLength: 80 }), { nil: undefined }),
        ending: fc.constantFrom<TurnEnding>('complete', 'complete', 'complete', 'length', 'cut'),
        chunkSize: fc.option(fc.constantFrom(1, 3, 16, 4096), { nil: undefined }),
      })
      .map(({ calls, ids, content, ending, chunkSize }): HostileTurn => {
        const assigned = assignIds(size, ids);
        return {
          ...(content !== undefined ? { content } : {}),
          calls: calls.map((call, index) => {
            const id = assigned[index];
            return id === undefined ? call : { id, ...call };
          }),
          ending,
          // One-character deltas of a megabyte are a test of patience, not of the pipeline.
          ...(chunkSize !== undefined && totalArgumentChars(calls) / chunkSize < 200_000 ? { chunkSize } : {}),
        };
      }),
  );
}

function totalArgumentChars(calls: readonly Omit<HostileCall, 'id'>[]): number {
  return calls.reduce((sum, call) => sum + call.arguments.length, 0);
}

/**
 * The turn as the scripted server plays it. A missing id is sent as an empty one: the server would otherwise make one
 * up, and an empty id is what a stream without ids assembles to.
 */
export function toScriptTurn(turn: HostileTurn): ScriptTurn {
  return {
    ...(turn.content !== undefined ? { content: turn.content } : {}),
    tool_calls: turn.calls.map((call) => ({ id: call.id ?? '', name: call.name, arguments: call.arguments })),
    ...(turn.ending === 'length' ? { finish_reason: 'length' as const } : {}),
    ...(turn.ending === 'cut' ? { truncate_stream: true } : {}),
    ...(turn.chunkSize !== undefined ? { chunk_size: turn.chunkSize } : {}),
  };
}
