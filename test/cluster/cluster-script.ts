// The cluster under test, driven the way a user drives it: `npm run cluster` (scripts/cluster.ts) in a state directory
// of the test's own, on ports nobody else uses, and the CLI against it with TEMPORAL_ADDRESS.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { isPortFree } from '../../src/dev-server/ports.js';
import type { ClusterStatus } from '../../src/cluster/control.js';
import { serverPorts } from '../../src/cluster/server-config.js';
import { clusterTlsFiles, clusterTlsOptions } from '../../src/cluster/tls.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = path.join(root, 'bin', 'durable-agent.js');

/** A cluster in a temporary state directory. */
export interface TestCluster {
  env: Record<string, string>;
  stateDir: string;
  /** `npm run cluster` with these arguments; fails the test when it fails. */
  script(args?: string[]): Promise<string>;
  status(): Promise<ClusterStatus>;
  /** The CLI against the cluster, with the operator's client certificate unless `withoutTls`. */
  cli(
    args: string[],
    options?: { withoutTls?: boolean },
  ): Promise<{ exitCode: number | undefined; stdout: string; stderr: string }>;
  /** The SDK's TLS options with the operator's client certificate. */
  tls(): ReturnType<typeof clusterTlsOptions>;
  remove(): Promise<void>;
}

/** A frontend port whose whole layout (nine ports), a Web UI port and a NATS port are free, below the membership limit. */
async function freeLayout(): Promise<{ frontend: number; ui: number; nats: number }> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const frontend = 20_000 + Math.floor(Math.random() * 10_000);
    const ports = [...Object.values(serverPorts(frontend)), frontend + 100, frontend + 101];
    if ((await Promise.all(ports.map(isPortFree))).every(Boolean))
      return { frontend, ui: frontend + 100, nats: frontend + 101 };
  }
  throw new Error('no free port layout for the test cluster');
}

/** Prepares (does not start) a cluster in a new temporary state directory. */
export async function prepareTestCluster(): Promise<TestCluster> {
  const stateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'durable-agent-cluster-'));
  const ports = await freeLayout();
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    DURABLE_AGENT_STATE_DIR: stateDir,
    TEMPORAL_PORT: String(ports.frontend),
    TEMPORAL_UI_PORT: String(ports.ui),
    NATS_PORT: String(ports.nats),
  };
  delete env.TEMPORAL_ADDRESS;
  const script = async (args: string[] = []) => {
    const result = await execa(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'scripts', 'cluster.ts'), ...args],
      {
        env,
        extendEnv: false,
        cwd: root,
        reject: false,
        stdin: 'ignore',
      },
    );
    if (result.exitCode !== 0)
      throw new Error(
        `npm run cluster ${args.join(' ')} exited ${result.exitCode}:\n${result.stderr}\n${result.stdout}`,
      );
    return result.stdout;
  };
  return {
    env,
    stateDir,
    script,
    status: async () => JSON.parse(await script(['--status', '--json'])) as ClusterStatus,
    tls: () => clusterTlsOptions(clusterTlsFiles(path.join(stateDir, 'cluster'))),
    cli: async (args, options = {}) => {
      const status = JSON.parse(await script(['--status', '--json'])) as ClusterStatus;
      const result = await execa(process.execPath, [bin, ...args], {
        env: {
          ...env,
          ...(options.withoutTls ? {} : status.tls),
          ...status.live,
          ...status.store,
          TEMPORAL_ADDRESS: status.address,
          TEMPORAL_NAMESPACE: status.namespace,
          NO_COLOR: '1',
        },
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
      });
      return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
    },
    remove: () => fs.rm(stateDir, { recursive: true, force: true }),
  };
}
