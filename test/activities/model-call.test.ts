import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createModelCallActivity } from '../../src/activities/model-call.js';
import { createTranscriptStore } from '../../src/activities/transcript-store.js';
import type { ChatMessage, ModelRequest, ModelTurn, ToolSchema } from '../../src/protocol/model.js';
import { transcriptOf } from '../../src/protocol/transcript-ref.js';
import type { TranscriptRef } from '../../src/protocol/transcript-ref.js';
import type { ProviderResolver } from '../../src/providers/resolve-provider.js';
import { createProviderResolver } from '../../src/providers/resolve-provider.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptTurn, ScriptedModelServer } from '../../src/scripted-model/server.js';
import { contentKey } from '../../src/protocol/content-key.js';
import type { ContentStore } from '../../src/store/content-store.js';
import { StoreOutageError } from '../../src/store/content-store.js';
import { createMemoryStore } from '../support/memory-store.js';
import { waitFor } from '../support/wait.js';
import { declaredTool } from '../support/provider-suite.js';

const schemas: Record<string, ToolSchema> = {
  ReadFile: {
    type: 'function',
    function: {
      name: 'ReadFile',
      description: 'Read',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    },
  },
  Glob: {
    type: 'function',
    function: {
      name: 'Glob',
      description: 'Glob',
      parameters: { type: 'object', properties: { pattern: { type: 'string' } } },
    },
  },
};

// The same tools as contracts, declared with those schemas: what the activity resolves the request's names to.
const contracts = Object.fromEntries(
  Object.entries(schemas).map(([name, { function: tool }]) => [
    name,
    declaredTool(tool.name, tool.description, tool.parameters),
  ]),
);

const transcripts = createTranscriptStore(createMemoryStore());

/** The stored transcript of these messages, as the workflow refers to it. */
async function stored(messages: ChatMessage[]): Promise<TranscriptRef> {
  const refs = await Promise.all(
    messages.map(async (message) => ({ ...(await transcripts.putMessage(message)), role: message.role })),
  );
  const pending: Record<string, string> = {};
  const transcript = transcriptOf(refs, pending);
  await transcripts.writeAll(pending);
  return transcript;
}

function activityOn(resolveProvider: ProviderResolver) {
  return createModelCallActivity({
    transcripts,
    resolveProvider,
    resolveTools: (names) => names.map((name) => contracts[name]!),
  });
}

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(script: ScriptTurn[], env: NodeJS.ProcessEnv = {}) {
  server = await startScriptedModelServer({ script });
  const resolveProvider = createProviderResolver({
    DURABLE_AGENT_PROVIDER: 'scripted',
    OPENAI_BASE_URL: server.url,
    ...env,
  });
  return activityOn(resolveProvider);
}

const listTheFiles = await stored([{ role: 'user', content: 'list the files' }]);

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  transcript: listTheFiles,
  toolNames: ['Glob', 'ReadFile'],
  selection: {},
  step: 3,
  ...overrides,
});

async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApplicationFailure);
  return error as ApplicationFailure;
}

