// The embedded server's control plane against another local user, through the real CLI and a plain Temporal client
// (which anyone on the machine can open: the embedded server takes no credential). A run started without the
// operator's key does nothing at all; an approval or rejection the operator's CLI did not sign is refused, recorded
// and changes nothing; the operator's own runs, approvals, continuations, resets and forks keep working.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateOperatorKey } from '../../src/authorization/operator-key.js';
import { signControl, signRun } from '../../src/authorization/signing.js';
import { ensureDevServer, stopDevServer } from '../../src/dev-server/index.js';
import type { DevServerInfo } from '../../src/dev-server/index.js';
import { findTemporalBinary } from '../../src/host/temporal-binary.js';
import type { AgentInput } from '../../src/core/state.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import { stateQuery } from '../../src/protocol/run-messages.js';
import { durableAgentBin } from '../support/cli.js';
import { workspaceFrom } from '../support/harness.js';
import { findFreePorts } from '../support/ports.js';
import { pendingApproval, waitFor } from '../support/wait.js';

const TASK_QUEUE = 'durable-agent';

let stateDir: string;
let server: DevServerInfo;
let connection: Connection;
/** Another local user's client: the same server and task queue, and no key. */
let other: Client;

beforeAll(async () => {
  stateDir = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-control-'));
  const [port, httpPort] = (await findFreePorts(2)) as [number, number];
  server = await ensureDevServer({ stateDir, port, httpPort, headless: true, build: false, log: () => {} });
  connection = await Connection.connect({ address: server.address });
  other = new Client({ connection, namespace: server.namespace });
});

afterAll(async () => {
  await connection?.close();
  await stopDevServer({ stateDir, graceMs: 2_000 });
  await rm(stateDir, { recursive: true, force: true });
});

/** `durable-agent <args>` as the operator, against the embedded server of `stateDir`. */
function cli(args: string[]) {
  return execa(process.execPath, [durableAgentBin, ...args], {
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, DURABLE_AGENT_STATE_DIR: stateDir },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 90_000,
  });
}

/** The input a run's history starts with. */
async function startInputOf(workflowId: string, runId?: string): Promise<AgentInput> {
  const history = await other.workflow.getHandle(workflowId, runId).fetchHistory();
  const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
  return defaultPayloadConverter.fromPayload<AgentInput>(started.input!.payloads![0]!);
}

/** How a run started by `other` ended: its failure message. */
async function failureOf(workflowId: string): Promise<string> {
  const error = await other.workflow
    .getHandle(workflowId)
    .result()
    .then(
      () => undefined,
      (failure: unknown) => failure,
    );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  return String((error as WorkflowFailedError).cause?.message);
}

async function withModel<T>(script: ScriptTurn[], use: (url: string, requests: () => number) => Promise<T>) {
  const model = await startScriptedModelServer({ script });
  try {
    return await use(model.url, () => model.requests.length);
  } finally {
    await model.close();
  }
}

