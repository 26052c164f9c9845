// One large WriteFile argument through each layer it crosses, one function per layer: the SSE stream read by the
// openai client and assembled, argument parsing and repair, schema validation, turn planning with the call machine,
// the content store that keeps it out of history, and the executor. The bench times them (bench/large-arguments.ts)
// and a test holds each to a bound (test/core/step/large-arguments.long.test.ts).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { executeWriteFile } from '../../src/activities/executors/write-file.js';
import { runTool } from '../../src/activities/run-tool.js';
import { createTranscriptStore } from '../../src/activities/transcript-store.js';
import { fixArguments, parseArguments } from '../../src/core/arguments/index.js';
import type { ModelTurn } from '../../src/protocol/model.js';
import { initialState } from '../../src/core/state.js';
import { createOpenAIChatProvider } from '../../src/providers/openai-chat/adapter.js';
import type { ScriptedDialect } from '../../src/scripted-model/dialect.js';
import { renderChunks } from '../../src/scripted-model/script.js';
import type { ScriptTurn } from '../../src/scripted-model/script.js';
import { StreamAssembler } from '../../src/providers/openai-chat/stream-assembler.js';
import { createDirectoryStore } from '../../src/store/directory-store.js';
import type { ToolContract } from '../../src/tools/define-tool.js';
import { writeFile } from '../../src/tools/index.js';
import { createTaskRegistry } from '../../src/tools/task-registry.js';
import { runTurnOffline } from './offline-turn.js';

/** A megabyte. */
export const MEGABYTE = 1024 * 1024;
/** Characters per streamed delta: about one token, as models stream. */
export const TOKEN_CHARS = 4;

const WRITE_FILE = writeFile as unknown as ToolContract;

/** File content of `size` characters: code-like lines with quotes, tabs and backslashes to escape. */
export function fileContent(size: number): string {
  const line = 'const value = "text with \\"quotes\\" and\ttabs"; // ünïcödé\n';
  return line.repeat(Math.ceil(size / line.length)).slice(0, size);
}

/** The WriteFile arguments for `content`: as JSON, and as models mangle it (single quotes, so S4 repairs it all). */
export function writeFileArguments(content: string): { valid: string; singleQuoted: string; truncated: string } {
  const valid = JSON.stringify({ path: 'big.txt', content });
  const singleQuoted = `{'path': 'big.txt', 'content': '${JSON.stringify(content).slice(1, -1).replace(/'/g, "\\'")}'}`;
  return { valid, singleQuoted, truncated: valid.slice(0, -2) };
}

/** The SSE body a server sends for one WriteFile call whose arguments arrive `deltaChars` at a time. */
export function writeFileStream(content: string, deltaChars = TOKEN_CHARS): string {
  const chunks = renderChunks(
    { tool_calls: [{ id: 'big', name: 'WriteFile', arguments: { path: 'big.txt', content } }], chunk_size: deltaChars },
    { turnNumber: 1, model: 'scripted', created: 0, promptChars: 0, includeUsage: true },
  );
  return `${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('')}data: [DONE]\n\n`;
}

/**
 * The SSE body of `turn` as `dialect` streams it, rendered as the scripted server renders it (its events, then its
 * end line).
 */
