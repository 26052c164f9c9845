// How long `durable-agent --help`, `status ID` and `list` take to answer, as a user runs them (a fresh process each,
// the compiled CLI in dist/, the embedded dev server with its background worker), beside the Temporal CLI's own
// commands on the same server. A bare Node script on @temporalio/client (import, connect, describe) shows the part of
// the time any Node CLI on the SDK pays before its own code runs; `status` and `list` read the embedded server's HTTP
// API instead, so they do not pay it.
import { withCliEnv } from './cli-env.js';
import type { BenchRow } from './measure.js';
import { compareTimes, formatMs, formatRatio } from './measure.js';

/** The answer time the CLI aims at for `status` and `list` on this kind of machine. */
const TARGET_MS = 300;

// What a Node CLI on @temporalio/client cannot avoid: loading the SDK, one connection, one describe.
const SDK_FLOOR = `
const { Client, Connection } = await import('@temporalio/client');
const connection = await Connection.connect({ address: process.env.FLOOR_ADDRESS });
const description = await new Client({ connection }).workflow.getHandle(process.env.FLOOR_WORKFLOW_ID).describe();
await connection.close();
process.stdout.write(description.status.name);
`;

interface Command {
  measurement: string;
  ours: string[];
  baseline: string[];
  baselineName: string;
}

/** Median wall times of each command against its Temporal CLI counterpart, and of the SDK floor against `describe`. */
export async function benchCliLatency(options: { quick: boolean; log: (line: string) => void }): Promise<BenchRow[]> {
  const repetitions = options.quick ? 3 : 11;
  return await withCliEnv(options.log, async ({ address, temporal, cli: checked, run }) => {
    const demo = await checked(['demo', '--json']);
    const { workflowId } = JSON.parse(demo.stdout.trim().split('\n').at(-1)!) as { workflowId: string };
    const describe = ['workflow', 'describe', '--address', address, '--workflow-id', workflowId];
    const list = [
      'workflow',
      'list',
      '--address',
      address,
      '--query',
      `WorkflowType = 'agentWorkflow'`,
      '--limit',
      '20',
    ];
    const commands: Command[] = [
      { measurement: 'durable-agent --help', ours: ['--help'], baseline: ['--help'], baselineName: 'temporal --help' },
      {
        measurement: 'durable-agent status ID',
        ours: ['status', workflowId],
        baseline: describe,
        baselineName: 'temporal workflow describe',
      },
      { measurement: 'durable-agent list', ours: ['list'], baseline: list, baselineName: 'temporal workflow list' },
    ];
    const floor = await compareTimes(
      [SDK_FLOOR],
      (script) =>
        run(process.execPath, ['--input-type=module', '-e', script], {
          FLOOR_ADDRESS: address,
          FLOOR_WORKFLOW_ID: workflowId,
        }),
      () => run(temporal, describe),
      { repetitions },
    );
    const target = `${TARGET_MS / 1000} s`;
    const rows: BenchRow[] = [];
    for (const command of commands) {
      const comparison = await compareTimes(
        [command],
        (current) => checked(current.ours),
        (current) => run(temporal, current.baseline),
        { repetitions },
      );
      const verdict =
        comparison.ours <= TARGET_MS
          ? `within the ${target} target`
          : `${formatMs(comparison.ours - TARGET_MS)} over the ${target} target`;
      const beyondFloor =
        command.ours[0] === '--help'
          ? ''
          : comparison.ours > floor.ours
            ? `; ${formatMs(comparison.ours - floor.ours)} more than the SDK floor below`
            : `; ${formatMs(floor.ours - comparison.ours)} less than the SDK floor below (read through the HTTP API, without the client)`;
      rows.push({
        measurement: `${command.measurement} (vs ${command.baselineName})`,
        ours: formatMs(comparison.ours),
        baseline: formatMs(comparison.baseline),
        ratio: comparison.ratio,
        ratioRange: comparison.ratioRange,
        conclusion: `${formatRatio(comparison.ratio)} the Temporal CLI's time (medians of ${repetitions} fresh processes); ${verdict}${beyondFloor}.`,
      });
    }
    rows.push({
      measurement: '@temporalio/client alone: import, connect, describe (vs temporal workflow describe)',
      ours: formatMs(floor.ours),
      baseline: formatMs(floor.baseline),
      ratio: floor.ratio,
      ratioRange: floor.ratioRange,
      conclusion:
        `what any Node CLI on the SDK pays before its own code: Node's start, loading the client (with the protobuf ` +
        `root of the whole Temporal API), one connection and one call; ${floor.ours <= TARGET_MS ? 'within' : 'alone over'} the ${target} target.`,
    });
    return rows;
  });
}
