// `npm run cluster -- --status` and `--stop`: what the cluster record says is running, checked against the process
// table, and stopping it all, clients before the services they use.
import fs from 'node:fs';
import path from 'node:path';
import { isOurProcess, terminate } from '../dev-server/processes.js';
import type { ProcessRecord } from '../dev-server/state-record.js';
import { readClusterRecord, writeClusterRecord } from './record.js';
import { natsLiveEnvironment } from './nats.js';
import { clusterTlsEnvironment, clusterTlsFiles } from './tls.js';

const STOP_GRACE_MS = 15_000;

/** One process of the cluster. */
export interface ClusterProcessStatus {
  pid: number | null;
  running: boolean;
}

/** `npm run cluster -- --status --json`. */
export interface ClusterStatus {
  /** The frontend's gRPC address: TEMPORAL_ADDRESS for the CLI and for workers. */
  address: string;
  namespace: string;
  taskQueue: string;
  /** Empty when the Web UI is not part of the cluster (`uiProblem` says why). */
  uiUrl: string;
  uiProblem?: string;
  /** Where history and visibility live. */
  persistence: 'postgresql';
  postgres: { port: number | null; version: string };
  processes: {
    postgresql: ClusterProcessStatus;
    server: ClusterProcessStatus;
    ui: ClusterProcessStatus;
    nats: ClusterProcessStatus;
  } & Record<string, ClusterProcessStatus>;
  hosts: { name: string; toolQueue: string; workspaceRoot: string; pid: number | null; running: boolean }[];
  /** Temporal's client settings for the operator's certificate (TEMPORAL_TLS_*): the frontend refuses clients without. */
  tls: Record<string, string>;
  /** Where live model output goes (DURABLE_AGENT_LIVE_*): the NATS server's address, token file and authority. */
  live: Record<string, string>;
  /**
   * The content store every host shares (DURABLE_AGENT_STORE*): the CLI reads stored outputs, payloads and workspace
   * checkpoints there (`output`, `fork`, `diff`, `rewind`, `gc`).
   */
  store: Record<string, string>;
  /** Why the NATS server is not part of the cluster, when it is not. */
  liveProblem?: string;
}

async function processStatus(record: ProcessRecord | undefined): Promise<ClusterProcessStatus> {
  const running = record !== undefined && (await isOurProcess(record));
  return { pid: running ? record.pid : null, running };
}

/** The cluster's status; every process `running: false` when it was never started in `directory`. */
export async function clusterStatus(directory: string): Promise<ClusterStatus> {
  const record = await readClusterRecord(directory);
  const hosts = await Promise.all(
    (record?.hosts ?? []).map(async (host) => ({
      name: host.name,
      toolQueue: host.toolQueue,
      workspaceRoot: host.workspaceRoot,
      ...(await processStatus(host.process)),
    })),
  );
  return {
    address: record?.address ?? '',
    namespace: record?.namespace ?? '',
    taskQueue: record?.taskQueue ?? '',
    uiUrl: record?.uiUrl ?? '',
    ...(record?.uiProblem ? { uiProblem: record.uiProblem } : {}),
    persistence: 'postgresql',
    postgres: { port: record?.postgresPort ?? null, version: record?.postgresVersion ?? '' },
    processes: {
      postgresql: await processStatus(record?.postgres),
      server: await processStatus(record?.server),
      ui: await processStatus(record?.ui),
      nats: await processStatus(record?.nats),
      ...Object.fromEntries(hosts.map((host) => [`worker ${host.name}`, { pid: host.pid, running: host.running }])),
    },
    hosts,
    tls: fs.existsSync(clusterTlsFiles(directory).caFile) ? clusterTlsEnvironment(clusterTlsFiles(directory)) : {},
    live: record ? natsLiveEnvironment(directory, record, clusterTlsFiles(directory)) : {},
    store: clusterStoreEnvironment(directory),
    ...(record?.natsProblem ? { liveProblem: record.natsProblem } : {}),
  };
}

/** The variables that point a worker or a CLI at the content store the cluster's hosts share. */
export function clusterStoreEnvironment(directory: string): Record<string, string> {
  // A directory every host of this machine reaches, as a bucket is shared between real hosts.
  return { DURABLE_AGENT_STORE: 'dir', DURABLE_AGENT_STORE_DIR: path.join(directory, 'store') };
}

/** Stops the workers, the Web UI, NATS, the server and PostgreSQL (SIGTERM, SIGKILL after a grace); returns the pids stopped. */
export async function stopCluster(directory: string): Promise<number[]> {
  if (!fs.existsSync(directory)) return [];
  const record = await readClusterRecord(directory);
  if (!record) return [];
  const stopped: number[] = [];
  const stop = async (process: ProcessRecord | undefined) => {
    if (process && (await isOurProcess(process))) stopped.push((await terminate(process, STOP_GRACE_MS)).pid);
  };
  // Workers first (clients of the server and of NATS), PostgreSQL last (the server writes to it until it is gone).
  await Promise.all(record.hosts.map((host) => stop(host.process)));
  await stop(record.ui);
  await stop(record.nats);
  await stop(record.server);
  await stop(record.postgres);
  for (const host of record.hosts) delete host.process;
  delete record.ui;
  delete record.nats;
  delete record.server;
  delete record.postgres;
  await writeClusterRecord(directory, record);
  return stopped;
}
