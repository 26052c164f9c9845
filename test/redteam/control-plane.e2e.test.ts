// Red team, the embedded control plane, with a root operator and with an unprivileged one: another local user cannot
// make the operator's worker act (a run started on its queue does nothing), nobody but the operator's CLI can approve
// (a signal from another user, a cross-site simple POST to the HTTP API and an Update without proof are refused, and
// the operator is told), the codec endpoint serves no stored byte to another user or a foreign Host or Origin, and a
// process of another user posing as the recorded server (its pid, argv and HTTP port) is sent nothing and not signalled.
import { once } from 'node:events';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { localActivityType } from '../../src/history/events.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import { durableAgentBin } from '../support/cli.js';
import { otherUser, runAs, workerIdentities } from '../support/operator.js';
import type { Identity } from '../support/operator.js';
import {
  absent,
  bashTurn,
  call,
  hostileRun,
  REDTEAM_TEST_MS,
  sharedOperator,
  startWaitingRun,
} from '../support/redteam-runs.js';
import { waitFor } from '../support/wait.js';

const SECRET = 'redteam-secret-3f9a';

/** A run's history, read from the operator's embedded server. */
async function runHistory(port: number, workflowId: string) {
  const connection = await Connection.connect({ address: `127.0.0.1:${port}` });
  try {
    const { history } = await connection.workflowService.getWorkflowExecutionHistory({
      namespace: 'default',
      execution: { workflowId },
    });
    return history?.events ?? [];
  } finally {
    await connection.close();
  }
}

/** Every payload of a run's history, in the codec endpoint's JSON form (base64 metadata values and data). */
async function historyPayloads(port: number, workflowId: string): Promise<unknown[]> {
  const found: unknown[] = [];
  const visit = (value: unknown): void => {
    if (value === null || typeof value !== 'object') return;
    const candidate = value as { metadata?: Record<string, Uint8Array>; data?: Uint8Array };
    if (candidate.metadata && candidate.data instanceof Uint8Array) {
      found.push({
        metadata: Object.fromEntries(
          Object.entries(candidate.metadata).map(([key, bytes]) => [key, Buffer.from(bytes).toString('base64')]),
        ),
        data: Buffer.from(candidate.data).toString('base64'),
      });
      return;
    }
    for (const child of Object.values(value)) visit(child);
  };
  visit(await runHistory(port, workflowId));
  return found;
}

/** The activities and local activities of a run that the worker carried out (completed, or recorded with a result). */
async function completedWork(port: number, workflowId: string): Promise<string[]> {
  return (await runHistory(port, workflowId)).flatMap((event) => {
    if (event.activityTaskCompletedEventAttributes) return [`activity ${String(event.eventId)}`];
    const local = localActivityType(event);
    return local !== undefined && !event.markerRecordedEventAttributes?.failure ? [`local activity ${local}`] : [];
  });
}

const operators = workerIdentities().flatMap((identity) => {
  const attacker = otherUser(identity);
  return attacker ? [{ identity, attacker }] : [];
});

