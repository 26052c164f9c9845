// Node: choosing Grep's engine (docs/tools.md §11.5): ripgrep when it is installed and can express the pattern,
// otherwise the JavaScript engine, with the reason recorded. Also narrows the candidate set to text files.
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { looksBinary, readHead } from '../files/binary.js';
import { errorCode } from '../files/errors.js';
import { toRustRegex } from './grep-regex.js';
import { searchWithJs } from './grep-js.js';
import type { EngineRequest } from './grep-js.js';
import type { EngineOutput } from './grep-results.js';
import { locateRipgrep, searchWithRipgrep } from './grep-rg.js';
import type { RipgrepFallbackReason } from './grep-rg.js';

/** Which engine to use: `auto` (ripgrep, falling back to JavaScript), or one of them only (tests, benchmarks). */
export type GrepEngineChoice = 'auto' | 'rg' | 'js';

/** How the engine is chosen and found. */
export interface GrepEngineOptions {
  engine?: GrepEngineChoice;
  /** The ripgrep binary; looked up with `locateRipgrep` when absent. */
  rgPath?: string;
}

/** An engine's output and which engine produced it. */
export interface GrepEngineResult {
  output: EngineOutput;
  engine: 'rg' | 'js';
  fallbackReason?: RipgrepFallbackReason;
}

// Binary sniffing reads a few KiB per file; a handful at a time keeps the disk busy without a burst of open files.
const SNIFF_CONCURRENCY = 16;

/**
 * Runs the chosen engine. With `engine: "rg"` a missing or failing ripgrep throws instead of falling back, so a
 * test comparing the engines cannot silently compare JavaScript with itself.
 */
export async function runGrepEngine(
  request: EngineRequest,
  options: GrepEngineOptions = {},
): Promise<GrepEngineResult> {
  const choice = options.engine ?? 'auto';
  if (choice === 'js') return { output: await searchWithJs(request), engine: 'js' };
  const fallback = async (reason: RipgrepFallbackReason, message: string): Promise<GrepEngineResult> => {
    if (choice === 'rg') throw new Error(`ripgrep could not run the search (${reason}): ${message}`);
    return { output: await searchWithJs(request), engine: 'js', fallbackReason: reason };
  };
  const rgPath = options.rgPath ?? (await locateRipgrep());
  if (rgPath === undefined) return fallback('rg_not_found', 'no rg executable on DURABLE_AGENT_RG_PATH or PATH');
  const translation = toRustRegex(request.regex.source, { ignoreCase: !request.caseSensitive, rawBytes: true });
  if (!translation.ok) return fallback('rg_unsupported_pattern', translation.reason);
  const outcome = await searchWithRipgrep(rgPath, request, translation.source);
  if (!outcome.ok) return fallback(outcome.reason, outcome.message);
  return { output: outcome.output, engine: 'rg' };
}

/**
 * Drops binary files (§11.1 ReadFile rule: a NUL in the first 8,192 bytes, or over 30% control bytes in the first
 * 4,096) and files that vanished or cannot be read, keeping the order.
 */
export async function dropBinaryFiles(
  root: string,
  files: readonly string[],
  options: { deadline: number; signal?: AbortSignal },
): Promise<{ files: string[]; timedOut: boolean }> {
  const isText: (boolean | undefined)[] = new Array<boolean | undefined>(files.length);
  let next = 0;
  let timedOut = false;
  const worker = async () => {
    while (next < files.length && !timedOut) {
      const index = next++;
      options.signal?.throwIfAborted();
      if (performance.now() > options.deadline) {
        timedOut = true;
        return;
      }
      try {
        isText[index] = !looksBinary(await readHead(path.join(root, files[index]!)));
      } catch (error) {
        const code = errorCode(error);
        if (code === 'ENOENT' || code === 'EACCES' || code === 'EPERM' || code === 'EISDIR' || code === 'ENOTDIR') {
          isText[index] = false;
        } else throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(SNIFF_CONCURRENCY, files.length) }, worker));
  return { files: files.filter((_, index) => isText[index] === true), timedOut };
}
