// Node: the bubblewrap command line of one sandboxed command. Mounts are applied in order, so what comes later wins:
// the whole filesystem read-only, a private /tmp, the worker's home and state hidden, the toolchains on PATH readable
// again, and last the workspace read-write.
import path from 'node:path';
import type { SandboxNetwork } from './network-relay.js';
import { networkBindings } from './network-relay.js';

/** What one sandboxed command may see and do. */
export interface BubblewrapLayout {
  /** The workspace (realpath): the only host directory the command can write. */
  root: string;
  /** Where the command starts (inside the workspace). */
  cwd: string;
  /**
   * Every command has a network namespace of its own, with nothing in it; one approved as `network_write` also gets
   * its proxy's socket and relay bound in (network-relay.ts), and reaches the approved hosts through them only.
   */
  network: false | SandboxNetwork;
  /** The worker's home directory (hidden, with the toolchains on PATH readable again); absent or `/`: not hidden. */
  workerHome?: string;
  /** Directories on the command's PATH: those inside the worker's home stay readable (cargo, go, pyenv, nvm…). */
  pathDirectories: readonly string[];
  /** Existing directories hidden behind an empty tmpfs (the worker's state, its content store, the operator's list). */
  hiddenDirectories: readonly string[];
  /** Existing files hidden behind /dev/null. */
  hiddenFiles: readonly string[];
}

/** bwrap's arguments, up to and excluding the command itself. */
export function bubblewrapArguments(layout: BubblewrapLayout): string[] {
  const args = [
    // Every process of the command dies with the worker (and with its pid namespace when bwrap exits).
    '--die-with-parent',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--unshare-net',
    // A worker running as root would otherwise keep its capabilities, and CAP_SYS_ADMIN could remount a bind writable.
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--tmpfs',
    '/tmp',
  ];
  const home = layout.workerHome ? path.resolve(layout.workerHome) : undefined;
  if (home && home !== '/') {
    args.push('--tmpfs', home);
    for (const toolchain of toolchainRoots(home, layout.pathDirectories))
      args.push('--ro-bind-try', toolchain, toolchain);
  }
  // Programs on PATH that live under /tmp stay reachable, read-only, like the toolchains in the home.
  for (const directory of layout.pathDirectories) {
    if (path.isAbsolute(directory) && path.resolve(directory).startsWith('/tmp/')) {
      args.push('--ro-bind-try', directory, directory);
    }
  }
  for (const directory of layout.hiddenDirectories) args.push('--tmpfs', directory);
  for (const file of layout.hiddenFiles) args.push('--ro-bind', '/dev/null', file);
  args.push(...networkBindings(layout.network));
  args.push('--bind', layout.root, layout.root, '--dev', '/dev', '--proc', '/proc', '--chdir', layout.cwd);
  return args;
}

/**
 * The top-level entries of the worker's home that hold a PATH directory (`~/.cargo` for `~/.cargo/bin`): a toolchain
 * needs more than its bin directory (pyenv's shims run `~/.pyenv/libexec`, rustup reads `~/.rustup`).
 */
export function toolchainRoots(home: string, pathDirectories: readonly string[]): string[] {
  const roots = new Set<string>();
  for (const directory of pathDirectories) {
    if (!path.isAbsolute(directory)) continue;
    const relative = path.relative(home, path.resolve(directory));
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) continue;
    roots.add(path.join(home, relative.split(path.sep)[0]!));
  }
  if (roots.has(path.join(home, '.cargo'))) roots.add(path.join(home, '.rustup'));
  return [...roots].sort();
}
