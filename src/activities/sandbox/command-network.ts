// Node: the network of one approved command, for exactly as long as the command runs: a private directory (0700,
// outside the workspace) holding the proxy's socket, the proxy itself, and what the sandbox needs to reach it. Closed
// with the command, whether it exited, timed out or was cancelled.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ControlPlaneEndpoint } from './control-plane.js';
import { controlPlaneEndpoints } from './control-plane.js';
import type { NetworkRefusal } from './network-proxy.js';
import { startNetworkProxy } from './network-proxy.js';
import type { SandboxNetwork } from './network-relay.js';
import { relayCommand } from './network-relay.js';

/** What the worker knows that every command's proxy must refuse, and where the proxies' sockets go. */
export interface CommandNetworkSettings {
  controlPlane: readonly ControlPlaneEndpoint[];
  /** Parent of each proxy's private directory (default: the system's temporary directory; UNIX socket paths are short). */
  socketParent?: string;
  /** The node binary of the in-sandbox relay (default: the worker's own). */
  relayExecutable?: string;
  /** Replaces the system resolver (tests). */
  resolve?: (host: string) => Promise<string[]>;
}

/** An open command network: bind `sandbox` in, run `command(...)`, read the refusals, close. */
export interface CommandNetwork {
  sandbox: SandboxNetwork;
  /** `command` behind the relay that sets the proxy variables. */
  command(command: readonly string[]): string[];
  refusals(): NetworkRefusal[];
  close(): Promise<void>;
}

/** The settings of a worker with `env`, connected to Temporal at `temporalAddress`. */
export function commandNetworkSettings(env: NodeJS.ProcessEnv, temporalAddress?: string): CommandNetworkSettings {
  return { controlPlane: controlPlaneEndpoints(env, temporalAddress) };
}

/** Opens the network of one command approved for `approvedHosts` (absent: public hosts only). */
export async function openCommandNetwork(
  settings: CommandNetworkSettings,
  approvedHosts: readonly string[] | undefined,
): Promise<CommandNetwork> {
  // mkdtemp makes the directory 0700: no other user can reach the socket, and nothing in the workspace points here.
  const directory = await mkdtemp(path.join(settings.socketParent ?? os.tmpdir(), 'durable-agent-network-'));
  const socketPath = path.join(directory, 'proxy.sock');
  let proxy;
  try {
    proxy = await startNetworkProxy({
      socketPath,
      ...(approvedHosts ? { approvedHosts } : {}),
      controlPlane: settings.controlPlane,
      ...(settings.resolve ? { resolve: settings.resolve } : {}),
    });
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  const sandbox: SandboxNetwork = {
    proxySocket: socketPath,
    relayExecutable: settings.relayExecutable ?? process.execPath,
  };
  let closed: Promise<void> | undefined;
  return {
    sandbox,
    command: (command) => relayCommand(sandbox, command),
    refusals: () => proxy.refusals(),
    close: () =>
      (closed ??= (async () => {
        await proxy.close();
        await rm(directory, { recursive: true, force: true });
      })()),
  };
}

/** Sentences for the command's result naming what the proxy refused, or '' when it refused nothing. */
export function refusalNotice(refusals: readonly NetworkRefusal[]): string {
  if (refusals.length === 0) return '';
  const listed = refusals.map(
    ({ host, port, reason }) => `${host.includes(':') ? `[${host}]` : host}:${port} (${reason})`,
  );
  return (
    ` The sandbox's network proxy refused ${listed.join('; ')}.` +
    ' Commands reach the network only through it (HTTP_PROXY/HTTPS_PROXY), only the hosts named on the approved' +
    " command line, and never this machine, link-local addresses or the worker's control plane."
  );
}
