import { describe, expect, it } from 'vitest';
import { bubblewrapArguments, toolchainRoots } from '../../src/activities/sandbox/bubblewrap-arguments.js';

const layout = {
  root: '/work/project',
  cwd: '/work/project/src',
  network: false as const,
  workerHome: '/home/agent',
  pathDirectories: ['/home/agent/.cargo/bin', '/usr/bin', '/tmp/tools/bin', 'relative/bin'],
  hiddenDirectories: ['/var/lib/durable-agent'],
  hiddenFiles: ['/etc/agent.env'],
  otherHomes: ['/root'],
  sockets: ['/var/lib/app/app.sock'],
  runFiles: ['/run/systemd/resolve/stub-resolv.conf'],
  readOnlyInWorkspace: ['/work/project/.git', '/work/project/.env'],
  commandHome: '/var/lib/durable-agent/worker/workspaces/0123/home',
  kernel: { hiddenDirectories: ['/proc/acpi'], hiddenFiles: ['/proc/keys'], readOnly: ['/proc/bus'] },
};

/** The mount arguments in order, as [option, ...operands] groups. */
function mounts(args: string[]): string[][] {
  const groups: string[][] = [];
  const arity: Record<string, number> = {
    '--ro-bind': 2,
    '--ro-bind-try': 2,
    '--bind': 2,
    '--tmpfs': 1,
    '--dev': 1,
    '--proc': 1,
  };
  for (let index = 0; index < args.length; index++) {
    const width = arity[args[index]!];
    if (width === undefined) continue;
    groups.push(args.slice(index, index + 1 + width));
    index += width;
  }
  return groups;
}

describe('bubblewrapArguments', () => {
  it('mounts in an order where later wins: read-only root, private /tmp and /run, hidden homes, state and sockets, the workspace with its protected paths read-only again, the HOME, then /proc with /proc/sys read-only', () => {
    expect(mounts(bubblewrapArguments(layout))).toEqual([
      ['--ro-bind', '/', '/'],
      ['--tmpfs', '/tmp'],
      ['--tmpfs', '/run'],
      ['--ro-bind-try', '/run/systemd/resolve/stub-resolv.conf', '/run/systemd/resolve/stub-resolv.conf'],
      ['--tmpfs', '/home/agent'],
      ['--ro-bind-try', '/home/agent/.cargo', '/home/agent/.cargo'],
      ['--ro-bind-try', '/home/agent/.rustup', '/home/agent/.rustup'],
      ['--tmpfs', '/root'],
      ['--ro-bind-try', '/tmp/tools/bin', '/tmp/tools/bin'],
      ['--tmpfs', '/var/lib/durable-agent'],
      ['--ro-bind', '/dev/null', '/etc/agent.env'],
      ['--ro-bind', '/dev/null', '/var/lib/app/app.sock'],
      ['--bind', '/work/project', '/work/project'],
      ['--ro-bind', '/work/project/.git', '/work/project/.git'],
      ['--ro-bind', '/work/project/.env', '/work/project/.env'],
      [
        '--bind',
        '/var/lib/durable-agent/worker/workspaces/0123/home',
        '/var/lib/durable-agent/worker/workspaces/0123/home',
      ],
      ['--dev', '/dev'],
      ['--proc', '/proc'],
      ['--ro-bind', '/proc/sys', '/proc/sys'],
      ['--tmpfs', '/proc/acpi'],
      ['--ro-bind', '/dev/null', '/proc/keys'],
      ['--ro-bind', '/proc/bus', '/proc/bus'],
    ]);
  });

  it('hides a /var/run of its own like /run', () => {
    const groups = mounts(bubblewrapArguments({ ...layout, separateVarRun: true })).map((group) => group.join(' '));
    expect(groups.indexOf('--tmpfs /var/run')).toBe(groups.indexOf('--tmpfs /run') + 1);
  });

  it('is offline, capability-free, in its own namespaces and tied to the worker', () => {
    const offline = bubblewrapArguments(layout);
    expect(offline).toEqual(
      expect.arrayContaining(['--die-with-parent', '--unshare-user', '--unshare-pid', '--unshare-net']),
    );
    expect(offline.join(' ')).toContain('--cap-drop ALL');
    expect(offline.slice(-2)).toEqual(['--chdir', '/work/project/src']);
    expect(offline).not.toContain('--disable-userns');
    const closed = bubblewrapArguments({ ...layout, closesUserNamespaces: true });
    expect(closed.indexOf('--disable-userns')).toBe(closed.indexOf('--unshare-user') + 1);
  });

  it('does not hide a home of "/"', () => {
    expect(mounts(bubblewrapArguments({ ...layout, workerHome: '/' })).map((group) => group.join(' '))).not.toContain(
      '--tmpfs /',
    );
  });
});

describe('toolchainRoots', () => {
  it('keeps the top-level entry of each PATH directory inside the home, and rustup with cargo', () => {
    expect(
      toolchainRoots('/h', ['/h/.cargo/bin', '/h/go/bin', '/h/.pyenv/shims', '/usr/bin', '/h', '/hx/bin']),
    ).toEqual(['/h/.cargo', '/h/.pyenv', '/h/.rustup', '/h/go']);
  });
});