export function renderedStream(dialect: ScriptedDialect, turn: ScriptTurn, turnNumber: number): string {
  const events = dialect.renderEvents(turn, {
    turnNumber,
    model: 'scripted-model',
    created: 0,
    promptChars: 0,
    includeUsage: true,
  });
  const lines = events.map(({ event, data }) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  return `${lines.join('')}${dialect.done ?? ''}`;
}

/**
 * A local endpoint that answers every request with the same prepared SSE body, or, given several, the first request
 * with the first and so on (the last one again after that): a provider whose streams cost this process nothing to
 * make, sent as fast as the socket takes them.
 */
export async function startStreamServer(body: string | string[]): Promise<{ url: string; close(): Promise<void> }> {
  const bodies = (Array.isArray(body) ? body : [body]).map((text) => Buffer.from(text, 'utf8'));
  let served = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const bytes = bodies[Math.min(served++, bodies.length - 1)]!;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(bytes);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Layer: the provider's streaming call through the real openai client; returns the assembled arguments' length. */
export async function streamLayer(url: string): Promise<number> {
  const provider = createOpenAIChatProvider({ apiKey: 'unused', baseURL: url, defaultModel: 'scripted' });
  const turn = await provider.complete({
    messages: [{ role: 'user', content: 'write it' }],
    tools: [],
    model: 'scripted',
  });
  return turn.toolCalls[0]?.arguments?.length ?? 0;
}

/** The same call read with the SDK's own stream iterator, as the provider did before: the baseline. */
export async function sdkStreamLayer(url: string): Promise<number> {
  const client = new OpenAI({ apiKey: 'unused', baseURL: url, maxRetries: 0 });
  const stream = await client.chat.completions.create({
    model: 'scripted',
    messages: [{ role: 'user', content: 'write it' }],
    stream: true,
  });
  const assembler = new StreamAssembler('scripted');
  for await (const chunk of stream) assembler.push(chunk);
  return assembler.finish().toolCalls[0]?.arguments?.length ?? 0;
}

/** Layer: docs/tools.md §6 parsing (and repair, for mangled text). */
export function parseLayer(raw: string): Record<string, unknown> {
  const parsed = parseArguments(raw, { toolName: 'WriteFile' });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
}

/** Layer: §7 fixing and schema validation of parsed arguments. */
export function validateLayer(value: Record<string, unknown>): Record<string, unknown> {
  const fixed = fixArguments(WRITE_FILE, value);
  if (!fixed.ok) throw new Error(fixed.message);
  return fixed.input;
}

/** Layer: the turn as the workflow runs it — ids, plan, repair, the call machine, envelopes, the transcript step. */
export function turnLayer(raw: string): number {
  const state = initialState('task-large', 'system', 'write it');
  state.step = 1;
  const turn: ModelTurn = {
    content: null,
    toolCalls: [{ id: 'big', name: 'WriteFile', arguments: raw, complete: true }],
    finishReason: 'tool_calls',
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    model: 'scripted',
  };
  const env = {
    state,
    input: {
      task: 'write it',
      workspace: '/work/space',
      selection: {},
      maxSteps: 2,
      mode: 'default' as const,
      askPolicy: 'approve' as const,
    },
    registry: createTaskRegistry(),
  };
  const result = runTurnOffline(env, turn, { activities: ['success'], commands: ['read_only'], approvals: [true] });
  return result.answers.length;
}

/** A directory content store and a workspace, removed by `close`. */
export async function layerDirectories(): Promise<{ store: string; workspace: string; close(): Promise<void> }> {
  const store = await mkdtemp(path.join(tmpdir(), 'durable-agent-large-store-'));
  const workspace = await mkdtemp(path.join(tmpdir(), 'durable-agent-large-ws-'));
  return {
    store,
    workspace,
    close: async () => {
      await rm(store, { recursive: true, force: true });
      await rm(workspace, { recursive: true, force: true });
    },
  };
}

/**
 * Layer: history. The model activity stores the huge string and history carries its reference; the tool activity
 * expands it again. Returns the bytes of the arguments as they travel through history.
 */
export async function storeLayer(storeDirectory: string, raw: string): Promise<number> {
  const transcripts = createTranscriptStore(createDirectoryStore(storeDirectory), { cacheChars: 1 });
  const referenced = JSON.stringify(await transcripts.externalize(JSON.parse(raw) as unknown));
  const expanded = await transcripts.expand(JSON.parse(referenced) as Record<string, unknown>);
  if (JSON.stringify(expanded) !== raw) throw new Error('the stored arguments did not come back whole');
  return referenced.length;
}

/** Layer: the WriteFile executor behind runTool, creating the file afresh each time. */
export async function executorLayer(workspace: string, content: string, name: string): Promise<string> {
  const result = await runTool('WriteFile', executeWriteFile, {
    taskId: 'task-large',
    turn: 1,
    index: 0,
    callId: name,
    workspace,
    input: { path: `${name}.txt`, content },
    paramsInput: { path: `${name}.txt`, content },
  });
  return result.envelope.status;
}
