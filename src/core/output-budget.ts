// Workflow-safe: pure functions only (no Buffer, no clock). Used by the tool activity (layer 1), the workflow and the
// applyOutputBudget activity (layer 2). The two-level output budget (byte limits on tool output) of docs/tools.md §9 and the empty-result normalisation of §3 step 7.
import { envelopeSize, utf8ByteLength } from '../protocol/envelope.js';
import type { Envelope } from '../protocol/envelope.js';
import type { OutputBudgetReason } from '../protocol/output-budget.js';

/** Layer 1: the largest envelope one tool call may return (§9; env `AGENT_MAX_TOOL_RESULT_BYTES`). */
export const MAX_TOOL_RESULT_BYTES = 50_000;
/** Layer 2: the largest sum of envelope sizes in one step (§9; a constant: no setting changes it). */
export const MAX_STEP_RESULT_BYTES = 200_000;
/** Lines of the rendered result kept in a compressed envelope's preview. */
export const PREVIEW_MAX_LINES = 40;
/** UTF-8 bytes of the rendered result kept in a compressed envelope's preview. */
export const PREVIEW_MAX_BYTES = 2048;
/** Workspace-relative folder holding every task's spill directory. */
export const SPILL_ROOT = '.agent/tool-output';

/** What a spill file holds: a whole rendered result, or the complete streams of a Bash command. */
export type SpillSuffix = 'result' | 'output';

// Long ids would break the 255-byte file-name limit; `t<turn>_<index>` already makes the name unique in the task.
const MAX_SANITIZED_ID_LENGTH = 128;

/** Maps every character outside `[A-Za-z0-9_-]` to `_` (§9 spill file names). */
export function sanitizeFileComponent(value: string, maxLength = MAX_SANITIZED_ID_LENGTH): string {
  const sanitized = value.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, maxLength);
  return sanitized === '' ? '_' : sanitized;
}

/** `t<turn>_<index>_<ToolName>_<sanitized id>.<suffix>.txt`: unique per call within a task. */
export function spillFileName(options: {
  turn: number;
  index: number;
  toolName: string;
  callId: string;
  suffix: SpillSuffix;
}): string {
  const tool = sanitizeFileComponent(options.toolName, 64);
  return `t${options.turn}_${options.index}_${tool}_${sanitizeFileComponent(options.callId)}.${options.suffix}.txt`;
}

/** `.agent/tool-output/<taskId>`: the workspace-relative spill directory of a task (the id is sanitised, never a path). */
export function spillDirectory(taskId: string): string {
  return `${SPILL_ROOT}/${sanitizeFileComponent(taskId, 200)}`;
}

/** The workspace-relative path of a spill file, as it appears in `full_output_path`. */
export function spillRelativePath(taskId: string, fileName: string): string {
  return `${spillDirectory(taskId)}/${fileName}`;
}

/** §9 rendering: the text, then each data key as a `--- data.<key> ---` section. Used for previews and spill files. */
export function renderEnvelope(raw: Envelope): string {
  let rendered = `${raw.text}\n\n`;
  for (const [key, value] of Object.entries(raw.data)) {
    rendered += `--- data.${key} ---\n${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}\n`;
  }
  return rendered;
}

/** Line count as a reader of the file sees it: a final newline does not start another line. */
export function countLines(text: string): number {
  if (text === '') return 0;
  const breaks = text.split('\n').length - 1;
  return text.endsWith('\n') ? breaks : breaks + 1;
}

/** The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a code point. */
export function cutAtUtf8Boundary(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const code = text.charCodeAt(end);
    const isPair =
      code >= 0xd800 && code <= 0xdbff && end + 1 < text.length && isLowSurrogate(text.charCodeAt(end + 1));
    const width = code < 0x80 ? 1 : code < 0x800 ? 2 : isPair ? 4 : 3;
    if (bytes + width > maxBytes) break;
    bytes += width;
    end += isPair ? 2 : 1;
  }
  return text.slice(0, end);
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The first PREVIEW_MAX_LINES lines of the rendering, then cut to PREVIEW_MAX_BYTES. */
export function previewOf(rendered: string): string {
  return cutAtUtf8Boundary(rendered.split('\n').slice(0, PREVIEW_MAX_LINES).join('\n'), PREVIEW_MAX_BYTES);
}

/**
 * §9 compress: replaces a too-large result by a preview and a pointer to its spill file (and, when the full output
 * was also written to the content store, its key).
 */
