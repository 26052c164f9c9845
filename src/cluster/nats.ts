// The cluster's NATS server: JetStream for live model output, on the port recorded at first start, with a token made
// once and kept (0600) in <cluster>/nats/token and the cluster's TLS certificate. The workers and the CLI get
// DURABLE_AGENT_LIVE_URL, the token's file and the authority's certificate; nothing else can read the stream.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { HOST, isPortFree } from '../dev-server/ports.js';
import { isOurProcess } from '../dev-server/processes.js';
import type { DirectoryEnvironment } from '../host/state-dir.js';
import { LIVE_NATS_VARIABLES } from '../live/nats-from-env.js';
import { findClusterProgram, NATS_SERVER } from './binaries.js';
import { runtimeEnvironment, startProcess, waitFor } from './cluster-processes.js';
import { ClusterError } from './errors.js';
import { ensureNatsToken, natsServerConfig } from './nats-config.js';
import type { ClusterRecord } from './record.js';
import type { ClusterTls } from './tls.js';
import { clusterSetting, NATS_SERVER_VERSION } from './topology.js';

function natsFiles(directory: string) {
  const root = path.join(directory, 'nats');
  return {
    root,
    config: path.join(root, 'nats.conf'),
    token: path.join(root, 'token'),
    store: path.join(root, 'jetstream'),
  };
}

/**
 * Starts the NATS server unless it runs. A server that cannot be built (offline, no Go) leaves the cluster without it,
 * as the Web UI: the reason is recorded, and live output then goes through each host's files only.
 */
export async function ensureNats(
  record: ClusterRecord,
  options: { directory: string; env: DirectoryEnvironment; log: (line: string) => void; tls: ClusterTls },
): Promise<void> {
  const { directory, env, log, tls } = options;
  let binary: string;
  try {
    binary = await findClusterProgram(NATS_SERVER, { env, log });
  } catch (error) {
    record.natsProblem = error instanceof Error ? error.message : String(error);
    log(
      `No NATS server in this cluster, so live output reaches only a CLI on the worker's own host: ` +
        `${record.natsProblem}`,
    );
    return;
  }
  delete record.natsProblem;
  record.natsPort ??= Number(clusterSetting(env, 'NATS_PORT'));
  if (record.nats && (await isOurProcess(record.nats))) return;
  if (!(await isPortFree(record.natsPort)))
    throw new ClusterError(
      `Port ${record.natsPort} (the NATS server) on ${HOST} is in use; set NATS_PORT to a free port before the ` +
        `cluster's first start, or free it.`,
    );
  const files = natsFiles(directory);
  await fsp.mkdir(files.store, { recursive: true, mode: 0o700 });
  const token = await ensureNatsToken(files.token);
  const config = natsServerConfig({
    host: HOST,
    port: record.natsPort,
    storeDir: files.store,
    token,
    tls: { certFile: tls.serverCertFile, keyFile: tls.serverKeyFile },
  });
  // The file holds the token: 0600 like the token's own file.
  await fsp.writeFile(files.config, config, { mode: 0o600 });
  log(`Starting the NATS server ${NATS_SERVER_VERSION} with JetStream on tls://${HOST}:${record.natsPort}`);
  record.nats = await startProcess([binary, '-c', files.config], {
    directory,
    env: runtimeEnvironment(env),
    logName: 'nats-server.log',
  });
  await waitFor(record.nats, `answer with JetStream on port ${record.natsPort}`, async () => {
    const nc = await connect({
      servers: `tls://${HOST}:${record.natsPort}`,
      token,
      tls: { caFile: tls.caFile },
      timeout: 2_000,
      reconnect: false,
    }).catch(() => undefined);
    if (!nc) return false;
    try {
      await (await jetstreamManager(nc)).getAccountInfo();
      return true;
    } catch {
      return false;
    } finally {
      await nc.close();
    }
  });
}

/** The variables that point a worker or a CLI at the cluster's NATS server; none when the cluster has none. */
export function natsLiveEnvironment(directory: string, record: ClusterRecord, tls: ClusterTls): Record<string, string> {
  if (record.natsPort === undefined || record.natsProblem !== undefined) return {};
  return {
    [LIVE_NATS_VARIABLES.url]: `tls://${HOST}:${record.natsPort}`,
    [LIVE_NATS_VARIABLES.tokenFile]: natsFiles(directory).token,
    [LIVE_NATS_VARIABLES.ca]: tls.caFile,
  };
}
