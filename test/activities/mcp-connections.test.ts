// The worker's MCP connection pool against a real stdio server (the SDK-built fixture): a connection no call uses is
// closed after the idle time — its server process exits — while one in use stays, and the next call connects again.
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpConnectionPool } from '../../src/activities/mcp/connections.js';
import { createMcpConnectionPool } from '../../src/activities/mcp/connections.js';
import { fixtureServer } from '../support/mcp-servers.js';

const IDLE_MS = 300;
let pool: McpConnectionPool | undefined;
afterEach(async () => {
  await pool?.closeAll();
});

describe('the MCP connection pool', () => {
  it('closes a connection no call has used for the idle time, keeps one in use, and connects again after', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-pool-'));
    pool = createMcpConnectionPool(process.env, {
      sandbox: { kind: 'off' },
      dataDir: join(dir, 'data'),
      idleMs: IDLE_MS,
    });
    const target = { workspace: join(dir, 'workspace'), source: 'worker' } as const;
    const idle = await pool.connect('idle', fixtureServer(join(dir, 'idle.log')), target);
    pool.release(idle);
    const busy = await pool.connect('busy', fixtureServer(join(dir, 'busy.log')), target);

    await sleep(IDLE_MS * 4);
    expect(idle.client.transport).toBeUndefined();
    expect(busy.client.transport).toBeDefined();
    // The closed server's empty working directory went with it.
    expect(await readdir(join(dir, 'data', 'mcp'))).toHaveLength(1);
    await expect(busy.client.listTools()).resolves.toMatchObject({ tools: expect.any(Array) });

    const again = await pool.connect('idle', fixtureServer(join(dir, 'idle.log')), target);
    expect(again).not.toBe(idle);
    await expect(again.client.listTools()).resolves.toMatchObject({ tools: expect.any(Array) });
    pool.release(again);
    pool.release(busy);
  }, 60_000);
});
