// The cluster path, run: `npm run cluster` (Temporal on PostgreSQL, two worker hosts), runs pinned to each host, the
// Temporal server killed with SIGKILL mid-run and restarted, a worker host killed and brought back, and the agent
// search attributes queried on PostgreSQL visibility, live model output read through the cluster's NATS server. Every
// run appends numbered lines through EditFile; the files must end with each line exactly once.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverPorts } from '../../src/cluster/server-config.js';
import { clusterTlsFiles, ensureClusterTls } from '../../src/cluster/tls.js';
import { isProcessAlive } from '../../src/dev-server/processes.js';
import type { LiveEvent } from '../../src/live/live-event.js';
import { natsLiveChannelFromEnv } from '../../src/live/nats-from-env.js';
import { buildCliIfStale } from '../support/cli-build.js';
import { prepareTestCluster } from './cluster-script.js';
import type { TestCluster } from './cluster-script.js';
import { lineNumbers, NOTES_FILE, startEditModel } from './edit-model.js';
import type { EditModel } from './edit-model.js';

const EDITS = 6;
const LATENCY_MS = 1_000;

interface Run {
  workflowId: string;
  file: string;
  host: string;
  workspace: string;
  model: EditModel;
}

let cluster: TestCluster;
let client: Client;
let connection: Connection;
const models: EditModel[] = [];
const timings: Record<string, string> = {};

/** Alive and not a zombie (an exited child nobody has reaped yet is not running). */
async function isRunning(pid: number): Promise<boolean> {
  if (!(await isProcessAlive(pid))) return false;
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

/** A client certificate and key of a throwaway authority the cluster never saw. */
async function foreignClientCertificate(): Promise<{ crt: Buffer; key: Buffer }> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'foreign-ca-'));
  try {
    await ensureClusterTls(directory, () => {});
    const files = clusterTlsFiles(directory);
    return { crt: await fs.readFile(files.clientCertFile), key: await fs.readFile(files.clientKeyFile) };
  } finally {
    await fs.rm(directory, { recursive: true, force: true });
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

async function startRun(
  host: string,
  name: string,
  ask = 'approve',
  file = NOTES_FILE,
  latencyMs = LATENCY_MS,
): Promise<Run> {
  const status = await cluster.status();
  const hostStatus = status.hosts.find((candidate) => candidate.name === host)!;
  const workspace = path.join(hostStatus.workspaceRoot, name);
  await fs.mkdir(workspace, { recursive: true });
  await fs.writeFile(path.join(workspace, file), 'END\n');
  const model = await startEditModel({ edits: EDITS, latencyMs, file });
  models.push(model);
  const started = await cluster.cli([
    'start',
    '--cwd',
    workspace,
    '--tool-queue',
    hostStatus.toolQueue,
    '--provider',
    'scripted',
    '--base-url',
    model.url,
    '--ask',
    ask,
    '--max-steps',
    '20',
    '--json',
    `append ${EDITS} numbered lines to ${file}`,
  ]);
  expect(started.exitCode, started.stderr).toBe(4);
  const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };
  return { workflowId, file, host, workspace, model };
}

