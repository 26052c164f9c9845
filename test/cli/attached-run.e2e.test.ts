// Typing into an attached `run` on a real terminal: the CLI runs on a pseudo-terminal (test/support/pty-driver.py)
// against the file's worker, and the test types into it as a person would. A line and Enter reaches the model as a
// user message, Esc interrupts a running command, and with `--ask prompt` a typed "y" answers the approval prompt
// instead of being sent as a message. What the terminal shows is checked too: the hint, the model's live text, and
// none of the model's control sequences raw. Each case runs twice: against the file's worker over gRPC, and against
// the embedded server and its background worker, where `run` follows over the HTTP API and connects the Temporal
// client only for what is typed (checked in the modules it loaded).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTACHED_HINT } from '../../src/cli/attached-input.js';
import { workerProcessCommand } from '../../src/cli/worker-command.js';
import { ensureDevServer, ensureDevWorker, stopDevServer } from '../../src/dev-server/index.js';
import { createFileLiveChannel } from '../../src/live/file-channel.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import { durableAgentBin } from '../support/cli.js';
import { processesWith } from '../support/faults/fault-run.js';
import type { Harness } from '../support/harness.js';
import { startHarness, temporalAddress, toolResult, workspaceFrom } from '../support/harness.js';
import { loadedModules, writeModuleRecorder } from '../support/loaded-modules.js';
import { findFreePorts } from '../support/ports.js';
import { waitFor } from '../support/wait.js';
import { laterUserMessages } from '../support/model-requests.js';

const ptyDriver = fileURLToPath(new URL('../support/pty-driver.py', import.meta.url));
const stateDir = await mkdtemp(join(tmpdir(), 'durable-agent-attached-'));
const live = createFileLiveChannel({ stateDir, maxAttemptBytes: 1024 * 1024 });
const embeddedState = await mkdtemp(join(tmpdir(), 'durable-agent-attached-embedded-'));
let harness: Harness | undefined;
let recorder: string | undefined;
beforeAll(async () => {
  harness = await startHarness(undefined, { live });
  const [port, httpPort] = (await findFreePorts(2)) as [number, number];
  await ensureDevServer({ stateDir: embeddedState, port, httpPort, headless: true, build: false, log: () => {} });
  const env = { PATH: process.env.PATH!, DURABLE_AGENT_STATE_DIR: embeddedState };
  await ensureDevWorker({ stateDir: embeddedState, command: workerProcessCommand(), env, log: () => {} });
  recorder = await writeModuleRecorder(embeddedState);
}, 120_000);
afterAll(async () => {
  await harness?.close();
  await live.close();
  await stopDevServer({ stateDir: embeddedState, graceMs: 2_000 });
  await rm(stateDir, { recursive: true, force: true });
  await rm(embeddedState, { recursive: true, force: true });
});

/** Where the CLI runs its workflow: the file's worker over gRPC, or the embedded server followed over HTTP. */
type Target = 'worker over gRPC' | 'embedded server';

// A clipboard write, a bell and a bidi override, as hostile model output would carry them.
const HOSTILE = '\u001b]52;c;aGk=\u0007\u202e';

/** The text a terminal would show of `output`: escape sequences (colours, cursor moves) dropped, \r\n as \n. */
function shown(output: string): string {
  return stripVTControlCharacters(output).replace(/\r\n/g, '\n');
}

/** `durable-agent run <args>` on a pseudo-terminal against `target`; `type` writes keys into it. */
function runOnTerminal(target: Target, args: string[]) {
  const env =
    target === 'embedded server'
      ? { DURABLE_AGENT_STATE_DIR: embeddedState }
      : {
          TEMPORAL_ADDRESS: temporalAddress(),
          DURABLE_AGENT_TASK_QUEUE: harness!.taskQueue,
          DURABLE_AGENT_STATE_DIR: stateDir,
        };
  // Against the embedded server the CLI lists the modules it loaded when it exits.
  const node = target === 'embedded server' ? [process.execPath, '--import', recorder!] : [process.execPath];
  const child = execa('python3', [ptyDriver, ...node, durableAgentBin, 'run', ...args], {
    env: { PATH: process.env.PATH!, TERM: 'xterm-256color', ...env },
    extendEnv: false,
    reject: false,
    stdin: 'pipe',
    timeout: 60_000,
  });
  const terminal = { output: '' };
  child.stdout.on('data', (chunk: Buffer) => (terminal.output += chunk.toString('utf8')));
  const until = (text: string | RegExp, what = String(text)) =>
    waitFor(async () => {
      const screen = shown(terminal.output);
      return (typeof text === 'string' ? screen.includes(text) : text.test(screen)) ? true : undefined;
    }, `the terminal to show ${what}`);
  return {
    child,
    terminal,
    until,
    type: (keys: string) => child.stdin.write(keys),
    /**
     * Waits for the run to end and returns its exit code and what the terminal showed. Against the embedded server it
     * checks the run was followed over the HTTP API, the client connected only for what was typed.
     */
    async end() {
      child.stdin.end();
      const result = await child;
      if (target === 'embedded server') {
        const { own } = loadedModules(terminal.output);
        expect(own).toContain('dist/cli/http-run-reader.js');
        expect(own).toContain('dist/cli/connect.js');
      }
      const text = shown(terminal.output).replace(/\nLOADED .*\n/, '\n');
      return { exitCode: result.exitCode, raw: terminal.output.replace(/\r?\nLOADED .*\r?\n/, '\n'), text };
    },
  };
}

