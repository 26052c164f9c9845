// External Storage end to end: a worker and a client on the test server with the project's data converter.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { ExternalStorageNotConfiguredError, StorageDriverClaim } from '@temporalio/common';
import type { Payload } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { MissingContentError } from '../../src/store/content-store.js';
import {
  DEFAULT_PAYLOAD_THRESHOLD_BYTES,
  agentDataConverter,
  payloadThresholdFromEnv,
} from '../../src/store/data-converter.js';
import { STORAGE_DRIVER_NAME, contentStoreDriver, payloadToBytes } from '../../src/store/temporal-driver.js';
import { createMemoryStore } from '../support/memory-store.js';
import { largePayloadWorkflow, textQuery } from './fixtures/large-payload-workflow.js';

const workflowsPath = fileURLToPath(new URL('./fixtures/large-payload-workflow.ts', import.meta.url));
const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const bytes = (value: string) => new TextEncoder().encode(value);
const text = (value: Uint8Array) => new TextDecoder().decode(value);

describe('the content-store storage driver', () => {
  it('stores a payload’s protobuf bytes under their content key and retrieves the same payload', async () => {
    const store = createMemoryStore();
    const driver = contentStoreDriver(store);
    const payload: Payload = { metadata: { encoding: bytes('json/plain') }, data: bytes('"hello"') };

    const [claim] = await driver.store({}, [payload, payload]);
    const [retrieved] = await driver.retrieve({}, [claim!]);

    expect(driver).toMatchObject({ name: 'durable-agent-store', type: 'durable-agent.content-store' });
    expect(claim!.claimData).toEqual({ key: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    expect(store.objects.get(claim!.claimData.key as `sha256:${string}`)?.bytes).toEqual(payloadToBytes(payload));
    expect(store.objects.size).toBe(1);
    expect(text(retrieved!.metadata!.encoding!)).toBe('json/plain');
    expect(text(retrieved!.data!)).toBe('"hello"');
    expect(Object.keys(retrieved!)).toEqual(['metadata', 'data']);
  });

  it('fails a retrieval of content that is gone, or of a claim without a key', async () => {
    const driver = contentStoreDriver(createMemoryStore());
    const gone = new StorageDriverClaim({ key: `sha256:${'0'.repeat(64)}` });
    await expect(driver.retrieve({}, [gone])).rejects.toBeInstanceOf(MissingContentError);
    await expect(driver.retrieve({}, [new StorageDriverClaim({ path: '/etc/passwd' })])).rejects.toThrow(
      'durable-agent-store claim has no content key',
    );
  });

  it('reads its threshold from DURABLE_AGENT_PAYLOAD_THRESHOLD_BYTES', () => {
    expect(payloadThresholdFromEnv({})).toBe(256 * 1024);
    expect(DEFAULT_PAYLOAD_THRESHOLD_BYTES).toBe(262_144);
    expect(payloadThresholdFromEnv({ DURABLE_AGENT_PAYLOAD_THRESHOLD_BYTES: '0' })).toBe(0);
    expect(payloadThresholdFromEnv({ DURABLE_AGENT_PAYLOAD_THRESHOLD_BYTES: '1048576' })).toBe(1_048_576);
    expect(() => payloadThresholdFromEnv({ DURABLE_AGENT_PAYLOAD_THRESHOLD_BYTES: '1 MiB' })).toThrow(ConfigError);
    expect(() => payloadThresholdFromEnv({ DURABLE_AGENT_PAYLOAD_THRESHOLD_BYTES: '-1' })).toThrow(
      'DURABLE_AGENT_PAYLOAD_THRESHOLD_BYTES=-1 is not a number of bytes',
    );
  });
});

describe('External Storage through a worker and a client', () => {
  let code: string;
  let workerConnection: NativeConnection;
  let connection: Connection;

  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    ({ code } = await bundleWorkflowCode({ workflowsPath, logger: quiet }));
    workerConnection = await NativeConnection.connect({ address: inject('temporalAddress') });
    connection = await Connection.connect({ address: inject('temporalAddress') });
  });

  afterAll(async () => {
    await workerConnection?.close();
    await connection?.close();
  });

  it('moves every payload over the threshold to the store, in both directions, and history holds only references', async () => {
    const namespace = inject('temporalNamespace');
    const taskQueue = `extstore-${randomUUID()}`;
    const store = createMemoryStore();
    const dataConverter = agentDataConverter({ store });
    const large = 'a large tool result '.repeat(16 * 1024); // 320 KiB, over the 256 KiB default
    const worker = await Worker.create({
      connection: workerConnection,
      namespace,
      taskQueue,
      workflowBundle: { code },
      dataConverter,
      activities: { echo: async (value: string) => value },
    });
    const client = new Client({ connection, namespace, dataConverter });
    const workflowId = `extstore-${randomUUID()}`;

    const { result, answer } = await worker.runUntil(async () => {
      const handle = await client.workflow.start(largePayloadWorkflow, {
        args: [{ text: large }],
        taskQueue,
        workflowId,
      });
      const answer = await handle.query(textQuery);
      return { result: await handle.result(), answer };
    });

    expect(result).toEqual({ echoed: `${large}!`, small: 'small' });
    expect(answer).toBe(large);

    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const events = history.events ?? [];
    const payloadsOf = (type: string) =>
      events.flatMap((event) => {
        const attributes = (event as Record<string, any>)[type];
        return attributes ? ((attributes.input ?? attributes.result)?.payloads as Payload[]) : [];
      });
    const started = payloadsOf('workflowExecutionStartedEventAttributes');
    const scheduled = payloadsOf('activityTaskScheduledEventAttributes');
    const completed = payloadsOf('activityTaskCompletedEventAttributes');
    const finished = payloadsOf('workflowExecutionCompletedEventAttributes');
    const isReference = (payload: Payload | undefined) =>
      payload !== undefined && reference(payload)?.driverName === STORAGE_DRIVER_NAME;

    // The client's input, the workflow's activity input, the worker's activity result, the workflow's result.
    expect([started[0], scheduled[0], completed[0], finished[0]].map(isReference)).toEqual([true, true, true, true]);
    // The small activity call stays inline.
    expect(scheduled[1] && isReference(scheduled[1])).toBe(false);
    expect(text(scheduled[1]!.data!)).toBe('"small"');
    for (const payload of [started[0], scheduled[0], completed[0], finished[0]])
      expect(payload!.data!.byteLength).toBeLessThan(200);
    // Input, the "!" text (activity input and result: the same bytes, one object), the query answer, the result.
    expect(store.objects.size).toBe(4);

    // Replay reads the references back through the same converter.
    await Worker.runReplayHistory(
      { workflowBundle: { code }, dataConverter, replayName: 'extstore' },
      history,
      workflowId,
    );

    // A client without the converter cannot read what history only refers to.
    const plain = new Client({ connection, namespace });
    await expect(plain.workflow.getHandle(workflowId).result()).rejects.toBeInstanceOf(
      ExternalStorageNotConfiguredError,
    );
  });
});

function reference(payload: Payload): { driverName: string; claimData: Record<string, string> } | undefined {
  const messageType = payload.metadata?.messageType;
  if (!messageType || text(messageType) !== 'temporal.api.sdk.v1.ExternalStorageReference') return undefined;
  return JSON.parse(text(payload.data!)) as { driverName: string; claimData: Record<string, string> };
}
