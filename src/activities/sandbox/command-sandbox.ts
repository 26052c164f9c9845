// Node: the OS sandbox Bash commands run in. On by default: the worker refuses to start when bubblewrap cannot run
// here, unless the operator opts out with DURABLE_AGENT_SANDBOX=off. Resolved once at worker start.
import { commaList } from '../../core/comma-list.js';
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { findOnPath } from '../../host/executables.js';
import type { KernelMasks } from './bubblewrap-arguments.js';
import { bubblewrapArguments } from './bubblewrap-arguments.js';
import type { SandboxNetwork } from './network-relay.js';
import { hostSecrets, hostSockets, kernelMasks, otherHomes, runFilesToKeep, separateVarRun } from './host-exposure.js';

/** `bubblewrap` (the default) or `off`. */
export const SANDBOX_VARIABLE = 'DURABLE_AGENT_SANDBOX';
/** The bwrap executable to use instead of `bwrap` on PATH. */
export const BWRAP_PATH_VARIABLE = 'DURABLE_AGENT_BWRAP_PATH';
/** Extra paths (comma-separated) commands must not read, besides the worker's home and state. */
export const SANDBOX_HIDE_VARIABLE = 'DURABLE_AGENT_SANDBOX_HIDE';

/** How commands are isolated. */
export type CommandSandbox =
  | {
      kind: 'bubblewrap';
      executable: string;
      /** The worker's home, hidden from commands (its toolchains on PATH stay readable). */
      workerHome?: string;
      /** Paths hidden from commands: the worker's state and store directories, and the operator's list. */
      hidden: readonly string[];
      /** Whether this bwrap can forbid user namespaces inside the sandbox (`--disable-userns`, bubblewrap 0.8). */
      closesUserNamespaces?: boolean;
    }
  | { kind: 'off' };

/** No usable sandbox and no opt-out: the worker does not start. */
export class SandboxUnavailableError extends Error {
  override name = 'SandboxUnavailableError';
}

const PROBE_TIMEOUT_MS = 10_000;

/**
 * The sandbox the worker's commands run in, from its environment. `executable` is a bwrap the caller provisioned
 * (the CLI's cache); otherwise DURABLE_AGENT_BWRAP_PATH, then `bwrap` on PATH. Probes it once with the same
 * namespaces a command gets, so a kernel that forbids them is reported here and not on the first command.
 */
export async function resolveCommandSandbox(
  env: NodeJS.ProcessEnv,
  options: { executable?: string; hidden?: readonly string[] } = {},
): Promise<CommandSandbox> {
  const setting = (env[SANDBOX_VARIABLE] ?? 'bubblewrap').trim().toLowerCase();
  if (setting === 'off') return { kind: 'off' };
  if (setting !== 'bubblewrap' && setting !== '') {
    throw new SandboxUnavailableError(`${SANDBOX_VARIABLE}='${setting}' is not one of: bubblewrap, off.`);
  }
  const executable = options.executable ?? env[BWRAP_PATH_VARIABLE] ?? (await findOnPath('bwrap', env));
  if (!executable) throw new SandboxUnavailableError(unavailableMessage('bubblewrap (bwrap) is not installed'));
  const runProbe = (closesUserNamespaces: boolean) =>
    execa(executable, [...probeArguments(closesUserNamespaces), 'true'], {
      reject: false,
      timeout: PROBE_TIMEOUT_MS,
      stdin: 'ignore',
    });
  // bwrap before 0.8 has no --disable-userns: the sandbox then still holds, without that extra wall.
  let closesUserNamespaces = true;
  let probe = await runProbe(true);
  if (probe.exitCode !== 0 && /disable-userns/.test(probe.stderr)) {
    closesUserNamespaces = false;
    probe = await runProbe(false);
  }
  if (probe.exitCode !== 0) {
    const why = (probe.stderr || probe.shortMessage || '').trim().split('\n')[0];
    throw new SandboxUnavailableError(unavailableMessage(`${executable} cannot create its namespaces here: ${why}`));
  }
  const workerHome = env.HOME ?? homedir();
  const hidden = [...(options.hidden ?? []), ...commaList(env[SANDBOX_HIDE_VARIABLE])].map((entry) =>
    path.resolve(entry),
  );
  return { kind: 'bubblewrap', executable, ...(workerHome ? { workerHome } : {}), hidden, closesUserNamespaces };
}

