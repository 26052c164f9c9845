// Live output end to end: the real CLI following runs on a worker that publishes through the file transport of a
// state directory both share. The model's text reaches `run`'s terminal while the call is still going, a retried
// call shows its first attempt superseded and its second in full, `watch` attached mid-call sees the call from its
// start, --json gives the events as JSON lines on stderr, and twenty watchers leave an approval and the run alone.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileLiveChannel } from '../../src/live/file-channel.js';
import type { LiveEvent } from '../../src/live/live-event.js';
import type { StreamEvent } from '../../src/scripted-model/dialect.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import { durableAgentBin } from '../support/cli.js';
import type { Harness } from '../support/harness.js';
import { startHarness, startScriptedRun, temporalAddress, workspaceFrom } from '../support/harness.js';
import { pendingApproval, waitFor } from '../support/wait.js';

const stateDir = await mkdtemp(join(tmpdir(), 'durable-agent-live-'));
const live = createFileLiveChannel({ stateDir, maxAttemptBytes: 1024 * 1024 });
let harness: Harness | undefined;
beforeAll(async () => {
  harness = await startHarness(undefined, { live });
});
afterAll(async () => {
  await harness?.close();
  await live.close();
  await rm(stateDir, { recursive: true, force: true });
});
const suite = {
  get harness(): Harness {
    return harness!;
  },
};