describe('a run started without the operator key', () => {
  it('does nothing: no MCP server starts, no model is called, and the run fails saying why', async () => {
    const workspace = await workspaceFrom();
    const marker = path.join(os.tmpdir(), `durable-agent-control-marker-${process.pid}-${Date.now()}`);
    try {
      await withModel(
        [
          { tool_calls: [{ id: 'w', name: 'WriteFile', arguments: { path: 'owned.txt', content: 'x' } }] },
          { content: 'done' },
        ],
        async (url, requests) => {
          // The operator's own run: signed by the CLI, served (and it brings the background worker up).
          const own = await cli(['run', '--cwd', workspace, '--ask', 'approve', '--json', '--base-url', url, 'write']);
          expect(own.exitCode, own.stderr).toBe(0);
          const { workflowId: ownId } = JSON.parse(own.stdout) as { workflowId: string };
          expect(existsSync(path.join(workspace, 'owned.txt'))).toBe(true);
          const callsBefore = requests();

          // Another user's run: an MCP server that would run as the operator, with `--ask approve`.
          const hostile: AgentInput = {
            task: 'take over',
            workspace,
            selection: { baseUrl: url, model: 'scripted' },
            maxSteps: 5,
            mode: 'default',
            askPolicy: 'approve',
            mcpServers: { probe: { command: 'sh', args: ['-c', `touch ${marker}; sleep 5`] } },
          };
          const unsigned = `other-unsigned-${Date.now()}`;
          await other.workflow.start('agentWorkflow', { workflowId: unsigned, taskQueue: TASK_QUEUE, args: [hostile] });
          expect(await failureOf(unsigned)).toMatch(/acts only for runs its operator started.*carries no proof/);

          // A proof made up, and the operator's real proof copied from history onto another run and onto a new run of
          // the same id (the operator's has finished, so the id is free again).
          const forged = `other-forged-${Date.now()}`;
          await other.workflow.start('agentWorkflow', {
            workflowId: forged,
            taskQueue: TASK_QUEUE,
            args: [{ ...hostile, authorization: { issuedAt: Date.now(), mac: 'ab'.repeat(32) } }],
          });
          expect(await failureOf(forged)).toMatch(/does not match its input or was not signed with this key/);
          const ownInput = await startInputOf(ownId);
          expect(ownInput.authorization?.mac).toMatch(/^[0-9a-f]{64}$/);
          const copied = `other-copied-${Date.now()}`;
          await other.workflow.start('agentWorkflow', { workflowId: copied, taskQueue: TASK_QUEUE, args: [ownInput] });
          // The workflow signs nothing itself: it carries the proof for the id it runs under, which the key did not sign.
          expect(await failureOf(copied)).toMatch(/does not match its input or was not signed with this key/);
          await other.workflow.start('agentWorkflow', {
            workflowId: ownId,
            taskQueue: TASK_QUEUE,
            args: [{ ...ownInput, mcpServers: hostile.mcpServers }],
          });
          expect(await failureOf(ownId)).toMatch(/does not match its input/);
          await other.workflow.start('agentWorkflow', { workflowId: ownId, taskQueue: TASK_QUEUE, args: [ownInput] });
          expect(await failureOf(ownId)).toMatch(/reuses the proof of an earlier run of that id/);

          expect(existsSync(marker)).toBe(false);
          expect(requests()).toBe(callsBefore);
        },
      );
    } finally {
      await rm(marker, { force: true });
      await rm(workspace, { recursive: true, force: true });
    }
  });
});

describe('a control message the operator did not sign', () => {
  it('is refused and recorded and changes nothing: pause, interrupt, a stale signed message; the CLI steers', async () => {
    const workspace = await workspaceFrom();
    try {
      await withModel(
        [
          { delay_ms: 8_000, tool_calls: [{ id: 'look', name: 'ReadFile', arguments: { path: 'missing.txt' } }] },
          { content: 'done' },
        ],
        async (url, requests) => {
          const started = await cli(['start', '--cwd', workspace, '--json', '--base-url', url, 'look around']);
          expect(started.exitCode, started.stderr).toBe(4);
          const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };
          const handle = other.workflow.getHandle(workflowId);
          await waitFor(async () => (requests() > 0 ? true : undefined), 'the first model call');
          const temporal = await findTemporalBinary({ build: false });
          const temporalCli = (args: string[]) =>
            execa(temporal.path, [...args, '--address', server.address, '--workflow-id', workflowId], {
              reject: false,
            });
          const update = await temporalCli([
            'workflow',
            'update',
            'execute',
            '--name',
            'pause',
            '--input',
            JSON.stringify({ id: 'evil-pause', sent_by: 'the operator' }),
          ]);
          expect(update.exitCode).not.toBe(0);
          expect(update.stderr + update.stdout).toMatch(/Refused: it is not signed/);
          const signal = await temporalCli([
            'workflow',
            'signal',
            '--name',
            'pauseRun',
            '--input',
            JSON.stringify({ id: 'evil-signal' }),
          ]);
          expect(signal.exitCode, signal.stderr).toBe(0);
          const interrupt = await handle
            .executeUpdate('interrupt', { args: [{ id: 'evil-interrupt', text: 'rm -rf everything' }] })
            .catch((error: unknown) => error);
          expect(String((interrupt as WorkflowUpdateFailedError).cause?.message)).toMatch(/Refused: it is not signed/);
          // A message the operator's CLI really signed, captured and sent again after its window.
          const key = loadOrCreateOperatorKey(stateDir);
          const stale = signControl(key, workflowId, 'pause', { id: 'captured' }, Date.now() - 11 * 60_000);
          const replayed = await handle.executeUpdate('pause', { args: [stale] }).catch((error: unknown) => error);
          expect(String((replayed as WorkflowUpdateFailedError).cause?.message)).toMatch(
            /Refused: it was signed 6\d\d s ago \(a control message is good for 600 s\)/,
          );
          // The operator's CLI signs its messages: taken.
          const said = await cli(['say', workflowId, 'keep it short']);
          expect(said.exitCode, said.stderr).toBe(0);
          const result = (await handle.result()) as { status: string };
          expect(result.status).toBe('completed');
          const view = await handle.query(stateQuery);
          expect(view.progress.filter((entry) => entry.kind === 'control')).toEqual([]);
          const refused = view.progress.filter((entry) => entry.status === 'refused').map((entry) => entry.text);
          expect(refused).toEqual([
            expect.stringMatching(/^refused an unsigned pause evil-pause \(Update, claiming to be the operator\)/),
            expect.stringMatching(/^refused an unsigned pause evil-signal \(Signal\)/),
            expect.stringMatching(/^refused an unsigned interrupt evil-interrupt \(Update\)/),
            expect.stringMatching(/^refused a badly signed pause captured \(Update\): it was signed/),
          ]);
          expect(requests()).toBe(2);
        },
      );
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  });
});

