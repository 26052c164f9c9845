// <stateDir>/cluster/cluster.json: what `npm run cluster` started and where it answers, written whole
// (write-then-rename) so `--status` and `--stop` never read half a file.
import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { ProcessRecord } from '../dev-server/state-record.js';
import type { ServerPorts } from './server-config.js';

/** One worker host: its own workspace root, state directory and tool queue. */
export interface HostRecord {
  name: string;
  toolQueue: string;
  workspaceRoot: string;
  process?: ProcessRecord;
}

/** The whole record. */
export interface ClusterRecord {
  address: string;
  namespace: string;
  taskQueue: string;
  uiUrl: string;
  /** Why the Web UI is not part of the cluster, when it is not. */
  uiProblem?: string;
  postgresPort: number;
  postgresVersion: string;
  /** The server version whose schema the databases carry. */
  schemaVersion?: string;
  serverPorts: ServerPorts;
  postgres?: ProcessRecord;
  server?: ProcessRecord;
  ui?: ProcessRecord;
  /** The NATS server's port (live output), chosen at first start and kept. */
  natsPort?: number;
  /** Why the NATS server is not part of the cluster, when it is not. */
  natsProblem?: string;
  nats?: ProcessRecord;
  hosts: HostRecord[];
}

function recordFile(directory: string): string {
  return path.join(directory, 'cluster.json');
}

/** The record, or undefined when the cluster was never started here (or its record cannot be read). */
export async function readClusterRecord(directory: string): Promise<ClusterRecord | undefined> {
  try {
    return JSON.parse(await fsp.readFile(recordFile(directory), 'utf8')) as ClusterRecord;
  } catch {
    return undefined;
  }
}

/** Replaces the record. */
export async function writeClusterRecord(directory: string, record: ClusterRecord): Promise<void> {
  const temporary = `${recordFile(directory)}.${process.pid}.${randomUUID()}.tmp`;
  await fsp.writeFile(temporary, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  await fsp.rename(temporary, recordFile(directory));
}
