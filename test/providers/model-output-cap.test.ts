// The cap on one model answer, through the real SDK clients over HTTP, against a scripted endpoint whose stream never
// ends: every provider stops reading, closes the request and fails the call for good, naming the cap and the variable.
import { ApplicationFailure } from '@temporalio/common';
import { afterEach, describe, expect, it } from 'vitest';
import { toModelFailure } from '../../src/activities/failures.js';
import type { ModelProvider } from '../../src/providers/model-provider.js';
import { MODEL_OUTPUT_TOO_LARGE } from '../../src/providers/output-cap.js';
import {
  DEFAULT_MAX_MODEL_OUTPUT_BYTES,
  MAX_MODEL_OUTPUT_VARIABLE,
  maxModelOutputBytesFromEnv,
} from '../../src/providers/output-limit.js';
import { createReactProvider } from '../../src/providers/react/protocol.js';
import { createProviderResolver } from '../../src/providers/resolve-provider.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptTurn, ScriptedModelServer } from '../../src/scripted-model/server.js';
import { ADAPTERS } from '../support/provider-suite.js';

const CAP = 256 * 1024;

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Maker = (url: string, maxOutputBytes?: number) => ModelProvider;

const withCap = (maxOutputBytes: number | undefined) => (maxOutputBytes ? { maxOutputBytes } : {});

const PROVIDERS: Record<string, Maker> = {
  ...Object.fromEntries(
    Object.values(ADAPTERS).map((adapter): [string, Maker] => [
      adapter.name,
      (url, maxOutputBytes) => adapter.make(url, withCap(maxOutputBytes)),
    ]),
  ),
  'react text protocol (on Chat Completions)': (url, maxOutputBytes) =>
    createReactProvider(ADAPTERS.chat.make(url, withCap(maxOutputBytes))),
};

const endlessText: ScriptTurn = {
  content: 'all work and no play '.repeat(50),
  chunk_size: 20,
  endless_stream: 'events',
};
const endlessArguments: ScriptTurn = {
  tool_calls: [{ name: 'WriteFile', arguments: { path: 'a.txt', content: 'y'.repeat(2000) } }],
  chunk_size: 10,
  endless_stream: 'events',
};
const endlessEvent: ScriptTurn = { content: 'hello', endless_stream: 'one_event' };

async function expectCapFailure(provider: ModelProvider, limit: number): Promise<void> {
  const error = await provider.complete({ messages: [{ role: 'user', content: 'go' }], tools: [], model: '' }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  // What the callModel activity throws for it: the same failure, untouched (never retried).
  const failure = toModelFailure(error);
  expect(failure).toBeInstanceOf(ApplicationFailure);
  expect(failure).toMatchObject({ type: MODEL_OUTPUT_TOO_LARGE, nonRetryable: true });
  expect(failure.message).toContain(`${limit} bytes`);
  expect(failure.message).toContain(MAX_MODEL_OUTPUT_VARIABLE);
}

/** The endless stream stopped: the client closed it (the server's writer ends when the connection does). */
async function expectStreamClosed(): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (server!.endlessStreams() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(server!.endlessStreams()).toBe(0);
}

describe('the model output cap', () => {
  for (const [name, make] of Object.entries(PROVIDERS)) {
    describe(name, () => {
      it('fails an answer whose text never ends, and closes the stream', async () => {
        server = await startScriptedModelServer({ script: [endlessText] });
        await expectCapFailure(make(server.url, CAP), CAP);
        await expectStreamClosed();
      });

      it('fails an answer whose tool-call arguments never end', async () => {
        server = await startScriptedModelServer({ script: [endlessArguments] });
        await expectCapFailure(make(server.url, CAP), CAP);
        await expectStreamClosed();
      });

      it('fails one event that never ends', async () => {
        server = await startScriptedModelServer({ script: [endlessEvent] });
        await expectCapFailure(make(server.url, CAP), CAP);
        await expectStreamClosed();
      });
    });
  }

  it('is set by DURABLE_AGENT_MAX_MODEL_OUTPUT_BYTES on the worker, 16 MiB by default', async () => {
    expect(maxModelOutputBytesFromEnv({})).toBe(DEFAULT_MAX_MODEL_OUTPUT_BYTES);
    expect(DEFAULT_MAX_MODEL_OUTPUT_BYTES).toBe(16 * 1024 * 1024);
    expect(maxModelOutputBytesFromEnv({ [MAX_MODEL_OUTPUT_VARIABLE]: '2048' })).toBe(2048);
    expect(maxModelOutputBytesFromEnv({ [MAX_MODEL_OUTPUT_VARIABLE]: 'lots' })).toBe(DEFAULT_MAX_MODEL_OUTPUT_BYTES);
    server = await startScriptedModelServer({ script: [endlessText, { content: 'x'.repeat(5000) }] });
    const resolve = createProviderResolver({ OPENAI_BASE_URL: server.url, [MAX_MODEL_OUTPUT_VARIABLE]: '4096' });
    const { provider } = await resolve({ provider: 'openai' });
    await expectCapFailure(provider, 4096);
    await expect(
      provider.complete({ messages: [{ role: 'user', content: 'go' }], tools: [], model: '' }),
    ).rejects.toMatchObject({ type: MODEL_OUTPUT_TOO_LARGE });
  });

  it('an answer under the cap is read whole', async () => {
    server = await startScriptedModelServer({ script: [{ content: 'z'.repeat(10_000), chunk_size: 7 }] });
    const turn = await PROVIDERS[ADAPTERS.chat.name]!(server.url, 20_000).complete({
      messages: [{ role: 'user', content: 'go' }],
      tools: [],
      model: '',
    });
    expect(turn.content).toBe('z'.repeat(10_000));
  });
});
