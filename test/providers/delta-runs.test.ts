// Reading runs of deltas as one (src/providers/delta-runs.ts) changes nothing the assembler makes of a stream: for
// generated hostile turns, split into network reads anywhere, the turn, the live pieces joined and the event count
// are those of taking every event alone, with any line ending and a read ending anywhere in an escape; a look-alike of
// the string's key elsewhere in an event is never taken for it.
import fc from 'fast-check';
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import type { LiveDelta } from '../../src/live/live-event.js';
import { anthropicDialect } from '../../src/providers/anthropic/scripted-dialect.js';
import { AnthropicStreamAssembler, anthropicDeltaRule } from '../../src/providers/anthropic/anthropic-stream.js';
import { DeltaRunReader, eventsIn } from '../../src/providers/delta-runs.js';
import type { StreamChunk } from '../../src/providers/openai-chat/stream-assembler.js';
import { StreamAssembler, assembleStream } from '../../src/providers/openai-chat/stream-assembler.js';
import { readChatChunks, readEventData } from '../../src/providers/sse-reader.js';
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

  it('read the same with every line ending servers use, the reads falling anywhere', async () => {
    const cuts = fc.sample(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 40 }), {
      numRuns: 12,
      seed: 20_261_204,
    });
    for (const [index, turn] of sampleTurns(12, 20_261_207).entries()) {
      const chunks = renderChunks({ ...toScriptTurn(turn), chunk_size: 3 }, RENDER) as StreamChunk[];
      for (const end of ['\n', '\r\n', '\r']) {
        const text = [...chunks.map((data) => JSON.stringify(data)), '[DONE]']
          .map((data) => `data: ${data}${end}${end}`)
          .join('');
        const merged = await readChat(text, cuts[index] ?? []);
        expect(merged.turn).toEqual(assembleStream(chunks, 'scripted'));
        expect(merged.events).toBe(chunks.length);
      }
    }
  });

  it('reads arguments full of escapes the same with a read ending at every character', async () => {
    const argumentsText = JSON.stringify({ path: 'a"b\\c.txt', content: 'line\n\t"quoted" \\ \u2028 ü 😀 \u0000 end' });
    const chunks = renderChunks(
      { tool_calls: [{ id: 'c', name: 'WriteFile', arguments: argumentsText }], chunk_size: 5 },
      RENDER,
    ) as StreamChunk[];
    const text = `${sse(chunks.map((data) => ({ data })))}data: [DONE]\n\n`;
    const expected = assembleStream(chunks, 'scripted');
    expect(expected.toolCalls[0]?.arguments).toBe(argumentsText);
    for (let cut = 1; cut < text.length; cut++) {
      const merged = await readChat(text, [cut / text.length]);
      expect(merged.turn).toEqual(expected);
      expect(merged.events).toBe(chunks.length);
    }
  });

  it('fails a stream whose string carries a raw control character, as JSON does, inside a run or not', async () => {
    const chunk = (text: string) => ({
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: text } }] } }],
    });
    const first = {
      choices: [
        { index: 0, delta: { tool_calls: [{ index: 0, id: 'a', function: { name: 'ReadFile', arguments: '' } }] } },
      ],
    };
    for (const raw of ['\u000b', '\u001f', '\t']) {
      const events = [first, chunk('{"pa'), chunk('th":'), chunk('"x'), chunk('zz'), chunk('y"}')].map((data) => ({
        data,
      }));
      const text = `${sse(events).replace('zz', `z${raw}`)}data: [DONE]\n\n`;
      await expect(readChat(text, [])).rejects.toThrow(SyntaxError);
    }
  });

  it('read Anthropic streams, named events and pings between them, as their events one by one do', async () => {
    const samples = fc.sample(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 20 }), {
      numRuns: 20,
      seed: 20_261_205,
    });
    const turns = sampleTurns(20, 20_261_206);
    for (const [index, turn] of turns.entries()) {
      const events = anthropicDialect.renderEvents({ ...toScriptTurn(turn), chunk_size: 3 }, {
        ...RENDER,
        requestModel: 'claude',
      } as never) as { event?: string; data: RawMessageStreamEvent }[];
      const alone = new AnthropicStreamAssembler('claude');
      for (const { data } of events) alone.push(data);
      const withPings = events.flatMap((event, at) =>
        at % 5 === 2 ? [{ event: 'ping', data: { type: 'ping' } }, event] : [event],
      );
      const merged = new AnthropicStreamAssembler('claude');
      const read = readEventData<RawMessageStreamEvent>(responseOf(sse(withPings), samples[index] ?? []), undefined, {
        merge: anthropicDeltaRule,
        skip: (name) => name === undefined || name === 'ping',
      });
      for await (const batch of read) for (const event of batch) merged.push(event, eventsIn(event));
      expect(merged.finish()).toEqual(alone.finish());
      expect(merged.progress()).toEqual(alone.progress());
    }
  });
});
