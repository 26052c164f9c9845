// The network of sandboxed commands: an offline command reaches nothing; an approved one reaches the hosts it was
// approved for through its own proxy, and nothing else — not another host, not the worker's control plane, not this
// machine's loopback or the cloud metadata address however they are spelled or resolved — whichever part of the
// command line (curl, python3, make) asks; its proxy is gone when it ends. Run with the worker's user and as uid 65534.
import { execa } from 'execa';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBashExecutor } from '../../src/activities/executors/bash.js';
import { runTool } from '../../src/activities/run-tool.js';
import type { NetworkObservations } from '../support/network-scenario.js';
import { observeNetworkInScratch } from '../support/network-scenario.js';
import { requireBubblewrap } from '../support/sandbox.js';

function expectContained(seen: NetworkObservations): void {
  const own = seen.ownAddress;
  // Offline: the sandbox's own loopback has nothing listening, and there is no route off it.
  expect(seen.offline.stdout).toBe('ECONNREFUSED\nENETUNREACH\n');
  expect(seen.offline.connections).toBe(0);

  const lines = Object.fromEntries(
    seen.approved.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('=') as [string, string]),
  );
  expect(lines).toEqual({
    approved: '200',
    'approved-tunnel': '200',
    other: '403',
    'temporal-own': '403',
    'temporal-loopback': '403',
    localhost: '403',
    short: '403',
    mapped: '403',
    hex: '403',
    'metadata-ip': '403',
    'metadata-name': '403',
    'metadata-tunnel': '000',
    rebind: '403',
    'mapped-name': '403',
    // Ignoring the proxy variables leaves a program with no network at all.
    noproxy: '000',
    python: '403',
    'make-approved': '200',
    'make-temporal': '403',
    'make-other': '403',
  });
  expect(seen.approved.stdout).toContain('\nENETUNREACH\nECONNREFUSED\npython=200\npython=403\n');
  expect(seen.approved.served.sort()).toEqual(['/before-timeout', '/curl', '/make', '/python', '/tunnel']);
  expect(seen.controlPlaneConnections).toBe(0);
  expect(seen.directConnections).toBe(0);

  const refused = seen.approved.refused.map(({ host, reason }) => `${host}: ${reason}`);
  expect(refused).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^other\.test: not one of the hosts this command was approved for/),
      expect.stringMatching(
        new RegExp(`^${own.replaceAll('.', '\\.')}: the worker's control plane \\(TEMPORAL_ADDRESS`),
      ),
      expect.stringMatching(/^localhost: resolves to 127\.0\.0\.1, a loopback address/),
      expect.stringMatching(/^127\.0\.0\.1: a loopback address/),
      expect.stringMatching(/^::ffff:7f00:1: resolves to 127\.0\.0\.1, a loopback address/),
      expect.stringMatching(/^169\.254\.169\.254: a link-local address/),
      expect.stringMatching(/^metadata\.test: resolves to 169\.254\.169\.254, a link-local address/),
      expect.stringMatching(/^rebind\.test: resolves to 127\.0\.0\.1, a loopback address/),
      expect.stringMatching(/^mapped\.test: resolves to 127\.0\.0\.1/),
    ]),
  );
  expect(seen.approved.text).toContain("The sandbox's network proxy refused other.test:");

  expect(seen.leftAfter).toEqual({ exited: [], timedOut: [] });
  expect(seen.timedOutCode).toBe('partial');
}

describe('Bash network in the bubblewrap sandbox', () => {
  it("reaches only the approved hosts, through the command's own proxy, never the control plane", async (context) => {
    const sandbox = await requireBubblewrap(context);
    const started = Date.now();
    const seen = await observeNetworkInScratch(sandbox);
    await context.annotate(`scenario took ${Date.now() - started} ms`);
    expectContained(seen);
  });

  it("behind the relay a command's output, exit status and signal death are its own", async (context) => {
    const sandbox = await requireBubblewrap(context);
    const workspace = await mkdtemp(path.join(os.tmpdir(), 'network-relay-'));
    try {
      const executor = createBashExecutor(sandbox, { controlPlane: [] });
      const run = async (command: string) => {
        const input = { command, cwd: '.', timeout_ms: 30_000 };
        const classification = { level: 'network_write' as const, rule: 'network', networkHosts: [] };
        const request = { taskId: 't', turn: 1, index: 0, callId: 'c', workspace, input, paramsInput: input };
        return (await runTool('Bash', executor, { ...request, maximumAttempts: 1, classification })).envelope;
      };
      const exited = await run('printf "out\\n"; echo err >&2; echo "$HTTPS_PROXY|$no_proxy|" >&2; exit 3');
      expect(exited.data.stdout).toBe('out\n');
      expect(exited.data.stderr).toMatch(/^err\nhttp:\/\/127\.0\.0\.1:\d+\|\|\n$/);
      expect(exited.data.exit_code).toBe(3);
      expect((await run('kill -KILL $$')).data.exit_code).toBe(137);
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  });

  it('holds the same for a worker running as uid 65534', async (context) => {
    await requireBubblewrap(context);
    const child = path.join(import.meta.dirname, '..', 'support', 'network-command-child.ts');
    // A home of its own that exists (the sandbox hides the worker's home behind a tmpfs mounted on it).
    const home = await mkdtemp(path.join(os.tmpdir(), 'network-nobody-home-'));
    const root = process.getuid?.() === 0;
    try {
      if (root) await chown(home, 65_534, 65_534);
      const node = [process.execPath, '--import', 'tsx', child];
      const [file, ...args] = root
        ? ['setpriv', '--reuid', '65534', '--regid', '65534', '--clear-groups', ...node]
        : node;
      const result = await execa(file!, args, { reject: false, env: { ...process.env, HOME: home }, timeout: 60_000 });
      expect(result.stderr).toBe('');
      expectContained(JSON.parse(result.stdout) as NetworkObservations);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
