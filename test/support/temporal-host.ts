// A scratch host for the Temporal CLI's provisioning tests: a home, a cache, an empty PATH and a release URL nothing
// answers at (a download is refused at once, as offline, and never reaches the internet), fresh for each test.
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';

// Stand-ins are real executables (shell scripts) so resolution runs exactly as it does for the real CLI.
export async function writeExecutable(file: string, body: string): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

export const fakeTemporal = (version: string) => `echo "temporal version ${version} (Server 1.29.1, UI 2.42.1)"`;

/** The scratch host of the current test. */
export interface ScratchHost {
  readonly root: string;
  readonly emptyPath: string;
  readonly refusedUrl: string;
  /** The provisioning's environment on this host, with `overrides`. */
  environment(overrides: Record<string, string>): Record<string, string>;
}

/** Registers the per-test scratch host of a test file. */
export function scratchHost(): ScratchHost {
  let root = '';
  let emptyPath = '';
  let refusedUrl = '';
  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'temporal-binary-'));
    emptyPath = path.join(root, 'empty-path');
    await fs.mkdir(emptyPath);
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    refusedUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise((resolve) => probe.close(resolve));
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });
  return {
    get root() {
      return root;
    },
    get emptyPath() {
      return emptyPath;
    },
    get refusedUrl() {
      return refusedUrl;
    },
    environment: (overrides) => ({
      HOME: root,
      DURABLE_AGENT_CACHE_DIR: path.join(root, 'cache'),
      PATH: emptyPath,
      TEMPORAL_CLI_DOWNLOAD_BASE_URL: refusedUrl,
      ...overrides,
    }),
  };
}