describe('a decision the operator did not sign', () => {
  it('is refused and recorded, and the call stays pending; the CLI approves and denies as before', async () => {
    const workspace = await workspaceFrom();
    await mkdir(path.join(workspace, 'build'));
    await writeFile(path.join(workspace, 'build', 'keep.txt'), 'precious\n');
    await mkdir(path.join(workspace, 'src'));
    try {
      await withModel(
        [
          { tool_calls: [{ id: 'wipe', name: 'Bash', arguments: { command: 'rm -rf build' } }] },
          // The same call id for another command: the operator's signed approval of the first is no approval of it.
          { tool_calls: [{ id: 'wipe', name: 'Bash', arguments: { command: 'rm -rf src' } }] },
          { content: 'done' },
        ],
        async (url) => {
          const started = await cli([
            'start',
            '--cwd',
            workspace,
            '--json',
            '--ask',
            'wait',
            '--base-url',
            url,
            'tidy',
          ]);
          expect(started.exitCode, started.stderr).toBe(4);
          const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };
          const handle = other.workflow.getHandle(workflowId);
          await pendingApproval(other, workflowId, 'wipe');

          // The Web UI's and `temporal workflow signal`'s Signal, and an Update without a signature or with a made-up one.
          await handle.signal('toolDecision', { tool_call_id: 'wipe', decision: 'approve', decided_by: 'web-ui' });
          const unsigned = await handle
            .executeUpdate('approveToolCall', { args: [{ tool_call_id: 'wipe', decision: 'approve' }] })
            .catch((error: unknown) => error);
          expect(unsigned).toBeInstanceOf(WorkflowUpdateFailedError);
          expect(String((unsigned as WorkflowUpdateFailedError).cause?.message)).toMatch(/Refused: it is not signed/);
          const forged = await handle
            .executeUpdate('approveToolCall', {
              args: [
                {
                  tool_call_id: 'wipe',
                  decision: 'approve',
                  signature: { issuedAt: Date.now(), mac: 'cd'.repeat(32) },
                },
              ],
            })
            .catch((error: unknown) => error);
          expect(String((forged as WorkflowUpdateFailedError).cause?.message)).toMatch(
            /Refused: its signature is not the operator's for this call/,
          );
          const temporal = await findTemporalBinary({ build: false });
          await execa(temporal.path, [
            'workflow',
            'signal',
            '--address',
            server.address,
            '--workflow-id',
            workflowId,
            '--name',
            'toolDecision',
            '--input',
            JSON.stringify({ tool_call_id: 'wipe', decision: 'reject' }),
          ]);

          // A web page's simple cross-site POST to the server's HTTP API, if the API takes it at all.
          const post = await fetch(
            `${server.httpUrl}/api/v1/namespaces/${server.namespace}/workflows/${workflowId}/signal/toolDecision`,
            {
              method: 'POST',
              headers: { 'content-type': 'text/plain', origin: 'http://evil.example' },
              body: JSON.stringify({
                input: [{ tool_call_id: 'wipe', decision: 'approve', decided_by: 'a web page' }],
              }),
            },
          ).catch(() => undefined);
          const expected = post?.ok ? 5 : 4;

          const refusals = await waitFor(async () => {
            const view = await handle.query(stateQuery);
            const lines = view.progress.filter((entry) => entry.status === 'refused').map((entry) => entry.text);
            return lines.length === expected ? lines : undefined;
          }, `${expected} refusals`);
          expect(refusals.slice(0, 4)).toEqual([
            expect.stringMatching(/^refused an unsigned approval of wipe \(Signal, claiming to be web-ui\)/),
            expect.stringMatching(/^refused an unsigned approval of wipe \(Update\)/),
            expect.stringMatching(/^refused a badly signed approval of wipe \(Update\)/),
            expect.stringMatching(/^refused an unsigned rejection of wipe \(Signal\)/),
          ]);
          if (post?.ok)
            expect(refusals[4]).toMatch(/^refused an unsigned approval of wipe \(Signal, claiming to be a web page\)/);
          expect((await handle.query(stateQuery)).pendingApprovals.map((entry) => entry.command)).toEqual([
            'rm -rf build',
          ]);
          expect(existsSync(path.join(workspace, 'build', 'keep.txt'))).toBe(true);
          const status = await cli(['status', workflowId, '--json']);
          expect(JSON.parse(status.stdout).refusedDecisions).toEqual(refusals);
          expect((await cli(['status', workflowId])).stdout).toMatch(/refused .*refused an unsigned approval of wipe/);

          const approved = await cli(['approve', workflowId, 'wipe']);
          expect(approved.exitCode, approved.stderr).toBe(0);
          await waitFor(async () => (existsSync(path.join(workspace, 'build')) ? undefined : true), 'build removed');

          // The operator's signed approval, read from history and replayed onto the next call with the same id.
          await waitFor(async () => {
            const view = await handle.query(stateQuery);
            return view.pendingApprovals.find((entry) => entry.command === 'rm -rf src');
          }, 'the second call pending');
          const history = await handle.fetchHistory();
          const operatorDecision = history
            .events!.flatMap((event) => {
              const input = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.args;
              return input ? [defaultPayloadConverter.fromPayload<{ decided_by?: string }>(input.payloads![0]!)] : [];
            })
            .find((decision) => decision.decided_by !== undefined)!;
          expect(operatorDecision).toMatchObject({ tool_call_id: 'wipe', signature: { mac: expect.any(String) } });
          const replayed = await handle
            .executeUpdate('approveToolCall', { args: [operatorDecision] })
            .catch((error: unknown) => error);
          expect(String((replayed as WorkflowUpdateFailedError).cause?.message)).toMatch(
            /its signature is not the operator's for this call/,
          );
          expect(existsSync(path.join(workspace, 'src'))).toBe(true);

          const denied = await cli(['deny', workflowId, 'wipe']);
          expect(denied.exitCode, denied.stderr).toBe(0);
          expect((await handle.result()).status).toBe('completed');
          expect(existsSync(path.join(workspace, 'src'))).toBe(true);
        },
      );
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  });
});

