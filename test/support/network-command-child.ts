// The network scenario (network-scenario.ts) as a worker of another user runs it: started under setpriv as uid 65534
// by the test, it prints its observations as one JSON line.
import { resolveCommandSandbox } from '../../src/activities/sandbox/command-sandbox.js';
import { observeNetworkInScratch } from './network-scenario.js';

const sandbox = await resolveCommandSandbox({ ...process.env, DURABLE_AGENT_SANDBOX: 'bubblewrap' });
process.stdout.write(`${JSON.stringify(await observeNetworkInScratch(sandbox))}\n`);
