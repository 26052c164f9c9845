// A workspace, a directory beside it for what lies outside it, and a content store, made afresh for each test of the
// file that calls useScratchWorkspace and removed after it.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { ContentStore } from '../../../src/store/content-store.js';
import { createDirectoryStore } from '../../../src/store/directory-store.js';

export interface ScratchWorkspace {
  temp: string;
  workspace: string;
  outside: string;
  store: ContentStore;
}

/** Registers the hooks; the returned object's fields are set before each test. */
export function useScratchWorkspace(name: string): ScratchWorkspace {
  const scratch = {} as ScratchWorkspace;
  beforeEach(async () => {
    scratch.temp = await fs.mkdtemp(path.join(os.tmpdir(), `durable-agent-${name}-`));
    scratch.workspace = path.join(scratch.temp, 'workspace');
    scratch.outside = path.join(scratch.temp, 'outside');
    await fs.mkdir(scratch.workspace);
    await fs.mkdir(scratch.outside);
    scratch.store = createDirectoryStore(path.join(scratch.temp, 'store'));
  });
  afterEach(() => fs.rm(scratch.temp, { recursive: true, force: true }));
  return scratch;
}