describe('run --ask prompt', () => {
  it('sends a signed approval from the terminal that follows the run', async () => {
    const workspace = await workspaceFrom();
    await mkdir(path.join(workspace, 'build'));
    try {
      await withModel(
        [{ tool_calls: [{ id: 'wipe', name: 'Bash', arguments: { command: 'rm -rf build' } }] }, { content: 'done' }],
        async (url) => {
          // `script` gives the CLI a terminal; the answer is typed once the prompt shows.
          const command = [process.execPath, durableAgentBin, 'run', '--cwd', workspace, '--base-url', url, 'tidy']
            .map((word) => `'${word}'`)
            .join(' ');
          const run = execa('script', ['-qefc', command, '/dev/null'], {
            env: { PATH: process.env.PATH!, HOME: process.env.HOME!, DURABLE_AGENT_STATE_DIR: stateDir },
            extendEnv: false,
            reject: false,
            timeout: 90_000,
          });
          let output = '';
          run.stdout.on('data', (chunk: Buffer) => {
            output += chunk.toString();
            if (/approve wipe\? \[y\]es/.test(output) && !output.includes('\u0000typed')) {
              output += '\u0000typed';
              run.stdin.write('y\r');
            }
          });
          const result = await run;
          expect(result.exitCode, output).toBe(0);
          expect(output).toContain('done');
          expect(output).not.toContain('could not record the decision');
          expect(existsSync(path.join(workspace, 'build'))).toBe(false);
        },
      );
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  });
});

describe("the operator's runs", () => {
  it('keep working across continue-as-new, a reset and a fork', async () => {
    const workspace = await workspaceFrom();
    for (const step of [1, 2, 3]) await writeFile(path.join(workspace, `f${step}.txt`), `file ${step}\n`);
    const reads: ScriptTurn[] = [1, 2, 3].map((step) => ({
      tool_calls: [{ id: `read${step}`, name: 'ReadFile', arguments: { path: `f${step}.txt` } }],
    }));
    try {
      await withModel(
        [...reads, { content: 'first' }, ...reads.slice(1), { content: 'after reset' }, { content: 'forked' }],
        async (url) => {
          // Signed with the key as the CLI signs (the CLI has no flag for continuing as new after every step).
          const key = loadOrCreateOperatorKey(stateDir);
          const workflowId = `operator-chain-${Date.now()}`;
          const input: AgentInput = {
            task: 'read three files',
            workspace,
            selection: { baseUrl: url, model: 'scripted' },
            maxSteps: 10,
            mode: 'default',
            askPolicy: 'deny',
            continueAsNewEverySteps: 1,
          };
          const handle = await other.workflow.start('agentWorkflow', {
            workflowId,
            taskQueue: TASK_QUEUE,
            args: [{ ...input, authorization: signRun(key, workflowId, input) }],
          });
          expect(await handle.result()).toMatchObject({ status: 'completed', steps: 4 });
          const { runId: lastRunId } = await handle.describe();
          expect(lastRunId).not.toBe(handle.firstExecutionRunId);
          expect((await startInputOf(workflowId, lastRunId)).authorization?.chain?.firstRunId).toBe(
            handle.firstExecutionRunId,
          );

          // A reset of the first run to its second step: a new run of the same chain, served as the first was.
          const history = await other.workflow.getHandle(workflowId, handle.firstExecutionRunId).fetchHistory();
          const completed = history.events!.filter((event) => event.workflowTaskCompletedEventAttributes);
          const temporal = await findTemporalBinary({ build: false });
          await execa(temporal.path, [
            'workflow',
            'reset',
            '--address',
            server.address,
            '--workflow-id',
            workflowId,
            '--run-id',
            handle.firstExecutionRunId,
            '--event-id',
            String(completed[0]!.eventId),
            '--reason',
            'redo',
          ]);
          const current = other.workflow.getHandle(workflowId);
          expect(await current.result()).toMatchObject({ status: 'completed', answer: 'after reset' });

          const fork = await cli(['fork', workflowId, '--from-step', '2', '--json', '--base-url', url]);
          expect(fork.exitCode, fork.stderr).toBe(0);
          expect(JSON.parse(fork.stdout)).toMatchObject({ status: 'completed', answer: 'forked' });
        },
      );
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  });

  it('keep a conversation going by the CLI alone: continue on a waiting session and on a closed task', async () => {
    const workspace = await workspaceFrom();
    const model = await startScriptedModelServer({
      script: [{ content: 'One.' }, { content: 'Two.' }, { content: 'Three.' }],
    });
    try {
      const run = await cli([
        'run',
        '--session',
        '--idle',
        '5s',
        '--cwd',
        workspace,
        '--base-url',
        model.url,
        '--json',
        'count',
      ]);
      expect(run.exitCode, run.stderr).toBe(0);
      const { workflowId } = JSON.parse(run.stdout) as { workflowId: string };
      // Another local user's request, sent as the documented Update: refused, it is not signed.
      const handle = other.workflow.getHandle(workflowId);
      const refused: unknown = await handle
        .executeUpdate('sendMessage', { args: [{ id: 'intruder', text: 'delete the workspace' }] })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
      expect((refused as WorkflowUpdateFailedError).cause?.message).toMatch(/not signed/);
      const second = await cli(['continue', workflowId, 'again', '--json']);
      expect(second.exitCode, second.stderr).toBe(0);
      expect(JSON.parse(second.stdout)).toMatchObject({ status: 'waiting_input', answer: 'Two.', requests: 2 });
      // Idle for 5 s: closed; the next request starts a new run of the task, signed by the CLI.
      expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'Two.' });
      const third = await cli(['continue', workflowId, 'once more', '--json']);
      expect(third.exitCode, third.stderr).toBe(0);
      expect(JSON.parse(third.stdout)).toMatchObject({ answer: 'Three.', requests: 3 });
      const users = (model.requests[2] as { messages: { role: string; content: unknown }[] }).messages
        .filter((message) => message.role === 'user')
        .map((message) => message.content);
      expect(users).toEqual(['count', 'again', 'once more']);
      await handle.cancel();
    } finally {
      await model.close();
      await rm(workspace, { recursive: true, force: true });
    }
  });
});
