// Node: the bubblewrap command line of one sandboxed command. Mounts are applied in order, so what comes later wins:
// the whole filesystem read-only, a private /tmp and /run, the worker's home, state and the host's secrets hidden, the
// toolchains on PATH readable again, host sockets covered, the workspace read-write with its protected paths read-only
// again, the commands' HOME, and last a fresh /proc whose kernel settings are read-only and whose other kernel
// interfaces are masked as container runtimes mask them.
import path from 'node:path';
import type { SandboxNetwork } from './network-relay.js';
import { networkBindings } from './network-relay.js';

/** What one sandboxed command may see and do. */
export interface BubblewrapLayout {
  /** The workspace (realpath): the only host directory the command can write, besides its HOME. */
  root: string;
  /** Where the command starts (inside the workspace). */
  cwd: string;
  /**
   * Every command has a network namespace of its own, with nothing in it; one approved as `network_write` also gets
   * its proxy's socket and relay bound in (network-relay.ts), and reaches the approved hosts through them only.
   */
  network: false | SandboxNetwork;
  /**
   * Forbid user namespaces inside the sandbox (`--disable-userns`): a nested one could otherwise try to map the
   * host's uid 0 and mount a /proc of its own (kernels before 5.12 allow that mapping without CAP_SETFCAP).
   */
  closesUserNamespaces?: boolean;
  /** The worker's home directory (hidden, with the toolchains on PATH readable again); absent or `/`: not hidden. */
  workerHome?: string;
  /** Other homes hidden the same way (/root, when the worker's HOME is elsewhere). */
  otherHomes?: readonly string[];
  /** Directories on the command's PATH: those inside a hidden home stay readable (cargo, go, pyenv, nvm…). */
  pathDirectories: readonly string[];
  /** Existing directories hidden behind an empty tmpfs (the worker's state, its content store, the operator's list). */
  hiddenDirectories: readonly string[];
  /** Existing files hidden behind /dev/null. */
  hiddenFiles: readonly string[];
  /** Existing pathname sockets outside the workspace, covered by /dev/null so that connect() finds no listener. */
  sockets?: readonly string[];
  /** Files under /run the command still needs (the target of /etc/resolv.conf), bound back read-only. */
  runFiles?: readonly string[];
  /** /var/run when it is a directory of its own rather than the usual link to /run. */
  separateVarRun?: boolean;
  /** Existing paths inside the workspace mounted read-only again after it (`.git`, `.agent`, the protected list). */
  readOnlyInWorkspace?: readonly string[];
  /** The commands' HOME (outside the workspace, under the worker's hidden state), bound read-write. */
  commandHome?: string;
  /** What exists of the kernel interfaces container runtimes mask (kernelMasks() in host-exposure.ts). */
  kernel?: KernelMasks;
}

/** Kernel interfaces under /proc and /sys: hidden (a directory behind a tmpfs, a file behind /dev/null) or read-only. */
export interface KernelMasks {
  hiddenDirectories: readonly string[];
  hiddenFiles: readonly string[];
  readOnly: readonly string[];
}

/** bwrap's arguments, up to and excluding the command itself. */
export function bubblewrapArguments(layout: BubblewrapLayout): string[] {
  const args = [
    // Every process of the command dies with the worker (and with its pid namespace when bwrap exits).
    '--die-with-parent',
    // A user namespace of its own: the command's uid 0 (when the worker is root) holds capabilities over nothing on the
    // host, and every mount below is locked as bwrap made it (a less privileged namespace cannot remount it writable).
    '--unshare-user',
    ...(layout.closesUserNamespaces ? ['--disable-userns'] : []),
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    // The network namespace also isolates abstract UNIX sockets (`@/tmp/.X11-unix/X0`, D-Bus, containerd's shims).
    '--unshare-net',
    // A worker running as root would otherwise keep its capabilities, and CAP_SYS_ADMIN could remount a bind writable.
    '--cap-drop',
    'ALL',
    // Recursive and read-only: /sys, and every other host filesystem, included.
    '--ro-bind',
    '/',
    '/',
    '--tmpfs',
    '/tmp',
    // Where daemons keep their sockets and pid files (docker.sock, D-Bus, PostgreSQL, ssh-agent, systemd).
    '--tmpfs',
    '/run',
    ...(layout.separateVarRun ? ['--tmpfs', '/var/run'] : []),
  ];
  for (const file of layout.runFiles ?? []) args.push('--ro-bind-try', file, file);
  const homes = [layout.workerHome, ...(layout.otherHomes ?? [])].flatMap((home) =>
    home && path.resolve(home) !== '/' ? [path.resolve(home)] : [],
  );
  for (const home of new Set(homes)) {
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
  for (const socket of layout.sockets ?? []) args.push('--ro-bind', '/dev/null', socket);
  args.push(...networkBindings(layout.network));
  args.push('--bind', layout.root, layout.root);
  for (const entry of layout.readOnlyInWorkspace ?? []) args.push('--ro-bind', entry, entry);
  if (layout.commandHome) args.push('--bind', layout.commandHome, layout.commandHome);
  args.push('--dev', '/dev', '--proc', '/proc');
  // bwrap covers /proc/sys itself only when it is writable to the caller, and its access() check answers "read-only"
  // for root, whose writes sysctl files then accept (core_pattern runs a program as host root on the next crash).
  args.push('--ro-bind', '/proc/sys', '/proc/sys');
  const kernel = layout.kernel ?? { hiddenDirectories: [], hiddenFiles: [], readOnly: [] };
  for (const directory of kernel.hiddenDirectories) args.push('--tmpfs', directory);
  for (const file of kernel.hiddenFiles) args.push('--ro-bind', '/dev/null', file);
  for (const entry of kernel.readOnly) args.push('--ro-bind', entry, entry);
  args.push('--chdir', layout.cwd);
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