async function notes(run: Run): Promise<number[]> {
  return lineNumbers(await fs.readFile(path.join(run.workspace, run.file), 'utf8'));
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 120_000): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting until ${what}`);
    await sleep(100);
  }
  return Date.now() - started;
}

async function runStatus(run: Run): Promise<{ status: string; step: number }> {
  const result = await cluster.cli(['status', run.workflowId, '--json']);
  return JSON.parse(result.stdout) as { status: string; step: number };
}

// What a pinned run does on the shared queue, any host's worker taking it: its model calls, and the listing of the
// worker's function tools when it starts, should its local listing not answer.
const SHARED_QUEUE_ACTIVITIES = new Set(['callModel', 'listFunctionTools']);

/** The tool activities of a run: the queue each was scheduled on and the pid of the worker that ran it. */
async function toolActivities(run: Run): Promise<{ taskQueue: string; pid: number }[]> {
  const history = await client.workflow.getHandle(run.workflowId).fetchHistory();
  const scheduled = new Map<number, string>();
  const activities: { taskQueue: string; pid: number }[] = [];
  for (const event of history.events ?? []) {
    const attributes = event.activityTaskScheduledEventAttributes;
    if (attributes && !SHARED_QUEUE_ACTIVITIES.has(attributes.activityType?.name ?? ''))
      scheduled.set(Number(event.eventId), attributes.taskQueue?.name ?? '');
    const started = event.activityTaskStartedEventAttributes;
    const queue = started ? scheduled.get(Number(started.scheduledEventId)) : undefined;
    if (started && queue !== undefined)
      activities.push({ taskQueue: queue, pid: Number(started.identity?.split('@')[0]) });
  }
  return activities;
}

async function expectFinishedIntact(runs: Run[], hostPids: Map<string, Set<number>>): Promise<void> {
  for (const run of runs) {
    const result = await client.workflow.getHandle(run.workflowId).result();
    expect((result as { status: string }).status).toBe('completed');
    // 0 lost, 0 duplicated: every line once, in order.
    expect(await notes(run)).toEqual(Array.from({ length: EDITS }, (_, index) => index + 1));
    const activities = await toolActivities(run);
    const host = run.host;
    expect(activities.length).toBeGreaterThanOrEqual(EDITS);
    for (const activity of activities) {
      expect(activity.taskQueue).toBe(`durable-agent@${host}`);
      expect(hostPids.get(host)!.has(activity.pid)).toBe(true);
    }
  }
}

async function recordPids(hostPids: Map<string, Set<number>>): Promise<void> {
  for (const host of (await cluster.status()).hosts) {
    if (host.pid !== null)
      (hostPids.get(host.name) ?? hostPids.set(host.name, new Set()).get(host.name)!).add(host.pid);
  }
}

beforeAll(async () => {
  await buildCliIfStale((line) => console.log(line));
  cluster = await prepareTestCluster();
  const started = Date.now();
  await cluster.script();
  timings.start = seconds(Date.now() - started);
  const status = await cluster.status();
  connection = await Connection.connect({ address: status.address, tls: await cluster.tls() });
  client = new Client({ connection, namespace: status.namespace });
}, 30 * 60_000);

afterAll(async () => {
  await connection?.close();
  await Promise.all(models.map((model) => model.close()));
  if (cluster) {
    await cluster.script(['--stop']).catch(() => undefined);
    await cluster.remove();
  }
  console.log(`cluster timings: ${JSON.stringify(timings)}`);
});

describe('a cluster on PostgreSQL with two worker hosts', () => {
  it('reports PostgreSQL persistence, the Web UI and every process', async () => {
    const status = await cluster.status();
    expect(status.persistence).toBe('postgresql');
    expect(status.namespace).toBe('default');
    expect(status.hosts.map((host) => host.toolQueue)).toEqual(['durable-agent@host-a', 'durable-agent@host-b']);
    for (const process of Object.values(status.processes)) expect(process.running).toBe(true);
    expect(status.uiUrl).not.toBe('');
    expect((await fetch(status.uiUrl)).ok).toBe(true);
    const attributes = await connection.operatorService.listSearchAttributes({ namespace: status.namespace });
    expect(Object.keys(attributes.customAttributes)).toEqual(
      expect.arrayContaining(['AgentStatus', 'AgentStep', 'AgentPendingApprovals', 'AgentCostUsd', 'AgentModel']),
    );
  });

  it('refuses a client without a certificate of the cluster: no TLS, TLS alone, another authority, the CLI', async () => {
    const status = await cluster.status();
    const operator = await cluster.tls();
    const foreign = await foreignClientCertificate();
    const attempts = {
      'no TLS': { address: status.address },
      'TLS without a client certificate': {
        address: status.address,
        tls: {
          serverNameOverride: operator.serverNameOverride,
          serverRootCACertificate: operator.serverRootCACertificate,
        },
      },
      'a certificate of another authority': {
        address: status.address,
        tls: { ...operator, clientCertPair: foreign },
      },
    };
    for (const [what, options] of Object.entries(attempts)) {
      const refused = await Connection.connect({ ...options, connectTimeout: 2_000 }).then(
        async (opened) => {
          // A connection may open lazily: the first call is what the server has to answer.
          try {
            await opened.workflowService.getSystemInfo({});
            return false;
          } catch {
            return true;
          } finally {
            await opened.close();
          }
        },
        () => true,
      );
      expect(refused, what).toBe(true);
    }
    // The HTTP API shares the frontend's TLS settings: plain HTTP gets no answer.
    const httpPort = serverPorts(Number(status.address.split(':')[1])).frontendHttp;
    const http = await fetch(`http://127.0.0.1:${httpPort}/api/v1/namespaces`).catch(() => undefined);
    expect(http?.ok ?? false).toBe(false);
    const list = await cluster.cli(['list', '--json'], { withoutTls: true });
    expect(list.exitCode).not.toBe(0);
    expect(list.stderr).toMatch(/cannot reach Temporal|Connection|handshake|UNAVAILABLE|tls/i);
    // With the operator's certificate the same CLI gets its answer, and so does the Web UI server, which holds it.
    expect((await cluster.cli(['list', '--json'])).exitCode).toBe(0);
    const ui = await fetch(`${status.uiUrl}/api/v1/namespaces/${status.namespace}/workflows`);
    expect(ui.status).toBe(200);
  });

  it('finishes every run with nothing lost or duplicated when the server is killed and restarted mid-run', async () => {
    const hostPids = new Map<string, Set<number>>();
    await recordPids(hostPids);
    const runs = [
      await startRun('host-a', 'restart-a1'),
      await startRun('host-b', 'restart-b1'),
      await startRun('host-a', 'restart-a2'),
      await startRun('host-b', 'restart-b2'),
    ];
    await waitUntil('every run has made an edit', async () =>
      (await Promise.all(runs.map(notes))).every((lines) => lines.length >= 1),
    );
    const before = await Promise.all(runs.map(notes));
    expect(before.some((lines) => lines.length < EDITS)).toBe(true);

    const { processes } = await cluster.status();
    const killed = Date.now();
    process.kill(processes.server.pid!, 'SIGKILL');
    await waitUntil('the server is gone', async () => !(await isProcessAlive(processes.server.pid!)));
    await cluster.script();
    const ready = Date.now();
    timings.serverRestartDowntime = seconds(ready - killed);
    const progressed = await waitUntil('a run makes progress after the restart', async () => {
      const now = await Promise.all(runs.map(notes));
      return now.some((lines, index) => lines.length > before[index]!.length || lines.length === EDITS);
    });
    timings.serverRestartTimeToResume = seconds(progressed);
    await expectFinishedIntact(runs, hostPids);
    timings.serverRestartAllFinished = seconds(Date.now() - killed);
  });

  it('delivers a model call made while the server is killed and restarted: asked once a turn, every edit once', async () => {
    const hostPids = new Map<string, Set<number>>();
    await recordPids(hostPids);
    // A slow model, so the server dies with a call in flight and the answer comes while it is down or just back.
    const run = await startRun('host-a', 'restart-call', 'approve', NOTES_FILE, 4_000);
    await waitUntil('a model call is in flight after the first edit', async () => {
      return (await notes(run)).length >= 1 && run.model.inFlight() === 1;
    });
    const { processes } = await cluster.status();
    const requestsAtKill = run.model.requests();
    const killed = Date.now();
    process.kill(processes.server.pid!, 'SIGKILL');
    await waitUntil('the server is gone', async () => !(await isProcessAlive(processes.server.pid!)));
    // Restarted at once.
    const restarting = Date.now();
    await cluster.script();
    timings.modelCallRestartServerStart = seconds(Date.now() - restarting);
    timings.modelCallRestartDowntime = seconds(Date.now() - killed);
    // The answer in flight is delivered and the run asks for its next turn.
    await waitUntil('the next model call after the restart', async () => run.model.requests() > requestsAtKill);
    timings.modelCallRestartTimeToNextCall = seconds(Date.now() - killed);
    await expectFinishedIntact([run], hostPids);
    timings.modelCallRestartAllFinished = seconds(Date.now() - killed);
    // ReadFile, one call per edit and the answer. An outage longer than the call's 3 s heartbeat timeout times the
    // attempt out when the server is back: its retry takes the answer of the call still running when it lands on the
    // same host (LeftRunningCalls), and pays for one more call when it lands on the other one.
    expect(run.model.requests()).toBeGreaterThanOrEqual(EDITS + 2);
    expect(run.model.requests()).toBeLessThanOrEqual(EDITS + 3);
  });

  it("keeps a lost host's runs waiting, visibly, and resumes them when the host returns", async () => {
    const hostPids = new Map<string, Set<number>>();
    await recordPids(hostPids);
    const hostB = (await cluster.status()).hosts.find((host) => host.name === 'host-b')!;
    const onA = await startRun('host-a', 'loss-a1');
    const onB = [await startRun('host-b', 'loss-b1'), await startRun('host-b', 'loss-b2')];
    await waitUntil('the host-b runs have made an edit', async () =>
      (await Promise.all(onB.map(notes))).every((lines) => lines.length >= 1),
    );
    const killed = Date.now();
    process.kill(hostB.pid!, 'SIGKILL');
    await waitUntil('host-b is gone', async () => !(await isProcessAlive(hostB.pid!)));

    // host-a's run goes on; host-b's runs wait: running, their files and steps unchanged.
    await client.workflow.getHandle(onA.workflowId).result();
    // A model call host-a finishes may still schedule one more edit on host-b's queue: look once that has settled.
    await sleep(3_000);
    const waiting = await Promise.all(onB.map(notes));
    const steps = await Promise.all(onB.map(runStatus));
    await sleep(5_000);
    expect(await Promise.all(onB.map(notes))).toEqual(waiting);
    for (const [index, run] of onB.entries()) {
      const status = await runStatus(run);
      expect(status.status).toBe('running');
      expect(status.step).toBe(steps[index]!.step);
    }
    expect(waiting.every((lines) => lines.length < EDITS)).toBe(true);
    // The same through the search attributes, on PostgreSQL visibility, and through `list`.
    const ids = onB.map((run) => run.workflowId);
    const running: string[] = [];
    for await (const execution of client.workflow.list({ query: `AgentStatus = "running"` }))
      running.push(execution.workflowId);
    expect(running).toEqual(expect.arrayContaining(ids));
    expect(running).not.toContain(onA.workflowId);
    const listed = await cluster.cli(['list', '--status', 'running', '--json']);
    expect(JSON.parse(listed.stdout).map((row: { workflowId: string }) => row.workflowId)).toEqual(
      expect.arrayContaining(ids),
    );

    const restarting = Date.now();
    await cluster.script();
    await recordPids(hostPids);
    const ready = Date.now();
    timings.hostLossWaited = seconds(restarting - killed);
    timings.hostRestart = seconds(ready - restarting);
    const resumed = await waitUntil('a host-b run makes progress', async () =>
      (await Promise.all(onB.map(notes))).some((lines, index) => lines.length > waiting[index]!.length),
    );
    timings.hostLossTimeToResume = seconds(resumed);
    await expectFinishedIntact([onA, ...onB], hostPids);
  });

  it('finds a run waiting for approval by AgentPendingApprovals and lets it finish once approved', async () => {
    // A protected path (.env.*) asks before every write.
    const run = await startRun('host-a', 'approval', 'wait', '.env.notes');
    const query = `AgentPendingApprovals > 0 AND AgentStatus = "waiting_approval"`;
    await waitUntil('the run shows a pending approval in visibility', async () => {
      for await (const execution of client.workflow.list({ query }))
        if (execution.workflowId === run.workflowId) return true;
      return false;
    });
    const pending = JSON.parse((await cluster.cli(['list', '--pending-approvals', '--json'])).stdout) as {
      workflowId: string;
    }[];
    expect(pending.map((row) => row.workflowId)).toContain(run.workflowId);
    // Approve each pending edit (with --remember, the first approval covers the rest) until the run completes.
    for (;;) {
      const status = JSON.parse((await cluster.cli(['status', run.workflowId, '--json'])).stdout) as {
        status: string;
        pendingApprovals: { callId: string }[];
      };
      if (status.status === 'completed') break;
      for (const approval of status.pendingApprovals)
        await cluster.cli(['approve', run.workflowId, approval.callId, '--remember']);
      await sleep(250);
    }
    expect(await notes(run)).toEqual(Array.from({ length: EDITS }, (_, index) => index + 1));
    const completed = await client.workflow.count(`AgentStatus = "completed" AND AgentStep > 0`);
    expect(completed.count).toBeGreaterThanOrEqual(8);
  });

  it('streams live model output through NATS: a watch --json from the CLI environment sees the text', async () => {
    const status = await cluster.status();
    expect(status.live.DURABLE_AGENT_LIVE_URL).toMatch(/^tls:\/\/127\.0\.0\.1:\d+$/);
    // The token is kept out of the printed environment: a file only its owner reads.
    expect((await fs.stat(status.live.DURABLE_AGENT_LIVE_TOKEN_FILE!)).mode & 0o777).toBe(0o600);
    const run = await startRun('host-b', 'live');
    // Live events are JSON lines on stderr (stdout keeps the one final object); --stream, as stderr is no terminal.
    const watched = await cluster.cli(['watch', run.workflowId, '--json', '--stream']);
    expect(watched.exitCode, watched.stderr).toBe(0);
    const events = watched.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Partial<LiveEvent>);
    const text = events.filter((event) => event.kind === 'text' && event.workflowId === run.workflowId);
    expect(text.map((event) => (event as { text: string }).text).join('')).toContain(`Appended ${EDITS} lines.`);
    // The events came through the cluster's stream (not a host's files): a reader with the cluster's variables sees
    // them, one with a wrong token is refused.
    const live = natsLiveChannelFromEnv(status.live);
    const controller = new AbortController();
    const seen: LiveEvent[] = [];
    try {
      for await (const event of live.subscribe(run.workflowId, { from: 'start', signal: controller.signal })) {
        seen.push(event);
        if (event.kind === 'end' && seen.some((one) => one.kind === 'text')) controller.abort();
      }
    } finally {
      await live.close();
    }
    expect(seen.some((event) => event.kind === 'text')).toBe(true);
    const wrong = natsLiveChannelFromEnv({ ...status.live, DURABLE_AGENT_LIVE_TOKEN: 'not-the-token' });
    const refused = (async () => {
      for await (const event of wrong.subscribe(run.workflowId, {
        from: 'start',
        signal: new AbortController().signal,
      }))
        void event;
    })();
    await expect(refused).rejects.toThrow(/authorization/i);
    await wrong.close();
  });

  it("forks a finished run of one host on the other with a step's files, and rewinds the original there", async () => {
    const hostPids = new Map<string, Set<number>>();
    await recordPids(hostPids);
    const source = await startRun('host-a', 'fork-source', 'approve', NOTES_FILE, 200);
    await expectFinishedIntact([source], hostPids);

    // Step 3 is the second edit (step 1 reads): the fork starts from lines 1 and 2, in a new directory on host-b,
    // from the checkpoints host-a's worker left in the cluster's store; a model that goes on from where the
    // transcript is appends the rest there.
    const hostB = (await cluster.status()).hosts.find((host) => host.name === 'host-b')!;
    const directory = path.join(hostB.workspaceRoot, 'forked-from-a');
    const model = await startEditModel({ edits: EDITS, latencyMs: 100 });
    models.push(model);
    const fork = await cluster.cli([
      'fork',
      source.workflowId,
      '--from-step',
      '3',
      '--workspace',
      directory,
      '--tool-queue',
      hostB.toolQueue,
      '--base-url',
      model.url,
      '--model',
      'scripted',
      '--json',
    ]);
    expect(fork.exitCode, fork.stderr).toBe(0);
    const forked = JSON.parse(fork.stdout) as { workflowId: string; status: string };
    expect(forked.status).toBe('completed');
    const forkRun: Run = { ...source, workflowId: forked.workflowId, host: 'host-b', workspace: directory, model };
    // Lines 1 and 2 came with the files; host-b's worker appended 3 to 6, each once, reading nothing first.
    expect(await notes(forkRun)).toEqual(Array.from({ length: EDITS }, (_, index) => index + 1));
    const forkActivities = await toolActivities(forkRun);
    expect(forkActivities.length).toBe(EDITS - 2);
    for (const activity of forkActivities) expect(activity.taskQueue).toBe(hostB.toolQueue);
    expect(await notes(source)).toEqual(Array.from({ length: EDITS }, (_, index) => index + 1));

    const rewound = await cluster.cli(['rewind', source.workflowId, '--to-step', '3']);
    expect(rewound.exitCode, rewound.stderr).toBe(0);
    expect(await notes(source)).toEqual([1, 2]);
  });

  it('stops everything it started', async () => {
    const before = await cluster.status();
    await cluster.script(['--stop']);
    const after = await cluster.status();
    for (const process of Object.values(after.processes)) expect(process.running).toBe(false);
    for (const [name, process] of Object.entries(before.processes))
      if (process.pid !== null)
        expect({ name, running: await isRunning(process.pid) }).toEqual({ name, running: false });
  });
});
