// The worker's MCP connection pool against a real stdio server (the SDK-built fixture): a connection no call uses is
// closed after the idle time — its server process exits — while one in use stays, and the next call connects again.
import { mkdtemp } from 'node:fs/promises';
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
    pool = createMcpConnectionPool(process.env, IDLE_MS);
    const idle = await pool.connect('idle', fixtureServer(join(dir, 'idle.log')), dir);
    pool.release(idle);
    const busy = await pool.connect('busy', fixtureServer(join(dir, 'busy.log')), dir);

    await sleep(IDLE_MS * 4);
    expect(idle.client.transport).toBeUndefined();
    expect(busy.client.transport).toBeDefined();
    await expect(busy.client.listTools()).resolves.toMatchObject({ tools: expect.any(Array) });

    const again = await pool.connect('idle', fixtureServer(join(dir, 'idle.log')), dir);
    expect(again).not.toBe(idle);
    await expect(again.client.listTools()).resolves.toMatchObject({ tools: expect.any(Array) });
    pool.release(again);
    pool.release(busy);
  }, 60_000);
});
