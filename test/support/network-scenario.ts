// What approved and offline Bash commands reach, run through the real executor in the bubblewrap sandbox: test servers
// on this machine's non-loopback address (one approved host, one standing in for the Temporal frontend, one only ever
// dialled directly), and every way the scenario knows to reach past the approval. Shared by the test in-process (the
// worker's own user) and the same scenario run as uid 65534 (network-command-child.ts).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createBashExecutor } from '../../src/activities/executors/bash.js';
import { runTool } from '../../src/activities/run-tool.js';
import type { CommandSandbox } from '../../src/activities/sandbox/command-sandbox.js';
import { controlPlaneEndpoints } from '../../src/activities/sandbox/control-plane.js';
import type { RiskLevel } from '../../src/protocol/risk-level.js';

/** What each command printed and what each server saw. */
export interface NetworkObservations {
  ownAddress: string;
  offline: { stdout: string; connections: number };
  approved: {
    stdout: string;
    refused: { host: string; port: number; reason: string }[];
    text: string;
    /** Paths the approved server was asked for. */
    served: string[];
  };
  /** Connections the Temporal stand-in and the direct-only server accepted over the whole scenario: both must be 0. */
  controlPlaneConnections: number;
  directConnections: number;
  /** Entries left in the proxies' socket directory after each command (normal end, timeout). */
  leftAfter: { exited: string[]; timedOut: string[] };
  timedOutCode: string | undefined;
}

/** This machine's first non-loopback IPv4 address. */
export function ownAddress(): string {
  for (const entries of Object.values(os.networkInterfaces())) {
    for (const entry of entries ?? []) if (entry.family === 'IPv4' && !entry.internal) return entry.address;
  }
  throw new Error('This machine has no non-loopback IPv4 address for the network tests (ip -4 addr).');
}

async function listen(server: net.Server, host: string): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}

