// Live output in embedded mode, through the real CLI: no TEMPORAL_ADDRESS, only a state directory, whose embedded dev
// server's background worker runs the call and publishes through the files of that directory. The model's text
// reaches `run`'s stderr while the call is still going, and what the worker wrote of it only its user can read.
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDevServer, stopDevServer } from '../../src/dev-server/index.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import { durableAgentBin } from '../support/cli.js';
import { workspaceFrom } from '../support/harness.js';
import { findFreePorts } from '../support/ports.js';
import { waitFor } from '../support/wait.js';

let stateDir: string;

beforeAll(async () => {
  stateDir = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-embedded-live-'));
  const [port, httpPort] = (await findFreePorts(2)) as [number, number];
  await ensureDevServer({ stateDir, port, httpPort, headless: true, build: false, log: () => {} });
});

afterAll(async () => {
  await stopDevServer({ stateDir, graceMs: 2_000 });
  await rm(stateDir, { recursive: true, force: true });
});

/** Every directory and file below `root` (itself included) with its permission bits. */
async function modes(root: string): Promise<{ path: string; directory: boolean; mode: number }[]> {
  const entries = await readdir(root, { recursive: true });
  return Promise.all(
    ['', ...entries].map(async (entry) => {
      const info = await stat(path.join(root, entry));
      return { path: entry, directory: info.isDirectory(), mode: info.mode & 0o777 };
    }),
  );
}

describe('live output on the embedded server', () => {
  it("reaches run's stderr before the call ends, kept in files only the user can read", async () => {
    const sent: number[] = [];
    const model = await startScriptedModelServer({
      script: [
        { content: 'Checking the embedded worker streams.', chunk_size: 6, chunk_delay_ms: 20, end_delay_ms: 3_000 },
      ],
      onStreamEvent: () => sent.push(Date.now()),
    });
    try {
      const child = execa(
        process.execPath,
        [durableAgentBin, 'run', '--stream', '--base-url', model.url, '--cwd', await workspaceFrom(), 'check'],
        {
          env: { PATH: process.env.PATH!, HOME: process.env.HOME!, DURABLE_AGENT_STATE_DIR: stateDir },
          extendEnv: false,
          reject: false,
          stdin: 'ignore',
          timeout: 90_000,
        },
      );
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const textAt = await waitFor(
        async () => (stderr.includes('Checking the embedded worker streams.') ? Date.now() : undefined),
        'the live text on stderr',
        { timeoutMs: 60_000 },
      );
      const result = await child;
      expect(result.exitCode, stderr).toBe(0);
      // The answer's end left the model three seconds after its text: the text was on the terminal first.
      expect(sent.at(-1)! - textAt).toBeGreaterThan(1_500);
      const found = await modes(path.join(stateDir, 'live'));
      expect(found.filter((entry) => !entry.directory).map((entry) => entry.path)).toEqual([
        expect.stringMatching(/\.1\.ndjson$/),
      ]);
      for (const entry of found)
        expect([entry.path, entry.mode]).toEqual([entry.path, entry.directory ? 0o700 : 0o600]);
    } finally {
      await model.close();
    }
  }, 120_000);
});
