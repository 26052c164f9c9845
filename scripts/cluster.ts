// `npm run cluster`: a Temporal cluster on this machine as docker-compose.yml describes one — the Temporal server on
// PostgreSQL, the Web UI, NATS JetStream for live model output, two workers playing two hosts — built and provisioned into the cache on first use. The
// frontend takes only clients with a certificate of the cluster's own authority (mutual TLS; see the status).
//   npm run cluster                     start whatever is not running, then print the status
//   npm run cluster -- --status [--json]
//   npm run cluster -- --stop
// (`npm run cluster --stop` works too: npm hands the flag over as npm_config_stop.)
import path from 'node:path';
import { parseArgs } from 'node:util';
import { clusterStatus, stopCluster } from '../src/cluster/control.js';
import type { ClusterStatus } from '../src/cluster/control.js';
import { ClusterError } from '../src/cluster/errors.js';
import { startCluster } from '../src/cluster/start.js';
import { stateDir } from '../src/host/state-dir.js';

const { values } = parseArgs({
  options: {
    status: { type: 'boolean', default: process.env.npm_config_status === 'true' },
    stop: { type: 'boolean', default: process.env.npm_config_stop === 'true' },
    json: { type: 'boolean', default: process.env.npm_config_json === 'true' },
  },
});
const directory = path.join(stateDir(), 'cluster');
const log = (line: string) => console.error(`cluster: ${line}`);

function describe(status: ClusterStatus): string {
  const line = (name: string, process: { pid: number | null; running: boolean }) =>
    `${name.padEnd(16)} ${process.running ? `running (pid ${process.pid})` : 'not running'}`;
  return [
    `address          ${status.address} (namespace ${status.namespace}, task queue ${status.taskQueue})`,
    `web ui           ${status.uiUrl || `none: ${status.uiProblem ?? 'not started'}`}`,
    `persistence      ${status.persistence} (${status.postgres.version}, port ${status.postgres.port})`,
    line('postgresql', status.processes.postgresql),
    line('temporal server', status.processes.server),
    ...(status.uiUrl ? [line('web ui server', status.processes.ui)] : []),
    status.live.DURABLE_AGENT_LIVE_URL
      ? `${line('nats server', status.processes.nats)}: live output on ${status.live.DURABLE_AGENT_LIVE_URL}`
      : `nats server      none: ${status.liveProblem ?? 'not started'} (live output only on the worker's host)`,
    ...status.hosts.map(
      (host) => `${line(`worker ${host.name}`, host)}: tool queue ${host.toolQueue}, workspaces ${host.workspaceRoot}`,
    ),
    '',
    // Mutual TLS: the CLI, a worker and the `temporal` CLI reach the frontend with the operator's certificate only.
    ...Object.entries(status.tls).map(([name, value]) => `export ${name}=${value}`),
    // Live output (run, watch) from the NATS server: its address, the token's file (not the token) and the authority.
    ...Object.entries(status.live).map(([name, value]) => `export ${name}=${value}`),
    // The store the hosts share: stored outputs, payloads kept out of history, workspace checkpoints.
    ...Object.entries(status.store).map(([name, value]) => `export ${name}=${value}`),
    `TEMPORAL_ADDRESS=${status.address} TEMPORAL_NAMESPACE=${status.namespace} npm run demo`,
    `durable-agent run --tool-queue ${status.hosts[0]?.toolQueue ?? '…'} --cwd ${status.hosts[0]?.workspaceRoot ?? '…'}/repo "…"`,
  ].join('\n');
}

try {
  if (values.stop) {
    const stopped = await stopCluster(directory);
    console.log(stopped.length > 0 ? `stopped pids ${stopped.join(', ')}` : 'nothing was running');
  } else {
    const started = performance.now();
    if (!values.status) {
      await startCluster({ directory, env: process.env, log });
      log(`ready in ${((performance.now() - started) / 1000).toFixed(1)}s`);
    }
    const status = await clusterStatus(directory);
    console.log(values.json ? JSON.stringify(status) : describe(status));
  }
} catch (error) {
  if (!(error instanceof ClusterError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
}
