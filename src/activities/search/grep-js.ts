// Node: Grep's JavaScript engine (docs/tools.md §11.5): the reference semantics, used when ripgrep is missing or cannot
// take the pattern, and to re-check files where ripgrep's answer had to be corrected.
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { errorCode } from '../files/errors.js';
import { decodeUtf8Lenient, splitLines } from '../files/text.js';
import { hasEnough, perFileCap } from './grep-results.js';
import type { EngineOutput, FileHits, GrepMode } from './grep-results.js';

/** What both engines are asked to do. */
export interface EngineRequest {
  /** Real workspace root; `files` are relative to it. */
  root: string;
  /** Candidate files, workspace-relative, in code-unit order. */
  files: readonly string[];
  /** The reference regex (flags "u" or "iu"; never global, so `test` keeps no state). */
  regex: RegExp;
  caseSensitive: boolean;
  mode: GrepMode;
  limit: number;
  context: number;
  /** `performance.now()` value at which the search stops with `timeout`. */
  deadline: number;
  signal?: AbortSignal;
}

/** Searches the candidates in path order with the JavaScript regex. */
export async function searchWithJs(request: EngineRequest): Promise<EngineOutput> {
  const hits: FileHits[] = [];
  for (const file of request.files) {
    request.signal?.throwIfAborted();
    if (performance.now() > request.deadline) return { hits, timedOut: true };
    const hit = await searchFileWithJs(request, file);
    if (hit) hits.push(hit);
    if (hasEnough(hits, request.mode, request.limit)) break;
  }
  return { hits, timedOut: false };
}

/**
 * Searches one file: lines split on "\n" with one trailing "\r" removed, as ReadFile splits them. Returns undefined
 * when nothing matches or the file is gone or unreadable (it changed after the candidates were listed).
 */
export async function searchFileWithJs(
  request: Pick<EngineRequest, 'root' | 'regex' | 'mode' | 'limit' | 'context'>,
  file: string,
): Promise<FileHits | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path.join(request.root, file));
  } catch (error) {
    if (isVanishedOrUnreadable(error)) return undefined;
    throw error;
  }
  const lines = splitLines(decodeUtf8Lenient(bytes).text);
  const cap = perFileCap(request.mode, request.limit);
  const matchLines: number[] = [];
  let matchCount = 0;
  for (let index = 0; index < lines.length; index++) {
    if (!request.regex.test(lines[index]!)) continue;
    matchCount++;
    if (matchLines.length < cap && request.mode === 'content') matchLines.push(index + 1);
    if (matchCount >= cap) break;
  }
  if (matchCount === 0) return undefined;
  const kept = new Map<number, string>();
  if (request.mode === 'content') {
    for (const line of matchLines) {
      const first = Math.max(1, line - request.context);
      const last = Math.min(lines.length, line + request.context);
      for (let number = first; number <= last; number++) kept.set(number, lines[number - 1]!);
    }
  }
  return { file, matchLines, matchCount, lines: kept };
}

function isVanishedOrUnreadable(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR' || code === 'EACCES' || code === 'EPERM';
}
