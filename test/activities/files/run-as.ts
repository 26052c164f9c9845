// Runs a file-tool executor in a child process that file modes apply to: as `nobody` when the tests run as root
// (root bypasses them), as the current user otherwise.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ToolActivityResult } from '../../../src/activities/tool-request.js';
import type { ReadStateStore } from '../../../src/core/read-state.js';

const script = fileURLToPath(new URL('./run-executor.ts', import.meta.url));
const NOBODY = 65534;

/** The executor's result, computed by an unprivileged process. */
export function runAsUnprivileged(request: {
  tool: 'ReadFile' | 'WriteFile' | 'EditFile';
  root: string;
  input: Record<string, unknown>;
  readState?: ReadStateStore;
}): Promise<ToolActivityResult> {
  const asRoot = process.getuid?.() === 0;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', script, JSON.stringify(request)],
      { ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}), timeout: 30_000, cwd: process.cwd() },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`executor process failed: ${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as ToolActivityResult);
      },
    );
  });
}