/** The CLI against the suite's worker, reading live output from the same state directory; stderr kept as it comes. */
function spawnCli(args: string[]) {
  const child = execa(process.execPath, [durableAgentBin, ...args], {
    env: {
      TEMPORAL_ADDRESS: temporalAddress(),
      DURABLE_AGENT_TASK_QUEUE: suite.harness.taskQueue,
      DURABLE_AGENT_STATE_DIR: stateDir,
    },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  const seen = { stderr: '' };
  child.stderr.on('data', (chunk: Buffer) => (seen.stderr += chunk.toString('utf8')));
  return { child, seen };
}

// A clipboard write and a bidi override, as hostile model output would carry them.
const HOSTILE = '\u001b]52;c;aGk=\u0007\u202e';

/** The events a `--json --stream` follower printed on stderr. */
const jsonEvents = (stderr: string): LiveEvent[] =>
  stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LiveEvent);

/** A scripted server that remembers when it sent each paced event. */
async function pacedModel(script: ScriptTurn[]) {
  const sent: { at: number; event: StreamEvent }[] = [];
  const server = await startScriptedModelServer({
    script,
    onStreamEvent: (event) => sent.push({ at: Date.now(), event }),
  });
  return { server, sent };
}

describe('live output', () => {
  it("reaches run's terminal before the call ends", async () => {
    const { server, sent } = await pacedModel([
      {
        content: `Looking around the workspace first.${HOSTILE}`,
        chunk_size: 6,
        chunk_delay_ms: 20,
        end_delay_ms: 3_000,
      },
    ]);
    try {
      const { child, seen } = spawnCli([
        'run',
        '--stream',
        '--base-url',
        server.url,
        '--model',
        'm',
        '--cwd',
        await workspaceFrom(),
        'look around',
      ]);
      const textAt = await waitFor(
        async () => (seen.stderr.includes('Looking around the workspace first.') ? Date.now() : undefined),
        'the live text',
      );
      const result = await child;
      expect(result.exitCode, result.stderr).toBe(0);
      const lastSent = sent.at(-1)!.at;
      // The last event (the end of the answer) left the model three seconds after the text: the text was shown first.
      expect(lastSent - textAt).toBeGreaterThan(1_500);
      // The model's control sequences are shown escaped, never acted on.
      expect(seen.stderr).toContain('\\x1b]52;c;aGk=\\x07\\u202e');
      const raw = Array.from(seen.stderr).filter(
        (character) => character !== '\n' && /[\p{Cc}\p{Cf}]/u.test(character),
      );
      expect(raw).toEqual([]);
      // The live text comes before the step's progress line.
      expect(seen.stderr.indexOf('Looking around')).toBeLessThan(seen.stderr.indexOf('step 1'));
    } finally {
      await server.close();
    }
  });

  it('marks a dropped attempt superseded and shows the retry in full', async () => {
    const { server } = await pacedModel([
      { content: 'First try that breaks halfway through.', chunk_size: 4, drop_connection: true },
      { content: 'Second attempt, complete.', chunk_size: 4, chunk_delay_ms: 5 },
    ]);
    try {
      const { child, seen } = spawnCli([
        'run',
        '--stream',
        '--base-url',
        server.url,
        '--model',
        'm',
        '--cwd',
        await workspaceFrom(),
        'retry',
      ]);
      const result = await child;
      expect(result.exitCode, result.stderr).toBe(0);
      const marker = seen.stderr.indexOf('[attempt 1 superseded, retrying]');
      expect(marker, seen.stderr).toBeGreaterThan(0);
      expect(seen.stderr.indexOf('First try')).toBeLessThan(marker);
      expect(seen.stderr.indexOf('Second attempt, complete.')).toBeGreaterThan(marker);
    } finally {
      await server.close();
    }
  });

  it('watch attached mid-call shows the call from its start; --json gives the events as JSON lines on stderr', async () => {
    const sent: number[] = [];
    const { handle, model } = await startScriptedRun(suite.harness, {
      workspace: await workspaceFrom(),
      script: [{ content: 'Alpha beta gamma delta epsilon.', chunk_size: 6, chunk_delay_ms: 400, end_delay_ms: 1_500 }],
      server: { onStreamEvent: () => sent.push(Date.now()) },
    });
    try {
      // Attached once the first words were sent.
      await waitFor(async () => (sent.length >= 3 ? true : undefined), 'the first words');
      const human = spawnCli(['watch', handle.workflowId, '--stream']);
      const json = spawnCli(['watch', handle.workflowId, '--json', '--stream']);
      const attachedAt = await waitFor(
        async () => (json.seen.stderr.includes('"kind":"start"') ? Date.now() : undefined),
        'the watcher to show the call',
      );
      const [watched, watchedJson] = await Promise.all([human.child, json.child]);
      // It was shown the call's start while the call was still going.
      expect(attachedAt).toBeLessThan(sent.at(-1)!);
      expect(watched.exitCode, watched.stderr).toBe(0);
      expect(human.seen.stderr).toContain('Alpha beta gamma delta epsilon.');
      expect(watchedJson.exitCode, watchedJson.stderr).toBe(0);
      const events = jsonEvents(json.seen.stderr);
      expect(events[0]).toMatchObject({ kind: 'start', workflowId: handle.workflowId, attempt: 1, step: 1 });
      const text = events.flatMap((event) => (event.kind === 'text' ? [event.text] : [])).join('');
      expect(text).toBe('Alpha beta gamma delta epsilon.');
      expect(events.at(-1)).toMatchObject({ kind: 'end', finishReason: 'stop' });
      // stdout keeps its one final object.
      expect(JSON.parse(watchedJson.stdout)).toMatchObject({ workflowId: handle.workflowId, status: 'completed' });
    } finally {
      await model.close();
    }
  });

  it('twenty watchers do not make an approval fail nor slow the run', async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'junk.txt'), 'junk\n');
    const { handle, model } = await startScriptedRun(suite.harness, {
      workspace,
      input: { askPolicy: 'wait' },
      script: [
        {
          content: 'Removing the junk.',
          tool_calls: [{ id: 'rm', name: 'Bash', arguments: { command: 'rm -f junk.txt' } }],
        },
        { content: 'Removed it.', chunk_size: 3, chunk_delay_ms: 2 },
      ],
    });
    try {
      await pendingApproval(suite.harness.client, handle.workflowId, 'rm');
      const watchers = Array.from({ length: 20 }, () => spawnCli(['watch', handle.workflowId, '--json', '--stream']));
      await waitFor(
        async () => (watchers.every((watcher) => watcher.seen.stderr.includes('"kind":"end"')) ? true : undefined),
        'every watcher to show the first call',
        { timeoutMs: 60_000 },
      );
      const approve = spawnCli(['approve', handle.workflowId, 'rm']);
      expect((await approve.child).exitCode, approve.seen.stderr).toBe(0);
      const approvedAt = Date.now();
      await handle.result();
      const approvalToEnd = Date.now() - approvedAt;
      const results = await Promise.all(watchers.map((watcher) => watcher.child));
      for (const result of results) expect(result.exitCode, result.stderr).toBe(0);
      for (const watcher of watchers) expect(watcher.seen.stderr).toContain('"text":"Rem"');
      // What is left after the decision (the command, one more step) takes well under a second alone.
      expect(approvalToEnd).toBeLessThan(2_000);
    } finally {
      await model.close();
    }
  }, 120_000);
});
