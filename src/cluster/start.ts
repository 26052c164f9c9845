// `npm run cluster`: PostgreSQL, the Temporal server on it (schema set up with the SQL tool, the namespace and the
// agent search attributes registered through the APIs), the Web UI, the NATS server for live output, and two workers
// playing two hosts. Whatever is
// recorded as running is kept; whatever is not (never started, killed, crashed) is started, so running it again after
// a crash brings the cluster back as it was: same databases, same ports.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { execa } from 'execa';
import { HOST, freePort, isPortFree } from '../dev-server/ports.js';
import { isOurProcess } from '../dev-server/processes.js';
import type { ProcessRecord } from '../dev-server/state-record.js';
import { ensureSearchAttributes } from '../dev-server/search-attributes.js';
import type { DirectoryEnvironment } from '../host/state-dir.js';
import { workerEnvironment } from '../dev-server/worker-environment.js';
import { findClusterProgram, TEMPORAL_SERVER, TEMPORAL_SQL_TOOL, TEMPORAL_UI_SERVER } from './binaries.js';
import { ClusterError } from './errors.js';
import { runtimeEnvironment, startProcess, waitFor } from './cluster-processes.js';
import { ensureNats, natsLiveEnvironment } from './nats.js';
import { findPostgres, initPostgres, postgresCommand } from './postgres.js';
import type { PostgresInstallation } from './postgres.js';
import { readClusterRecord, writeClusterRecord } from './record.js';
import { clusterStoreEnvironment } from './control.js';
import { clusterTlsEnvironment, clusterTlsOptions, ensureClusterTls } from './tls.js';
import type { ClusterTls } from './tls.js';
import type { ClusterRecord, HostRecord } from './record.js';
import { MAX_FRONTEND_PORT, serverPorts, temporalServerConfig, uiServerConfig } from './server-config.js';
import {
  clusterSetting,
  DATABASES,
  NAMESPACE_RETENTION_SECONDS,
  SQL_PLUGIN,
  TEMPORAL_SERVER_VERSION,
} from './topology.js';

/** The two worker hosts: each its own workspace root, state directory and tool queue. */
export const HOST_NAMES = ['host-a', 'host-b'] as const;

const binPath = fileURLToPath(new URL('../../bin/durable-agent.js', import.meta.url));

/** Options of `startCluster`. */
export interface ClusterOptions {
  /** The cluster's state directory (default `<stateDir>/cluster`). */
  directory: string;
  env: DirectoryEnvironment;
  log: (line: string) => void;
}

