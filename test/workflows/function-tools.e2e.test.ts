// Function tools (docs/tools.md §12) and deferred discovery (§16) end to end: a worker offers its own functions; the
// model finds a deferred one with ToolSearch, calls it with a raw string, and a function that declares no risk never
// runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/protocol/model.js';
import type { Harness } from '../support/harness.js';
import { startHarness, startScriptedRun, toolResult, workspaceFrom } from '../support/harness.js';

let harness: Harness;
const calls: string[] = [];
beforeAll(async () => {
  harness = await startHarness(
    { OPENAI_API_KEY: 'test-key' },
    {
      functions: [
        {
          name: 'Weather',
          description: 'Current weather for a city name.',
          risk: 'read_only',
          concurrencySafe: true,
          shouldDefer: true,
          fn: (input) => {
            calls.push(input);
            return `Sunny in ${input}.`;
          },
        },
        { name: 'LaunchRocket', description: 'Launches a rocket.', fn: () => 'launched' },
      ],
    },
  );
});
afterAll(async () => {
  await harness?.close();
});

type Request = { messages: ChatMessage[]; tools?: { function: { name: string; parameters: unknown } }[] };

describe('function tools', () => {
  it('hides a deferred function until ToolSearch finds it, then runs it with a raw string input', async () => {
    const { handle, model } = await startScriptedRun(harness, {
      workspace: await workspaceFrom(),
      script: [
        { tool_calls: [{ id: 'early', name: 'Weather', arguments: '{"input": "Oslo"}' }] },
        { tool_calls: [{ id: 'search', name: 'ToolSearch', arguments: { query: 'weather', max_results: 3 } }] },
        {
          tool_calls: [
            { id: 'raw', name: 'Weather', arguments: 'Lisbon' },
            { id: 'single', name: 'Weather', arguments: { city: 'Porto' } },
          ],
        },
        { tool_calls: [{ id: 'rocket', name: 'LaunchRocket', arguments: { input: 'now' } }] },
        { content: 'done' },
      ],
    });
    try {
      await handle.result();
      const requests = model.requests as Request[];
      const offered = (index: number) => (requests[index]!.tools ?? []).map((tool) => tool.function.name);
      expect(offered(0)).toContain('ToolSearch');
      expect(offered(0)).not.toContain('Weather');
      expect(toolResult(requests[1]!.messages, 'early').error).toMatchObject({
        code: 'NOT_FOUND',
        details: { hint: 'use ToolSearch' },
      });
      const found = toolResult(requests[2]!.messages, 'search');
      expect(found.data.tools.map((tool: { name: string }) => tool.name)).toEqual(['Weather']);
      expect(offered(2)).toContain('Weather');
      expect(requests[2]!.tools!.find((tool) => tool.function.name === 'Weather')!.function.parameters).toEqual({
        type: 'object',
        properties: { input: { type: 'string', description: 'raw input string' } },
        required: ['input'],
        additionalProperties: false,
      });
      expect(toolResult(requests[3]!.messages, 'raw')).toMatchObject({ status: 'success', text: 'Sunny in Lisbon.' });
      expect(toolResult(requests[3]!.messages, 'raw').context.repairs).toEqual([
        { stage: 'parse', kind: 'raw_string_input' },
      ]);
      expect(toolResult(requests[3]!.messages, 'single')).toMatchObject({ status: 'success', text: 'Sunny in Porto.' });
      expect([...calls].sort()).toEqual(['Lisbon', 'Porto']); // concurrency-safe: they ran in parallel
      expect(toolResult(requests[4]!.messages, 'rocket').error).toMatchObject({
        code: 'PERMISSION_DENIED',
        details: { permission: { rule: 'unclassified_tool_fails_closed' } },
      });
    } finally {
      await model.close();
    }
  });
});
