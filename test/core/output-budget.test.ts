import { describe, expect, it } from 'vitest';
import {
  MAX_STEP_RESULT_BYTES,
  PREVIEW_MAX_BYTES,
  PREVIEW_MAX_LINES,
  budgetStepResults,
  compressEnvelope,
  countLines,
  cutAtUtf8Boundary,
  isCompressed,
  normalizeEmpty,
  planStepOutputBudget,
  renderEnvelope,
  spillDirectory,
  spillFileName,
  spillRelativePath,
} from '../../src/core/output-budget.js';
import type { Envelope } from '../../src/protocol/envelope.js';
import { envelopeSize, errorEnvelope, okEnvelope, utf8ByteLength } from '../../src/protocol/envelope.js';

const context = { tool_call_id: 'call_1', cwd: '.', params_input: { path: 'a.txt' } };

function bigEnvelope(bytes: number, callId = 'call_1'): Envelope {
  return okEnvelope({
    data: { content: 'x'.repeat(bytes) },
    text: 'Read a lot.',
    stats: { time_ms: 3 },
    context: { ...context, tool_call_id: callId },
  });
}

describe('renderEnvelope', () => {
  it('renders the text, then each data key in insertion order, strings verbatim and the rest as JSON', () => {
    const envelope = okEnvelope({
      data: { path: 'a.txt', content: 'line 1\nline 2', lines: [1, 2] },
      text: 'Read 2 lines.',
      context,
    });
    expect(renderEnvelope(envelope)).toBe(
      'Read 2 lines.\n\n' +
        '--- data.path ---\na.txt\n' +
        '--- data.content ---\nline 1\nline 2\n' +
        '--- data.lines ---\n[\n  1,\n  2\n]\n',
    );
  });
});

describe('compressEnvelope', () => {
  it('keeps the exact docs/tools.md §9 shape and text for a success result', () => {
    const raw = okEnvelope({
      data: { content: Array.from({ length: 100 }, (_, index) => `line ${index + 1}`).join('\n') },
      text: 'Read 100 lines.',
      stats: { time_ms: 7, lines_read: 100 },
      context,
    });
    const rendered = renderEnvelope(raw);
    const compressed = compressEnvelope(
      raw,
      'single_tool_budget',
      '.agent/tool-output/task/t1_0_ReadFile_call_1.result.txt',
    );
    const originalBytes = envelopeSize(raw);
    const originalLines = countLines(rendered);
    expect(originalLines).toBe(103);
    const preview = rendered.split('\n').slice(0, PREVIEW_MAX_LINES).join('\n');
    expect(compressed).toEqual({
      status: 'partial',
      data: {
        truncated: true,
        truncation: {
          reason: 'single_tool_budget',
          original_bytes: originalBytes,
          original_lines: originalLines,
          kept_lines: PREVIEW_MAX_LINES,
          kept_bytes: utf8ByteLength(preview),
          full_output_path: '.agent/tool-output/task/t1_0_ReadFile_call_1.result.txt',
        },
        preview,
      },
      text:
        `Output too large (103 lines, ${(originalBytes / 1024).toFixed(1)} KB) and was truncated. ` +
        'Full output: .agent/tool-output/task/t1_0_ReadFile_call_1.result.txt. Use ReadFile with offset/limit, or Grep, on that file.',
      stats: { time_ms: 7, lines_read: 100, original_bytes: originalBytes },
      context,
    });
    expect(Object.keys(compressed.data)).toEqual(['truncated', 'truncation', 'preview']);
  });

  it('keeps an error an error, with the same code, message = text and a 500-char preview of the old message', () => {
    const raw = errorEnvelope({ code: 'EXECUTION_ERROR', message: `boom ${'y'.repeat(80_000)}`, context });
    const compressed = compressEnvelope(raw, 'aggregate_budget', 'spill.txt');
    expect(compressed.status).toBe('error');
    expect(compressed.error?.code).toBe('EXECUTION_ERROR');
    expect(compressed.error?.message).toBe(compressed.text);
    expect(compressed.error?.details).toEqual({ original_message_preview: raw.error!.message.slice(0, 500) });
    expect((compressed.data.truncation as { reason: string }).reason).toBe('aggregate_budget');
    expect(envelopeSize(compressed)).toBeLessThan(6_000);
  });

  it('cuts the preview to 2,048 UTF-8 bytes without splitting a code point', () => {
    // One long line of 3-byte and 4-byte characters: only the byte cap applies.
    const raw = okEnvelope({ data: { content: '€😀'.repeat(2_000) }, text: 'wide', context });
    const compressed = compressEnvelope(raw, 'single_tool_budget', 'p');
    const preview = compressed.data.preview as string;
    const truncation = compressed.data.truncation as { kept_bytes: number; kept_lines: number };
    expect(utf8ByteLength(preview)).toBeLessThanOrEqual(PREVIEW_MAX_BYTES);
    expect(utf8ByteLength(preview)).toBeGreaterThan(PREVIEW_MAX_BYTES - 4);
    expect(truncation.kept_bytes).toBe(utf8ByteLength(preview));
    expect(preview).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(preview).not.toContain('\uFFFD');
    expect(new TextDecoder().decode(new TextEncoder().encode(preview))).toBe(preview);
  });
});

describe('cutAtUtf8Boundary', () => {
  it('stops before a code point that would exceed the limit', () => {
    expect(cutAtUtf8Boundary('aé', 2)).toBe('a');
    expect(cutAtUtf8Boundary('aé', 3)).toBe('aé');
    expect(cutAtUtf8Boundary('a😀b', 4)).toBe('a');
    expect(cutAtUtf8Boundary('a😀b', 5)).toBe('a😀');
    expect(cutAtUtf8Boundary('€€', 5)).toBe('€');
  });
});

