// Runs one file-tool executor in a separate process and prints its result as JSON. The permission tests start it as
// an unprivileged user, since root is never refused by file modes.
import { executeEditFile } from '../../../src/activities/executors/edit-file.js';
import { executeReadFile } from '../../../src/activities/executors/read-file.js';
import { executeWriteFile } from '../../../src/activities/executors/write-file.js';
import type { ReadStateStore } from '../../../src/protocol/read-state.js';
import { makeExecutorContext } from '../executor-context.js';

const executors = { ReadFile: executeReadFile, WriteFile: executeWriteFile, EditFile: executeEditFile };

const request = JSON.parse(process.argv[2] ?? '{}') as {
  tool: keyof typeof executors;
  root: string;
  input: Record<string, unknown>;
  readState?: ReadStateStore;
};
const result = await executors[request.tool](
  makeExecutorContext({ root: request.root, input: request.input, readState: request.readState }),
);
process.stdout.write(JSON.stringify(result));
