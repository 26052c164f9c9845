import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BASH_ENV_ADDITIONS,
  createBashExecutor,
  commandEnvironment,
  ENV_PASS_VARIABLE,
} from '../../src/activities/executors/bash.js';
import {
  STREAM_CHAR_CAP,
  STREAM_HEAD_CHARS,
  STREAM_TAIL_CHARS,
  capStream,
  formatOutputSpill,
} from '../../src/activities/executors/bash-output.js';
import type { RunToolOptions } from '../../src/activities/run-tool.js';
import { runTool } from '../../src/activities/run-tool.js';
import type { ToolActivityInput, ToolActivityResult } from '../../src/protocol/tool-activity.js';
import { envelopeSize } from '../../src/protocol/envelope.js';
import { commandHomeDirectory, workspaceDataDirectory } from '../../src/activities/worker-data.js';
import { makeExecutorContext } from './executor-context.js';

// The executor's own process handling, without the OS sandbox; bash-sandbox.test.ts runs commands inside it.
const executeBash = createBashExecutor({ kind: 'off' });

let workspace: string;

beforeEach(async () => {
  workspace = await mkdtemp(path.join(os.tmpdir(), 'bash-tool-'));
});

afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function runBash(
  input: { command: string; cwd?: string; timeout_ms?: number },
  overrides: Partial<ToolActivityInput> = {},
  options: RunToolOptions = {},
): Promise<ToolActivityResult> {
  const full = { cwd: '.', timeout_ms: 20_000, ...input };
  return runTool(
    'Bash',
    executeBash,
    {
      taskId: 'task-b',
      turn: 1,
      index: 0,
      callId: 'call_1',
      workspace,
      input: full,
      paramsInput: full,
      maximumAttempts: 1,
      ...overrides,
    },
    options,
  );
}

