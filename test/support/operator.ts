// An operator's machine for the red-team suite: the real CLI on an embedded server of its own (state directory, HOME,
// ports), run as root or as an unprivileged user, and a second local user to attack it with. Everything the operator
// owns is made for (and owned by) the operator's identity, so an unprivileged worker is tried as it would really run.
import { chmod, chown, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import type { Options } from 'execa';
import { findTemporalBinary } from '../../src/host/temporal-binary.js';
import { durableAgentBin } from './cli.js';
import { findFreePorts } from './ports.js';

/** Who a process runs as. */
export interface Identity {
  /** `root` or `unprivileged`: how test names tell the variants apart. */
  label: string;
  uid: number;
  gid: number;
}

/** The unprivileged account every Debian-like system has. */
export const NOBODY: Identity = { label: 'unprivileged', uid: 65534, gid: 65534 };

const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The identities a worker is tried as: root and an unprivileged user when the tests run as root (as CI does); the
 * test's own user otherwise (which is then the unprivileged case, and the root case cannot be made).
 */
export function workerIdentities(): Identity[] {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  return uid === 0 ? [{ label: 'root', uid: 0, gid: 0 }, NOBODY] : [{ label: 'unprivileged', uid, gid }];
}

/** Another local user than `operator`, when the machine lets the tests be one (they run as root). */
export function otherUser(operator: Identity): Identity | undefined {
  if ((process.getuid?.() ?? 0) !== 0) return undefined;
  return operator.uid === 0 ? NOBODY : { label: 'other', uid: 65533, gid: 65533 };
}

/** Runs `file args` as `identity` (root can become anyone); never rejects. */
export function runAs(identity: Identity, file: string, args: readonly string[], options: Options = {}) {
  const self = process.getuid?.() ?? 0;
  return execa(file, args, {
    reject: false,
    stdin: 'ignore',
    timeout: 60_000,
    ...options,
    ...(identity.uid !== self ? { uid: identity.uid, gid: identity.gid } : {}),
  });
}

/** The ports of one embedded server. */
export interface OperatorPorts {
  frontend: number;
  ui: number;
  codec: number;
  http: number;
}

/** How one CLI call ended. */
export interface CliOutcome {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
}

/** One operator's CLI, state and workspaces. */
export interface Operator {
  identity: Identity;
  stateDir: string;
  home: string;
  ports: OperatorPorts;
  /** The environment every `cli` call starts from (no inherited settings or keys). */
  env: Record<string, string>;
  /** `durable-agent <args>` as the operator; stdin is `input` or closed; never rejects. */
  cli(
    args: string[],
    options?: { env?: Record<string, string>; input?: string; timeoutMs?: number },
  ): Promise<CliOutcome>;
  /** A new workspace owned by the operator, holding `files` (relative path → content). */
  workspace(files?: Record<string, string>): Promise<string>;
  /** Makes `target` (and everything under it) the operator's. */
  own(target: string): Promise<void>;
  /** The background worker's pid, from the dev server's status. */
  workerPid(): Promise<number>;
  close(): Promise<void>;
}

const scratch: string[] = [];

/** Starts nothing yet: the first `cli` call that needs the embedded server starts it, as for a real user. */
export async function startOperator(identity: Identity, extraEnv: Record<string, string> = {}): Promise<Operator> {
  const base = await mkdtemp(path.join(os.tmpdir(), `durable-agent-operator-${identity.label}-`));
  scratch.push(base);
  await chmod(base, 0o755);
  const stateDir = path.join(base, 'state');
  const home = path.join(base, 'home');
  const cache = path.join(base, 'cache');
  await mkdir(stateDir, { mode: 0o700 });
  await mkdir(home, { mode: 0o700 });
  await mkdir(path.join(cache, 'bin'), { recursive: true });
  // The provisioned Temporal CLI lives under the test user's cache (root's home is 0700): each operator gets a copy.
  const temporal = await findTemporalBinary({ build: false, log: () => undefined });
  const binary = path.join(cache, 'bin', 'temporal');
  await copyFile(temporal.path, binary);
  await chmod(binary, 0o755);
  const own = async (target: string): Promise<void> => {
    if ((process.getuid?.() ?? 0) !== 0) return;
    await execa('chown', ['-R', `${identity.uid}:${identity.gid}`, target]);
  };
  await own(base);
  const [frontend, ui, codec, http] = (await findFreePorts(4)) as [number, number, number, number];
  const ports = { frontend, ui, codec, http };
  const env: Record<string, string> = {
    PATH: SYSTEM_PATH,
    HOME: home,
    USER: identity.label,
    LANG: 'C.UTF-8',
    DURABLE_AGENT_STATE_DIR: stateDir,
    DURABLE_AGENT_CACHE_DIR: cache,
    TEMPORAL_CLI_PATH: binary,
    DURABLE_AGENT_DEV_PORT: String(frontend),
    DURABLE_AGENT_DEV_UI_PORT: String(ui),
    DURABLE_AGENT_DEV_CODEC_PORT: String(codec),
    DURABLE_AGENT_DEV_HTTP_PORT: String(http),
    ...extraEnv,
  };
  const cli: Operator['cli'] = async (args, options = {}) => {
    const result = await runAs(identity, process.execPath, [durableAgentBin, ...args], {
      env: { ...env, ...options.env },
      extendEnv: false,
      cwd: home,
      timeout: options.timeoutMs ?? 90_000,
      ...(options.input !== undefined ? { input: options.input } : { stdin: 'ignore' }),
    });
    return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
  };
  return {
    identity,
    stateDir,
    home,
    ports,
    env,
    cli,
    own,
    workspace: async (files = {}) => {
      const root = await mkdtemp(path.join(base, 'workspace-'));
      for (const [relative, content] of Object.entries(files)) {
        const file = path.join(root, relative);
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, content);
      }
      await own(root);
      return root;
    },
    workerPid: async () => {
      const status = await cli(['dev-server', '--status', '--json']);
      const parsed = JSON.parse(status.stdout) as { worker?: { pid?: number } };
      const pid = parsed.worker?.pid;
      if (typeof pid !== 'number') throw new Error(`no worker pid in: ${status.stdout} ${status.stderr}`);
      return pid;
    },
    close: async () => {
      await cli(['dev-server', '--stop'], { timeoutMs: 30_000 });
    },
  };
}

/** Removes every operator's scratch directory (after `close`). */
export async function removeOperators(): Promise<void> {
  for (const directory of scratch.splice(0)) await rm(directory, { recursive: true, force: true });
}

/** The resident memory of process `pid` in bytes (VmRSS). */
export async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (!kib) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kib) * 1024;
}

/** Writes `content` to `file` as the test's own user and hands it to `identity`. */
export async function writeOwned(identity: Identity, file: string, content: string): Promise<void> {
  await writeFile(file, content);
  if ((process.getuid?.() ?? 0) === 0) await chown(file, identity.uid, identity.gid);
}
