// Commands in the OS sandbox (bubblewrap): the workspace writable and nothing else on the host, none of the worker's
// secrets readable, offline unless the call was approved as network_write, and nothing left running after it.
import { execa } from 'execa';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBashExecutor } from '../../src/activities/executors/bash.js';
import { runTool } from '../../src/activities/run-tool.js';
import type { CommandSandbox } from '../../src/activities/sandbox/command-sandbox.js';
import type { ToolActivityInput, ToolActivityResult } from '../../src/protocol/tool-activity.js';
import type { Envelope } from '../../src/protocol/envelope.js';
import { makeOutsideDirectory } from '../support/outside-directory.js';
import { requireBubblewrap } from '../support/sandbox.js';
import { hostPidsRunning, uniqueSleepSeconds } from '../support/host-processes.js';
import { waitFor } from '../support/wait.js';

let scratch: string;
let workspace: string;

beforeEach(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'bash-sandbox-'));
  workspace = path.join(scratch, 'workspace');
  await mkdir(workspace);
});

afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function run(
  sandbox: CommandSandbox,
  command: string,
  overrides: Partial<ToolActivityInput> = {},
): Promise<Envelope> {
  const input = { command, cwd: '.', timeout_ms: 30_000 };
  const result: ToolActivityResult = await runTool('Bash', createBashExecutor(sandbox), {
    taskId: 'task-s',
    turn: 1,
    index: 0,
    callId: 'call_1',
    workspace,
    input,
    paramsInput: input,
    maximumAttempts: 1,
    ...overrides,
  });
  return result.envelope;
}

