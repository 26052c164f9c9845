// Tool choice per step and structured results, end to end on the real dev server through the scripted model: what
// went on the wire is read from the scripted server's recorded request bodies.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import type { Harness } from '../support/harness.js';
import { startHarness, startScriptedRun, workspaceFrom } from '../support/harness.js';

interface WireRequest {
  tool_choice?: unknown;
  tools?: { function: { name: string; parameters: unknown } }[];
  messages: { role: string; content: string | null; tool_call_id?: string }[];
}

const schema = {
  type: 'object',
  properties: { files: { type: 'integer', minimum: 0 }, summary: { type: 'string' } },
  required: ['files', 'summary'],
  additionalProperties: false,
};

async function workspaceWith(files: string[]): Promise<string> {
  const workspace = await workspaceFrom();
  for (const file of files) await writeFile(join(workspace, file), file);
  return workspace;
}

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.close();
});

describe('tool choice per step', () => {
  it('sends the run’s tool choice none, and the run answers without tool calls', async () => {
    const { handle, model } = await startScriptedRun(harness, {
      workspace: await workspaceFrom(),
      script: [{ content: 'answered without tools' }],
      input: { toolChoice: 'none' },
    });
    try {
      expect(await handle.result()).toMatchObject({
        status: 'completed',
        answer: 'answered without tools',
        toolCalls: 0,
      });
      expect((model.requests as WireRequest[]).map((request) => request.tool_choice)).toEqual(['none']);
    } finally {
      await model.close();
    }
  });

  it('sends the last allowed step with tool choice none, so the run ends with the model’s answer', async () => {
    const glob: ScriptTurn = { tool_calls: [{ name: 'Glob', arguments: { pattern: '*' } }] };
    const { handle, model } = await startScriptedRun(harness, {
      workspace: await workspaceFrom(),
      script: [glob, glob, { content: 'what I found in three steps' }],
      input: { maxSteps: 3, toolChoice: 'required' },
    });
    try {
      expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'what I found in three steps' });
      expect((model.requests as WireRequest[]).map((request) => request.tool_choice)).toEqual([
        'required',
        'required',
        'none',
      ]);
    } finally {
      await model.close();
    }
  });
});

describe('structured results', () => {
  it('repairs an invalid FinalResult through the model and completes with JSON that matches the schema', async () => {
    const { handle, model } = await startScriptedRun(harness, {
      workspace: await workspaceWith(['a.txt', 'b.txt']),
      script: [
        { tool_calls: [{ name: 'Glob', arguments: { pattern: '*.txt' } }] },
        { content: 'There are two files.' },
        { tool_calls: [{ id: 'bad', name: 'FinalResult', arguments: { files: 'two', extra: true } }] },
        { tool_calls: [{ id: 'good', name: 'FinalResult', arguments: { files: 2, summary: 'a.txt and b.txt' } }] },
      ],
      input: { outputSchema: schema },
    });
    try {
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', result: { files: 2, summary: 'a.txt and b.txt' } });
      expect(new Ajv().validate(schema, result.result)).toBe(true);

      const requests = model.requests as WireRequest[];
      // Offered from the first step, with the schema as its parameters.
      const offered = requests[0]!.tools!.find((tool) => tool.function.name === 'FinalResult');
      expect(offered?.function.parameters).toEqual(schema);
      // The text answer is followed by a forced step, and so is the invalid result.
      expect(requests.map((request) => request.tool_choice)).toEqual([
        'auto',
        'auto',
        { type: 'function', function: { name: 'FinalResult' } },
        { type: 'function', function: { name: 'FinalResult' } },
      ]);
      const envelope = JSON.parse(
        requests[3]!.messages.find((message) => message.tool_call_id === 'bad')!.content!,
      ) as { status: string; error: { code: string; message: string } };
      expect(envelope).toMatchObject({ status: 'error', error: { code: 'INVALID_PARAM' } });
      expect(envelope.error.message).toContain('/files must be integer');
      expect(envelope.error.message).toContain('additional properties (extra)');
    } finally {
      await model.close();
    }
  });

  it('fails naming the violations when the repaired result is still invalid', async () => {
    const bad: ScriptTurn = { tool_calls: [{ name: 'FinalResult', arguments: { files: -1, summary: 's' } }] };
    const { handle, model } = await startScriptedRun(harness, {
      workspace: await workspaceFrom(),
      script: [bad, bad],
      input: { outputSchema: schema },
    });
    try {
      const failure = await handle.result().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect(((failure as WorkflowFailedError).cause as Error).message).toBe(
        'The FinalResult result does not match the output schema: /files must be >= 0',
      );
      expect(model.requests).toHaveLength(2);
    } finally {
      await model.close();
    }
  });

  it('forces FinalResult on the last allowed step', async () => {
    const { handle, model } = await startScriptedRun(harness, {
      workspace: await workspaceFrom(),
      script: [
        { tool_calls: [{ name: 'Glob', arguments: { pattern: '*' } }] },
        { tool_calls: [{ name: 'FinalResult', arguments: { files: 0, summary: 'empty' } }] },
      ],
      input: { outputSchema: schema, maxSteps: 2 },
    });
    try {
      expect(await handle.result()).toMatchObject({ status: 'completed', result: { files: 0, summary: 'empty' } });
      expect((model.requests as WireRequest[]).map((request) => request.tool_choice)).toEqual([
        'auto',
        { type: 'function', function: { name: 'FinalResult' } },
      ]);
    } finally {
      await model.close();
    }
  });
});
