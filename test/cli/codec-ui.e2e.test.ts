// The embedded Web UI decodes payloads through the codec endpoint in a real browser (headless Chromium) run by the
// operator, and shows nothing of the store to the same UI in another local user's browser.
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refString } from '../../src/protocol/content-key.js';
import { startCodecServer } from '../../src/store/codec-server.js';
import type { CodecServer } from '../../src/store/codec-server.js';
import { createDirectoryStore } from '../../src/store/directory-store.js';
import { requireChromium } from '../support/optional-tools.js';
import { findFreePorts } from '../support/ports.js';
import { startTestTemporalServer } from '../support/temporal-server.js';
import type { TestTemporalServer } from '../support/temporal-server.js';

const SECRET = 'DB_PASSWORD=correct-horse-battery-staple';
const NOBODY = '65534';

let directory: string;
let profiles: string;
let server: TestTemporalServer;
let codec: CodecServer;
let page: string;
let key: string;

/** The page's DOM once the UI has made every call it makes (a closed run's page goes quiet). */
async function renderedBy(user: 'operator' | 'nobody', chromium: string): Promise<string> {
  const profile = await mkdtemp(join(profiles, `chromium-${user}-`));
  const browser = [chromium, '--headless', '--no-sandbox', '--disable-gpu', `--user-data-dir=${profile}`];
  const flags = ['--virtual-time-budget=15000', '--dump-dom', page];
  if (user === 'operator')
    return (await execa(browser[0]!, [...browser.slice(1), ...flags], { timeout: 90_000 })).stdout;
  await chown(profile, Number(NOBODY), Number(NOBODY));
  const asNobody = ['--reuid', NOBODY, '--regid', NOBODY, '--clear-groups', 'env', `HOME=${profile}`];
  return (await execa('setpriv', [...asNobody, ...browser, ...flags], { timeout: 90_000, cwd: '/' })).stdout;
}

beforeAll(async () => {
  // The store's directory is the operator's alone (0700); the browsers' profiles sit apart, where nobody can reach theirs.
  directory = await mkdtemp(join(tmpdir(), 'codec-ui-'));
  profiles = await mkdtemp(join(tmpdir(), 'codec-ui-profiles-'));
  await chmod(profiles, 0o711);
  const store = createDirectoryStore(join(directory, 'store'));
  key = await store.put(SECRET);
  const [codecPort] = (await findFreePorts(1)) as [number];
  server = await startTestTemporalServer({ ui: true, codecUrl: `http://127.0.0.1:${codecPort}`, log: () => {} });
  codec = await startCodecServer({ store, port: codecPort, corsOrigins: [server.uiUrl], log: () => {} });
  const connection = await Connection.connect({ address: server.address });
  try {
    const client = new Client({ connection });
    // Nothing polls this queue: the run only has to exist, with a content key in its input.
    const handle = await client.workflow.start('agentWorkflow', {
      taskQueue: 'codec-ui-nobody-polls',
      workflowId: 'codec-ui-proof',
      args: [{ secretsFile: refString(key as `sha256:${string}`) }],
    });
    // A closed run: the page of a running one keeps a request open, so the browser's virtual time never runs out.
    await handle.terminate('shown in the Web UI');
    page = `${server.uiUrl}/namespaces/default/workflows/codec-ui-proof/${handle.firstExecutionRunId}/history`;
  } finally {
    await connection.close();
  }
}, 180_000);

afterAll(async () => {
  await codec?.close();
  await server?.stop();
  await rm(directory, { recursive: true, force: true });
  await rm(profiles, { recursive: true, force: true });
});

describe('the Web UI and the codec endpoint in a browser', () => {
  it("shows the stored content in the operator's browser", async (context) => {
    const dom = await renderedBy('operator', await requireChromium(context));
    expect(dom).toContain('codec-ui-proof');
    expect(dom).toContain(SECRET);
  }, 120_000);

  it("shows another local user's browser the content key and not a byte of the content", async (context) => {
    const dom = await renderedBy('nobody', await requireChromium(context));
    // The same page rendered, with the input as history holds it.
    expect(dom).toContain('codec-ui-proof');
    expect(dom).toContain(key);
    expect(dom).not.toContain('correct-horse');
  }, 120_000);
});
