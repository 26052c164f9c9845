// Node: the executor of each built-in contract, by the contract's name. A new built-in tool is a contract file with
// its line in tools/index.ts (what the workflow may import) and an executor file with its line here.
import { bash, editFile, glob, grep, readFile, writeFile } from '../../tools/index.js';
import type { CommandNetworkSettings } from '../sandbox/command-network.js';
import type { CommandSandbox } from '../sandbox/command-sandbox.js';
import { createBashExecutor } from './bash.js';
import { executeEditFile } from './edit-file.js';
import { executeGlob } from './glob.js';
import { executeGrep } from './grep.js';
import { executeReadFile } from './read-file.js';
import type { ToolExecutor } from './types.js';
import { executeWriteFile } from './write-file.js';

/** The built-in executors; commands run in `sandbox`, approved network commands behind a proxy with `network`. */
export function builtinExecutors(
  sandbox: CommandSandbox,
  network?: CommandNetworkSettings,
): Readonly<Record<string, ToolExecutor>> {
  return {
    [bash.name]: createBashExecutor(sandbox, network),
    [editFile.name]: executeEditFile,
    [glob.name]: executeGlob,
    [grep.name]: executeGrep,
    [readFile.name]: executeReadFile,
    [writeFile.name]: executeWriteFile,
  };
}
