import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptTurn, ScriptedModelServer } from '../../src/scripted-model/server.js';
import { parseScriptText } from '../../src/scripted-model/script.js';
import { compiledEntry } from '../support/compiled-entry.js';

let server: ScriptedModelServer | undefined;
let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'scripted-server-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(directory, { recursive: true, force: true });
});

async function start(script: ScriptTurn[] | string) {
  server = await startScriptedModelServer({ script });
  return { server, client: new OpenAI({ apiKey: 'placeholder', baseURL: server.url, maxRetries: 0 }) };
}

async function postChat(url: string, body: unknown): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const user = (content: string) => [{ role: 'user' as const, content }];
// A request must offer tools to be answered with tool calls: without them, calls come back as text (answerFor).
const tools = [
  { type: 'function' as const, function: { name: 'Glob', parameters: { type: 'object', properties: {} } } },
];

describe('startScriptedModelServer', () => {
  it('listens on 127.0.0.1 and gives a base URL ending in /v1', async () => {
    const { server } = await start([]);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it('records every request body and serves turns in order', async () => {
    const { server, client } = await start([{ content: 'first' }, { content: 'second' }, { content: 'third' }]);
    expect(server.remaining()).toBe(3);
    const one = await client.chat.completions.create({ model: 'm', messages: user('a') });
    const two = await client.chat.completions.create({ model: 'm', messages: user('b'), temperature: 0 });
    expect([one.choices[0]!.message.content, two.choices[0]!.message.content]).toEqual(['first', 'second']);
    expect(server.requests).toEqual([
      { model: 'm', messages: user('a') },
      { model: 'm', messages: user('b'), temperature: 0 },
    ]);
    expect(server.remaining()).toBe(1);
  });

  it('answers non-streaming requests with a chat.completion, tool calls and estimated usage', async () => {
    const { client } = await start([{ tool_calls: [{ name: 'Glob', arguments: { pattern: '**/*.ts' } }] }]);
    const completion = await client.chat.completions.create({ model: 'gpt-z', messages: user('12345678'), tools });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('gpt-z');
    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1_0', type: 'function', function: { name: 'Glob', arguments: '{"pattern":"**/*.ts"}' } },
        ],
      },
    });
    const promptChars = JSON.stringify(user('12345678')).length;
    const completionChars = 'Glob'.length + '{"pattern":"**/*.ts"}'.length;
    expect(completion.usage).toEqual({
      prompt_tokens: Math.ceil(promptChars / 4),
      completion_tokens: Math.ceil(completionChars / 4),
      total_tokens: Math.ceil(promptChars / 4) + Math.ceil(completionChars / 4),
    });
  });

  it('streams SSE chunks ending in [DONE], with usage only when asked for', async () => {
    const { server } = await start([{ content: 'hello', chunk_size: 2 }, { content: 'again' }]);
    const withUsage = await postChat(server.url, {
      model: 'm',
      messages: user('x'),
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(withUsage.headers.get('content-type')).toBe('text/event-stream');
    const events = withUsage.text.split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    type Chunk = { choices: Array<{ delta: { content?: string }; finish_reason: string | null }>; usage?: object };
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.replace(/^data: /, '')) as Chunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content).filter((text) => text)).toEqual(['he', 'll', 'o']);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 2 } });
    const withoutUsage = await postChat(server.url, { model: 'm', messages: user('x'), stream: true });
    expect(withoutUsage.text).not.toContain('"usage"');
  });

  it('ends a truncated stream without finish reason, usage or [DONE]', async () => {
    const { server } = await start([
      { tool_calls: [{ id: 'c', name: 'Bash', arguments: '{"command":"echo hello"}' }], truncate_stream: true },
    ]);
    const response = await postChat(server.url, {
      model: 'm',
      messages: user('x'),
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(response.status).toBe(200);
    expect(response.text).not.toContain('[DONE]');
    expect(response.text).not.toContain('finish_reason":"');
    expect(response.text).not.toContain('"usage"');
    expect(response.text).toContain(JSON.stringify('{"command":"'));
  });

  it('drops the connection halfway through a stream, and before any answer when not streaming', async () => {
    const { server, client } = await start([
      { content: 'never finished', chunk_size: 2, drop_connection: true },
      { content: 'no answer', drop_connection: true },
      { content: 'whole' },
    ]);
    const stream = await client.chat.completions.create({ model: 'm', messages: user('x'), stream: true });
    const received: string[] = [];
    const reading = (async () => {
      for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
    })();
    await expect(reading).rejects.toThrow();
    expect(received.join('')).not.toBe('never finished');
    expect(received.join('').length).toBeGreaterThan(0);
    await expect(client.chat.completions.create({ model: 'm', messages: user('y') })).rejects.toThrow(/connection/i);
    const whole = await client.chat.completions.create({ model: 'm', messages: user('z') });
    expect(whole.choices[0]!.message.content).toBe('whole');
    expect(server.remaining()).toBe(0);
  });

  it('answers an error turn with its status, headers and body, and consumes it', async () => {
    const { server, client } = await start([
      {
        error: {
          status: 503,
          headers: { 'retry-after-ms': '250' },
          body: { error: { message: 'overloaded, try later' } },
        },
      },
      { content: 'recovered' },
    ]);
    const response = await postChat(server.url, { model: 'm', messages: user('x') });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after-ms')).toBe('250');
    expect(JSON.parse(response.text)).toEqual({ error: { message: 'overloaded, try later' } });
    const next = await client.chat.completions.create({ model: 'm', messages: user('x') });
    expect(next.choices[0]!.message.content).toBe('recovered');
  });

  it('fails loudly with HTTP 500 once the script is exhausted', async () => {
    const { server, client } = await start([{ content: 'only' }]);
    await client.chat.completions.create({ model: 'm', messages: user('x') });
    const failure = await client.chat.completions
      .create({ model: 'm', messages: user('y') })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.InternalServerError);
    expect((failure as Error).message).toContain('script exhausted after 1 turns');
    expect(server.failures).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
    expect(server.remaining()).toBe(0);
  });

  it('checks last_tool_contains and leaves the turn in place when it fails', async () => {
    const { server } = await start([{ content: 'saw it', expect: { last_tool_contains: ['exit_code', '0'] } }]);
    const messages = (toolContent: string) => [
      { role: 'user', content: 'run' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 't1', type: 'function', function: { name: 'Bash', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 't1', content: toolContent },
    ];
    const wrong = await postChat(server.url, { model: 'm', messages: messages('{"status":"error"}') });
    expect(wrong.status).toBe(500);
    expect(JSON.parse(wrong.text).error.message).toContain(
      'turn 1 expectation failed: expected the last tool result to contain ["exit_code","0"]',
    );
    expect(server.remaining()).toBe(1);
    const noTool = await postChat(server.url, { model: 'm', messages: user('x') });
    expect(JSON.parse(noTool.text).error.message).toContain('no tool result');
    const right = await postChat(server.url, { model: 'm', messages: messages('{"exit_code":0}') });
    expect(right.status).toBe(200);
    expect(server.remaining()).toBe(0);
  });

  it('waits delay_ms before answering', async () => {
    const { client } = await start([{ content: 'slow', delay_ms: 150 }]);
    const started = performance.now();
    await client.chat.completions.create({ model: 'm', messages: user('x') });
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('lists a model and rejects unknown routes and bad bodies without consuming turns', async () => {
    const { server, client } = await start([{ content: 'unused' }]);
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toEqual(['scripted']);
    expect((await fetch(`${server.url}/completions`, { method: 'POST', body: '{}' })).status).toBe(404);
    const badJson = await fetch(`${server.url}/chat/completions`, { method: 'POST', body: '{nope' });
    expect(badJson.status).toBe(400);
    expect((await postChat(server.url, { model: 'm' })).status).toBe(400);
    expect(server.remaining()).toBe(1);
    expect(server.requests).toHaveLength(0);
  });

  it("lists the models its turns answer as, and answers as the turn's model whatever the request named", async () => {
    const { server, client } = await start([
      { model: 'qwen2.5-coder', content: 'one' },
      { content: 'two' },
      { model: 'llama-3.1-8b', content: 'three' },
      { model: 'qwen2.5-coder', content: 'four' },
    ]);
    expect((await client.models.list()).data.map((model) => model.id)).toEqual(['qwen2.5-coder', 'llama-3.1-8b']);
    expect((await client.chat.completions.create({ model: 'gpt-4o-mini', messages: user('a') })).model).toBe(
      'qwen2.5-coder',
    );
    // A turn that names none echoes the request, as before.
    expect((await client.chat.completions.create({ model: 'gpt-4o-mini', messages: user('b') })).model).toBe(
      'gpt-4o-mini',
    );
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: user('c'), stream: true });
    for await (const chunk of stream) expect(chunk.model).toBe('llama-3.1-8b');
    // Only GET lists the models.
    expect((await fetch(`${server.url}/models`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect(() => parseScriptText('{"model":""}')).toThrow(/turn 1 is invalid/);
  });

  it('loads JSON and JSONL script files', async () => {
    const jsonl = join(directory, 'turns.jsonl');
    await writeFile(
      jsonl,
      '{"content":"one"}\n\n{"tool_calls":[{"name":"Glob","arguments":"{\\"pattern\\":\\"*\\"}"}]}\n',
    );
    const { server: fromJsonl } = await start(jsonl);
    expect(fromJsonl.remaining()).toBe(2);
    await fromJsonl.close();
    const json = join(directory, 'turns.json');
    await writeFile(json, JSON.stringify([{ content: 'a' }, { content: 'b' }, { content: 'c' }], null, 2));
    const { server: fromJson } = await start(json);
    expect(fromJson.remaining()).toBe(3);
  });

  it('rejects an invalid script, naming the turn', async () => {
    expect(() => parseScriptText('{"content":"ok"}\n{"tool_call":[]}', 'demo.jsonl')).toThrow(
      /demo\.jsonl: turn 2 is invalid/,
    );
    expect(() => parseScriptText('{"content":"ok"}\n{oops', 'demo.jsonl')).toThrow(/demo\.jsonl:2: not valid JSON/);
    await expect(
      startScriptedModelServer({ script: [{ error: { status: 200 } }] as unknown as ScriptTurn[] }),
    ).rejects.toThrow(/turn 1 is invalid/);
  });
});

describe('scripted-server-main', () => {
  it('prints the base URL and serves the script until terminated', async () => {
    const script = join(directory, 'turns.jsonl');
    await writeFile(script, '{"content":"from the cli"}\n');
    const entry = fileURLToPath(new URL('../../src/scripted-model/main.ts', import.meta.url));
    const child = spawn(process.execPath, [await compiledEntry(entry), '--script', script, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let output = '';
        child.stdout.on('data', (data: Buffer) => {
          output += data.toString();
          if (output.includes('\n')) resolve(output.trim());
        });
        child.once('exit', (code) => reject(new Error(`exited with ${code}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const client = new OpenAI({ apiKey: 'placeholder', baseURL: url, maxRetries: 0 });
      const completion = await client.chat.completions.create({ model: 'm', messages: user('x') });
      expect(completion.choices[0]!.message.content).toBe('from the cli');
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
});
