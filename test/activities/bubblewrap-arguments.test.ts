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
  it('mounts in an order where the workspace comes last: read-only root, private /tmp, hidden home with its toolchains, hidden state, the workspace', () => {
    expect(mounts(bubblewrapArguments(layout))).toEqual([
      ['--ro-bind', '/', '/'],
      ['--tmpfs', '/tmp'],
      ['--tmpfs', '/home/agent'],
      ['--ro-bind-try', '/home/agent/.cargo', '/home/agent/.cargo'],
      ['--ro-bind-try', '/home/agent/.rustup', '/home/agent/.rustup'],
      ['--ro-bind-try', '/tmp/tools/bin', '/tmp/tools/bin'],
      ['--tmpfs', '/var/lib/durable-agent'],
      ['--ro-bind', '/dev/null', '/etc/agent.env'],
      ['--bind', '/work/project', '/work/project'],
      ['--dev', '/dev'],
      ['--proc', '/proc'],
    ]);
  });

  it('is offline, capability-free, in its own namespaces and tied to the worker', () => {
    const offline = bubblewrapArguments(layout);
    expect(offline).toEqual(expect.arrayContaining(['--die-with-parent', '--unshare-pid', '--unshare-net']));
    expect(offline.join(' ')).toContain('--cap-drop ALL');
    expect(offline.slice(-2)).toEqual(['--chdir', '/work/project/src']);
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