async function model(script: ScriptTurn[]) {
  return startScriptedModelServer({ script });
}

describe.each<Target>(['worker over gRPC', 'embedded server'])('an attached run on a terminal, %s', (target) => {
  it('sends a typed line as a message the model reads at the next step, and shows the live text escaped', async () => {
    const server = await model([
      {
        content: `Looking around the workspace.${HOSTILE}`,
        chunk_size: 5,
        chunk_delay_ms: 10,
        tool_calls: [{ id: 'nap', name: 'Bash', arguments: { command: 'sleep 3' } }],
      },
      { content: 'Done, with the docs too.' },
    ]);
    try {
      const cli = runOnTerminal(target, [
        '--ask',
        'approve',
        '--base-url',
        server.url,
        '--model',
        'm',
        '--cwd',
        await workspaceFrom(),
        'tidy up',
      ]);
      await cli.until(ATTACHED_HINT, 'the hint');
      await cli.until('Looking around the workspace.', 'the live text');
      // Typed once the model's answer has streamed (typing while it streams mixes the two on one line).
      await cli.until(/step 1 .*1 tool call/, 'the step line');
      expect(server.requests).toHaveLength(1);
      cli.type('also update the docs\r');
      // What is typed is echoed on a line of its own (raw mode echoes nothing itself), and the progress says the run
      // took the message.
      await cli.until('\nalso update the docs\n', 'the typed line');
      await cli.until(/message \S+ queued from .*: also update the docs/, 'the message queued');
      const { exitCode, raw, text } = await cli.end();
      expect(exitCode, text).toBe(0);
      expect(server.requests).toHaveLength(2);
      expect(laterUserMessages(server.requests[1]!)).toEqual(['also update the docs']);
      expect(text).toContain('Done, with the docs too.');
      // The model's control sequences reach the terminal as escapes: no operating system command (the clipboard
      // write) is raw, and beside the CLI's own colours no control or format character is.
      expect(text).toContain('\\x1b]52;c;aGk=\\x07\\u202e');
      expect(raw).not.toContain('\u001b]');
      expect(Array.from(text).filter((character) => /[\p{Cc}\p{Cf}]/u.test(character) && character !== '\n')).toEqual(
        [],
      );
    } finally {
      await server.close();
    }
  });

  it('interrupts a running command with Esc; the model is told what was interrupted', async () => {
    const token = `50.${Date.now() % 100000}`;
    const workspace = await workspaceFrom();
    const server = await model([
      { tool_calls: [{ id: 'nap', name: 'Bash', arguments: { command: `sleep ${token}; echo done > done.txt` } }] },
      { content: 'Stopped.' },
    ]);
    try {
      const cli = runOnTerminal(target, [
        '--ask',
        'approve',
        '--base-url',
        server.url,
        '--model',
        'm',
        '--cwd',
        workspace,
        'nap',
      ]);
      await cli.until(ATTACHED_HINT, 'the hint');
      await waitFor(async () => (processesWith(`sleep ${token}`).length > 0 ? true : undefined), 'the sleep to run');
      const pressed = Date.now();
      cli.type('\u001b');
      await cli.until(/interrupted by .*: Bash nap/, 'the interrupt taken');
      const { exitCode, text } = await cli.end();
      expect(exitCode, text).toBe(0);
      expect(Date.now() - pressed).toBeLessThan(20_000);
      expect(processesWith(`sleep ${token}`)).toEqual([]);
      await expect(readFile(join(workspace, 'done.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
      expect(server.requests).toHaveLength(2);
      const second = server.requests[1]!;
      expect(toolResult(second.messages, 'nap').error.details).toMatchObject({ reason: 'interrupted' });
      expect(laterUserMessages(second)).toEqual([expect.stringMatching(/^\[The operator interrupted Bash nap\./)]);
      expect(text).toContain('Stopped.');
    } finally {
      await server.close();
    }
  });

  it('with --ask prompt, a typed "y" answers the approval prompt and is not sent as a message', async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'junk.txt'), 'junk\n');
    const server = await model([
      { tool_calls: [{ id: 'rm', name: 'Bash', arguments: { command: 'rm -f junk.txt' } }] },
      { content: 'Removed it.' },
    ]);
    try {
      const cli = runOnTerminal(target, [
        '--ask',
        'prompt',
        '--base-url',
        server.url,
        '--model',
        'm',
        '--cwd',
        workspace,
        'clean',
      ]);
      await cli.until(ATTACHED_HINT, 'the hint');
      await cli.until('approve rm? [y]es', 'the approval prompt');
      cli.type('y\r');
      const { exitCode, text } = await cli.end();
      expect(exitCode, text).toBe(0);
      await expect(readFile(join(workspace, 'junk.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
      expect(server.requests).toHaveLength(2);
      expect(toolResult(server.requests[1]!.messages, 'rm').status).toBe('success');
      expect(laterUserMessages(server.requests[1]!)).toEqual([]);
      expect(text).not.toMatch(/message .* queued/);
      expect(text).toContain('Removed it.');
    } finally {
      await server.close();
    }
  });
});
