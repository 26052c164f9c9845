// The tool layer end to end: every case is judged by what the model receives in its next request.
import { mkdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/protocol/model.js';
import { builtinTools } from '../../src/tools/index.js';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import type { Harness } from '../support/harness.js';
import {
  assertValidChatRequest,
  startHarness,
  startScriptedRun,
  toolResult,
  workspaceFrom,
} from '../support/harness.js';
import { makeOutsideDirectory } from '../support/outside-directory.js';
import { requireBubblewrap } from '../support/sandbox.js';
import { waitFor } from '../support/wait.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.close();
});

/** Runs a script to the end and returns the messages of the request after `turn` (1-based). */
async function runScript(workspace: string, script: ScriptTurn[], during?: (requests: unknown[]) => Promise<void>) {
  const { handle, model } = await startScriptedRun(harness, { script, workspace });
  try {
    await during?.(model.requests);
    const result = await handle.result();
    expect(result.status).toBe('completed');
    for (const request of model.requests) assertValidChatRequest(request as never);
    return (turn: number) => (model.requests[turn] as { messages: ChatMessage[] }).messages;
  } finally {
    await model.close();
  }
}

describe('read-before-write through the workflow', () => {
  it('rejects an edit without a read, applies one after a read, and keeps an external change with CONFLICT', async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'a.txt'), 'one\ntwo\n');
    const next = await runScript(
      workspace,
      [
        {
          tool_calls: [
            { id: 'blind', name: 'EditFile', arguments: { path: 'a.txt', old_string: 'one', new_string: '1' } },
          ],
        },
        { tool_calls: [{ id: 'read', name: 'ReadFile', arguments: { path: 'a.txt' } }] },
        {
          tool_calls: [
            { id: 'edit', name: 'EditFile', arguments: { path: './a.txt', old_string: 'one', new_string: '1' } },
          ],
        },
        // The file is changed by someone else while the model thinks about its next edit.
        {
          delay_ms: 1500,
          tool_calls: [
            { id: 'stale', name: 'EditFile', arguments: { path: 'a.txt', old_string: 'two', new_string: '2' } },
          ],
        },
        { content: 'done' },
      ],
      async (requests) => {
        // The external change must land in the scripted delay before the next edit, so poll often.
        await waitFor(async () => (requests.length >= 4 ? true : undefined), 'model request 4', { intervalMs: 20 });
        await writeFile(join(workspace, 'a.txt'), '1\ntwo\nexternal\n');
      },
    );
    expect(toolResult(next(1), 'blind').error).toMatchObject({
      code: 'INVALID_PARAM',
      details: { reason: 'read_required' },
    });
    expect(toolResult(next(3), 'edit')).toMatchObject({ status: 'success', data: { applied: true } });
    expect(toolResult(next(4), 'stale').error).toMatchObject({
      code: 'CONFLICT',
      details: { reason: 'modified_since_read' },
    });
    expect(await readFile(join(workspace, 'a.txt'), 'utf8')).toBe('1\ntwo\nexternal\n');
  });
});

describe('argument repair through the workflow', () => {
  it('executes trailing-comma, single-quoted and code-fenced arguments, and coerces "limit":"10"', async () => {
    const workspace = await workspaceFrom();
    await writeFile(
      join(workspace, 'long.txt'),
      Array.from({ length: 50 }, (_, index) => `line ${index + 1}`).join('\n'),
    );
    const next = await runScript(workspace, [
      {
        tool_calls: [
          { id: 'comma', name: 'ReadFile', arguments: '{"path": "long.txt", "limit": 2,}' },
          { id: 'quotes', name: 'ReadFile', arguments: "{'path': 'long.txt', 'offset': 49}" },
          { id: 'fence', name: 'Glob', arguments: '```json\n{"pattern": "*.txt"}\n```' },
          { id: 'limit', name: 'ReadFile', arguments: '{"path": "long.txt", "limit": "10"}' },
        ],
      },
      { content: 'done' },
    ]);
    const kinds = (id: string) =>
      (toolResult(next(1), id).context.repairs ?? []).map((repair: { kind: string }) => repair.kind);
    expect(toolResult(next(1), 'comma').data.lines_read).toBe(2);
    expect(kinds('comma')).toContain('trailing_comma');
    expect(toolResult(next(1), 'quotes').data.start_line).toBe(49);
    expect(kinds('quotes')).toContain('single_quotes');
    expect(toolResult(next(1), 'fence').data.paths).toEqual(['long.txt']);
    expect(kinds('fence')).toContain('code_fence');
    const limited = toolResult(next(1), 'limit');
    expect(limited.data.lines_read).toBe(10);
    expect(limited.data.end_line).toBe(10);
    expect(limited.context.repairs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ stage: 'coerce', param: 'limit', from: 'string', to: 'integer' }),
      ]),
    );
  });

  it('answers an unknown tool with NOT_FOUND listing the available tools, without running anything', async () => {
    const workspace = await workspaceFrom();
    const next = await runScript(workspace, [
      { tool_calls: [{ id: 'x', name: 'FormatDisk', arguments: '{}' }] },
      { content: 'ok' },
    ]);
    expect(toolResult(next(1), 'x').error).toMatchObject({
      code: 'NOT_FOUND',
      details: {
        kind: 'unknown_tool',
        requested: 'FormatDisk',
        available_tools: builtinTools.map((tool) => tool.name).sort(),
      },
    });
  });
});

