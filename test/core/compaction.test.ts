import { describe, expect, it } from 'vitest';
import { applyCompaction, planCompaction, SUMMARY_PREFIX, summaryRequest } from '../../src/core/compaction.js';
import type { ChatMessage } from '../../src/protocol/model.js';

function turn(id: string): ChatMessage[] {
  return [
    {
      role: 'assistant',
      content: `reading ${id}`,
      tool_calls: [{ id, type: 'function', function: { name: 'ReadFile', arguments: `{"path":"${id}"}` } }],
    },
    { role: 'tool', tool_call_id: id, content: `contents of ${id}` },
  ];
}

const transcript: ChatMessage[] = [
  { role: 'system', content: 'system' },
  { role: 'user', content: 'the task' },
  ...turn('a'),
  ...turn('b'),
  ...turn('c'),
  ...turn('d'),
  ...turn('e'),
];

describe('transcript compaction', () => {
  it('summarises the older turns and keeps the system prompt, the task and the recent turns verbatim', () => {
    const plan = planCompaction(transcript, 3)!;
    expect(plan).toEqual({ start: 2, end: 6 });
    const compacted = applyCompaction(transcript, plan, 'read a and b');
    expect(compacted.slice(0, 2)).toEqual(transcript.slice(0, 2));
    expect(compacted[2]).toEqual({ role: 'user', content: `${SUMMARY_PREFIX}\nread a and b` });
    expect(compacted.slice(3)).toEqual(transcript.slice(6));
  });

  it('never separates an assistant message from its tool results', () => {
    const plan = planCompaction(transcript, 2)!;
    expect(transcript[plan.end]!.role).toBe('assistant');
    const compacted = applyCompaction(transcript, plan, 'summary');
    for (const [index, message] of compacted.entries()) {
      if (message.role === 'tool')
        expect(compacted[index - 1]!.role === 'assistant' || compacted[index - 1]!.role === 'tool').toBe(true);
    }
  });

  it('leaves short transcripts alone', () => {
    expect(planCompaction(transcript.slice(0, 6), 3)).toBeUndefined();
  });

  it('asks the summariser for the task, decisions and open threads, with tool outputs cut', () => {
    const long: ChatMessage[] = [
      ...transcript.slice(0, 2),
      ...turn('x'),
      { role: 'tool', tool_call_id: 'y', content: 'z'.repeat(10_000) },
      ...turn('f'),
      ...turn('g'),
      ...turn('h'),
    ];
    const request = summaryRequest(long, planCompaction(long, 3)!);
    expect(request[0]!.content).toMatch(/decision/);
    expect(request[1]!.content).toContain('the task');
    expect(request[1]!.content).toContain('→ ReadFile({"path":"x"}) [x]');
    expect(request[1]!.content!.length).toBeLessThan(5_000);
  });
});
