// The embedded server's background worker, through the real CLI: it is started with a defined environment (a secret
// in the caller's shell never reaches it, so no command can read it from its parent), and an attached CLI keeps it
// alive (a killed worker is restarted and the run completes).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workerProcessCommand } from '../../src/cli/worker-command.js';
import { ensureDevServer, ensureDevWorker, stopDevServer } from '../../src/dev-server/index.js';
import { readRecord } from '../../src/dev-server/state-record.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { RecordedRequest, ScriptTurn } from '../../src/scripted-model/server.js';
import { durableAgentBin } from '../support/cli.js';
import { workspaceFrom } from '../support/harness.js';
import { findFreePorts } from '../support/ports.js';
import { waitFor } from '../support/wait.js';

const repository = fileURLToPath(new URL('../..', import.meta.url));
let stateDir: string;

beforeAll(async () => {
  stateDir = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-embedded-'));
  const [port, httpPort] = (await findFreePorts(2)) as [number, number];
  await ensureDevServer({ stateDir, port, httpPort, headless: true, build: false, log: () => {} });
});

afterAll(async () => {
  await stopDevServer({ stateDir, graceMs: 2_000 });
  await rm(stateDir, { recursive: true, force: true });
});

/**
 * `durable-agent <args>` against the embedded server of `stateDir`, with the caller environment `env` and no other;
 * killed after 90 s, so a run that never completes fails the test instead of outliving it.
 */
function cli(args: string[], env: Record<string, string> = {}) {
  return execa(process.execPath, [durableAgentBin, ...args], {
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, DURABLE_AGENT_STATE_DIR: stateDir, ...env },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 90_000,
  });
}

/** The standard output of the Bash call whose result the model was sent last. */
function lastBashStdout(request: RecordedRequest): string {
  const tool = request.messages.filter((message) => message.role === 'tool').at(-1);
  const envelope = JSON.parse(String(tool?.content)) as { data: { stdout: string } };
  return envelope.data.stdout;
}

// Prints the command's own environment, then its parent's (the worker's), as any command of the worker could.
const SHOW_ENVIRONMENTS = "env; echo '--- worker ---'; tr '\\0' '\\n' < /proc/$PPID/environ";

