// Sub-agents (the Task tool) end to end on the real server: children in parallel, each in its own history.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';
import { startHarness, startScriptedRun, toolResult, workspaceFrom } from '../support/harness.js';
import { saveHistory } from '../support/histories.js';
import { DEFAULT_SUB_AGENT_LIMITS } from '../../src/core/sub-agents/limits.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.close();
});

describe('Task', () => {
  it('runs three read-only children in parallel and answers with each one', async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'README.md'), 'hello\n');
    const tasks = ['alpha', 'beta', 'gamma'];
    const script = [
      {
        for_task: 'Parent task',
        tool_calls: tasks.map((name, index) => ({
          id: `t${index}`,
          name: 'Task',
          arguments: { description: `look at ${name}`, prompt: `Child task ${name}: read README.md.` },
        })),
      },
      ...tasks.flatMap((name) => [
        { for_task: `Child task ${name}`, tool_calls: [{ name: 'ReadFile', arguments: { path: 'README.md' } }] },
        { for_task: `Child task ${name}`, content: `${name} found it`, delay_ms: 1500 },
      ]),
      { for_task: 'Parent task', content: 'all done' },
    ];
    const { handle, model } = await startScriptedRun(harness, {
      script,
      workspace,
      task: 'Parent task: split it.',
      input: { subAgents: DEFAULT_SUB_AGENT_LIMITS },
      // The saved histories replay under the ids they ran with: the children's ids are derived from the root's.
      workflowId: `sub-agents-root`,
    });
    const started = Date.now();
    const result = await handle.result();
    const elapsed = Date.now() - started;
    expect(result.status).toBe('completed');
    expect(result.answer).toBe('all done');
    const last = model.requests.at(-1)!;
    expect(tasks.map((_, index) => toolResult(last.messages, `t${index}`).text)).toEqual(
      tasks.map((name) => `${name} found it`),
    );
    expect(elapsed).toBeLessThan(4_500);
    expect(result.totalUsage!.modelCalls).toBe(2 + 3 * 2);
    // The root's history (children started, reported, completed) and a child's replay against this code.
    await saveHistory('sub-agents-root', handle);
    await saveHistory('sub-agents-root~task-1-0', harness.client.workflow.getHandle(`${handle.workflowId}/task-1-0`));
    await model.close();
  });
});
