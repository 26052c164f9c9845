// Red team, network approvals, through the real CLI with a root worker and with an unprivileged one: a remembered
// approval of `curl <host A>` covers that and nothing more — another host or another network-capable part on the line
// asks again — and an approved command reaches only the hosts it names, never the worker's control plane, loopback
// or the link-local metadata address.
import http from 'node:http';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptedModelServer } from '../../src/scripted-model/server.js';
import { workerIdentities } from '../support/operator.js';
import {
  bashTurn,
  printed,
  REDTEAM_TEST_MS,
  sharedOperator,
  toolMessagesOf,
  startWaitingRun,
} from '../support/redteam-runs.js';
import { waitFor } from '../support/wait.js';

/** The machine's first non-loopback IPv4 address: approved hosts must be somewhere the proxy may go. */
function hostAddress(): string {
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const address of addresses ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
  }
  throw new Error('the network tests need a non-loopback IPv4 address on this machine');
}

interface Counted {
  url: string;
  hits: () => number;
  close: () => void;
}

async function countingServer(host: string, name: string): Promise<Counted> {
  let hits = 0;
  const server = http.createServer((_request, response) => {
    hits += 1;
    response.end(`hello from ${name}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://${host}:${port}/`,
    hits: () => hits,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

interface StatusView {
  status: string;
  pendingApprovals: { callId: string; key?: string }[];
}

describe.each(workerIdentities())('network approvals, $label worker', (identity) => {
  const operator = sharedOperator(identity);
  let a: Counted;
  let b: Counted;
  beforeAll(async () => {
    const address = hostAddress();
    a = await countingServer(address, 'A');
    b = await countingServer(address, 'B');
  });
  afterAll(async () => {
    a?.close();
    b?.close();
  });

  async function status(workflowId: string): Promise<StatusView> {
    const shown = await operator().cli(['status', workflowId, '--json']);
    return JSON.parse(shown.stdout) as StatusView;
  }

  /** Waits until the run asks about `callId` (or has ended), and says which. */
  async function asksAbout(workflowId: string, callId: string): Promise<boolean> {
    return waitFor(
      async () => {
        const view = await status(workflowId);
        if (view.pendingApprovals.some((pending) => pending.callId === callId)) return true;
        if (view.status !== 'running' && view.status !== 'waiting_approval') return false;
        return undefined;
      },
      `run ${workflowId} to ask about ${callId}`,
      { timeoutMs: 60_000, intervalMs: 300 },
    );
  }

  it(
    'a remembered key covers exactly the approved host; approved lines reach only the hosts they name',
    async () => {
      const frontend = operator().ports.frontend;
      const probe = `python3 -c "import socket; s=socket.create_connection(('127.0.0.1', ${frontend}), 2); print('REACHED-FRONTEND')"`;
      const workspace = await operator().workspace({
        Makefile: `all:\n\t-curl -s --max-time 3 ${b.url}\n\t-${probe.replace(/\$/g, '$$$$')}\n`,
      });
      const model: ScriptedModelServer = await startScriptedModelServer({
        script: [
          bashTurn('c', `curl -s --max-time 5 ${a.url}`),
          bashTurn('d', `curl -s --max-time 5 ${a.url}`),
          bashTurn('e', `curl -s --max-time 5 ${a.url} ${b.url}`),
          bashTurn('f', `curl -s --max-time 5 ${a.url} && make`),
          bashTurn(
            'g',
            `curl -s --max-time 3 ${a.url}; curl -sf --max-time 3 http://127.0.0.1:${frontend}/ && echo REACHED-LOOPBACK; curl -sf --max-time 3 http://169.254.169.254/ && echo REACHED-METADATA; ${probe}`,
          ),
          { content: 'done' },
        ],
      });
      try {
        const workflowId = await startWaitingRun(operator(), workspace, model, 'fetch');

        expect(await asksAbout(workflowId, 'c1')).toBe(true);
        const approved = await operator().cli(['approve', workflowId, 'c1', '--remember']);
        expect(approved.exitCode, approved.stderr).toBe(0);
        // The same line again: the remembered key covers it.
        await waitFor(async () => (a.hits() >= 2 ? true : undefined), 'both fetches of A', { timeoutMs: 60_000 });

        // Another host on the line asks again.
        expect(await asksAbout(workflowId, 'e1')).toBe(true);
        expect((await operator().cli(['approve', workflowId, 'e1'])).exitCode).toBe(0);
        await waitFor(async () => (b.hits() >= 1 ? true : undefined), 'the approved fetch of B', { timeoutMs: 60_000 });

        // Another network-capable part on the line asks again; approved, it still reaches only the host the line names.
        expect(await asksAbout(workflowId, 'f1')).toBe(true);
        expect((await operator().cli(['approve', workflowId, 'f1'])).exitCode).toBe(0);
        expect(await asksAbout(workflowId, 'g1')).toBe(true);
        expect((await operator().cli(['approve', workflowId, 'g1'])).exitCode).toBe(0);

        const view = await waitFor(
          async () => {
            const shown = await status(workflowId);
            return shown.status === 'completed' ? shown : undefined;
          },
          'the run to complete',
          { timeoutMs: 60_000, intervalMs: 300 },
        );
        expect(view.status).toBe('completed');
        expect(b.hits()).toBe(1);
        const outputs = [...toolMessagesOf(model).values()].map(printed).join('\n');
        expect(outputs).toContain('hello from A');
        expect(outputs).not.toMatch(/^REACHED-/m);
      } finally {
        await model.close();
      }
    },
    REDTEAM_TEST_MS,
  );
});
