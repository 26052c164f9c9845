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
import { startCodecServer } from '../src/store/codec-server.js';
import { createDirectoryStore } from '../src/store/directory-store.js';
import { createAgentWorkers } from '../src/worker.js';
import { startTestTemporalServer } from '../test/support/temporal-server.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const output = process.argv[2] ?? join(root, 'docs', 'img', 'web-ui-history.png');
const browser = process.env.CHROMIUM ?? 'chromium';

// The UI decodes payloads through the codec endpoint, so the screenshot shows stored content, not keys.
const store = createDirectoryStore(await mkdtemp(join(tmpdir(), 'durable-agent-screenshot-store-')));
const codec = await startCodecServer({ store, port: 0, corsOrigins: ['*'] });
const server = await startTestTemporalServer({ ui: true, codecUrl: codec.url });
const workerConnection = await NativeConnection.connect({ address: server.address });
const connection = await Connection.connect({ address: server.address });
const script = JSON.parse(await readFile(join(root, 'examples/demo/script.json'), 'utf8')) as ScriptTurn[];
const model = await startScriptedModelServer({ script });
const taskQueue = 'durable-agent';
const agent = await createAgentWorkers({
  connection: workerConnection,
  address: server.address,
  namespace: 'default',
  taskQueue,
  env: { OPENAI_API_KEY: 'unused' },
  store,
});
const running = agent.run();
try {
  const workspace = await mkdtemp(join(tmpdir(), 'durable-agent-screenshot-'));
  await cp(join(root, 'examples/demo/project'), workspace, { recursive: true });
  const client = new Client({ connection });
  const task =
    'The tests of this project fail. Find the bug, fix it with the smallest correct change, and run the tests to confirm.';
  const handle = await client.workflow.start('agentWorkflow', {
    workflowId: 'agent-fix-the-failing-tests-demo',
    taskQueue,
    args: [
      {
        task,
        workspace,
        selection: { model: 'scripted', baseUrl: model.url },
        maxSteps: 20,
        mode: 'default',
        askPolicy: 'deny',
        searchAttributes: true,
      },
    ],
    memo: { task, cwd: workspace },
    staticSummary: task,
    staticDetails: `model: scripted · workspace: ${workspace} · mode: default`,
  });
  await handle.result();
  const url = `${server.uiUrl}/namespaces/default/workflows/${handle.workflowId}/${handle.firstExecutionRunId}/history`;
  await execa(
    browser,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--hide-scrollbars',
      '--window-size=1600,1400',
      '--virtual-time-budget=20000',
      `--screenshot=${output}`,
      url,
    ],
    { stdio: 'inherit' },
  );
  console.log(`screenshot of ${url} written to ${output}`);

  // A model call's input as the codec shows it: the transcript head expanded into its node and messages.
  const history = await handle.fetchHistory();
  const call = history
    .events!.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel')
    .at(-1)!;
  const eventUrl = `${url}/events/${String(call.eventId)}`;
  const eventOutput = output.replace(/\.png$/, '-decoded.png');
  await execa(
    browser,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--hide-scrollbars',
      '--window-size=1600,1400',
      '--virtual-time-budget=20000',
      `--screenshot=${eventOutput}`,
      eventUrl,
    ],
    { stdio: 'ignore' },
  );
  console.log(`screenshot of ${eventUrl} written to ${eventOutput}`);
} finally {
  agent.shutdown();
  await running;
  await model.close();
  await workerConnection.close();
  await connection.close();
  await server.stop();
  await codec.close();
}
