import { describe, expect, it } from 'vitest';
import { StreamAssembler, assembleStream } from '../../src/providers/openai-chat/stream-assembler.js';
import type { StreamChunk, StreamToolCallDelta } from '../../src/providers/openai-chat/stream-assembler.js';

const content = (text: string): StreamChunk => ({
  choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
});
const tools = (...deltas: StreamToolCallDelta[]): StreamChunk => ({
  choices: [{ index: 0, delta: { tool_calls: deltas }, finish_reason: null }],
});
const finish = (reason: string): StreamChunk => ({ choices: [{ index: 0, delta: {}, finish_reason: reason }] });
const usage = (prompt: number, completion: number): StreamChunk => ({
  choices: [],
  usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
});

describe('StreamAssembler', () => {
  it('joins content deltas and maps stop', () => {
    const turn = assembleStream([{ model: 'm-1', ...content('Hel') }, content('lo'), finish('stop')], 'fallback');
    expect(turn).toEqual({
      content: 'Hello',
      toolCalls: [],
      finishReason: 'stop',
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      model: 'm-1',
    });
  });

  it('accumulates argument deltas per index, even when indexes interleave', () => {
    const turn = assembleStream(
      [
        tools({ index: 0, id: 'call_a', type: 'function', function: { name: 'ReadFile', arguments: '' } }),
        tools({ index: 1, id: 'call_b', type: 'function', function: { name: 'Glob', arguments: '{"pat' } }),
        tools({ index: 0, function: { arguments: '{"path":' } }),
        tools({ index: 1, function: { arguments: 'tern":"*.ts"}' } }),
        tools({ index: 0, function: { arguments: '"a.ts"}' } }),
        finish('tool_calls'),
      ],
      'model',
    );
    expect(turn.finishReason).toBe('tool_calls');
    expect(turn.content).toBeNull();
    expect(turn.toolCalls).toEqual([
      { id: 'call_a', name: 'ReadFile', arguments: '{"path":"a.ts"}', complete: true },
      { id: 'call_b', name: 'Glob', arguments: '{"pattern":"*.ts"}', complete: true },
    ]);
  });

  it('takes usage from the final chunk and the fallback model when no chunk names one', () => {
    const turn = assembleStream([content('x'), finish('stop'), usage(120, 7)], 'gpt-test');
    expect(turn.usage).toEqual({ promptTokens: 120, completionTokens: 7, totalTokens: 127 });
    expect(turn.model).toBe('gpt-test');
  });

  it('computes total tokens when the server omits it', () => {
    const turn = assembleStream(
      [finish('stop'), { choices: [], usage: { prompt_tokens: 5, completion_tokens: 3 } }],
      'model',
    );
    expect(turn.usage.totalTokens).toBe(8);
  });

  it('marks a call cut off by finish_reason length as incomplete, keeping earlier whole calls complete', () => {
    const turn = assembleStream(
      [
        tools({ index: 0, id: 'c0', function: { name: 'Bash', arguments: '{"command":"ls"}' } }),
        tools({ index: 1, id: 'c1', function: { name: 'WriteFile', arguments: '{"path":"a.txt","content":"hal' } }),
        finish('length'),
      ],
      'model',
    );
    expect(turn.finishReason).toBe('length');
    expect(turn.toolCalls.map((call) => call.complete)).toEqual([true, false]);
    expect(turn.toolCalls[1]!.arguments).toBe('{"path":"a.txt","content":"hal');
  });

  it('treats a stream without a finish reason as ended early', () => {
    const turn = assembleStream(
      [tools({ index: 0, id: 'c0', function: { name: 'Bash', arguments: '{"command":"rm -rf bu' } })],
      'model',
    );
    expect(turn.finishReason).toBe('other');
    expect(turn.toolCalls).toEqual([{ id: 'c0', name: 'Bash', arguments: '{"command":"rm -rf bu', complete: false }]);
  });

  it('marks a call with no arguments yet as incomplete when cut off', () => {
    const turn = assembleStream([tools({ index: 0, id: 'c0', function: { name: 'Glob' } }), finish('length')], 'model');
    expect(turn.toolCalls).toEqual([{ id: 'c0', name: 'Glob', arguments: '', complete: false }]);
  });

  it('keeps malformed arguments of a finished call verbatim and complete', () => {
    const turn = assembleStream(
      [
        tools({ index: 0, id: 'c0', function: { name: 'Glob', arguments: "{pattern: '*.ts',}" } }),
        finish('tool_calls'),
      ],
      'model',
    );
    expect(turn.toolCalls).toEqual([{ id: 'c0', name: 'Glob', arguments: "{pattern: '*.ts',}", complete: true }]);
  });

  it('does not concatenate an id and name resent on every delta', () => {
    const turn = assembleStream(
      [
        tools({ index: 0, id: 'c0', function: { name: 'ReadFile', arguments: '{"path"' } }),
        tools({ index: 0, id: 'c0', function: { name: 'ReadFile', arguments: ':"b.md"}' } }),
        finish('tool_calls'),
      ],
      'model',
    );
    expect(turn.toolCalls).toEqual([{ id: 'c0', name: 'ReadFile', arguments: '{"path":"b.md"}', complete: true }]);
  });

  it('separates calls that all arrive with index 0 but distinct ids', () => {
    const turn = assembleStream(
      [
        tools({ index: 0, id: 'first', function: { name: 'ReadFile', arguments: '{"path":"a"}' } }),
        tools({ index: 0, id: 'second', function: { name: 'ReadFile', arguments: '{"path":"b"}' } }),
        finish('tool_calls'),
      ],
      'model',
    );
    expect(turn.toolCalls.map((call) => [call.id, call.arguments])).toEqual([
      ['first', '{"path":"a"}'],
      ['second', '{"path":"b"}'],
    ]);
  });

  it('assembles index-less deltas: new ids start calls, id-less deltas continue the last one', () => {
    const turn = assembleStream(
      [
        tools({ id: 'x', function: { name: 'Grep', arguments: '{"pattern":' } }),
        tools({ function: { arguments: '"TODO"}' } }),
        tools({ id: 'y', function: { name: 'Glob', arguments: { pattern: '*.md' } } }),
        finish('tool_calls'),
      ],
      'model',
    );
    expect(turn.toolCalls).toEqual([
      { id: 'x', name: 'Grep', arguments: '{"pattern":"TODO"}', complete: true },
      { id: 'y', name: 'Glob', arguments: '{"pattern":"*.md"}', complete: true },
    ]);
  });

  it('assembles index-less, id-less calls by name: a repeated name continues an open call, a new name starts one', () => {
    const turn = assembleStream(
      [
        tools({ function: { name: 'Bash', arguments: '{"command":' } }),
        tools({ function: { name: 'Bash', arguments: '"ls"}' } }),
        tools({ function: { name: 'Bash', arguments: '{"command":"pwd"}' } }),
        tools({ function: { name: 'Glob', arguments: '{"pattern":"*"}' } }),
        finish('tool_calls'),
      ],
      'model',
    );
    expect(turn.toolCalls.map((call) => [call.id, call.name, call.arguments])).toEqual([
      [undefined, 'Bash', '{"command":"ls"}'],
      [undefined, 'Bash', '{"command":"pwd"}'],
      [undefined, 'Glob', '{"pattern":"*"}'],
    ]);
  });

  it('maps finish reasons and ignores choices other than 0', () => {
    expect(assembleStream([finish('content_filter')], 'm').finishReason).toBe('content_filter');
    expect(assembleStream([finish('function_call')], 'm').finishReason).toBe('tool_calls');
    expect(assembleStream([finish('eos_token')], 'm').finishReason).toBe('other');
    expect(assembleStream([finish('constructor')], 'm').finishReason).toBe('other');
    const turn = assembleStream(
      [
        content('kept'),
        { choices: [{ index: 1, delta: { content: 'ignored' }, finish_reason: 'stop' }] },
        finish('stop'),
      ],
      'm',
    );
    expect(turn.content).toBe('kept');
  });

  it('uses a refusal as content when there is no content', () => {
    const turn = assembleStream(
      [{ choices: [{ index: 0, delta: { refusal: 'I cannot help with that.' } }] }, finish('stop')],
      'm',
    );
    expect(turn.content).toBe('I cannot help with that.');
  });

  it('reports progress while streaming', () => {
    const assembler = new StreamAssembler('m');
    assembler.push(content('abc'));
    assembler.push(tools({ index: 0, id: 'c', function: { name: 'Glob', arguments: '{}' } }));
    expect(assembler.progress()).toEqual({ chunks: 2, contentChars: 3, toolCalls: 1 });
  });
});