/** A pid counts as gone once it no longer exists or is only an unreaped zombie. */
async function isAlive(pid: number): Promise<boolean> {
  try {
    const status = await readFile(`/proc/${pid}/stat`, 'utf8');
    return status.slice(status.lastIndexOf(')') + 2, status.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function waitUntilGone(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (!(await isAlive(pid))) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return !(await isAlive(pid));
}

describe('Bash exit status', () => {
  it('exit 0 is success with separate streams, exact data keys and no output in the text', async () => {
    const { envelope } = await runBash({ command: 'echo out; echo err >&2' });
    expect(envelope.status).toBe('success');
    expect(Object.keys(envelope.data)).toEqual([
      'command',
      'cwd',
      'exit_code',
      'signal',
      'timed_out',
      'stdout',
      'stderr',
      'stdout_truncated',
      'stderr_truncated',
      'classification',
    ]);
    expect(envelope.data).toMatchObject({
      command: 'echo out; echo err >&2',
      cwd: '.',
      exit_code: 0,
      signal: null,
      timed_out: false,
      stdout: 'out\n',
      stderr: 'err\n',
      stdout_truncated: false,
      stderr_truncated: false,
      classification: { level: 'unclassified', rule: 'none' },
    });
    expect(envelope.stats).toMatchObject({ stdout_bytes: 4, stderr_bytes: 4 });
    expect(envelope.stats.time_ms).toBeGreaterThanOrEqual(1);
    expect(envelope.text).toMatch(/^Command exited with code 0 in \d+ ms\.$/);
    expect(envelope.context.params_input).toMatchObject({ command: 'echo out; echo err >&2' });
  });

  it('a non-zero exit is partial, not an error', async () => {
    const { envelope } = await runBash({ command: 'echo some; exit 3' });
    expect(envelope.status).toBe('partial');
    expect(envelope.error).toBeUndefined();
    expect(envelope.data.exit_code).toBe(3);
    expect(envelope.text).toMatch(/^Command exited with code 3 in \d+ ms\.$/);
  });

  it('a command killed by a signal (not by the timeout) is partial with the signal', async () => {
    const { envelope } = await runBash({ command: 'kill -KILL $$' });
    expect(envelope.status).toBe('partial');
    expect(envelope.data).toMatchObject({ exit_code: null, signal: 'SIGKILL', timed_out: false });
    expect(envelope.text).toMatch(/^Command was killed by signal SIGKILL after \d+ ms\.$/);
  });

  it('empty output keeps the exit data: empty normalisation does not apply to Bash', async () => {
    const { envelope } = await runBash({ command: 'true' });
    expect(envelope.status).toBe('success');
    expect(envelope.text).toMatch(/^Command exited with code 0/);
    expect(envelope.data).toMatchObject({ stdout: '', stderr: '', exit_code: 0 });
  });

  it('runs with stdin at /dev/null, so reading stdin ends at once', async () => {
    const { envelope } = await runBash({ command: 'cat; wc -c', timeout_ms: 5_000 });
    expect(envelope.status).toBe('success');
    expect((envelope.data.stdout as string).trim()).toBe('0');
  });

  it('echoes the classification the permission gate decided', async () => {
    const { envelope } = await runBash(
      { command: 'ls' },
      { classification: { level: 'read_only', rule: 'read_only_command' } },
    );
    expect(envelope.data.classification).toEqual({ level: 'read_only', rule: 'read_only_command' });
  });

  it('reports a shell that cannot be started as EXECUTION_ERROR', async () => {
    const savedPath = process.env.PATH;
    process.env.PATH = path.join(workspace, 'no-bin-here');
    try {
      const { envelope } = await runBash({ command: 'echo hi' });
      expect(envelope.status).toBe('error');
      expect(envelope.error?.code).toBe('EXECUTION_ERROR');
      expect(envelope.text).toMatch(/^Failed to start bash: .*ENOENT/);
    } finally {
      process.env.PATH = savedPath;
    }
  });
});

describe('Bash environment', () => {
  it("gives a command none of the worker's secrets: `env` shows the allowlist, the named variables and the additions", async () => {
    const added = {
      PGPASSWORD: 'pw',
      DATABASE_URL: 'postgres://u:pw@db/x',
      GITHUB_PAT: 'ghp_x',
      STRIPE_KEY: 'sk_live_x',
      MYSQL_PWD: 'pw',
      SSH_AUTH_SOCK: '/tmp/agent.sock',
      TEMPORAL_ADDRESS: 'host:7233',
      KEEP_ME: 'kept',
      [ENV_PASS_VARIABLE]: 'KEEP_ME',
    };
    Object.assign(process.env, added);
    try {
      const { envelope } = await runBash({ command: 'env' });
      const names = String(envelope.data.stdout)
        .split('\n')
        .map((line) => line.split('=')[0]);
      for (const name of [
        'PGPASSWORD',
        'DATABASE_URL',
        'GITHUB_PAT',
        'STRIPE_KEY',
        'MYSQL_PWD',
        'SSH_AUTH_SOCK',
        'TEMPORAL_ADDRESS',
        'OPENAI_API_KEY',
      ]) {
        expect(names, name).not.toContain(name);
      }
      expect(names).toEqual(
        expect.arrayContaining(['KEEP_ME', 'PATH', 'CI', 'TERM', 'GIT_TERMINAL_PROMPT', 'PAGER', 'AGENT_WORKER']),
      );
    } finally {
      for (const name of Object.keys(added)) delete process.env[name];
    }
  });

  it('commandEnvironment passes an allowlist, and only the names the operator adds', () => {
    const worker = {
      OPENAI_API_KEY: 'k',
      DATABASE_URL: 'postgres://u:pw@db/x',
      PGPASSWORD: 'pw',
      GITHUB_PAT: 'ghp',
      STRIPE_KEY: 'sk',
      MYSQL_PWD: 'pw',
      SSH_AUTH_SOCK: '/tmp/agent.sock',
      TEMPORAL_NAMESPACE: 'default',
      HOME: '/home/u',
      PATH: '/usr/bin',
      LC_ALL: 'C.UTF-8',
      CI: '0',
    };
    expect(commandEnvironment(worker)).toEqual({
      PATH: '/usr/bin',
      LC_ALL: 'C.UTF-8',
      ...BASH_ENV_ADDITIONS,
    });
    expect(commandEnvironment({ ...worker, [ENV_PASS_VARIABLE]: 'DATABASE_URL, MYSQL_PWD' })).toMatchObject({
      DATABASE_URL: 'postgres://u:pw@db/x',
      MYSQL_PWD: 'pw',
    });
  });

  it("a run's --env-pass names add worker variables, but never the worker's own credentials and settings", () => {
    const worker = { PATH: '/usr/bin', NPM_TOKEN: 'npm_x', OPENAI_API_KEY: 'k', AWS_SECRET_ACCESS_KEY: 's' };
    const names = ['NPM_TOKEN', 'OPENAI_API_KEY', 'AWS_SECRET_ACCESS_KEY', 'TEMPORAL_API_KEY'];
    const env = commandEnvironment(worker, { runNames: names });
    expect(env.NPM_TOKEN).toBe('npm_x');
    expect(Object.keys(env)).not.toEqual(expect.arrayContaining(['OPENAI_API_KEY']));
    expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
    expect(commandEnvironment({ ...worker, [ENV_PASS_VARIABLE]: 'OPENAI_API_KEY' }).OPENAI_API_KEY).toBe('k');
  });

  it("HOME is the commands' own, in the worker's data directory: neither the worker's nor inside the workspace", async () => {
    const dataDir = `${workspace}-data`;
    const { envelope } = await runBash({ command: 'echo "$HOME"; touch ~/.probe' }, {}, { dataDir });
    const home = commandHomeDirectory(workspaceDataDirectory(dataDir, await realpath(workspace)));
    expect(envelope.data.stdout).toBe(`${home}\n`);
    await expect(readFile(path.join(home, '.probe'), 'utf8')).resolves.toBe('');
    await expect(readFile(path.join(workspace, '.agent', 'home', '.probe'), 'utf8')).rejects.toThrow(/ENOENT/);
    await rm(dataDir, { recursive: true, force: true });
  });
});

describe('Bash cwd', () => {
  it('runs in a subdirectory and reports it as the cwd', async () => {
    await mkdir(path.join(workspace, 'src'));
    const { envelope } = await runBash({ command: 'basename "$PWD"', cwd: 'src' });
    expect(envelope.data.stdout).toBe('src\n');
    expect(envelope.data.cwd).toBe('src');
    expect(envelope.context.cwd).toBe('src');
  });

  it('rejects a cwd outside the workspace without spawning', async () => {
    const { envelope } = await runBash({ command: 'touch escaped', cwd: '..' });
    expect(envelope.error?.code).toBe('ACCESS_DENIED');
    expect(envelope.text).toBe("Path '..' is outside the workspace.");
    const absolute = await runBash({ command: 'true', cwd: os.tmpdir() });
    expect(absolute.envelope.error?.code).toBe('ACCESS_DENIED');
  });

  it('reports a missing cwd as NOT_FOUND and a file as not_a_directory', async () => {
    await writeFile(path.join(workspace, 'file.txt'), 'x');
    const missing = await runBash({ command: 'true', cwd: 'nope' });
    expect(missing.envelope.error?.code).toBe('NOT_FOUND');
    const file = await runBash({ command: 'true', cwd: 'file.txt' });
    expect(file.envelope.error?.code).toBe('INVALID_PARAM');
    expect(file.envelope.error?.details).toMatchObject({ reason: 'not_a_directory' });
  });
});

describe('Bash timeout and cancellation', () => {
  it('a timeout kills the whole process group, background grandchildren included', async () => {
    const { envelope } = await runBash({ command: 'sleep 30 & echo $!; wait', timeout_ms: 500 });
    expect(envelope.status).toBe('partial');
    expect(envelope.data.timed_out).toBe(true);
    expect(envelope.data.signal).toBe('SIGTERM');
    expect(envelope.text).toMatch(/^Command timed out after 500 ms and was killed/);
    const grandchild = Number((envelope.data.stdout as string).trim());
    expect(grandchild).toBeGreaterThan(1);
    expect(await waitUntilGone(grandchild, 3_000)).toBe(true);
  });

  it('a descendant that ignores SIGTERM is SIGKILLed after the grace period', async () => {
    const { envelope } = await runBash({
      command: `bash -c 'trap "" TERM; echo $$; sleep 30' & wait`,
      timeout_ms: 500,
    });
    expect(envelope.data.timed_out).toBe(true);
    const stubborn = Number((envelope.data.stdout as string).trim());
    expect(await waitUntilGone(stubborn, 5_000)).toBe(true);
  });

  it('a timeout with no output at all is a TIMEOUT error', async () => {
    const started = Date.now();
    const { envelope } = await runBash({ command: 'sleep 30', timeout_ms: 300 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(envelope.status).toBe('error');
    expect(envelope.error?.code).toBe('TIMEOUT');
    expect(envelope.text).toBe('Command timed out after 300 ms with no output and was killed.');
  });

  it('cancellation kills the command and returns CANCELLED within seconds', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const running = runBash({ command: 'echo started; sleep 30' }, {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    const { envelope } = await running;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(envelope.status).toBe('error');
    expect(envelope.error?.code).toBe('CANCELLED');
    expect(envelope.data.stdout).toBe('started\n');
  });

  it('does not wait for a background process that keeps the pipes open after the shell exits', async () => {
    const started = Date.now();
    const { envelope } = await runBash({ command: 'sleep 30 & echo $!' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(envelope.status).toBe('success');
    process.kill(Number((envelope.data.stdout as string).trim()), 'SIGKILL');
  });

  it('heartbeats while the command runs', async () => {
    const beats: unknown[] = [];
    await runBash({ command: 'sleep 1.3' }, {}, { heartbeat: (details) => beats.push(details) });
    expect(beats.length).toBeGreaterThanOrEqual(2);
    expect(beats[0]).toEqual({ stdout_bytes: 0, stderr_bytes: 0 });
  });
});

describe('Bash output caps', () => {
  it('capStream keeps the first 6,000 and last 24,000 characters around the docs/tools.md §11 marker', () => {
    const text = `${'h'.repeat(STREAM_HEAD_CHARS)}${'m'.repeat(5_000)}${'t'.repeat(STREAM_TAIL_CHARS)}`;
    const capped = capStream(text, 'full output: out.txt');
    expect(capped.truncated).toBe(true);
    expect(capped.text).toBe(
      `${'h'.repeat(6_000)}\n… [5000 chars omitted; full output: out.txt] …\n${'t'.repeat(24_000)}`,
    );
    expect(capStream('x'.repeat(STREAM_CHAR_CAP), 'p')).toEqual({
      text: 'x'.repeat(STREAM_CHAR_CAP),
      truncated: false,
    });
  });

  it('capStream never splits a surrogate pair', () => {
    const capped = capStream('😀'.repeat(20_000), 'full output: p').text;
    expect(capped).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it('2 MB of output: capped streams, one spill file with all of it, and an envelope under 60 KB after the budget', async () => {
    const { envelope } = await runBash({
      command: 'seq 1 310000; seq 1 10000 >&2',
      timeout_ms: 30_000,
    });
    expect(envelopeSize(envelope)).toBeLessThanOrEqual(60_000);
    // Both capped streams together exceed 50,000 bytes, so layer 1 compressed the result into a preview.
    expect(envelope.data.truncated).toBe(true);
    const truncation = envelope.data.truncation as { full_output_path: string; reason: string };
    expect(truncation.full_output_path).toBe('.agent/tool-output/task-b/t1_0_Bash_call_1.result.txt');
    const rendered = await readFile(path.join(workspace, truncation.full_output_path), 'utf8');
    expect(rendered).toMatch(
      /^Command exited with code 0 in \d+ ms\. Output was truncated; full output: \.agent\/tool-output\/task-b\/t1_0_Bash_call_1\.output\.txt\./,
    );
    expect(rendered).toContain('--- data.stdout_truncated ---\ntrue\n');
    expect(rendered).toContain('--- data.stderr_truncated ---\ntrue\n');

    const expectedStdout = Array.from({ length: 310_000 }, (_, index) => `${index + 1}\n`).join('');
    const expectedStderr = Array.from({ length: 10_000 }, (_, index) => `${index + 1}\n`).join('');
    expect(expectedStdout.length).toBeGreaterThan(2_000_000);
    const spilled = await readFile(
      path.join(workspace, '.agent/tool-output/task-b/t1_0_Bash_call_1.output.txt'),
      'utf8',
    );
    expect(spilled).toBe(formatOutputSpill(expectedStdout, expectedStderr));
  });

  it('called directly, the executor caps both streams and points both markers at the one spill file', async () => {
    const input = { command: 'seq 1 40000; seq 1 40000 >&2', cwd: '.', timeout_ms: 20_000 };
    const context = makeExecutorContext({ root: workspace, input, callId: 'direct', taskId: 'task-d' });
    const { envelope } = await executeBash(context);
    const spill = '.agent/tool-output/task-d/t1_0_Bash_direct.output.txt';
    expect(envelope.data).toMatchObject({ stdout_truncated: true, stderr_truncated: true, full_output_path: spill });
    for (const stream of [envelope.data.stdout as string, envelope.data.stderr as string]) {
      expect(stream).toContain(`chars omitted; full output: ${spill}] …`);
      expect(stream.endsWith('39999\n40000\n')).toBe(true);
    }
    expect(envelopeSize(envelope)).toBeGreaterThan(50_000);
  });

  it('one long stream stays within the per-result budget, cut head and tail', async () => {
    const { envelope } = await runBash({ command: 'seq 1 100000' });
    const expected = Array.from({ length: 100_000 }, (_, index) => `${index + 1}\n`).join('');
    const stdout = envelope.data.stdout as string;
    const marker = `\n… [${expected.length - 30_000} chars omitted; full output: .agent/tool-output/task-b/t1_0_Bash_call_1.output.txt] …\n`;
    expect(stdout).toBe(expected.slice(0, 6_000) + marker + expected.slice(-24_000));
    expect(envelope.data).toMatchObject({
      stdout_truncated: true,
      stderr_truncated: false,
      full_output_path: '.agent/tool-output/task-b/t1_0_Bash_call_1.output.txt',
    });
    expect(envelope.stats.stdout_bytes).toBe(expected.length);
    expect(envelope.text).toContain('full output: .agent/tool-output/task-b/t1_0_Bash_call_1.output.txt');
    expect(envelope.text).not.toContain('99999');
  });

  it('keeps 10 MiB of a stream in memory, counts the rest, and still shows the real end of the output', async () => {
    const { envelope } = await runBash({
      command: "head -c 12000000 /dev/zero | tr '\\0' a; echo; echo THE-END",
      timeout_ms: 60_000,
    });
    const total = 12_000_000 + 1 + 8;
    expect(envelope.stats.stdout_bytes).toBe(total);
    expect(envelope.stats.stdout_dropped_bytes).toBe(total - 10 * 1024 * 1024);
    const spillPath = path.join(workspace, '.agent/tool-output/task-b/t1_0_Bash_call_1.output.txt');
    const spilled = await readFile(spillPath, 'utf8');
    expect(spilled.startsWith(`--- stdout ---\n${'a'.repeat(1000)}`)).toBe(true);
    expect(spilled).toMatch(
      /\n… \[\d+ bytes beyond the 10485760-byte capture limit were not kept\] …\na+\nTHE-END\n\n--- stderr ---\n\n$/,
    );
    expect((envelope.data.stdout as string).endsWith('a\nTHE-END\n')).toBe(true);
  });
});
