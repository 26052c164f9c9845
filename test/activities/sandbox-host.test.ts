// The sandbox against the host, with a root worker and with an unprivileged one: kernel settings and /sys stay
// read-only, the command's uid holds no privilege over the host, no host UNIX socket answers, the workspace's protected
// paths stay as they were unless the call was approved, and HOME lies outside the workspace.
import { execa } from 'execa';
import { createConnection, createServer } from 'node:net';
import type { Server } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandHomeDirectory, workspaceDataDirectory } from '../../src/activities/worker-data.js';
import { makeOutsideDirectory } from '../support/outside-directory.js';
import { requireBubblewrap } from '../support/sandbox.js';
import type { WorkerKind } from '../support/sandbox-workers.js';
import { canRunUnprivileged, giveTo, runBashAs, UNPRIVILEGED_UID } from '../support/sandbox-workers.js';

const workers: WorkerKind[] = canRunUnprivileged() ? ['this process', 'an unprivileged worker'] : ['this process'];
const tag = `${process.pid}-${Date.now()}`;

let scratch: string;
let outside: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'sandbox-host-'));
  await chmod(scratch, 0o755);
  outside = await makeOutsideDirectory();
  await chmod(outside, 0o755);
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

let fresh = 0;

/** A workspace and a data directory of the worker's own, both belonging to that worker. */
async function freshWorkspace(kind: WorkerKind): Promise<{ workspace: string; dataDir: string }> {
  const base = path.join(scratch, `case-${++fresh}`);
  const workspace = path.join(base, 'workspace');
  const dataDir = path.join(base, 'data');
  await mkdir(workspace, { recursive: true });
  await mkdir(dataDir);
  await giveTo(kind, base);
  return { workspace, dataDir };
}

/** Kernel settings and sysfs files with their current value: writing it back changes nothing, if it is accepted. */
function kernelWrites(): Array<{ file: string; value: string }> {
  const files = [
    '/proc/sys/kernel/core_pattern',
    '/proc/sys/kernel/hostname',
    '/proc/sys/kernel/panic',
    '/proc/sys/vm/swappiness',
    '/proc/sys/fs/file-max',
    '/proc/sys/net/core/somaxconn',
    '/sys/kernel/mm/transparent_hugepage/enabled',
    '/sys/kernel/mm/transparent_hugepage/defrag',
  ];
  return files.flatMap((file) => {
    let value: string;
    try {
      value = readFileSync(file, 'utf8').trim();
    } catch {
      return [];
    }
    // `always [madvise] never`: the selected word is the value.
    const selected = /\[(\w+)\]/.exec(value)?.[1];
    return [{ file, value: selected ?? value }];
  });
}

