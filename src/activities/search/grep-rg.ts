// Node: Grep's ripgrep engine (docs/tools.md §11.5). ripgrep scans the candidate files, passed explicitly so hidden,
// ignore and binary decisions stay ours, and reads their raw bytes. Every line it reports as a match is re-tested with
// the JavaScript regex on the text the JavaScript engine would see, so a line ripgrep wrongly reports is dropped (if it
// stopped at --max-count after one, that file is searched again with JavaScript). A line ripgrep fails to report is
// lost, so the translation (grep-regex.ts) errs on the side of reporting: it reports every line holding invalid UTF-8
// when the pattern could match the U+FFFD JavaScript sees there, and under --ignore-case every line holding ſ or K
// (Kelvin) when the pattern has a word boundary. What remains is Unicode data: \p{…} properties and case folding come
// from ripgrep's tables and V8's, so where their Unicode versions differ (characters the older one lacks, a property
// value changed since) ripgrep can miss a line; ripgrep's own character classes are never used otherwise.
import { execa } from 'execa';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { findOnPath, isExecutableFile } from '../../host/executables.js';
import { searchFileWithJs } from './grep-js.js';
import type { EngineRequest } from './grep-js.js';
import { hasEnough, perFileCap } from './grep-results.js';
import type { EngineOutput, FileHits } from './grep-results.js';

/** Why ripgrep could not answer (§11 `fallback_reason`). */
export type RipgrepFallbackReason = 'rg_not_found' | 'rg_unsupported_pattern' | 'rg_failed';

/** A ripgrep answer, or why there is none. */
export type RipgrepOutcome =
  { ok: true; output: EngineOutput } | { ok: false; reason: RipgrepFallbackReason; message: string };

/** Environment variable naming the ripgrep binary; otherwise `rg` is looked up on PATH. */
export const RG_PATH_VARIABLE = 'DURABLE_AGENT_RG_PATH';

// Keeps each command line far below ARG_MAX (2 MiB on Linux, environment included).
const MAX_BATCH_FILES = 4000;
// Batches start small and double: a search that reaches its limit early should not have scanned thousands of files.
const FIRST_BATCH_FILES = 256;
const MAX_BATCH_CHARS = 200_000;
const FORCE_KILL_AFTER_MS = 1000;

/** The ripgrep executable from DURABLE_AGENT_RG_PATH or PATH, or undefined when there is none. */
export async function locateRipgrep(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const configured = env[RG_PATH_VARIABLE];
  if (configured !== undefined && configured !== '' && configured.includes('/')) {
    return (await isExecutableFile(configured)) ? path.resolve(configured) : undefined;
  }
  return await findOnPath(configured !== undefined && configured !== '' ? configured : 'rg', env);
}

/** Searches the candidates with ripgrep, in path-ordered batches, stopping once the result is decided. */
export async function searchWithRipgrep(
  rgPath: string,
  request: EngineRequest,
  rustPattern: string,
): Promise<RipgrepOutcome> {
  const cap = perFileCap(request.mode, request.limit);
  const args = [
    '--json',
    '--no-config',
    '--no-ignore',
    '--line-number',
    '--no-heading',
    '--color=never',
    // Binary files are already excluded; a NUL beyond the sniffed head must not stop or change the search.
    '--text',
    // Raw bytes, as the JavaScript engine reads them: no transcoding of a file that starts with a UTF-16 BOM, and
    // a UTF-8 BOM stays in line 1 (the translation and parseEvent allow for it).
    '--encoding',
    'none',
    request.caseSensitive ? '--case-sensitive' : '--ignore-case',
    ...(request.mode === 'content' && request.context > 0 ? ['--context', String(request.context)] : []),
    ...(Number.isFinite(cap) ? ['--max-count', String(cap)] : []),
    '--regexp',
    rustPattern,
    '--',
  ];
  const hits: FileHits[] = [];
  for (const batch of batches(request.files)) {
    request.signal?.throwIfAborted();
    if (performance.now() > request.deadline) return { ok: true, output: { hits, timedOut: true } };
    const run = await runBatch(rgPath, args, batch, request);
    if (!run.ok) return run;
    for (const file of batch) {
      const found = run.files.get(file);
      if (found === undefined) continue;
      const hit = await settleFile(request, file, found, cap);
      if (hit) hits.push(hit);
    }
    if (run.timedOut) return { ok: true, output: { hits, timedOut: true } };
    if (hasEnough(hits, request.mode, request.limit)) break;
  }
  return { ok: true, output: { hits, timedOut: false } };
}

/** What ripgrep reported for one file, after the JavaScript re-test. */
interface ReportedFile {
  /** Lines ripgrep reported as matches and the JavaScript regex confirmed. */
  confirmed: number[];
  /** Lines ripgrep reported as matches, confirmed or not. */
  reported: number;
  /** Text of every reported line (match or context); content mode only. */
  lines: Map<number, string>;
}

type BatchRun =
  | { ok: true; files: Map<string, ReportedFile>; timedOut: boolean }
  | { ok: false; reason: RipgrepFallbackReason; message: string };