describe('arguments cut short but sent as complete', () => {
  it('never run a command or a write; a read runs on what arrived', async () => {
    const workspace = await workspaceFrom();
    await mkdir(join(workspace, 'buil'));
    await writeFile(join(workspace, 'a.t'), 'the start of a.txt\n');
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      input: { askPolicy: 'approve' },
      script: [
        {
          tool_calls: [
            { id: 'cut', name: 'Bash', arguments: '{"command":"rm -rf buil' },
            { id: 'write', name: 'WriteFile', arguments: '{"path":"notes.txt","content":"half a thou' },
            { id: 'read', name: 'ReadFile', arguments: '{"path":"a.t' },
          ],
        },
        { content: 'ok' },
      ],
    });
    try {
      expect(await handle.result()).toMatchObject({ status: 'completed' });
      const messages = (model.requests[1] as { messages: ChatMessage[] }).messages;
      for (const id of ['cut', 'write']) {
        expect(toolResult(messages, id).error, id).toMatchObject({
          code: 'INVALID_PARAM',
          details: { reason: 'truncated_arguments' },
        });
      }
      expect(toolResult(messages, 'read').status).toBe('success');
      expect((await stat(join(workspace, 'buil'))).isDirectory()).toBe(true);
      await expect(stat(join(workspace, 'notes.txt'))).rejects.toThrow();
    } finally {
      await model.close();
    }
  });
});

describe('an exact duplicate call in one turn', () => {
  it('runs once; the duplicate is answered with a note pointing at the original', async () => {
    const workspace = await workspaceFrom();
    const append = { id: 'x', name: 'Bash', arguments: { command: 'echo once >> log.txt' } };
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      input: { askPolicy: 'approve' },
      script: [{ tool_calls: [append, append] }, { content: 'ok' }],
    });
    try {
      expect(await handle.result()).toMatchObject({ status: 'completed' });
      expect(await readFile(join(workspace, 'log.txt'), 'utf8')).toBe('once\n');
      const messages = (model.requests[1] as { messages: ChatMessage[] }).messages;
      expect(toolResult(messages, 'x').status).toBe('success');
      expect(toolResult(messages, 'x#2')).toMatchObject({ status: 'success', data: { duplicate_of: 'x' } });
    } finally {
      await model.close();
    }
  });
});

