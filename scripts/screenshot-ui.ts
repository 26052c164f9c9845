// Takes screenshots of the Temporal Web UI into docs/img/: a finished demo run's event history, with the activity
// summaries an operator reads, a run waiting for approval, with what is pending and why, and a conversation waiting
// for its next request, with where its last request began. Needs Chromium (Debian's
// `chromium`); runs its own dev server on free ports.
//   node --import tsx scripts/screenshot-ui.ts [output.png]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { execa } from 'execa';
import { approvalSummary } from '../src/core/approvals.js';
import { startScriptedModelServer } from '../src/scripted-model/server.js';
import type { ScriptTurn } from '../src/scripted-model/server.js';
import { startCodecServer } from '../src/store/codec-server.js';
import { createDirectoryStore } from '../src/store/directory-store.js';
import { createAgentWorkers } from '../src/worker.js';
import { stateQuery } from '../src/protocol/run-messages.js';
import { sendMessage } from '../src/protocol/run-control.js';
import { findFreePorts } from '../test/support/ports.js';
import { startTestTemporalServer } from '../test/support/temporal-server.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const output = process.argv[2] ?? join(root, 'docs', 'img', 'web-ui-history.png');
const browser = process.env.CHROMIUM ?? 'chromium';
const headless = ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars'];

/** A finished run's page, taken when virtual time runs out: after every fetch the page makes (the codec's too). */
async function screenshot(url: string, file: string): Promise<void> {
  const flags = ['--window-size=1600,1400', '--virtual-time-budget=20000', `--screenshot=${file}`];
  await execa(browser, [...headless, ...flags, url], { stdio: 'ignore' });
  console.log(`screenshot of ${url} written to ${file}`);
}

/**
 * A running workflow's page, taken once every string of `texts` is on it. The UI keeps a request open for a running
 * workflow's new events, so virtual time never runs out: the page is driven over the DevTools protocol instead
 * (--remote-debugging-pipe: NUL-terminated JSON, commands on fd 3, answers on fd 4).
 */
async function screenshotLive(url: string, file: string, texts: string[]): Promise<void> {
  const chrome = spawn(browser, [...headless, '--remote-debugging-pipe'], {
    stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
  });
  const exited = once(chrome, 'exit');
  const replies = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();
  chrome.once('exit', () => replies.forEach(({ reject }) => reject(new Error('Chromium exited'))));
  const answers = chrome.stdio[4] as Readable;
  answers.setEncoding('utf8');
  let received = '';
  answers.on('data', (chunk: string) => {
    const messages = (received + chunk).split('\0');
    received = messages.pop()!;
    for (const message of messages) {
      const { id, result, error } = JSON.parse(message) as {
        id?: number;
        result?: unknown;
        error?: { message: string };
      };
      const reply = id === undefined ? undefined : replies.get(id);
      if (!reply) continue; // an event: nothing waits for it
      replies.delete(id!);
      if (error) reply.reject(new Error(error.message));
      else reply.resolve(result);
    }
  });
  let lastId = 0;
  const send = <T>(method: string, params: object = {}, sessionId?: string) =>
    new Promise<T>((resolve, reject) => {
      replies.set(++lastId, { resolve: resolve as (result: unknown) => void, reject });
      (chrome.stdio[3] as Writable).write(`${JSON.stringify({ id: lastId, method, params, sessionId })}\0`);
    });
  try {
    const { targetId } = await send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
    const page = <T>(method: string, params: object = {}) => send<T>(method, params, sessionId);
    await page('Emulation.setDeviceMetricsOverride', { width: 1600, height: 900, deviceScaleFactor: 1, mobile: false });
    await page('Page.navigate', { url });
    // The UI renders Markdown (the summary and details) in same-origin iframes: their text counts too.
    const shown = `(() => {
      const documents = [document, ...[...document.querySelectorAll('iframe')].map((frame) => frame.contentDocument)];
      const text = documents.map((doc) => doc?.body?.innerText ?? '').join('\\n');
      return ${JSON.stringify(texts)}.every((wanted) => text.includes(wanted));
    })()`;
    for (const deadline = Date.now() + 60_000; ; await sleep(500)) {
      const { result } = await page<{ result: { value: boolean } }>('Runtime.evaluate', { expression: shown });
      if (result.value) break;
      if (Date.now() > deadline) throw new Error(`${url} did not show ${texts.join(', ')} within 60 s`);
    }
    await sleep(1000); // layout settles after the last text arrives
    const { data } = await page<{ data: string }>('Page.captureScreenshot', { format: 'png' });
    await writeFile(file, Buffer.from(data, 'base64'));
  } finally {
    // Browser.close gets no answer: the browser just exits (Debian's wrapper then removes its temporary profile).
    (chrome.stdio[3] as Writable).write(`${JSON.stringify({ id: 0, method: 'Browser.close' })}\0`);
    await exited;
  }
  console.log(`screenshot of ${url} written to ${file}`);
}