/** Runs the scenario with `sandbox`; `scratch` is a fresh directory the caller removes. */
export async function observeNetwork(sandbox: CommandSandbox, scratch: string): Promise<NetworkObservations> {
  const own = ownAddress();
  const workspace = path.join(scratch, 'workspace');
  const sockets = path.join(scratch, 'sockets');
  await mkdir(workspace);
  await mkdir(sockets);

  const served: string[] = [];
  const approvedServer = http.createServer((request, response) => {
    served.push(request.url ?? '');
    response.end(`hello ${request.url}\n`);
  });
  let controlPlaneConnections = 0;
  // On every interface, as a published cluster frontend would be: reachable from the host through `own` as well.
  const temporal = net.createServer((socket) => {
    controlPlaneConnections++;
    socket.end('HTTP/1.1 200 OK\r\ncontent-length: 8\r\n\r\ntemporal');
  });
  let directConnections = 0;
  const direct = net.createServer((socket) => {
    directConnections++;
    socket.end('direct\n');
  });
  const port = await listen(approvedServer, own);
  const temporalPort = await listen(temporal, '0.0.0.0');
  const directPort = await listen(direct, '0.0.0.0');

  const network = {
    controlPlane: controlPlaneEndpoints({ TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}` }),
    socketParent: sockets,
    // Names that resolve where a hostile DNS would point them, without touching /etc/hosts.
    resolve: async (host: string): Promise<string[]> => {
      const answers: Record<string, string[]> = {
        'metadata.test': ['169.254.169.254'],
        'rebind.test': [own, '127.0.0.1'],
        'mapped.test': ['::ffff:127.0.0.1'],
        localhost: ['127.0.0.1', '::1'],
      };
      const answer = answers[host];
      if (!answer) throw Object.assign(new Error(`no such host ${host}`), { code: 'ENOTFOUND' });
      return answer;
    },
  };
  const executor = createBashExecutor(sandbox, network);
  const run = async (command: string, level: RiskLevel, networkHosts?: string[], timeoutMs = 60_000) => {
    const input = { command, cwd: '.', timeout_ms: timeoutMs };
    const result = await runTool('Bash', executor, {
      taskId: 'task-net',
      turn: 1,
      index: 0,
      callId: 'call_1',
      workspace,
      input,
      paramsInput: input,
      maximumAttempts: 1,
      classification: { level, rule: 'network', ...(networkHosts ? { networkHosts } : {}) },
    });
    return result.envelope;
  };
  const tcp = (host: string, tcpPort: number): string =>
    `node -e "require('net').connect(${tcpPort}, '${host}').on('connect', () => console.log('connected ${host}')).on('error', (e) => console.log(e.code))"`;
  const fetchCode = (label: string, url: string, extra = ''): string =>
    `echo "${label}=$(curl -s -o /dev/null -w '%{http_code}' ${extra} '${url}')"`;

  try {
    const offline = await run([tcp('127.0.0.1', directPort), tcp(own, directPort)].join('\n'), 'read_only');

    const pythonGet = (url: string): string =>
      `/usr/bin/python3 -c "import urllib.request
try:
    print('python=' + str(urllib.request.urlopen('${url}').status))
except Exception as error:
    print('python=' + str(getattr(error, 'code', error)))"`;
    await writeFile(
      path.join(workspace, 'Makefile'),
      [
        'all:',
        `\t@echo "make-approved=$$(curl -s -o /dev/null -w '%{http_code}' http://${own}:${port}/make)"`,
        `\t@echo "make-temporal=$$(curl -s -o /dev/null -w '%{http_code}' http://${own}:${temporalPort}/)"`,
        `\t@echo "make-other=$$(curl -s -o /dev/null -w '%{http_code}' http://other.test:${port}/)"`,
        '',
      ].join('\n'),
    );
    const approvedHosts = [
      own,
      'localhost',
      '127.1',
      '::ffff:127.0.0.1',
      '0x7f000001',
      '169.254.169.254',
      'metadata.test',
      'rebind.test',
      'mapped.test',
    ];
    const approved = await run(
      [
        fetchCode('approved', `http://${own}:${port}/curl`),
        fetchCode('approved-tunnel', `http://${own}:${port}/tunnel`, '--proxytunnel'),
        fetchCode('other', `http://other.test:${port}/`),
        fetchCode('temporal-own', `http://${own}:${temporalPort}/`),
        fetchCode('temporal-loopback', `http://127.0.0.1:${temporalPort}/`),
        fetchCode('localhost', `http://localhost:${temporalPort}/`),
        fetchCode('short', `http://127.1:${temporalPort}/`),
        fetchCode('mapped', `http://[::ffff:127.0.0.1]:${temporalPort}/`),
        fetchCode('hex', `http://0x7f000001:${temporalPort}/`),
        fetchCode('metadata-ip', 'http://169.254.169.254/latest/meta-data/'),
        fetchCode('metadata-name', 'http://metadata.test/latest/meta-data/'),
        fetchCode('metadata-tunnel', 'http://169.254.169.254/', '--proxytunnel'),
        fetchCode('rebind', `http://rebind.test:${port}/`),
        fetchCode('mapped-name', `http://mapped.test:${temporalPort}/`),
        fetchCode('noproxy', `http://${own}:${directPort}/`, '--noproxy "*"'),
        tcp(own, directPort),
        tcp('127.0.0.1', temporalPort),
        pythonGet(`http://${own}:${port}/python`),
        pythonGet(`http://${own}:${temporalPort}/`),
        'make -s',
      ].join(' && '),
      'network_write',
      approvedHosts,
    );
    const leftExited = await readdir(sockets);
    // Long enough for the sandbox to start and the fetch to finish on a loaded machine; the sleep outlasts it.
    const timedOut = await run(
      `${fetchCode('before', `http://${own}:${port}/before-timeout`)} && sleep 30`,
      'network_write',
      [own],
      6_000,
    );
    const leftTimedOut = await readdir(sockets);
    return {
      ownAddress: own,
      offline: { stdout: String(offline.data.stdout), connections: directConnections },
      approved: {
        stdout: String(approved.data.stdout),
        refused: (approved.data.network_refused as NetworkObservations['approved']['refused']) ?? [],
        text: approved.text ?? '',
        served: [...served],
      },
      controlPlaneConnections,
      directConnections,
      leftAfter: { exited: leftExited, timedOut: leftTimedOut },
      timedOutCode: timedOut.error?.code ?? timedOut.status,
    };
  } finally {
    approvedServer.close();
    temporal.close();
    direct.close();
  }
}

/** Runs the scenario in a fresh scratch directory under the system's temporary directory. */
export async function observeNetworkInScratch(sandbox: CommandSandbox): Promise<NetworkObservations> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'bash-network-'));
  try {
    return await observeNetwork(sandbox, scratch);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