function quoted(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

describe.each(workers)('the sandbox, run by %s', (kind) => {
  it('writes nothing to /proc/sys or /sys, and masks what container runtimes mask', async (context) => {
    const sandbox = await requireBubblewrap(context);
    const { workspace, dataDir } = await freshWorkspace(kind);
    const writes = kernelWrites();
    expect(writes.map(({ file }) => file)).toContain('/proc/sys/kernel/core_pattern');
    const pattern = writes.find(({ file }) => file === '/proc/sys/kernel/core_pattern')!.value;
    const script = [
      ...writes.map(
        ({ file, value }) =>
          `if printf '%s\\n' ${quoted(value)} > ${file} 2>/dev/null; then echo "wrote ${file}"; else echo "refused ${file}"; fi`,
      ),
      // The same setting by other roads: the sandbox's own root links, a nested user namespace with a proc of its own.
      ...['/proc/self/root', '/proc/1/root'].map(
        (via) =>
          `if printf '%s\\n' ${quoted(pattern)} > ${via}/proc/sys/kernel/core_pattern 2>/dev/null; then echo "wrote via ${via}"; else echo "refused via ${via}"; fi`,
      ),
      `unshare -Urpf --mount-proc sh -c ${quoted(`printf '%s\\n' ${quoted(pattern)} > /proc/sys/kernel/core_pattern`)} 2>/dev/null && echo "wrote via a nested namespace" || echo "refused via a nested namespace"`,
      'unshare -U true 2>/dev/null && echo "nested user namespace" || echo "no nested user namespace"',
      'echo "masked bytes: $(cat /proc/keys /proc/timer_list 2>/dev/null | wc -c)"',
      'echo "firmware entries: $(ls -A /sys/firmware 2>/dev/null | wc -l)"',
    ].join('\n');
    const envelope = await runBashAs(kind, sandbox, { workspace, dataDir, command: script });
    const lines = String(envelope.data.stdout).trim().split('\n');
    await context.annotate(`${writes.length} kernel writes attempted as ${kind}`);
    expect(lines.filter((line) => line.startsWith('wrote'))).toEqual([]);
    expect(lines.filter((line) => line.startsWith('refused'))).toHaveLength(writes.length + 3);
    // bubblewrap 0.8 forbids user namespaces inside the sandbox; an older one still refuses the writes above.
    if (sandbox.closesUserNamespaces) expect(lines).toContain('no nested user namespace');
    expect(lines).toContain('masked bytes: 0');
    expect(lines).toContain('firmware entries: 0');
  });

  it("gives the command's uid no privilege over the host: another user's file stays unreadable, the host's secrets are hidden, its own files keep the worker's owner", async (context) => {
    const sandbox = await requireBubblewrap(context);
    const { workspace, dataDir } = await freshWorkspace(kind);
    const foreign = path.join(outside, `foreign-${fresh}`);
    await writeFile(foreign, 'FOREIGN SECRET', { mode: 0o600 });
    await chown(foreign, 4321, 4321);
    const envelope = await runBashAs(kind, sandbox, {
      workspace,
      dataDir,
      command: [
        `cat ${foreign} 2>&1 | head -c 200; echo`,
        'cat /etc/shadow 2>&1 | head -c 200; echo',
        'cat /proc/self/uid_map',
        'grep CapEff /proc/self/status',
        'touch created-here',
      ].join('\n'),
    });
    const stdout = String(envelope.data.stdout);
    expect(stdout).not.toContain('FOREIGN SECRET');
    expect(stdout).not.toMatch(/^root:/m);
    expect(stdout).toMatch(/CapEff:\s+0+\n/);
    // A user namespace maps one uid, the worker's own; the host's initial namespace maps them all.
    expect(stdout).not.toMatch(/^\s*0\s+0\s+4294967295\s*$/m);
    const owner = (await execa('stat', ['-c', '%u', path.join(workspace, 'created-here')])).stdout;
    expect(Number(owner)).toBe(kind === 'this process' ? process.getuid!() : UNPRIVILEGED_UID);
  });

  it('reaches no host UNIX socket: not under /run, not in a directory of its own elsewhere, not an abstract one', async (context) => {
    const sandbox = await requireBubblewrap(context);
    const { workspace, dataDir } = await freshWorkspace(kind);
    const socketDirectory = path.join('/var/tmp', `sandbox-socket-${tag}-${fresh}`);
    await mkdir(socketDirectory, { recursive: true });
    await chmod(socketDirectory, 0o755);
    const paths = [path.join(socketDirectory, 's.sock')];
    if (process.getuid?.() === 0) paths.push(`/run/sandbox-socket-${tag}-${fresh}.sock`);
    const abstract = `\0sandbox-socket-${tag}-${fresh}`;
    let reached = 0;
    const servers: Server[] = [];
    try {
      for (const address of [...paths, abstract]) {
        const server = createServer((socket) => {
          reached++;
          socket.end('HOST SERVICE ANSWERED\n');
        });
        await new Promise<void>((resolve) => server.listen(address, resolve));
        servers.push(server);
      }
      // Any local user may connect (so that a refusal inside is the sandbox's doing, not the socket's mode).
      for (const address of paths) await chmod(address, 0o777);
      for (const address of [...paths, abstract]) {
        const answer = await new Promise<string>((resolve) => {
          createConnection(address)
            .on('data', (data) => resolve(String(data)))
            .on('error', (error) => resolve(error.message));
        });
        expect(answer, `the host itself reaches ${JSON.stringify(address)}`).toBe('HOST SERVICE ANSWERED\n');
      }
      reached = 0;
      const probe = (address: string): string =>
        `node -e ${quoted(`require('net').createConnection(${JSON.stringify(address)}).on('data', (d) => process.stdout.write('reached ' + d)).on('error', (e) => console.log('refused ' + e.code))`)}`;
      const envelope = await runBashAs(kind, sandbox, {
        workspace,
        dataDir,
        command: [
          ...[...paths, abstract].map(probe),
          ...paths.map((address) => `curl -s --max-time 5 --unix-socket ${address} http://x/ || echo "curl refused"`),
        ].join('\n'),
      });
      const stdout = String(envelope.data.stdout);
      await context.annotate(`${paths.length + 1} host sockets probed as ${kind}; ${reached} reached`);
      expect(stdout).not.toContain('HOST SERVICE ANSWERED');
      expect(stdout.match(/refused/g)).toHaveLength(2 * paths.length + 1);
      expect(reached).toBe(0);
    } finally {
      for (const server of servers) server.close();
      await rm(socketDirectory, { recursive: true, force: true });
    }
  });

  it('keeps .git, nested repositories, .agent and the protected list read-only unless the call was approved', async (context) => {
    const sandbox = await requireBubblewrap(context);
    const { workspace, dataDir } = await freshWorkspace(kind);
    await execa('git', ['init', '-q', workspace]);
    await execa('git', ['init', '-q', path.join(workspace, 'vendor', 'lib')]);
    await writeFile(path.join(workspace, '.env'), 'TOKEN=1\n');
    await mkdir(path.join(workspace, '.agent', 'tool-output'), { recursive: true });
    await writeFile(path.join(workspace, '.agent', 'tool-output', 'kept.txt'), 'kept\n');
    await mkdir(path.join(workspace, 'keys'));
    await writeFile(path.join(workspace, 'keys', 'server.pem'), 'PEM\n');
    await giveTo(kind, workspace);
    const snapshot = async (): Promise<string> =>
      JSON.stringify(
        await Promise.all(
          ['.git/config', 'vendor/lib/.git/config', '.env', '.agent/tool-output/kept.txt', 'keys/server.pem'].map(
            (file) => readFile(path.join(workspace, file), 'utf8'),
          ),
        ),
      ) + JSON.stringify((await readdir(path.join(workspace, '.git', 'hooks'))).sort());
    const before = await snapshot();
    const attacks = [
      `printf '[core]\\n\\tfsmonitor = "touch ${outside}/planted"\\n' >> .git/config`,
      'git config core.fsmonitor "touch /tmp/x"',
      "printf '#!/bin/sh\\n' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout",
      'mv .git .git-moved',
      'rm -rf .git',
      "printf '[core]\\n\\tfsmonitor = x\\n' >> vendor/lib/.git/config",
      'echo TOKEN=2 > .env',
      'echo changed > .agent/tool-output/kept.txt',
      'rm -rf .agent',
      'echo changed > keys/server.pem',
      'ln -s .git/config config-link && echo "[alias]" >> config-link',
      'ln -s ../.git/hooks vendor/hooks-link && touch vendor/hooks-link/pre-commit',
      'touch .git/planted && mkdir .git/hooks/more',
    ];
    // The shape of a build step: a Makefile the model wrote, run as an auto-allowed build.
    await writeFile(path.join(workspace, 'Makefile'), `all:\n${attacks.map((line) => `\t-${line}\n`).join('')}`);
    await giveTo(kind, path.join(workspace, 'Makefile'));
    const envelope = await runBashAs(kind, sandbox, { workspace, dataDir, command: 'make -s -k 2>&1; true' });
    await context.annotate(`${attacks.length} writes to protected paths by an auto-allowed make, as ${kind}`);
    expect(String(envelope.data.stdout)).toMatch(/Read-only file system|Device or resource busy/);
    expect(await snapshot()).toBe(before);
    expect(existsSync(path.join(workspace, '.git-moved'))).toBe(false);
    // A git write that fails on the read-only .git says why, so the model can ask for an approval.
    const commit = await runBashAs(kind, sandbox, { workspace, dataDir, command: 'git add Makefile' });
    expect(commit.text).toContain('Protected paths are read-only for a command the operator did not approve');
    // An approved call may change them.
    const approved = await runBashAs(kind, sandbox, {
      workspace,
      dataDir,
      approved: true,
      command: 'git config core.editor true && echo TOKEN=3 > .env',
    });
    expect(approved.data.exit_code).toBe(0);
    await expect(readFile(path.join(workspace, '.git', 'config'), 'utf8')).resolves.toContain('editor = true');
  });

  it('moves a repository an unapproved command creates out of the workspace and says where', async (context) => {
    const sandbox = await requireBubblewrap(context);
    const { workspace, dataDir } = await freshWorkspace(kind);
    const envelope = await runBashAs(kind, sandbox, {
      workspace,
      dataDir,
      command: [
        'git init -q . && git config core.fsmonitor "touch planted"',
        'mkdir -p deep/er && git init -q deep/er',
        'ln -s deep/er/.git sub-link && mkdir linked && ln -s ../deep/er/.git linked/.git',
      ].join('\n'),
    });
    const moved = envelope.data.moved_repositories as Array<{ path: string; moved_to: string }>;
    expect(moved.map((entry) => entry.path).sort()).toEqual(['.git', 'deep/er/.git', 'linked/.git']);
    expect(existsSync(path.join(workspace, '.git'))).toBe(false);
    expect(existsSync(path.join(workspace, 'deep', 'er', '.git'))).toBe(false);
    const top = moved.find((entry) => entry.path === '.git')!;
    expect(top.moved_to.startsWith(workspaceDataDirectory(dataDir, workspace))).toBe(true);
    await expect(readFile(path.join(top.moved_to, 'config'), 'utf8')).resolves.toContain('fsmonitor');
    expect(envelope.text).toContain('moved out of the workspace');
    // Approved, the repository stays.
    const approved = await runBashAs(kind, sandbox, { workspace, dataDir, approved: true, command: 'git init -q .' });
    expect(approved.data.moved_repositories).toBeUndefined();
    expect(existsSync(path.join(workspace, '.git', 'config'))).toBe(true);
  });

  it('gives commands a HOME of their own outside the workspace, kept between commands', async (context) => {
    const sandbox = await requireBubblewrap(context);
    const { workspace, dataDir } = await freshWorkspace(kind);
    const first = await runBashAs(kind, sandbox, {
      workspace,
      dataDir,
      command: 'echo "$HOME" && echo kept > ~/.note',
    });
    const home = commandHomeDirectory(workspaceDataDirectory(dataDir, workspace));
    expect(first.data.stdout).toBe(`${home}\n`);
    const second = await runBashAs(kind, sandbox, { workspace, dataDir, command: 'cat ~/.note' });
    expect(second.data.stdout).toBe('kept\n');
    expect(existsSync(path.join(workspace, '.agent'))).toBe(false);
  });
});

if (process.getuid?.() === 0) {
  describe("a root worker's own secrets", () => {
    it("/root is hidden like the worker's home when the worker's HOME is elsewhere", async (context) => {
      const secret = `/root/.sandbox-secret-${tag}`;
      await writeFile(secret, 'ROOT SECRET', { mode: 0o600 });
      try {
        const sandbox = await requireBubblewrap(context, { ...process.env, HOME: path.join(scratch, 'home') });
        const { workspace, dataDir } = await freshWorkspace('this process');
        const envelope = await runBashAs('this process', sandbox, {
          workspace,
          dataDir,
          command: `cat ${secret} 2>&1`,
        });
        expect(envelope.data.stdout).toMatch(/No such file/);
      } finally {
        await rm(secret, { force: true });
      }
    });
  });
}

describe("the commands' HOME", () => {
  it("is bound in where the worker's state is hidden", async (context) => {
    const { workspace, dataDir } = await freshWorkspace('this process');
    const sandbox = await requireBubblewrap(context, process.env, [dataDir]);
    const envelope = await runBashAs('this process', sandbox, {
      workspace,
      dataDir,
      command: `echo kept > ~/.note && ls -A ${dataDir}/workspaces | wc -l`,
    });
    expect(envelope.data.exit_code).toBe(0);
    // The state around the HOME stays hidden: only the path down to it exists inside.
    expect(envelope.data.stdout).toBe('1\n');
    await expect(
      readFile(path.join(commandHomeDirectory(workspaceDataDirectory(dataDir, workspace)), '.note'), 'utf8'),
    ).resolves.toBe('kept\n');
  });

  it('is refused, and nothing is created, when a component of its path is a link', async (context) => {
    const sandbox = await requireBubblewrap(context);
    const { workspace, dataDir } = await freshWorkspace('this process');
    const elsewhere = path.join(outside, `link-target-${fresh}`);
    await mkdir(elsewhere);
    await symlink(elsewhere, path.join(dataDir, 'workspaces'));
    const envelope = await runBashAs('this process', sandbox, { workspace, dataDir, command: 'echo ran' });
    expect(envelope.error?.code).toBe('EXECUTION_ERROR');
    expect(envelope.text).toContain('is a symbolic link');
    expect(await readdir(elsewhere)).toEqual([]);
  });
});