/** Starts whatever part of the cluster is not running and returns the record of the whole. */
export async function startCluster(options: ClusterOptions): Promise<ClusterRecord> {
  const { directory, env, log } = options;
  await fsp.mkdir(path.join(directory, 'logs'), { recursive: true, mode: 0o700 });
  const namespace = clusterSetting(env, 'TEMPORAL_NAMESPACE');
  const taskQueue = clusterSetting(env, 'DURABLE_AGENT_TASK_QUEUE');
  const frontendPort = portSetting(env, 'TEMPORAL_PORT');
  const uiPort = portSetting(env, 'TEMPORAL_UI_PORT');
  const database = { user: clusterSetting(env, 'POSTGRES_USER'), password: clusterSetting(env, 'POSTGRES_PASSWORD') };

  const installation = await findPostgres(env);
  const serverBinary = await findClusterProgram(TEMPORAL_SERVER, { env, log });
  const sqlTool = await findClusterProgram(TEMPORAL_SQL_TOOL, { env, log });
  let uiBinary: string | undefined;
  let uiProblem: string | undefined;
  try {
    uiBinary = await findClusterProgram(TEMPORAL_UI_SERVER, { env, log });
  } catch (error) {
    uiProblem = error instanceof Error ? error.message : String(error);
    log(`The Web UI is not part of this cluster: ${uiProblem}`);
  }

  const previous = await readClusterRecord(directory);
  const record: ClusterRecord = previous ?? {
    address: `${HOST}:${frontendPort}`,
    namespace,
    taskQueue,
    uiUrl: '',
    postgresPort: await freePort(),
    postgresVersion: installation.version,
    serverPorts: serverPorts(frontendPort),
    hosts: HOST_NAMES.map((name) => ({
      name,
      toolQueue: `${taskQueue}@${name}`,
      workspaceRoot: path.join(directory, 'hosts', name, 'workspaces'),
    })),
  };
  const save = () => writeClusterRecord(directory, record);
  const tls = await ensureClusterTls(directory, log);

  // Before anything starts: a port another process holds (the embedded dev server's 7233) stops the start at once.
  const serverRunning = record.server !== undefined && (await isOurProcess(record.server));
  if (!serverRunning) await requireFreeServerPorts(record.serverPorts);
  await ensurePostgres(record, { directory, installation, database, log });
  await save();
  if (record.schemaVersion !== TEMPORAL_SERVER_VERSION) {
    await setUpSchema(sqlTool, record.postgresPort, database, path.join(directory, 'logs', 'schema.log'), log);
    record.schemaVersion = TEMPORAL_SERVER_VERSION;
    await save();
  }

  if (!serverRunning) {
    const root = path.join(directory, 'temporal');
    await fsp.mkdir(path.join(root, 'config'), { recursive: true });
    const config = temporalServerConfig(record.serverPorts, { port: record.postgresPort, ...database }, tls);
    await fsp.writeFile(path.join(root, 'config', 'cluster.yaml'), `${JSON.stringify(config, null, 2)}\n`, {
      mode: 0o600,
    });
    log(
      `Starting the Temporal server ${TEMPORAL_SERVER_VERSION} on ${record.address} (PostgreSQL on port ${record.postgresPort})`,
    );
    record.server = await startProcess(
      [serverBinary, '--root', root, '--config', 'config', '--env', 'cluster', '--allow-no-auth', 'start'],
      { directory, env: runtimeEnvironment(env), logName: 'temporal-server.log' },
    );
    await save();
  }
  await registerNamespace(record, record.server!, tls);

  if (uiBinary) {
    record.uiUrl = `http://${HOST}:${uiPort}`;
    delete record.uiProblem;
    if (!(record.ui && (await isOurProcess(record.ui)))) {
      if (!(await isPortFree(uiPort)))
        throw new ClusterError(
          `Port ${uiPort} (the Web UI) on ${HOST} is in use; set TEMPORAL_UI_PORT to a free port.`,
        );
      const root = path.join(directory, 'ui');
      await fsp.mkdir(path.join(root, 'config'), { recursive: true });
      const config = uiServerConfig({ frontend: record.address, port: uiPort, namespace: record.namespace, tls });
      await fsp.writeFile(path.join(root, 'config', 'cluster.yaml'), `${JSON.stringify(config, null, 2)}\n`);
      log(`Starting the Web UI on ${record.uiUrl}`);
      record.ui = await startProcess([uiBinary, '--root', root, '--config', 'config', '--env', 'cluster', 'start'], {
        directory,
        env: runtimeEnvironment(env),
        logName: 'web-ui.log',
      });
      await save();
      await waitFor(record.ui, `answer on ${record.uiUrl}`, async () => {
        const response = await fetch(record.uiUrl, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
        return response?.ok === true;
      });
    }
  } else {
    record.uiUrl = '';
    record.uiProblem = uiProblem;
  }

  await ensureNats(record, { directory, env, log, tls });
  await save();

  for (const host of record.hosts) {
    if (host.process && (await isOurProcess(host.process))) continue;
    host.process = await startHost(host, record, { directory, env, log, tls });
    await save();
  }
  await waitForHosts(record, tls);
  return record;
}

function portSetting(env: DirectoryEnvironment, name: 'TEMPORAL_PORT' | 'TEMPORAL_UI_PORT'): number {
  const raw = clusterSetting(env, name);
  const port = Number(raw);
  const highest = name === 'TEMPORAL_PORT' ? MAX_FRONTEND_PORT : 65_535;
  if (!Number.isInteger(port) || port < 1_024 || port > highest)
    throw new ClusterError(`${name}=${raw} is not a port number from 1024 to ${highest}.`);
  return port;
}

async function ensurePostgres(
  record: ClusterRecord,
  options: {
    directory: string;
    installation: PostgresInstallation;
    database: { user: string; password: string };
    log: (line: string) => void;
  },
): Promise<void> {
  if (record.postgres && (await isOurProcess(record.postgres))) return;
  const dataDir = path.join(options.directory, 'postgres', 'data');
  const logFile = path.join(options.directory, 'logs', 'postgresql.log');
  if (await initPostgres({ installation: options.installation, dataDir, logFile, ...options.database }))
    options.log(`Created the PostgreSQL data directory ${dataDir} (${options.installation.version})`);
  if (!(await isPortFree(record.postgresPort))) record.postgresPort = await freePort();
  options.log(`Starting PostgreSQL on ${HOST}:${record.postgresPort} (log: ${logFile})`);
  record.postgres = await startProcess(postgresCommand(options.installation, dataDir, record.postgresPort), {
    directory: options.directory,
    env: runtimeEnvironment(process.env),
    logName: 'postgresql.log',
  });
  const isReady = path.join(options.installation.binDir, 'pg_isready');
  await waitFor(record.postgres, `accept connections on port ${record.postgresPort}`, async () => {
    const result = await execa(isReady, ['-h', HOST, '-p', String(record.postgresPort), '-t', '2'], { reject: false });
    return result.exitCode === 0;
  });
}

/** Creates both databases and brings their schemas to this server version, as the auto-setup image does. */
async function setUpSchema(
  sqlTool: string,
  port: number,
  database: { user: string; password: string },
  logFile: string,
  log: (line: string) => void,
): Promise<void> {
  log(`Setting up the ${DATABASES.persistence} and ${DATABASES.visibility} schemas with the SQL tool`);
  for (const [name, schema] of [
    [DATABASES.persistence, 'postgresql/v12/temporal'],
    [DATABASES.visibility, 'postgresql/v12/visibility'],
  ] as const) {
    // The password travels in the environment, not on a command line others can read.
    const env = {
      SQL_PLUGIN,
      SQL_HOST: HOST,
      SQL_PORT: String(port),
      SQL_USER: database.user,
      SQL_PASSWORD: database.password,
      SQL_DATABASE: name,
    };
    // Each step is idempotent: a database that exists, versioning tables that exist, a schema already up to date.
    for (const args of [
      ['create-database'],
      ['setup-schema', '-v', '0.0'],
      ['update-schema', '--schema-name', schema],
    ]) {
      const quiet = args[0] === 'update-schema' ? [] : ['--quiet'];
      const result = await execa(sqlTool, [...quiet, ...args], { env, reject: false, all: true, stdin: 'ignore' });
      await fsp.appendFile(logFile, `$ sql ${args.join(' ')} (${name})\n${result.all ?? ''}\n`);
      if (result.failed)
        throw new ClusterError(`sql ${args.join(' ')} on ${name} failed (exit ${result.exitCode}); see ${logFile}.`);
    }
  }
}

/** Creates the namespace when missing and registers the agent search attributes in it, through the APIs. */
async function registerNamespace(record: ClusterRecord, server: ProcessRecord, tls: ClusterTls): Promise<void> {
  const tlsOptions = await clusterTlsOptions(tls);
  await waitFor(server, `answer on ${record.address} with namespace ${record.namespace} ready`, async () => {
    let connection: Connection | undefined;
    try {
      connection = await Connection.connect({ address: record.address, tls: tlsOptions, connectTimeout: 2_000 });
      const ready = connection;
      await ready.withDeadline(Date.now() + 10_000, async () => {
        const namespaces = await ready.workflowService.listNamespaces({ pageSize: 100 });
        if (!namespaces.namespaces.some((entry) => entry.namespaceInfo?.name === record.namespace)) {
          await ready.workflowService.registerNamespace({
            namespace: record.namespace,
            workflowExecutionRetentionPeriod: msToTs(NAMESPACE_RETENTION_SECONDS * 1000),
          });
        }
        await ensureSearchAttributes(ready, record.namespace);
      });
      return true;
    } catch {
      // Not up yet, or a namespace just registered and not yet in the server's cache.
      return false;
    } finally {
      await connection?.close();
    }
  });
}

async function startHost(
  host: HostRecord,
  record: ClusterRecord,
  options: { directory: string; env: DirectoryEnvironment; log: (line: string) => void; tls: ClusterTls },
): Promise<ProcessRecord> {
  const hostDir = path.join(options.directory, 'hosts', host.name);
  await fsp.mkdir(host.workspaceRoot, { recursive: true });
  options.log(`Starting worker ${host.name}: tool queue ${host.toolQueue}, workspaces under ${host.workspaceRoot}`);
  return await startProcess(
    [
      process.execPath,
      binPath,
      'worker',
      '--address',
      record.address,
      '--namespace',
      record.namespace,
      '--task-queue',
      record.taskQueue,
      '--tool-queue',
      host.toolQueue,
    ],
    {
      directory: options.directory,
      cwd: hostDir,
      logName: `worker-${host.name}.log`,
      env: {
        ...workerEnvironment(options.env),
        // The operator's client certificate: the frontend refuses a worker without one.
        ...clusterTlsEnvironment(options.tls),
        // Live model output through the cluster's NATS server, readable from any host.
        ...natsLiveEnvironment(options.directory, record, options.tls),
        // Each host keeps its own state; the content store is shared, as a bucket is between real hosts.
        DURABLE_AGENT_STATE_DIR: path.join(hostDir, 'state'),
        ...clusterStoreEnvironment(options.directory),
      },
    },
  );
}

/** Waits until every host's worker polls its tool queue. */
async function waitForHosts(record: ClusterRecord, tls: ClusterTls): Promise<void> {
  const connection = await Connection.connect({
    address: record.address,
    tls: await clusterTlsOptions(tls),
    connectTimeout: 5_000,
  });
  try {
    for (const host of record.hosts) {
      const worker = host.process!;
      await waitFor(worker, `poll ${host.toolQueue}`, async () => {
        const response = await connection.workflowService.describeTaskQueue({
          namespace: record.namespace,
          taskQueue: { name: host.toolQueue, kind: 1 },
          taskQueueType: 2,
        });
        return (response.pollers ?? []).some((poller) => poller.identity?.startsWith(`${worker.pid}@`));
      });
    }
  } finally {
    await connection.close();
  }
}

async function requireFreeServerPorts(ports: ClusterRecord['serverPorts']): Promise<void> {
  for (const [role, port] of Object.entries(ports) as [string, number][]) {
    if (!(await isPortFree(port)))
      throw new ClusterError(
        `Port ${port} (the Temporal server's ${role} port, laid out around TEMPORAL_PORT=${ports.frontend}) ` +
          `on ${HOST} is in use by another process; stop it or set TEMPORAL_PORT to another port.`,
      );
  }
}