async function runBatch(
  rgPath: string,
  args: readonly string[],
  batch: readonly string[],
  request: EngineRequest,
): Promise<BatchRun> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), Math.max(0, request.deadline - performance.now()));
  const cancel = () => controller.abort();
  request.signal?.addEventListener('abort', cancel, { once: true });
  const files = new Map<string, ReportedFile>();
  const keepText = request.mode === 'content';
  try {
    const subprocess = execa(rgPath, [...args, ...batch], {
      cwd: request.root,
      reject: false,
      stdin: 'ignore',
      buffer: { stdout: false },
      stripFinalNewline: false,
      cancelSignal: controller.signal,
      forceKillAfterDelay: FORCE_KILL_AFTER_MS,
    });
    for await (const line of subprocess) {
      const event = parseEvent(line);
      if (event === undefined) continue;
      let file = files.get(event.file);
      if (file === undefined) {
        file = { confirmed: [], reported: 0, lines: new Map() };
        files.set(event.file, file);
      }
      if (keepText) file.lines.set(event.line, event.text);
      if (event.match) {
        file.reported++;
        if (request.regex.test(event.text)) file.confirmed.push(event.line);
      }
    }
    const result = await subprocess;
    request.signal?.throwIfAborted();
    if (result.isCanceled) return { ok: true, files, timedOut: true };
    if (result.exitCode === 0 || result.exitCode === 1) return { ok: true, files, timedOut: false };
    if (result.code === 'ENOENT')
      return { ok: false, reason: 'rg_not_found', message: `ripgrep not found at ${rgPath}` };
    const stderr = typeof result.stderr === 'string' ? result.stderr.trim() : '';
    const reason = /regex|not allowed in a|size limit/i.test(stderr) ? 'rg_unsupported_pattern' : 'rg_failed';
    const message = stderr.split('\n').slice(0, 5).join('\n') || (result.shortMessage ?? 'ripgrep failed');
    return { ok: false, reason, message };
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', cancel);
  }
}

/**
 * Turns ripgrep's report into hits. If the JavaScript re-test rejected a line and ripgrep stopped at --max-count,
 * the lines it never reached may hold matches; that file is searched again with the JavaScript engine.
 */
async function settleFile(
  request: EngineRequest,
  file: string,
  found: ReportedFile,
  cap: number,
): Promise<FileHits | undefined> {
  const rejected = found.reported - found.confirmed.length;
  if (rejected > 0 && found.reported >= cap) return searchFileWithJs(request, file);
  if (found.confirmed.length === 0) return undefined;
  const matchLines = request.mode === 'content' ? found.confirmed.slice(0, cap) : [];
  return { file, matchLines, matchCount: found.confirmed.length, lines: found.lines };
}

interface LineEvent {
  file: string;
  line: number;
  text: string;
  match: boolean;
}

interface RipgrepData {
  text?: string;
  bytes?: string;
}

/** Reads one `--json` line; only `match` and `context` events matter. */
function parseEvent(line: string): LineEvent | undefined {
  if (!line.startsWith('{"type":"match"') && !line.startsWith('{"type":"context"')) return undefined;
  const event = JSON.parse(line) as {
    type: string;
    data: { path: RipgrepData; lines: RipgrepData; line_number: number | null };
  };
  const file = dataText(event.data.path);
  if (event.data.line_number === null) return undefined;
  let text = stripTerminator(dataText(event.data.lines));
  // The JavaScript engine drops a file's BOM, which is where line 1 starts; elsewhere U+FEFF is text.
  if (event.data.line_number === 1 && text.startsWith('\uFEFF')) text = text.slice(1);
  return { file, line: event.data.line_number, text, match: event.type === 'match' };
}

// Invalid sequences become U+FFFD exactly as in the JavaScript engine's decoding of the whole file; a U+FEFF is kept.
const lineDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

function dataText(data: RipgrepData): string {
  if (data.text !== undefined) return data.text;
  // ripgrep sends non-UTF-8 data as base64.
  return lineDecoder.decode(Buffer.from(data.bytes ?? '', 'base64'));
}

/** Drops "\n" and then one "\r", matching how the JavaScript engine splits lines. */
function stripTerminator(text: string): string {
  const withoutNewline = text.endsWith('\n') ? text.slice(0, -1) : text;
  return withoutNewline.endsWith('\r') ? withoutNewline.slice(0, -1) : withoutNewline;
}

function* batches(files: readonly string[]): Generator<string[]> {
  let batch: string[] = [];
  let chars = 0;
  let size = FIRST_BATCH_FILES;
  for (const file of files) {
    if (batch.length > 0 && (batch.length >= size || chars + file.length + 1 > MAX_BATCH_CHARS)) {
      yield batch;
      batch = [];
      chars = 0;
      size = Math.min(size * 2, MAX_BATCH_FILES);
    }
    batch.push(file);
    chars += file.length + 1;
  }
  if (batch.length > 0) yield batch;
}