export function compressEnvelope(
  raw: Envelope,
  reason: OutputBudgetReason,
  fullOutputPath: string,
  fullOutputKey?: string,
): Envelope {
  const rendered = renderEnvelope(raw);
  const originalBytes = envelopeSize(raw);
  const originalLines = countLines(rendered);
  const preview = previewOf(rendered);
  const text =
    `Output too large (${originalLines} lines, ${(originalBytes / 1024).toFixed(1)} KB) and was truncated. ` +
    `Full output: ${fullOutputPath}. Use ReadFile with offset/limit, or Grep, on that file.`;
  const compressed: Envelope = {
    status: raw.status === 'error' ? 'error' : 'partial',
    data: {
      truncated: true,
      truncation: {
        reason,
        original_bytes: originalBytes,
        original_lines: originalLines,
        kept_lines: countLines(preview),
        kept_bytes: utf8ByteLength(preview),
        full_output_path: fullOutputPath,
        ...(fullOutputKey ? { full_output_key: fullOutputKey } : {}),
      },
      preview,
    },
    text,
    stats: { ...raw.stats, original_bytes: originalBytes },
    context: raw.context,
  };
  if (raw.error) {
    compressed.error = {
      code: raw.error.code,
      message: text,
      details: { original_message_preview: raw.error.message.slice(0, 500) },
    };
  }
  return compressed;
}

/** True for an envelope produced by compressEnvelope, so no layer compresses it twice. */
export function isCompressed(envelope: Envelope): boolean {
  const truncation = envelope.data.truncation;
  return (
    envelope.data.truncated === true &&
    typeof envelope.data.preview === 'string' &&
    typeof truncation === 'object' &&
    truncation !== null &&
    'full_output_path' in truncation
  );
}

/** §3 step 7: a non-error result with no text and no data becomes "<ToolName> completed with no output.". */
export function normalizeEmpty(envelope: Envelope, toolName: string): Envelope {
  if (envelope.status === 'error' || envelope.text.trim() !== '' || Object.keys(envelope.data).length > 0)
    return envelope;
  return { ...envelope, status: 'success', text: `${toolName} completed with no output.`, data: {} };
}

// A compressed envelope is a 2 KB preview plus the raw context and stats; used only when no exact size is supplied.
const COMPRESSED_SIZE_ESTIMATE = 4096;

/**
 * §9 layer 2: the indexes to compress, in order (largest first, ties by index), until the step fits.
 * `compressedSizeOf(i)` gives the size result i will have once compressed; without it a 4 KB estimate is used.
 */
export function planStepOutputBudget(
  sizes: readonly number[],
  alreadyCompressed: readonly boolean[],
  maxStepBytes: number,
  compressedSizeOf: (index: number) => number = (index) => Math.min(sizes[index] ?? 0, COMPRESSED_SIZE_ESTIMATE),
): number[] {
  let total = sizes.reduce((sum, size) => sum + size, 0);
  if (total <= maxStepBytes) return [];
  const order = sizes
    .map((size, index) => ({ size, index }))
    .filter(({ index }) => alreadyCompressed[index] !== true)
    .sort((left, right) => right.size - left.size || left.index - right.index);
  const chosen: number[] = [];
  for (const { size, index } of order) {
    if (total <= maxStepBytes) break;
    chosen.push(index);
    total += compressedSizeOf(index) - size;
  }
  return chosen;
}

/** One layer-2 replacement: the data of a `tool_result_budget_item` event plus what to spill. */
export interface StepOutputBudgetItem {
  index: number;
  reason: OutputBudgetReason;
  raw_bytes: number;
  visible_bytes: number;
  full_output_path: string;
  /** `renderEnvelope(raw)`: the content the spill file must hold (the `applyOutputBudget` activity writes it). */
  rendered: string;
}

/**
 * §9 layer 2 with exact sizes: compresses the results chosen by planStepOutputBudget.
 * Results already compressed (by layer 1) are never compressed again. `pathFor(i)` names result i's spill file;
 * spillRelativePath(taskId, spillFileName(...)) gives the same path the `applyOutputBudget` activity writes.
 */
export function budgetStepResults(
  results: readonly Envelope[],
  options: { maxStepBytes?: number; pathFor(index: number): string; alreadyCompressed?: readonly boolean[] },
): { envelopes: Envelope[]; items: StepOutputBudgetItem[] } {
  const alreadyCompressed = options.alreadyCompressed ?? results.map(isCompressed);
  const sizes = results.map(envelopeSize);
  const compressed = new Map<number, Envelope>();
  const compressAt = (index: number): Envelope => {
    let envelope = compressed.get(index);
    if (!envelope) {
      envelope = compressEnvelope(results[index]!, 'aggregate_budget', options.pathFor(index));
      compressed.set(index, envelope);
    }
    return envelope;
  };
  const chosen = planStepOutputBudget(
    sizes,
    alreadyCompressed,
    options.maxStepBytes ?? MAX_STEP_RESULT_BYTES,
    (index) => envelopeSize(compressAt(index)),
  );
  const envelopes = [...results];
  const items = chosen.map((index): StepOutputBudgetItem => {
    const envelope = compressAt(index);
    envelopes[index] = envelope;
    return {
      index,
      reason: 'aggregate_budget',
      raw_bytes: sizes[index]!,
      visible_bytes: envelopeSize(envelope),
      full_output_path: options.pathFor(index),
      rendered: renderEnvelope(results[index]!),
    };
  });
  return { envelopes, items };
}
