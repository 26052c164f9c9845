// Node: what of the host a sandboxed command must not reach through the read-only root: the kernel interfaces container
// runtimes mask, the host's obvious secrets (readable to a uid-0 command as their owner), and every pathname socket
// the kernel lists (connect() needs only write permission on the socket, which a read-only mount does not take away).
import { accessSync, constants, lstatSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { KernelMasks } from './bubblewrap-arguments.js';

// Docker's default masked paths (hidden) and read-only paths, /proc/sys aside (always bound read-only).
const MASKED_KERNEL_PATHS = [
  '/proc/acpi',
  '/proc/asound',
  '/proc/interrupts',
  '/proc/kcore',
  '/proc/keys',
  '/proc/latency_stats',
  '/proc/sched_debug',
  '/proc/scsi',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/sys/firmware',
  '/sys/devices/virtual/powercap',
];
const READ_ONLY_KERNEL_PATHS = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sysrq-trigger'];

/**
 * The masked and read-only kernel paths that exist on this kernel: bwrap refuses a destination missing in the new
 * /proc (here /proc/kcore and /proc/sysrq-trigger do not exist). Read once: the kernel does not change under a worker.
 */
export function kernelMasks(): KernelMasks {
  const hiddenDirectories: string[] = [];
  const hiddenFiles: string[] = [];
  for (const entry of MASKED_KERNEL_PATHS) {
    const stats = statSync(entry, { throwIfNoEntry: false });
    if (stats?.isDirectory()) hiddenDirectories.push(entry);
    else if (stats) hiddenFiles.push(entry);
  }
  const readOnly = READ_ONLY_KERNEL_PATHS.filter((entry) => statSync(entry, { throwIfNoEntry: false }) !== undefined);
  return { hiddenDirectories, hiddenFiles, readOnly };
}

/** The host's secrets a uid-0 command could read as their owner: hidden like the worker's home. */
export function hostSecrets(): { directories: string[]; files: string[] } {
  const files = ['/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-', '/etc/security/opasswd'];
  try {
    // ssh_host_ed25519_key and friends; the .pub halves stay readable.
    for (const name of readdirSync('/etc/ssh')) if (name.endsWith('_key')) files.push(path.join('/etc/ssh', name));
  } catch {
    // No ssh server configuration here.
  }
  const directories = ['/etc/ssl/private'];
  const existing = (entry: string, directory: boolean): boolean => {
    const stats = lstatSync(entry, { throwIfNoEntry: false });
    return stats !== undefined && !stats.isSymbolicLink() && stats.isDirectory() === directory;
  };
  return {
    directories: directories.filter((entry) => existing(entry, true)),
    files: files.filter((entry) => existing(entry, false)),
  };
}

/** /root, hidden like the worker's home when it is not that home. */
export function otherHomes(workerHome: string | undefined): string[] {
  const home = workerHome ? path.resolve(workerHome) : undefined;
  if (home === '/root' || !statSync('/root', { throwIfNoEntry: false })?.isDirectory()) return [];
  // A worker that cannot enter /root (an unprivileged one) has nothing there to hide, and bwrap could not bind its
  // toolchains back: a "-try" bind still fails on a source it may not read.
  try {
    accessSync('/root', constants.R_OK | constants.X_OK);
    return ['/root'];
  } catch {
    return [];
  }
}

/** /etc/resolv.conf's target when it lies under /run (systemd-resolved), which the sandbox replaces by a tmpfs. */
export function runFilesToKeep(): string[] {
  try {
    const target = realpathSync('/etc/resolv.conf');
    return target.startsWith('/run/') || target.startsWith('/var/run/') ? [target] : [];
  } catch {
    return [];
  }
}

/** Whether /var/run is a directory of its own (usually it is a link to /run, hidden with it). */
export function separateVarRun(): boolean {
  const stats = lstatSync('/var/run', { throwIfNoEntry: false });
  return stats !== undefined && stats.isDirectory();
}

/**
 * The pathname sockets the kernel lists in this network namespace (/proc/net/unix), resolved, that still exist as
 * sockets and lie outside every directory the sandbox replaces or the command owns (`skipUnder`: /tmp, /run, the
 * workspace, hidden homes and directories). Read per command: a daemon may have started since the last one.
 */
export function hostSockets(skipUnder: readonly string[], table = readUnixSocketTable()): string[] {
  const skipped = ['/tmp', '/run', '/var/run', '/dev', '/proc', '/sys', ...skipUnder].map((entry) =>
    path.resolve(entry),
  );
  const sockets = new Set<string>();
  for (const line of table.split('\n').slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path: the path is everything after the seventh field.
    const listed = UNIX_SOCKET_LINE.exec(line)?.[1];
    if (listed === undefined) continue;
    // `@name` is abstract: only the network namespace reaches it, and the sandbox has its own.
    if (!listed.startsWith('/')) continue;
    let real: string;
    try {
      real = realpathSync(listed);
      if (!statSync(real).isSocket()) continue;
    } catch {
      continue;
    }
    if (skipped.some((directory) => real === directory || real.startsWith(`${directory}/`))) continue;
    sockets.add(real);
  }
  return [...sockets].sort();
}

const UNIX_SOCKET_LINE = /^\s*\S+:(?:\s+\S+){6} (.+)$/;

function readUnixSocketTable(): string {
  try {
    return readFileSync('/proc/net/unix', 'utf8');
  } catch {
    return '';
  }
}
