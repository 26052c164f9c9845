// Tool selection end to end: a worker with more function tools than the run's limit. The model sees a selected subset,
// finds a tool it was not shown with ToolSearch, calls it, and `history` shows each step's tools.
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatHistory } from '../../src/cli/commands/history.js';
import { readRunHistory } from '../../src/history/history-reader.js';
import type { ChatMessage } from '../../src/protocol/model.js';
import { builtinTools } from '../../src/tools/index.js';
import type { Harness } from '../support/harness.js';
import { startHarness, startScriptedRun, toolResult, workspaceFrom } from '../support/harness.js';

const SERVICES = ['invoice', 'shipment', 'warehouse', 'customer', 'ticket', 'payroll'];
const ACTIONS = ['list', 'create', 'cancel', 'export', 'archive'];
const calls: string[] = [];

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness(
    { OPENAI_API_KEY: 'test-key' },
    {
      // 30 function tools, one per action and service: "cancelPayroll: Cancel payroll records in the back office."
      functions: SERVICES.flatMap((service) =>
        ACTIONS.map((action) => {
          const name = `${action}${service[0]!.toUpperCase()}${service.slice(1)}`;
          return {
            name,
            description: `${action[0]!.toUpperCase()}${action.slice(1)} ${service} records in the back office.`,
            risk: 'read_only' as const,
            fn: (input: string) => {
              calls.push(`${name} ${input}`);
              return `${name} done for ${input}.`;
            },
          };
        }),
      ),
    },
  );
});
afterAll(async () => {
  await harness?.close();
});

type Request = { messages: ChatMessage[]; tools?: { function: { name: string } }[] };

describe('tool selection', () => {
  it('shows a selected subset, finds the rest through ToolSearch, and history lists each step’s tools', async () => {
    const { handle, model } = await startScriptedRun(harness, {
      workspace: await workspaceFrom(),
      task: 'Cancel the shipment for order 42.',
      input: { maxTools: 8 },
      script: [
        { tool_calls: [{ id: 'search', name: 'ToolSearch', arguments: { query: 'payroll cancel', max_results: 1 } }] },
        { tool_calls: [{ id: 'payroll', name: 'cancelPayroll', arguments: { input: 'March run' } }] },
        { content: 'done' },
      ],
    });
    try {
      await handle.result();
      const requests = model.requests as Request[];
      const offered = (index: number) => (requests[index]!.tools ?? []).map((tool) => tool.function.name);
      expect(offered(0)).toHaveLength(8);
      expect(offered(0)).toEqual(expect.arrayContaining(['ToolSearch', 'cancelShipment']));
      expect(offered(0)).not.toContain('cancelPayroll');

      const found = toolResult(requests[1]!.messages, 'search');
      expect(found.data.tools.map((tool: { name: string }) => tool.name)).toEqual(['cancelPayroll']);
      // Found, it stays listed; ToolSearch's own call keeps it listed too.
      expect(offered(1)).toEqual(expect.arrayContaining(['cancelPayroll', 'ToolSearch']));
      expect(offered(2)).toContain('cancelPayroll');
      expect(toolResult(requests[2]!.messages, 'payroll')).toMatchObject({
        status: 'success',
        text: 'cancelPayroll done for March run.',
      });
      expect(calls).toEqual(['cancelPayroll March run']);

      const history = readRunHistory(await handle.fetchHistory());
      expect(history.steps[0]!.toolSelection).toMatchObject({ candidates: 36, limit: 8, pinned: ['ToolSearch'] });
      expect(history.steps[1]!.toolSelection).toMatchObject({ discovered: ['cancelPayroll'] });
      const text = stripVTControlCharacters(formatHistory(history));
      expect(text).toMatch(/step 1 .*\n {4}tools: 8 of 36 — ToolSearch, cancelShipment, /);
      expect(text).toMatch(/step 2 .*\n {4}tools: 8 of 36 — ToolSearch, cancelPayroll, /);
    } finally {
      await model.close();
    }
  });

  it('changes nothing for a run within its limit: every tool, no selection in history', async () => {
    const { handle, model } = await startScriptedRun(harness, {
      workspace: await workspaceFrom(),
      input: { maxTools: 40 },
      script: [{ content: 'nothing to do' }],
    });
    try {
      await handle.result();
      const tools = ((model.requests as Request[])[0]!.tools ?? []).map((tool) => tool.function.name);
      expect(tools).toHaveLength(36);
      expect(tools).not.toContain('ToolSearch');
      const history = readRunHistory(await handle.fetchHistory());
      expect(history.steps[0]!.toolSelection).toBeUndefined();
      expect(formatHistory(history)).not.toContain('tools:');
    } finally {
      await model.close();
    }
  });

  it('records the profile auto picked: its tools only, in the result and in history', async () => {
    const { handle, model } = await startScriptedRun(harness, {
      workspace: await workspaceFrom(),
      task: 'Fix the failing parser test',
      input: { profile: 'auto' },
      script: [{ content: 'fixed' }],
    });
    try {
      expect(await handle.result()).toMatchObject({ status: 'completed', profile: 'code-edit' });
      const tools = ((model.requests as Request[])[0]!.tools ?? []).map((tool) => tool.function.name);
      const codeEditTools = builtinTools.filter((tool) => tool.profiles?.['code-edit'] !== undefined);
      expect(tools).toEqual(codeEditTools.map((tool) => tool.name).sort());
      const history = readRunHistory(await handle.fetchHistory());
      expect(history.profile).toBe('code-edit');
      expect(formatHistory(history)).toContain('profile code-edit');
    } finally {
      await model.close();
    }
  });

  it('fails a run with an unknown profile before it lists or starts any tools', async () => {
    const { handle, model } = await startScriptedRun(harness, {
      workspace: await workspaceFrom(),
      input: { profile: 'everything' },
      script: [{ content: 'never asked' }],
    });
    try {
      await expect(handle.result()).rejects.toThrow();
      const events = (await handle.fetchHistory()).events ?? [];
      const failure = events.find((event) => event.workflowExecutionFailedEventAttributes);
      expect(failure?.workflowExecutionFailedEventAttributes?.failure?.message).toMatch(
        /Unknown tool profile 'everything'/,
      );
      expect(
        events.some((event) => event.activityTaskScheduledEventAttributes || event.markerRecordedEventAttributes),
      ).toBe(false);
      expect(model.requests).toHaveLength(0);
    } finally {
      await model.close();
    }
  });
});
