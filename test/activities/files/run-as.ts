// Runs a file-tool executor in a child process that file modes apply to. Root bypasses file modes through its
// CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH capabilities, so under root the child stays root (it can still read the
// project wherever it is checked out) but runs with those two capabilities dropped, via util-linux's setpriv.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ToolActivityResult } from '../../../src/protocol/tool-activity.js';
import type { ReadStateStore } from '../../../src/protocol/read-state.js';
import { compiledEntry } from '../../support/compiled-entry.js';

const script = fileURLToPath(new URL('./run-executor.ts', import.meta.url));
const DROP_DAC = ['--inh-caps=-dac_override,-dac_read_search', '--bounding-set=-dac_override,-dac_read_search'];

/** The executor's result, computed by a process that file permissions apply to. */
export async function runAsUnprivileged(request: {
  tool: 'ReadFile' | 'WriteFile' | 'EditFile';
  root: string;
  input: Record<string, unknown>;
  readState?: ReadStateStore;
}): Promise<ToolActivityResult> {
  const asRoot = process.getuid?.() === 0;
  const node = [process.execPath, await compiledEntry(script), JSON.stringify(request)];
  const [command, ...args] = asRoot ? ['setpriv', ...DROP_DAC, '--', ...node] : node;
  return new Promise((resolve, reject) => {
    execFile(command!, args, { timeout: 30_000, cwd: process.cwd() }, (error, stdout, stderr) => {
      if (error) reject(new Error(`executor process failed: ${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as ToolActivityResult);
    });
  });
}
