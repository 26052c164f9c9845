// Takes a screenshot of the Temporal Web UI showing a finished demo run's event history, with the activity summaries
// an operator reads, into docs/img/. Needs Chromium (Debian's `chromium`); runs its own dev server on free ports.
//   node --import tsx scripts/screenshot-ui.ts [output.png]
import { cp, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { execa } from 'execa';
import { startScriptedModelServer } from '../src/providers/scripted-server.js';
import type { ScriptTurn } from '../src/providers/scripted-server.js';
import { createDirectoryStore } from '../src/store/directory-store.js';
import { createAgentWorkers } from '../src/worker.js';
import { startTestTemporalServer } from '../test/support/temporal-server.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const output = process.argv[2] ?? join(root, 'docs', 'img', 'web-ui-history.png');
const browser = process.env.CHROMIUM ?? 'chromium';

const server = await startTestTemporalServer({ ui: true });
const workerConnection = await NativeConnection.connect({ address: server.address });
const connection = await Connection.connect({ address: server.address });
const script = JSON.parse(await readFile(join(root, 'examples/demo/script.json'), 'utf8')) as ScriptTurn[];
const model = await startScriptedModelServer({ script });
const taskQueue = 'durable-agent';
const store = createDirectoryStore(await mkdtemp(join(tmpdir(), 'durable-agent-screenshot-store-')));
const agent = await createAgentWorkers({ connection: workerConnection, address: server.address, namespace: 'default', taskQueue, env: { OPENAI_API_KEY: 'unused' }, store });
const running = agent.run();
try {
  const workspace = await mkdtemp(join(tmpdir(), 'durable-agent-screenshot-'));
  await cp(join(root, 'examples/demo/project'), workspace, { recursive: true });
  const client = new Client({ connection });
  const task = 'The tests of this project fail. Find the bug, fix it with the smallest correct change, and run the tests to confirm.';
  const handle = await client.workflow.start('agentWorkflow', {
    workflowId: 'agent-fix-the-failing-tests-demo',
    taskQueue,
    args: [{ task, workspace, selection: { model: 'scripted', baseUrl: model.url }, maxSteps: 20, mode: 'default', askPolicy: 'deny', searchAttributes: true }],
    memo: { task, cwd: workspace },
    staticSummary: task,
    staticDetails: `model: scripted · workspace: ${workspace} · mode: default`,
  });
  await handle.result();
  const url = `${server.uiUrl}/namespaces/default/workflows/${handle.workflowId}/${handle.firstExecutionRunId}/history`;
  await execa(
    browser,
    ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--window-size=1600,1400', '--virtual-time-budget=20000', `--screenshot=${output}`, url],
    { stdio: 'inherit' },
  );
  console.log(`screenshot of ${url} written to ${output}`);
} finally {
  agent.shutdown();
  await running;
  await model.close();
  await workerConnection.close();
  await connection.close();
  await server.stop();
}
