// Reading runs of deltas as one (src/providers/delta-runs.ts) changes nothing the assembler makes of a stream: for
// generated hostile turns, split into network reads anywhere, the turn, the live pieces joined and the event count
// are those of taking every event alone; a look-alike of the string's key elsewhere in an event is never taken for it.
import fc from 'fast-check';
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import type { LiveDelta } from '../../src/live/live-event.js';
import { anthropicDialect } from '../../src/providers/anthropic/scripted-dialect.js';
import { AnthropicStreamAssembler, anthropicDeltaRule } from '../../src/providers/anthropic/anthropic-stream.js';
import { DeltaRunReader, eventsIn } from '../../src/providers/delta-runs.js';
import type { StreamChunk } from '../../src/providers/openai-chat/stream-assembler.js';
import { StreamAssembler, assembleStream } from '../../src/providers/openai-chat/stream-assembler.js';
import { readChatChunks } from '../../src/providers/sse-reader.js';
import { renderChunks } from '../../src/scripted-model/script.js';
import type { ScriptTurn } from '../../src/scripted-model/script.js';
import { hostileTurnArbitrary, toScriptTurn } from '../support/hostile-turns.js';

/** Generated turns without the huge strings: a megabyte a character at a time tests patience, not merging. */
function sampleTurns(count: number, seed: number) {
  return fc
    .sample(hostileTurnArbitrary({ maxCalls: 6 }), { numRuns: count * 2, seed })
    .filter((turn) => turn.calls.every((call) => call.arguments.length < 2_000))
    .slice(0, count);
}

const RENDER = { turnNumber: 1, model: 'scripted', created: 0, promptChars: 0, includeUsage: true };

/** A response whose body arrives in the pieces `cuts` makes of `text` (cut points as fractions of its length). */
function responseOf(text: string, cuts: readonly number[]): Response {
  const points = [...new Set(cuts.map((cut) => Math.floor(cut * text.length)))].sort((a, b) => a - b);
  const bytes = new TextEncoder().encode(text);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let from = 0;
      // Cut through the bytes, so a character of several bytes may be split between reads too.
      for (const point of [...points, bytes.length]) {
        const to = Math.min(bytes.length, Math.floor((point / text.length) * bytes.length) || point);
        if (to > from) controller.enqueue(bytes.slice(from, to));
        from = Math.max(from, to);
      }
      controller.close();
    },
  });
  return new Response(body as unknown as ConstructorParameters<typeof Response>[0]);
}

function sse(events: readonly { event?: string; data: unknown }[]): string {
  return events
    .map(({ event, data }) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`)
    .join('');
}

async function readChat(text: string, cuts: readonly number[]) {
  const deltas: LiveDelta[] = [];
  const assembler = new StreamAssembler('scripted', undefined, (delta) => deltas.push(delta));
  for await (const chunks of readChatChunks(responseOf(text, cuts))) {
    for (const chunk of chunks) assembler.push(chunk, eventsIn(chunk));
  }
  return { turn: assembler.finish(), deltas, events: assembler.progress().chunks };
}

function joined(deltas: readonly LiveDelta[]): string[] {
  const parts = new Map<string, string>();
  for (const delta of deltas) {
    const key =
      delta.kind === 'tool_call'
        ? `call ${delta.index} ${delta.name}`
        : `${delta.kind} ${'index' in delta ? delta.index : ''}`;
    parts.set(key, (parts.get(key) ?? '') + ('text' in delta ? delta.text : ''));
  }
  return [...parts].map(([key, text]) => `${key}: ${text}`);
}

describe('runs of deltas read as one', () => {
  it('assemble chat streams of generated turns as their events one by one do, wherever the reads fall', async () => {
    const samples = fc.sample(
      fc.tuple(
        hostileTurnArbitrary({ maxCalls: 6 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 }),
      ),
      { numRuns: 30, seed: 20_261_202 },
    );
    for (const [turn, cuts] of samples) {
      const chunks = renderChunks(toScriptTurn(turn), RENDER) as StreamChunk[];
      const oneByOne: LiveDelta[] = [];
      const alone = new StreamAssembler('scripted', undefined, (delta) => oneByOne.push(delta));
      for (const chunk of chunks) alone.push(chunk);
      const merged = await readChat(`${sse(chunks.map((data) => ({ data })))}data: [DONE]\n\n`, cuts);
      expect(merged.turn).toEqual(alone.finish());
      expect(merged.turn).toEqual(assembleStream(chunks, 'scripted'));
      expect(joined(merged.deltas)).toEqual(joined(oneByOne));
      expect(merged.events).toBe(chunks.length);
    }
  });

  it('reads 64 KB of 4-character argument deltas as a few events', async () => {
    const content = 'x'.repeat(64 * 1024);
    const script: ScriptTurn = {
      tool_calls: [{ id: 'big', name: 'WriteFile', arguments: { content } }],
      chunk_size: 4,
    };
    const chunks = renderChunks(script, RENDER);
    let batches = 0;
    let values = 0;
    for await (const read of readChatChunks(
      responseOf(`${sse(chunks.map((data) => ({ data })))}data: [DONE]\n\n`, []),
    )) {
      batches += 1;
      values += read.length;
    }
    expect(batches).toBeGreaterThan(0);
    expect(values).toBeLessThan(10);
  });

  it('never takes a look-alike of the key elsewhere in the event for the string that varies', async () => {
    const chunk = (text: string, elsewhere: string) => ({
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: text } }] } }],
      extra: { arguments: elsewhere },
    });
    const first = {
      choices: [
        { index: 0, delta: { tool_calls: [{ index: 0, id: 'a', function: { name: 'ReadFile', arguments: '' } }] } },
      ],
    };
    const events = [first, chunk('{"pa', 'one'), chunk('th":', 'one'), chunk('"x"}', 'two')].map((data) => ({ data }));
    const text = `${sse(events)}data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] })}\n\ndata: [DONE]\n\n`;
    const { turn, events: count } = await readChat(text, []);
    expect(turn.toolCalls).toEqual([{ id: 'a', name: 'ReadFile', arguments: '{"path":"x"}', complete: true }]);
    expect(count).toBe(5);
  });

  it('assemble Anthropic streams of generated turns as their events one by one do', () => {
    for (const turn of sampleTurns(40, 20_261_203)) {
      const script: ScriptTurn = { ...toScriptTurn(turn), thinking: { text: 'Thinking it over.', signature: 'sig' } };
      const events = anthropicDialect.renderEvents(script, { ...RENDER, requestModel: 'claude' } as never) as {
        event?: string;
        data: RawMessageStreamEvent;
      }[];
      const alone = new AnthropicStreamAssembler('claude');
      for (const { data } of events) alone.push(data);
      const reader = new DeltaRunReader(anthropicDeltaRule, (text) => JSON.parse(text) as RawMessageStreamEvent);
      const merged = new AnthropicStreamAssembler('claude');
      const read = reader.read(events.map(({ event, data }) => ({ data: JSON.stringify(data), name: event })));
      for (const event of read) merged.push(event, eventsIn(event));
      expect(merged.finish()).toEqual(alone.finish());
      expect(merged.progress()).toEqual(alone.progress());
    }
  });
});
