// The codec endpoint on a real run's history, sent as the Web UI sends it: proto JSON payloads, bytes in base64.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import { startCodecServer } from '../../src/store/codec-server.js';
import type { Harness } from '../support/harness.js';
import { startHarness, startScriptedRun, workspaceFrom } from '../support/harness.js';

const demo = fileURLToPath(new URL('../../examples/demo/', import.meta.url));

interface JsonEvent {
  eventId: string;
  activityTaskScheduledEventAttributes?: { activityType: { name: string }; input: { payloads: object[] } };
  activityTaskCompletedEventAttributes?: { scheduledEventId: string; result: { payloads: object[] } };
}

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.close();
});

describe('codec endpoint on a real run', () => {
  it('shows the transcript behind every model call and the tool message behind every tool result', async () => {
    const workspace = await workspaceFrom(join(demo, 'project'));
    const script = JSON.parse(await readFile(join(demo, 'script.json'), 'utf8')) as ScriptTurn[];
    const { handle, model } = await startScriptedRun(harness, { script, workspace });
    try {
      await handle.result();
    } finally {
      await model.close();
    }
    // The UI reads history through the server's HTTP API, which writes it as proto JSON.
    const history = proto.temporal.api.history.v1.History.fromObject(await handle.fetchHistory());
    const events = (history.toJSON() as { events: JsonEvent[] }).events;
    const codec = await startCodecServer({ store: harness.store, port: 0, log: () => {} });
    const decode = async (payloads: object[]) => {
      const response = await fetch(`${codec.url}/decode`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default' },
        body: JSON.stringify({ payloads }),
      });
      const decoded = (await response.json()) as { payloads: { data: string }[] };
      return JSON.parse(Buffer.from(decoded.payloads[0]!.data, 'base64').toString('utf8'));
    };
    try {
      const scheduled = events.filter((event) => event.activityTaskScheduledEventAttributes);
      const modelCalls = scheduled.filter(
        (event) => event.activityTaskScheduledEventAttributes!.activityType.name === 'callModel',
      );
      const lastCall = await decode(modelCalls.at(-1)!.activityTaskScheduledEventAttributes!.input.payloads);
      const shown = lastCall.transcript.head.content.messages.map(
        (message: { content: { role: string } }) => message.content.role,
      );
      expect(shown.length).toBeGreaterThan(0);
      expect(shown.every((role: string) => ['system', 'user', 'assistant', 'tool'].includes(role))).toBe(true);

      const bash = scheduled.find((event) => event.activityTaskScheduledEventAttributes!.activityType.name === 'Bash')!;
      const completed = events.find(
        (event) => event.activityTaskCompletedEventAttributes?.scheduledEventId === bash.eventId,
      )!;
      const result = await decode(completed.activityTaskCompletedEventAttributes!.result.payloads);
      expect(result.message.key.content).toMatchObject({ role: 'tool', tool_call_id: expect.any(String) });
      expect(JSON.stringify(result.message.key.content.content)).toContain('npm test');
    } finally {
      await codec.close();
    }
  });
});