describe('Bash in the bubblewrap sandbox: the filesystem', () => {
  it('writes inside the workspace and nowhere else on the host', async (context) => {
    const sandbox = await requireBubblewrap(context);
    const inHostTmp = path.join(os.tmpdir(), `sandbox-escape-${process.pid}-${Date.now()}`);
    const besideWorkspace = path.join(scratch, 'beside-the-workspace.txt');
    const envelope = await run(
      sandbox,
      [
        'echo inside > inside.txt',
        'touch /usr/local/escape 2>/dev/null || echo "usr: refused"',
        'touch /etc/escape 2>/dev/null || echo "etc: refused"',
        // /tmp is the command's own: a write there succeeds and is gone with the command.
        `echo out > ${inHostTmp} && echo out > ${besideWorkspace} && echo "tmp: private"`,
      ].join('\n'),
    );
    expect(envelope.data.exit_code).toBe(0);
    expect(envelope.data.stdout).toBe('usr: refused\netc: refused\ntmp: private\n');
    await expect(readFile(path.join(workspace, 'inside.txt'), 'utf8')).resolves.toBe('inside\n');
    for (const outside of ['/usr/local/escape', '/etc/escape', inHostTmp, besideWorkspace]) {
      expect(existsSync(outside), outside).toBe(false);
    }
  });

  it('a script the run wrote (an npm test script) cannot write outside the workspace either', async (context) => {
    const sandbox = await requireBubblewrap(context);
    const outside = await makeOutsideDirectory();
    try {
      const target = path.join(outside, 'written-by-npm-test');
      const script = `node -e "require('fs').writeFileSync('${target}', 'escaped')"`;
      await writeFile(path.join(workspace, 'package.json'), JSON.stringify({ name: 'w', scripts: { test: script } }));
      await run(sandbox, 'npm test --silent', { classification: { level: 'read_only', rule: 'test_runner' } });
      // Refused (read-only) or written to a view the sandbox discards, depending on where the directory is: never here.
      expect(existsSync(target)).toBe(false);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('keeps no capability that could remount the host writable', async (context) => {
    const sandbox = await requireBubblewrap(context);
    const envelope = await run(
      sandbox,
      'mount -o remount,bind,rw /usr 2>&1; touch /usr/escape 2>&1; grep CapEff /proc/self/status',
    );
    expect(envelope.data.stdout).toMatch(/CapEff:\s+0+\n/);
    expect(existsSync('/usr/escape')).toBe(false);
  });
});

describe("Bash in the bubblewrap sandbox: the worker's secrets", () => {
  it("sees none of the worker's processes, environment, home or state", async (context) => {
    const home = path.join(scratch, 'worker-home');
    const state = path.join(scratch, 'worker-state');
    await mkdir(path.join(home, '.ssh'), { recursive: true });
    await writeFile(path.join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY');
    await mkdir(path.join(home, '.toolchain', 'bin'), { recursive: true });
    await writeFile(path.join(home, '.toolchain', 'bin', 'tool'), '#!/bin/sh\necho toolchain ok\n', { mode: 0o755 });
    await mkdir(state);
    await writeFile(path.join(state, 'worker.json'), '{"secret":true}');
    const sandbox = await requireBubblewrap(context, { ...process.env, HOME: home }, [state]);
    const toolchainBin = path.join(home, '.toolchain', 'bin');
    const savedPath = process.env.PATH;
    process.env.PATH = `${toolchainBin}:${savedPath}`;
    process.env.PGPASSWORD = 'worker-secret-pw';
    try {
      const envelope = await run(
        sandbox,
        [
          'cat /proc/$PPID/environ /proc/1/environ 2>/dev/null | tr "\\0" "\\n" | grep -c PGPASSWORD',
          `cat ${path.join(home, '.ssh', 'id_ed25519')} 2>&1 | head -n 1`,
          `ls -A ${home}`,
          `cat ${path.join(state, 'worker.json')} 2>&1 | head -n 1`,
          'tool',
          'ls /proc | grep -c "^[0-9]"',
        ].join('\n'),
      );
      const lines = String(envelope.data.stdout).split('\n');
      expect(lines[0]).toBe('0');
      expect(lines[1]).toMatch(/No such file/);
      expect(lines[2]).toBe('.toolchain');
      expect(lines[3]).toMatch(/No such file/);
      expect(lines[4]).toBe('toolchain ok');
      // bwrap's init, bash, and the pipeline's own processes: nothing of the host's.
      expect(Number(lines[5])).toBeLessThan(8);
      expect(String(envelope.data.stdout)).not.toContain('worker-secret-pw');
      expect(String(envelope.data.stdout)).not.toContain('PRIVATE KEY');
    } finally {
      process.env.PATH = savedPath;
      delete process.env.PGPASSWORD;
    }
  });
});

describe('Bash in the bubblewrap sandbox: the network', () => {
  it("never reaches the host's own network directly, not even when approved as network_write", async (context) => {
    const sandbox = await requireBubblewrap(context);
    const server = createServer((socket) => socket.end('hello from the host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const connect = `node -e "require('net').connect(${port}, '127.0.0.1').on('data', (d) => process.stdout.write(d)).on('error', (e) => { console.log(e.code); })"`;
    try {
      const offline = await run(sandbox, connect, {
        classification: { level: 'read_only', rule: 'read_only_command' },
      });
      expect(offline.data.stdout).toBe('ECONNREFUSED\n');
      // An approved command reaches the network only through its proxy (bash-network.test.ts).
      const online = await run(sandbox, connect, { classification: { level: 'network_write', rule: 'network' } });
      expect(online.data.stdout).toBe('ECONNREFUSED\n');
    } finally {
      server.close();
    }
  });
});

describe('Bash in the bubblewrap sandbox: processes', () => {
  it('a timeout leaves nothing running, background processes included', async (context) => {
    const sandbox = await requireBubblewrap(context);
    const token = uniqueSleepSeconds();
    const envelope = await run(sandbox, `sleep ${token} & sleep ${token}`, {
      input: { command: `sleep ${token} & sleep ${token}`, cwd: '.', timeout_ms: 500 },
    });
    expect(envelope.error?.code).toBe('TIMEOUT');
    await waitFor(
      async () => ((await hostPidsRunning(`sleep\0${token}`)).length === 0 ? true : undefined),
      'no sleep left',
      {
        timeoutMs: 3_000,
      },
    );
  });

  it("a command dies within a second of its worker's SIGKILL", async (context) => {
    const sandbox = await requireBubblewrap(context);
    const token = uniqueSleepSeconds();
    const worker = execa(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(import.meta.dirname, '..', 'support', 'sandboxed-command-child.ts'),
        workspace,
        `sleep ${token} & sleep ${token}`,
      ],
      { env: { ...process.env, DURABLE_AGENT_BWRAP_PATH: sandbox.executable }, reject: false },
    );
    await waitFor(
      async () => ((await hostPidsRunning(`sleep\0${token}`)).length === 2 ? true : undefined),
      'both sleeps',
      {
        timeoutMs: 20_000,
      },
    );
    worker.kill('SIGKILL');
    await worker;
    const killed = Date.now();
    await waitFor(
      async () => ((await hostPidsRunning(`sleep\0${token}`)).length === 0 ? true : undefined),
      'no sleep left',
      {
        timeoutMs: 5_000,
        intervalMs: 20,
      },
    );
    const goneMs = Date.now() - killed;
    await context.annotate(`the command was gone ${goneMs} ms after the worker's SIGKILL`);
    expect(goneMs).toBeLessThan(1_000);
  });

  it('a command killed by a signal reports the shell convention, 128 + the signal', async (context) => {
    const sandbox = await requireBubblewrap(context);
    const envelope = await run(sandbox, 'kill -KILL $$');
    expect(envelope.status).toBe('partial');
    expect(envelope.data.exit_code).toBe(137);
  });
});