describe.each(operators)('the control plane, $identity.label operator', ({ identity, attacker }) => {
  const operator = sharedOperator(identity);
  let attackerHome: string;
  beforeAll(async () => {
    attackerHome = await mkdtemp(path.join('/tmp', 'durable-agent-attacker-'));
    await runAs({ label: 'root', uid: 0, gid: 0 }, 'chown', ['-R', `${attacker.uid}:${attacker.gid}`, attackerHome]);
    // The first CLI call starts the operator's embedded server and worker.
    const ready = await operator().cli(['dev-server']);
    expect(ready.exitCode, ready.stderr).toBe(0);
  });

  /** `durable-agent <args>` as the attacker, pointed at the operator's embedded server. */
  function attackerCli(args: string[]) {
    return runAs(attacker, process.execPath, [durableAgentBin, ...args], {
      env: {
        PATH: '/usr/local/bin:/usr/bin:/bin',
        HOME: attackerHome,
        DURABLE_AGENT_STATE_DIR: path.join(attackerHome, 'state'),
        TEMPORAL_ADDRESS: `127.0.0.1:${operator().ports.frontend}`,
      },
      extendEnv: false,
      cwd: attackerHome,
      timeout: 90_000,
    });
  }

  /** The operator's Temporal CLI (the copy each operator has), run as `who`. */
  function temporalAs(who: Identity, args: string[]) {
    return runAs(
      who,
      operator().env.TEMPORAL_CLI_PATH!,
      [...args, '--address', `127.0.0.1:${operator().ports.frontend}`],
      {
        env: { HOME: who === attacker ? attackerHome : operator().home, PATH: '/usr/bin:/bin' },
        extendEnv: false,
      },
    );
  }

  it(
    "another local user's run on the operator's worker does nothing: no server started, no file written, not even its tool listings",
    async () => {
      const model = await startScriptedModelServer({
        script: [
          { tool_calls: [call('w', 'WriteFile', { path: 'pwned.txt', content: 'written for another user\n' })] },
          { content: 'done' },
        ],
      });
      try {
        const target = await operator().workspace({ 'readme.txt': 'the operator\n' });
        const marker = path.join(attackerHome, 'server-ran');
        const config = path.join(attackerHome, 'mcp.json');
        await writeFile(
          config,
          JSON.stringify({ mcpServers: { evil: { command: 'sh', args: ['-c', `id > ${marker}; sleep 2`] } } }),
        );
        await runAs({ label: 'root', uid: 0, gid: 0 }, 'chown', [`${attacker.uid}:${attacker.gid}`, config]);
        const hostQueue = `durable-agent@${os.hostname()}`;
        // Without MCP servers, the run's first workflow task asks for its tool listings as local activities: the
        // worker refuses those too, so the model is never called.
        const attempts = [
          { cwd: target, mcp: ['--mcp-config', config] },
          { cwd: operator().home, mcp: ['--mcp-config', config] },
          { cwd: target, mcp: [] },
        ];
        for (const { cwd, mcp } of attempts) {
          const attempt = await attackerCli([
            'run',
            '--cwd',
            cwd,
            '--ask',
            'approve',
            '--json',
            '--tool-queue',
            hostQueue,
            ...mcp,
            '--base-url',
            model.url,
            '--model',
            'scripted',
            'act for me',
          ]);
          expect(attempt.exitCode).not.toBe(0);
          expect(await absent(path.join(cwd, 'pwned.txt'))).toBe(true);
          const { workflowId } = JSON.parse(String(attempt.stdout).trim().split('\n').at(-1)!) as {
            workflowId: string;
          };
          expect(await completedWork(operator().ports.frontend, workflowId)).toEqual([]);
        }
        expect(await absent(marker)).toBe(true);
        expect(model.requests.length).toBe(0);
      } finally {
        await model.close();
      }
    },
    REDTEAM_TEST_MS,
  );

  it(
    'only the operator can approve: a signal, an Update and a cross-site POST without proof are refused and shown',
    async () => {
      const workspace = await operator().workspace({ 'build/keep.txt': 'precious\n' });
      const model = await startScriptedModelServer({
        script: [bashTurn('wipe', 'rm -rf build'), { content: 'done' }],
      });
      try {
        const workflowId = await startWaitingRun(operator(), workspace, model, 'tidy');
        await waitFor(
          async () => {
            const shown = await operator().cli(['status', workflowId, '--json']);
            return shown.stdout.includes('wipe1') ? true : undefined;
          },
          'the pending approval',
          { timeoutMs: 60_000, intervalMs: 300 },
        );
        const decision = JSON.stringify({ tool_call_id: 'wipe1', decision: 'approve', decided_by: 'web page' });

        // A web page in the operator's browser: a simple request (text/plain, no preflight), foreign Origin and Host.
        const httpApi = `http://127.0.0.1:${operator().ports.http}/api/v1/namespaces/default/workflows/${workflowId}/signal/toolDecision`;
        await fetch(httpApi, {
          method: 'POST',
          headers: { 'content-type': 'text/plain', origin: 'http://evil.example', host: 'evil.example' },
          body: JSON.stringify({ input: [JSON.parse(decision) as unknown] }),
        }).catch(() => undefined);
        // Another local user with the Temporal CLI: a Signal and an Update.
        await temporalAs(attacker, [
          'workflow',
          'signal',
          '--workflow-id',
          workflowId,
          '--name',
          'toolDecision',
          '--input',
          decision,
        ]);
        await temporalAs(attacker, [
          'workflow',
          'update',
          'execute',
          '--workflow-id',
          workflowId,
          '--name',
          'approveToolCall',
          '--input',
          decision,
        ]);
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        expect(await readFile(path.join(workspace, 'build', 'keep.txt'), 'utf8')).toBe('precious\n');
        const shown = await operator().cli(['status', workflowId]);
        expect(shown.stdout).toContain('wipe1');
        expect(shown.stdout).toMatch(/refused/i);

        // The operator's own CLI still decides.
        const denied = await operator().cli(['deny', workflowId, 'wipe1', '--reason', 'keep the build']);
        expect(denied.exitCode, denied.stderr).toBe(0);
        await waitFor(
          async () => {
            const view = await operator().cli(['status', workflowId, '--json']);
            return view.stdout.includes('"completed"') ? true : undefined;
          },
          'the run to complete',
          { timeoutMs: 60_000, intervalMs: 300 },
        );
        expect(await readFile(path.join(workspace, 'build', 'keep.txt'), 'utf8')).toBe('precious\n');
      } finally {
        await model.close();
      }
    },
    REDTEAM_TEST_MS,
  );

  it(
    'the codec endpoint serves no stored byte to another user, a foreign Host or a foreign Origin',
    async () => {
      const workspace = await operator().workspace({ 'secrets.txt': `${SECRET}\n` });
      const run = await hostileRun(operator(), workspace, [
        { tool_calls: [call('read', 'ReadFile', { path: 'secrets.txt' })] },
      ]);
      expect(run.result?.status, run.cli.stderr).toBe('completed');
      const workflowId = run.result?.workflowId ?? '';
      const payloads = await historyPayloads(operator().ports.frontend, workflowId);
      expect(payloads.length).toBeGreaterThan(0);
      const body = JSON.stringify({ payloads });
      const codec = `http://127.0.0.1:${operator().ports.codec}/decode`;
      const leaks = (text: string): boolean => {
        if (text.includes(SECRET)) return true;
        return [...text.matchAll(/"data":"([^"]*)"/g)].some((match) =>
          Buffer.from(match[1]!, 'base64').toString('utf8').includes(SECRET),
        );
      };
      const curlAs = (who: Identity, headers: string[]) =>
        runAs(
          who,
          'curl',
          ['-s', '-X', 'POST', ...headers.flatMap((header) => ['-H', header]), '--data-binary', '@-', codec],
          {
            input: body,
            stdin: undefined,
          },
        );
      const uiOrigin = `http://127.0.0.1:${operator().ports.ui}`;
      const attempts = [
        await curlAs(attacker, ['content-type: application/json', 'x-namespace: default', `origin: ${uiOrigin}`]),
        await curlAs(attacker, ['content-type: application/json', 'x-namespace: default']),
        await curlAs(identity, [
          'content-type: application/json',
          'x-namespace: default',
          'origin: http://evil.example',
        ]),
        await curlAs(identity, ['content-type: text/plain', 'host: evil.example', 'origin: http://evil.example']),
        await curlAs(identity, ['content-type: application/json', `host: rebind.example:${operator().ports.codec}`]),
      ];
      for (const attempt of attempts) expect(leaks(String(attempt.stdout))).toBe(false);
      // The probe would see a leak: the operator's own client, from the Web UI's origin, is shown the content.
      const operatorView = await curlAs(identity, [
        'content-type: application/json',
        'x-namespace: default',
        `origin: ${uiOrigin}`,
      ]);
      expect(leaks(String(operatorView.stdout))).toBe(true);
    },
    REDTEAM_TEST_MS,
  );

  it(
    "a process of another user that takes the recorded server's pid, argv and HTTP port is not the operator's server",
    async () => {
      const recordFile = path.join(operator().stateDir, 'dev-server.json');
      const recorded = JSON.parse(await readFile(recordFile, 'utf8')) as {
        server: { pid: number; command: string[]; httpUrl: string };
      };
      const stopped = await operator().cli(['dev-server', '--stop'], { timeoutMs: 30_000 });
      expect(stopped.exitCode, stopped.stderr).toBe(0);
      // The attacker runs the recorded argv (a script's argv ends with it) and listens on the recorded HTTP port,
      // writing down every request it is sent.
      const heard = path.join(attackerHome, 'heard.txt');
      const listener = `
        const http = require('node:http');
        const fs = require('node:fs');
        http.createServer((request, response) => {
          let body = '';
          request.on('data', (chunk) => (body += chunk));
          request.on('end', () => {
            fs.appendFileSync(${JSON.stringify(heard)}, request.method + ' ' + request.url + ' ' + body + '\\n');
            response.end('{}');
          });
        }).listen(${new URL(recorded.server.httpUrl).port}, '127.0.0.1', () => console.log('listening'));`;
      const impostor = runAs(attacker, process.execPath, ['-e', listener, ...recorded.server.command], {
        timeout: REDTEAM_TEST_MS,
      });
      try {
        await Promise.race([
          once(impostor.stdout!, 'data'),
          impostor.then((result) => Promise.reject(new Error(`the impostor exited: ${String(result.stderr)}`))),
        ]);
        // The pid is recycled: the record now names the impostor (what a reused pid would do).
        await writeFile(recordFile, JSON.stringify({ ...recorded, server: { ...recorded.server, pid: impostor.pid } }));
        const model = await startScriptedModelServer({ script: [{ content: 'done' }] });
        try {
          const workspace = await operator().workspace({});
          const run = await operator().cli(['run', '--cwd', workspace, '--base-url', model.url, `task ${SECRET}`]);
          expect(run.exitCode).not.toBe(0);
          expect(run.stderr).toMatch(/in use by another process/);
        } finally {
          await model.close();
        }
        const status = JSON.parse((await operator().cli(['dev-server', '--status', '--json'])).stdout) as {
          server: { running: boolean };
        };
        expect(status.server.running).toBe(false);
        // Stopping the operator's server does not signal the impostor.
        expect((await operator().cli(['dev-server', '--stop'])).exitCode).toBe(0);
        expect(impostor.exitCode).toBeNull();
        expect(await absent(heard)).toBe(true);
      } finally {
        impostor.kill('SIGKILL');
        await impostor;
      }
      const restarted = await operator().cli(['dev-server']);
      expect(restarted.exitCode, restarted.stderr).toBe(0);
    },
    REDTEAM_TEST_MS,
  );
});