describe('budgets and confinement through the workflow', () => {
  it('turns 2 MB of command output into a small tool message and a spill file holding all of it', async () => {
    const workspace = await workspaceFrom();
    const next = await runScript(workspace, [
      { tool_calls: [{ id: 'big', name: 'Bash', arguments: { command: 'seq 1 400000; echo THE-END' } }] },
      { content: 'done' },
    ]);
    const message = next(1).find((candidate) => candidate.role === 'tool')!;
    expect(Buffer.byteLength(message.content)).toBeLessThanOrEqual(60_000);
    const envelope = toolResult(next(1), 'big');
    expect(envelope.status).toBe('partial');
    const spill = envelope.data.truncation?.full_output_path ?? envelope.data.full_output_path;
    expect(spill).toMatch(/^\.agent\/tool-output\//);
    const full = await readFile(join(workspace, spill), 'utf8');
    expect(full.length).toBeGreaterThanOrEqual(2_000_000);
    expect(full).toContain('\n399999\n');
    expect(full).toContain('THE-END');
  });

  it('denies ../../etc/passwd, an absolute path outside and a symlink pointing outside', async () => {
    const workspace = await workspaceFrom();
    await symlink('/etc', join(workspace, 'escape'));
    const next = await runScript(workspace, [
      {
        tool_calls: [
          { id: 'dots', name: 'ReadFile', arguments: { path: '../../etc/passwd' } },
          { id: 'absolute', name: 'ReadFile', arguments: { path: '/etc/passwd' } },
          { id: 'link', name: 'ReadFile', arguments: { path: 'escape/passwd' } },
          { id: 'write', name: 'WriteFile', arguments: { path: 'escape/owned', content: 'x' } },
        ],
      },
      { content: 'done' },
    ]);
    for (const id of ['dots', 'absolute', 'link', 'write']) {
      expect(toolResult(next(1), id).error, id).toMatchObject({ code: 'ACCESS_DENIED' });
      expect(toolResult(next(1), id).text).toMatch(/outside the workspace/);
    }
  });
});

describe('a hostile model against the command sandbox', () => {
  const secrets = {
    PGPASSWORD: 'pg-secret-1',
    DATABASE_URL: 'postgres://app:db-secret-2@db/app',
    GITHUB_PAT: 'ghp_secret3',
    STRIPE_KEY: 'sk_live_secret4',
    MYSQL_PWD: 'mysql-secret-5',
    SSH_AUTH_SOCK: '/run/agent-secret-6.sock',
    OPENAI_API_KEY: 'sk-worker-secret-7',
  };

  it("cannot write outside the workspace through a script it wrote, nor read the worker's secrets", async (context) => {
    await requireBubblewrap(context);
    const workspace = await workspaceFrom();
    const outsideDirectory = await makeOutsideDirectory();
    const outside = [join(outsideDirectory, 'escape'), join(dirname(workspace), `escape-${Date.now()}`)];
    const script = outside.map((target) => `require('fs').writeFileSync('${target}', 'x')`).join(';');
    const saved = Object.fromEntries(Object.keys(secrets).map((name) => [name, process.env[name]]));
    Object.assign(process.env, secrets);
    // An operator who approves whatever is asked: the sandbox, not the approval, is what holds.
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      input: { askPolicy: 'approve' },
      script: [
        {
          tool_calls: [
            {
              id: 'write',
              name: 'WriteFile',
              arguments: {
                path: 'package.json',
                content: JSON.stringify({ scripts: { test: `node -e "${script}"` } }),
              },
            },
          ],
        },
        { tool_calls: [{ id: 'test', name: 'Bash', arguments: { command: 'npm test' } }] },
        {
          tool_calls: [
            { id: 'env', name: 'Bash', arguments: { command: 'env' } },
            // Spelled so that no static check can see the path: only the sandbox stands in the way.
            {
              id: 'proc',
              name: 'Bash',
              arguments: { command: 'p=/proc; cat $p/$PPID/environ $p/1/environ | tr "\\0" "\\n"' },
            },
          ],
        },
        { content: 'done' },
      ],
    });
    try {
      expect(await handle.result()).toMatchObject({ status: 'completed' });
      const messages = (model.requests[3] as { messages: ChatMessage[] }).messages;
      expect(toolResult(messages, 'test').data.command).toBe('npm test');
      for (const target of outside) expect(existsSync(target), target).toBe(false);
      expect(toolResult(messages, 'env').data.stdout).toMatch(/^PATH=/m);
      console.log(JSON.stringify(toolResult(messages, 'proc')).slice(0, 1500));
      expect(toolResult(messages, 'proc').data.stdout).toMatch(/^PATH=/m);
      const everything = JSON.stringify(messages);
      for (const [name, value] of Object.entries(secrets)) expect(everything, name).not.toContain(value);
    } finally {
      await model.close();
      await rm(outsideDirectory, { recursive: true, force: true });
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});

describe('--env-pass', () => {
  it("gives one run's commands the worker variables it names, and nothing else", async () => {
    Object.assign(process.env, { NPM_TOKEN: 'npm_for_this_run', OTHER_TOKEN: 'not_named' });
    const command = { command: 'echo "[$NPM_TOKEN][$OTHER_TOKEN]"' };
    try {
      const named = await startScriptedRun(harness, {
        workspace: await workspaceFrom(),
        input: { envPass: ['NPM_TOKEN'] },
        script: [{ tool_calls: [{ id: 'echo', name: 'Bash', arguments: command }] }, { content: 'done' }],
      });
      const unnamed = await startScriptedRun(harness, {
        workspace: await workspaceFrom(),
        script: [{ tool_calls: [{ id: 'echo', name: 'Bash', arguments: command }] }, { content: 'done' }],
      });
      try {
        for (const { handle } of [named, unnamed]) expect(await handle.result()).toMatchObject({ status: 'completed' });
        const stdout = (requests: unknown[]) =>
          toolResult((requests[1] as { messages: ChatMessage[] }).messages, 'echo').data.stdout;
        expect(stdout(named.model.requests)).toBe('[npm_for_this_run][]\n');
        expect(stdout(unnamed.model.requests)).toBe('[][]\n');
      } finally {
        await Promise.all([named.model.close(), unnamed.model.close()]);
      }
    } finally {
      delete process.env.NPM_TOKEN;
      delete process.env.OTHER_TOKEN;
    }
  });
});
