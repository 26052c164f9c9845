// A worker process's share of a binding race: once told to go (a line on stdin), binds every proof it is given to
// the run id given, all at once, and prints the answers (JSON) — as the activities of many runs do on one worker.
import { once } from 'node:events';
import { createRunBindings } from '../../../src/activities/authorization/run-bindings.js';

const [directory, runId, count] = process.argv.slice(2) as [string, string, string];
const bindings = createRunBindings(directory);
process.stdout.write('ready\n');
await once(process.stdin, 'data');
const answers = await Promise.all(
  Array.from({ length: Number(count) }, (_, index) => bindings.bind(`mac-${index}`, runId)),
);
process.stdout.write(JSON.stringify(answers));
process.stdin.destroy();