async function showEnvironments(env: Record<string, string>, runOptions: string[] = []) {
  const workspace = await workspaceFrom();
  const model = await startScriptedModelServer({
    script: [
      { tool_calls: [{ id: 'env', name: 'Bash', arguments: { command: SHOW_ENVIRONMENTS } }] },
      { content: 'shown' },
    ],
  });
  try {
    const run = await cli(
      ['run', ...runOptions, '--cwd', workspace, '--ask', 'approve', '--json', '--base-url', model.url, 'show env'],
      env,
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed', answer: 'shown' });
    return { output: lastBashStdout(model.requests[1]!), stderr: run.stderr };
  } finally {
    await model.close();
    await rm(workspace, { recursive: true, force: true });
  }
}

describe("the background worker's environment", () => {
  it("holds no secret of the caller's shell: neither a command nor the worker behind it has GITHUB_PAT", async () => {
    const { output } = await showEnvironments({ GITHUB_PAT: 'pat-of-the-shell', PGPASSWORD: 'pg-of-the-shell' });

    // The command (sandboxed: its /proc/$PPID is the sandbox's own) and, read from the host, the worker itself.
    expect(output).toContain('--- worker ---');
    const worker = await readFile(`/proc/${(await readRecord(stateDir)).worker!.pid}/environ`, 'utf8');
    expect(worker).toContain(`DURABLE_AGENT_STATE_DIR=${stateDir}`);
    for (const environment of [output, worker]) {
      expect(environment).not.toContain('pat-of-the-shell');
      expect(environment).not.toContain('pg-of-the-shell');
    }
  });

  it('passes the variables DURABLE_AGENT_ENV_PASS names on to commands, replacing a worker started without them', async () => {
    const { output, stderr } = await showEnvironments({
      DURABLE_AGENT_ENV_PASS: 'GITHUB_PAT',
      GITHUB_PAT: 'pat-passed-on',
      PGPASSWORD: 'pg-of-the-shell',
    });

    expect(stderr).toMatch(/Replacing the background worker \(pid \d+\): its command or configuration changed/);
    const [command] = output.split('--- worker ---');
    expect(command).toContain('GITHUB_PAT=pat-passed-on');
    expect(output).not.toContain('pg-of-the-shell');
  });
});

describe('run --env-pass with the embedded worker', () => {
  it("hands that run's commands the named variable of the caller's shell, and nothing else of it", async () => {
    const { output } = await showEnvironments({ GITHUB_PAT: 'pat-for-this-run', PGPASSWORD: 'pg-of-the-shell' }, [
      '--env-pass',
      'GITHUB_PAT',
    ]);
    const [command] = output.split('--- worker ---');
    expect(command).toContain('GITHUB_PAT=pat-for-this-run');
    expect(output).not.toContain('pg-of-the-shell');
  });

  it("refuses a name that is not set in the shell, and the worker's own credentials", async () => {
    const unset = await cli(['run', '--env-pass', 'NOT_SET_ANYWHERE', 'task']);
    expect(unset.exitCode).toBe(2);
    expect(unset.stderr).toMatch(/NOT_SET_ANYWHERE is not set/);
    const own = await cli(['run', '--env-pass', 'OPENAI_API_KEY', 'task'], { OPENAI_API_KEY: 'k' });
    expect(own.exitCode).toBe(2);
    expect(own.stderr).toMatch(/OPENAI_API_KEY is one of the worker's own settings/);
  });
});

// `run` follows the run it started over the HTTP API when a worker of its configuration was running already, and
// over the client when it had to start one first: each path supervises the worker its own way.
describe.each([
  ['a worker of its configuration was running', true],
  ['it started the worker itself', false],
])('supervision of the background worker, when %s', (_when, workerReady) => {
  it('restarts a killed worker while `run` is attached, and the run completes', { timeout: 180_000 }, async () => {
    // The same variables as cli() gives the run, or one more that is part of the worker's configuration.
    const env = { PATH: process.env.PATH!, HOME: process.env.HOME!, DURABLE_AGENT_STATE_DIR: stateDir };
    const workerEnv = workerReady ? env : { ...env, DURABLE_AGENT_ENV_PASS: 'SUPERVISION_TEST' };
    await ensureDevWorker({ stateDir, command: workerProcessCommand(), env: workerEnv, log: () => {} });
    const workerBefore = (await readRecord(stateDir)).worker!.pid;
    const workspace = await workspaceFrom();
    const script: ScriptTurn[] = [
      // Claimed by the attempt whose worker is killed; it never answers that attempt.
      { content: 'lost with the killed worker', delay_ms: 120_000 },
      { content: 'answered after the restart' },
    ];
    const model = await startScriptedModelServer({ script });
    try {
      const run = cli(['run', '--cwd', workspace, '--base-url', model.url, 'answer slowly']);
      let stderr = '';
      let restartedAt: number | undefined;
      run.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (restartedAt === undefined && /restarted as pid/.test(stderr)) restartedAt = Date.now();
      });
      // The model call is in flight in the worker.
      await waitFor(async () => (model.requests.length > 0 ? true : undefined), 'the first model call', {
        timeoutMs: 90_000,
      });
      const killed = (await readRecord(stateDir)).worker!;
      // The run started with the worker that was running, or replaced it with one of its own configuration.
      expect(killed.pid === workerBefore).toBe(workerReady);
      process.kill(killed.pid, 'SIGKILL');
      const killedAt = Date.now();

      const result = await run;
      const completedMs = Date.now() - killedAt;
      const restartMs = restartedAt === undefined ? undefined : restartedAt - killedAt;

      expect(result.exitCode, stderr).toBe(0);
      expect(result.stdout).toContain('answered after the restart');
      const restarted = new RegExp(`background worker \\(pid ${killed.pid}\\) exited; restarted as pid (\\d+)`).exec(
        stderr,
      );
      expect(restarted, stderr).not.toBeNull();
      expect((await readRecord(stateDir)).worker!.pid).toBe(Number(restarted![1]));
      // The check runs every 2 s; the retried model call waits for the first attempt's heartbeat timeout (30 s).
      expect(restartMs).toBeLessThan(5_000);
      expect(completedMs).toBeLessThan(45_000);
    } finally {
      await model.close();
      await rm(workspace, { recursive: true, force: true });
    }
  });
});

describe('start of the background worker', () => {
  it('takes the workflows from the bundle the build made, so it polls without bundling first', async () => {
    const workspace = await workspaceFrom();
    const model = await startScriptedModelServer({ script: [{ content: 'done' }] });
    try {
      const result = await cli(['run', '--cwd', workspace, '--base-url', model.url, 'answer']);
      expect(result.exitCode, result.stderr).toBe(0);
      const log = await readFile(path.join(stateDir, 'logs', 'worker.log'), 'utf8');
      expect(log).toContain(`worker: workflows from the bundle ${path.join(repository, 'dist', 'workflow-bundle.js')}`);
      expect(log).not.toContain('workflows bundled at start');
    } finally {
      await model.close();
      await rm(workspace, { recursive: true, force: true });
    }
  });
});