/** One line for the worker's start-up log. */
export function describeSandbox(sandbox: CommandSandbox): string {
  return sandbox.kind === 'off'
    ? `sandbox=off (${SANDBOX_VARIABLE}=off: commands run with the worker's filesystem and network)`
    : `sandbox=bubblewrap (${sandbox.executable})`;
}

/** What a sandboxed command gets besides its workspace: where it starts, the network, its HOME, what stays read-only. */
export interface SandboxedCommandOptions {
  /** The workspace (realpath). */
  root: string;
  cwd: string;
  /** Offline (`false`), or the approved network command's proxy socket and relay (network-relay.ts). */
  network: false | SandboxNetwork;
  pathVariable: string | undefined;
  /** The commands' HOME outside the workspace, bound read-write (it lies under the worker's hidden state). */
  commandHome?: string;
  /** Existing paths inside the workspace mounted read-only (protected-paths.ts). */
  readOnlyInWorkspace?: readonly string[];
}

/** The program and arguments that run `command` (argv) in the sandbox; without one, the command itself. */
export function sandboxedCommand(
  sandbox: CommandSandbox,
  command: readonly string[],
  options: SandboxedCommandOptions,
): { file: string; args: string[] } {
  if (sandbox.kind === 'off') return { file: command[0]!, args: command.slice(1) };
  // One stat per hidden path; one that does not exist (now) has nothing to hide.
  const hidden = sandbox.hidden.flatMap((entry) => {
    const stats = statSync(entry, { throwIfNoEntry: false });
    return stats ? [{ entry, directory: stats.isDirectory() }] : [];
  });
  const secrets = hostSecrets();
  const hiddenDirectories = [
    ...hidden.filter(({ directory }) => directory).map(({ entry }) => entry),
    ...secrets.directories,
  ];
  // A home that does not exist (nobody's /nonexistent) has nothing to hide, and bwrap cannot mount over it.
  const workerHome =
    sandbox.workerHome && statSync(sandbox.workerHome, { throwIfNoEntry: false })?.isDirectory()
      ? sandbox.workerHome
      : undefined;
  const homes = otherHomes(sandbox.workerHome);
  const covered = [
    options.root,
    ...(workerHome ? [workerHome] : []),
    ...homes,
    ...hiddenDirectories,
    ...(options.commandHome ? [options.commandHome] : []),
  ];
  const args = bubblewrapArguments({
    root: options.root,
    cwd: options.cwd,
    network: options.network,
    closesUserNamespaces: sandbox.closesUserNamespaces === true,
    ...(workerHome ? { workerHome } : {}),
    otherHomes: homes,
    pathDirectories: (options.pathVariable ?? '').split(path.delimiter).filter(Boolean),
    hiddenDirectories,
    hiddenFiles: [...hidden.filter(({ directory }) => !directory).map(({ entry }) => entry), ...secrets.files],
    sockets: hostSockets(covered),
    runFiles: runFilesToKeep(),
    separateVarRun: separateVarRun(),
    readOnlyInWorkspace: options.readOnlyInWorkspace ?? [],
    ...(options.commandHome ? { commandHome: options.commandHome } : {}),
    kernel: hostKernelMasks(),
  });
  return { file: sandbox.executable, args: [...args, '--', ...command] };
}

let kernel: KernelMasks | undefined;

function hostKernelMasks(): KernelMasks {
  kernel ??= kernelMasks();
  return kernel;
}

function probeArguments(closesUserNamespaces: boolean): string[] {
  const args = bubblewrapArguments({
    root: '/',
    cwd: '/',
    network: false,
    closesUserNamespaces,
    pathDirectories: [],
    hiddenDirectories: [],
    hiddenFiles: [],
    kernel: hostKernelMasks(),
  });
  return [...args, '--'];
}

function unavailableMessage(why: string): string {
  return (
    `Commands run in a bubblewrap sandbox, and it cannot run: ${why}. ` +
    `Install it (apt-get install bubblewrap; the CLI also fetches it from Debian's archive into its cache), ` +
    `or start the worker with ${SANDBOX_VARIABLE}=off to run commands with the worker's own filesystem and network.`
  );
}