// The UI decodes payloads through the codec endpoint, so the screenshot shows stored content, not keys.
const store = createDirectoryStore(await mkdtemp(join(tmpdir(), 'durable-agent-screenshot-store-')));
// The UI is told the endpoint's address before either starts; the endpoint then allows the UI's origin alone.
const [codecPort] = (await findFreePorts(1)) as [number];
const server = await startTestTemporalServer({ ui: true, codecUrl: `http://127.0.0.1:${codecPort}` });
const codec = await startCodecServer({ store, port: codecPort, corsOrigins: [server.uiUrl] });
const workerConnection = await NativeConnection.connect({ address: server.address });
const connection = await Connection.connect({ address: server.address });
const script = JSON.parse(await readFile(join(root, 'examples/demo/script.json'), 'utf8')) as ScriptTurn[];
const model = await startScriptedModelServer({ script });
// A scripted server serves its turns to whoever asks first: the waiting run gets its own.
const waitingModel = await startScriptedModelServer({
  script: [{ tool_calls: [{ id: 'call_wipe', name: 'Bash', arguments: { command: 'rm -rf build' } }] }],
});
const sessionModel = await startScriptedModelServer({
  script: [{ content: 'The build directory is clean.' }, { content: 'The docs now say how to clean it.' }],
});
const taskQueue = 'durable-agent';
const agent = await createAgentWorkers({
  connection: workerConnection,
  address: server.address,
  namespace: 'default',
  taskQueue,
  // PATH: Bash commands run in the bubblewrap sandbox, whose bwrap the worker finds on PATH.
  env: { PATH: process.env.PATH, OPENAI_API_KEY: 'unused' },
  store,
});
const running = agent.run();
try {
  const client = new Client({ connection });
  const start = async (
    workflowId: string,
    task: string,
    baseUrl: string,
    askPolicy: 'deny' | 'wait',
    session?: { idleMs: number },
  ) => {
    const workspace = await mkdtemp(join(tmpdir(), 'durable-agent-screenshot-'));
    await cp(join(root, 'examples/demo/project'), workspace, { recursive: true });
    return client.workflow.start('agentWorkflow', {
      workflowId,
      taskQueue,
      args: [
        {
          task,
          workspace,
          selection: { model: 'scripted', baseUrl },
          maxSteps: 20,
          mode: 'default',
          askPolicy,
          searchAttributes: true,
          ...(session ? { session } : {}),
        },
      ],
      memo: { task, cwd: workspace },
      staticSummary: task,
      staticDetails: `model: scripted · workspace: ${workspace} · mode: default`,
    });
  };
  const page = (run: { workflowId: string; firstExecutionRunId: string }, view: string) =>
    `${server.uiUrl}/namespaces/default/workflows/${run.workflowId}/${run.firstExecutionRunId}/${view}`;

  const handle = await start(
    'agent-fix-the-failing-tests-demo',
    'The tests of this project fail. Find the bug, fix it with the smallest correct change, and run the tests to confirm.',
    model.url,
    'deny',
  );
  await handle.result();
  await screenshot(page(handle, 'history'), output);

  // A model call's input as the codec shows it: the transcript head expanded into its node and messages.
  const history = await handle.fetchHistory();
  const call = history
    .events!.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel')
    .at(-1)!;
  await screenshot(page(handle, `history/events/${String(call.eventId)}`), output.replace(/\.png$/, '-decoded.png'));

  // A run waiting for approval of a destructive command. Its User Metadata view shows, on one screen, the current
  // details (the pending call, its risk level and reason) and the wait's timer with its summary.
  const waiting = await start(
    'agent-clean-the-build-waiting',
    'Clean the build output and rebuild',
    waitingModel.url,
    'wait',
  );
  const deadline = Date.now() + 60_000;
  let pending = (await waiting.query(stateQuery)).pendingApprovals;
  while (pending.length === 0) {
    if (Date.now() > deadline) throw new Error(`${waiting.workflowId} did not ask for approval within 60 s`);
    await sleep(200);
    pending = (await waiting.query(stateQuery)).pendingApprovals;
  }
  const approval = pending[0]!;
  const summary = approvalSummary(approval);
  // Taken once both have rendered: the current details' pending call and the timer's row in Events with Metadata.
  await screenshotLive(page(waiting, 'user-metadata'), join(dirname(output), 'web-ui-waiting-approval.png'), [
    `${approval.callId} — ${summary} (${approval.reason})`,
    `Timer\n\n${summary}`,
  ]);
  await waiting.terminate('screenshot taken');

  // A conversation after its second request: waiting for the third, the request's first model call labelled.
  const conversation = await start(
    'agent-clean-the-build-conversation',
    'Clean the build directory',
    sessionModel.url,
    'deny',
    { idleMs: 30 * 60_000 },
  );
  const answered = async (count: number) => {
    for (const deadline = Date.now() + 60_000; ; await sleep(200)) {
      const view = await conversation.query(stateQuery);
      if (view.status === 'waiting_input' && view.conversation?.count === count) return;
      if (Date.now() > deadline) throw new Error(`${conversation.workflowId} did not answer request ${count}`);
    }
  };
  await answered(1);
  await conversation.executeUpdate(sendMessage, {
    args: [{ id: 'request-2', text: 'Now say in the docs how to clean it' }],
  });
  await answered(2);
  await screenshotLive(page(conversation, 'user-metadata'), join(dirname(output), 'web-ui-conversation.png'), [
    'answered; waiting for the next request — durable-agent continue',
    '(request 2: Now say in the docs how to clean it)',
  ]);
  await conversation.terminate('screenshot taken');
} finally {
  agent.shutdown();
  await running;
  await model.close();
  await waitingModel.close();
  await sessionModel.close();
  await workerConnection.close();
  await connection.close();
  await server.stop();
  await codec.close();
}