describe('callModel', () => {
  it('works outside an activity, resolving the messages, the tools and the model inside', async () => {
    const callModel = await setup(
      [{ tool_calls: [{ id: 'g', name: 'Glob', arguments: { pattern: '*' } }], chunk_size: 2 }],
      { DURABLE_AGENT_MODEL: 'model-from-env' },
    );
    const turn = await callModel(request({ selection: { model: 'model-from-run' } }));
    expect(turn.toolCalls).toEqual([{ id: 'g', name: 'Glob', arguments: '{"pattern":"*"}', complete: true }]);
    expect(turn.model).toBe('model-from-run');
    expect(server!.requests[0]).toMatchObject({ model: 'model-from-run', tools: [schemas.Glob, schemas.ReadFile] });
  });

  it('heartbeats on a timer with the step while the model is silent, and not at all for a quick answer', async () => {
    const slow = await setup([{ content: 'a long answer', chunk_size: 3, delay_ms: 250 }]);
    const environment = new MockActivityEnvironment({ heartbeatTimeoutMs: 300 });
    const heartbeats: unknown[] = [];
    environment.on('heartbeat', (details: unknown) => heartbeats.push(details));
    const turn: ModelTurn = await environment.run(slow, request({ toolNames: [] }));
    expect(turn.content).toBe('a long answer');
    expect(heartbeats[0]).toEqual({ step: 3 });

    // An answer within the first interval costs no heartbeat.
    const streaming = await setup([{ content: 'a long answer', chunk_size: 3 }]);
    const progress: unknown[] = [];
    const watched = new MockActivityEnvironment({ heartbeatTimeoutMs: 300 });
    watched.on('heartbeat', (details: unknown) => progress.push(details));
    await watched.run(streaming, request({ toolNames: [] }));
    expect(progress).toEqual([]);
  });

  it('keeps heartbeating while the model has not answered yet', async () => {
    const callModel = await setup([{ content: 'slow', delay_ms: 400 }]);
    const environment = new MockActivityEnvironment({ heartbeatTimeoutMs: 300 });
    const beforeFirstChunk: unknown[] = [];
    environment.on('heartbeat', (details: { chunks?: number }) => {
      if (details.chunks === undefined) beforeFirstChunk.push(details);
    });
    await environment.run(callModel, request());
    // One every 100 ms (a third of the heartbeat timeout) until the first chunk arrives.
    expect(beforeFirstChunk.length).toBeGreaterThanOrEqual(3);
    expect(beforeFirstChunk[0]).toEqual({ step: 3 });
  });

  it('aborts the HTTP call and throws CancelledFailure when the activity is cancelled', async () => {
    const callModel = await setup([{ content: 'never seen', delay_ms: 10_000 }]);
    const environment = new MockActivityEnvironment();
    const pending = environment.run(callModel, request());
    setTimeout(() => environment.cancel(), 100);
    const started = performance.now();
    await expect(pending).rejects.toBeInstanceOf(CancelledFailure);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('maps 429 with retry-after to a retryable failure with nextRetryDelay', async () => {
    const callModel = await setup([
      { error: { status: 429, headers: { 'retry-after': '7' }, body: { error: { message: 'Rate limit reached' } } } },
    ]);
    const failure = await failureOf(callModel(request()));
    expect(failure.type).toBe('ModelInvocationError.RateLimited');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBe(7000);
    expect(failure.message).toContain('Rate limit reached');
  });

  it('maps 401 to a non-retryable failure', async () => {
    const callModel = await setup([
      { error: { status: 401, body: { error: { message: 'Incorrect API key provided' } } } },
    ]);
    const failure = await failureOf(callModel(request()));
    expect(failure.type).toBe('ModelInvocationError.Unauthorized');
    expect(failure.nonRetryable).toBe(true);
  });

  it('maps 500 to a retryable failure and serves the next turn on retry', async () => {
    const callModel = await setup([{ error: { status: 500 } }, { content: 'second attempt' }]);
    const failure = await failureOf(callModel(request()));
    expect(failure.type).toBe('ModelInvocationError.ServerError');
    expect(failure.nonRetryable).toBe(false);
    expect((await callModel(request())).content).toBe('second attempt');
  });

  it('surfaces script exhaustion as a retryable server error naming the cause', async () => {
    const callModel = await setup([]);
    const failure = await failureOf(callModel(request()));
    expect(failure.type).toBe('ModelInvocationError.ServerError');
    expect(failure.message).toContain('script exhausted after 0 turns');
  });

  it('maps a refused connection to a retryable Connection failure', async () => {
    const probe = await startScriptedModelServer({ script: [] });
    const deadUrl = probe.url;
    await probe.close();
    const callModel = activityOn(
      createProviderResolver({ DURABLE_AGENT_PROVIDER: 'scripted', OPENAI_BASE_URL: deadUrl }),
    );
    const failure = await failureOf(callModel(request()));
    expect(failure.type).toBe('ModelInvocationError.Connection');
    expect(failure.nonRetryable).toBe(false);
  });

  it('passes the resolver’s non-retryable configuration failure through', async () => {
    const callModel = await setup([{ content: 'unused' }]);
    const failure = await failureOf(callModel(request({ selection: { provider: 'gemini' } })));
    expect(failure.type).toBe('ModelInvocationError.UnsupportedProvider');
    expect(failure.nonRetryable).toBe(true);
    expect(server!.requests).toHaveLength(0);
  });
});

describe('callModel and the content the workflow made', () => {
  /** A store whose writes wait until released; `failNext` makes the next write fail with `error`. */
  function gatedStore() {
    const inner = createMemoryStore();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let failNext: Error | undefined;
    const store = {
      ...inner,
      async put(content: string | Uint8Array) {
        await released;
        if (failNext) {
          const error = failNext;
          failNext = undefined;
          throw error;
        }
        return inner.put(content);
      },
    };
    return { store, inner, release, failWith: (error: Error) => (failNext = error) };
  }

  /** The activity over `store`, asking the scripted model at `url`. */
  function callModelStoringIn(store: ContentStore, url: string) {
    return createModelCallActivity({
      transcripts: createTranscriptStore(store),
      resolveProvider: createProviderResolver({ DURABLE_AGENT_PROVIDER: 'scripted', OPENAI_BASE_URL: url }),
      resolveTools: (names) => names.map((name) => contracts[name]!),
    });
  }

  /** A request whose transcript the workflow made in this step: its node and message are writes, not yet stored. */
  function requestWithWrites(): ModelRequest {
    const writes: Record<string, string> = {};
    const message = { role: 'user' as const, content: 'made by the workflow this step' };
    const text = JSON.stringify(message);
    writes[contentKey(text)] = text;
    const transcript = transcriptOf([{ key: contentKey(text), tokens: 5, role: 'user' }], writes);
    return request({ transcript, writes });
  }

  it('asks the model while they are stored, and answers only once they are', async () => {
    const gated = gatedStore();
    server = await startScriptedModelServer({ script: [{ content: 'seen' }] });
    const callModel = callModelStoringIn(gated.store, server.url);
    const request = requestWithWrites();
    let answered = false;
    const call = callModel(request).then((turn) => ((answered = true), turn));
    await waitFor(async () => (server!.requests.length > 0 ? true : undefined), 'the model request');
    expect(server.requests[0]!.messages.at(-1)).toMatchObject({ content: 'made by the workflow this step' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toBe(false);
    expect(gated.inner.objects.size).toBe(0);
    gated.release();
    expect((await call).content).toBe('seen');
    expect([...gated.inner.objects.keys()].sort()).toEqual(Object.keys(request.writes!).sort());
  });

  it('stores them again when the first write fails after the model answered, asking the model once', async () => {
    const gated = gatedStore();
    gated.failWith(new StoreOutageError('content store unreachable'));
    gated.release();
    server = await startScriptedModelServer({ script: [{ content: 'once' }] });
    const callModel = callModelStoringIn(gated.store, server.url);
    const request = requestWithWrites();
    const environment = new MockActivityEnvironment({ startToCloseTimeoutMs: 30_000 });
    const turn = await environment.run<[ModelRequest], ModelTurn, typeof callModel>(callModel, request);
    expect(turn.content).toBe('once');
    expect(server.requests).toHaveLength(1);
    expect([...gated.inner.objects.keys()].sort()).toEqual(Object.keys(request.writes!).sort());
  });
});