describe('countLines', () => {
  it('counts lines as a reader of the file would', () => {
    expect(countLines('')).toBe(0);
    expect(countLines('a')).toBe(1);
    expect(countLines('a\n')).toBe(1);
    expect(countLines('a\nb')).toBe(2);
    expect(countLines('a\n\n')).toBe(2);
  });
});

describe('normalizeEmpty', () => {
  it('turns an empty non-error result into "<Tool> completed with no output."', () => {
    const empty = okEnvelope({ status: 'partial', text: '  \n', context });
    expect(normalizeEmpty(empty, 'MyFunction')).toEqual({
      ...empty,
      status: 'success',
      text: 'MyFunction completed with no output.',
      data: {},
    });
  });

  it('leaves errors, results with text and results with data alone', () => {
    const error = errorEnvelope({ code: 'NOT_FOUND', message: '', context });
    const withText = okEnvelope({ text: 'done', context });
    const withData = okEnvelope({ text: '', data: { exit_code: 0, stdout: '' }, context });
    expect(normalizeEmpty(error, 'X')).toBe(error);
    expect(normalizeEmpty(withText, 'X')).toBe(withText);
    expect(normalizeEmpty(withData, 'X')).toBe(withData);
  });
});

describe('planStepOutputBudget', () => {
  it('compresses nothing when the turn fits', () => {
    expect(planStepOutputBudget([100_000, 100_000], [false, false], 200_000)).toEqual([]);
  });

  it('compresses the largest first, ties by index, and stops as soon as the turn fits', () => {
    const sizes = [40_000, 45_000, 45_000, 30_000, 45_000, 10_000];
    const plan = planStepOutputBudget(
      sizes,
      sizes.map(() => false),
      120_000,
      () => 1_000,
    );
    // 215,000 → 171,000 (index 1) → 127,000 (index 2) → 83,000 (index 4): stop.
    expect(plan).toEqual([1, 2, 4]);
  });

  it('never picks a result that is already compressed', () => {
    const plan = planStepOutputBudget([90_000, 150_000, 80_000], [false, true, false], 200_000, () => 2_000);
    expect(plan).toEqual([0, 2]);
  });

  it('uses the default estimate when no compressed sizes are given', () => {
    expect(planStepOutputBudget([120_000, 110_000, 5_000], [false, false, false], MAX_STEP_RESULT_BYTES)).toEqual([0]);
  });
});

describe('budgetStepResults', () => {
  it('compresses with exact sizes until the turn fits and reports each replacement', () => {
    const results = [
      bigEnvelope(45_000, 'a'),
      bigEnvelope(48_000, 'b'),
      bigEnvelope(46_000, 'c'),
      bigEnvelope(47_000, 'd'),
      bigEnvelope(44_000, 'e'),
    ];
    const pathFor = (index: number): string =>
      spillRelativePath(
        'task-1',
        spillFileName({
          turn: 3,
          index,
          toolName: 'ReadFile',
          callId: results[index]!.context.tool_call_id,
          suffix: 'result',
        }),
      );
    const { envelopes, items } = budgetStepResults(results, { pathFor, maxStepBytes: MAX_STEP_RESULT_BYTES });
    expect(items.map((item) => item.index)).toEqual([1]);
    expect(items[0]).toMatchObject({
      reason: 'aggregate_budget',
      raw_bytes: envelopeSize(results[1]!),
      visible_bytes: envelopeSize(envelopes[1]!),
      full_output_path: '.agent/tool-output/task-1/t3_1_ReadFile_b.result.txt',
      rendered: renderEnvelope(results[1]!),
    });
    expect(envelopes.reduce((sum, envelope) => sum + envelopeSize(envelope), 0)).toBeLessThanOrEqual(
      MAX_STEP_RESULT_BYTES,
    );
    expect(envelopes[0]).toBe(results[0]);
    expect(envelopes.map((envelope) => envelope.context.tool_call_id)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('never compresses a result twice', () => {
    const once = compressEnvelope(bigEnvelope(60_000), 'single_tool_budget', 'first.txt');
    expect(isCompressed(once)).toBe(true);
    const huge = { ...once, data: { ...once.data, preview: 'p'.repeat(250_000) } };
    const { envelopes, items } = budgetStepResults([huge, bigEnvelope(20_000)], { pathFor: () => 'second.txt' });
    expect(items.map((item) => item.index)).toEqual([1]);
    expect(envelopes[0]).toBe(huge);
  });
});

describe('spill names', () => {
  it('builds t<turn>_<index>_<Tool>_<sanitized id>.<suffix>.txt', () => {
    expect(spillFileName({ turn: 2, index: 5, toolName: 'Bash', callId: 'call_auto_2_5#2', suffix: 'output' })).toBe(
      't2_5_Bash_call_auto_2_5_2.output.txt',
    );
    expect(spillFileName({ turn: 1, index: 0, toolName: 'Grep', callId: '../../etc/passwd', suffix: 'result' })).toBe(
      't1_0_Grep_______etc_passwd.result.txt',
    );
    expect(
      spillFileName({ turn: 1, index: 0, toolName: 'Grep', callId: 'x'.repeat(500), suffix: 'result' }).length,
    ).toBeLessThan(200);
  });

  it('keeps a task id from naming a path outside the spill root', () => {
    expect(spillDirectory('agent-fix-tests-1a2b')).toBe('.agent/tool-output/agent-fix-tests-1a2b');
    expect(spillDirectory('../..')).toBe('.agent/tool-output/_____');
  });
});
