// `npm test`: vitest, run where the tests' second user can reach the checkout.
// Run as root, the suite also starts workers, CLIs and browsers as uid 65534 (nobody) from this checkout. A clone in a
// directory only root may enter (`mktemp -d` makes one 0700, as does /root) is out of that user's reach, and every
// such test would fail on `Cannot find package 'tsx'`. Rather than change the permissions of the user's directories,
// the run then goes on in a private mount namespace of its own, with the checkout's entries bound where that user can
// read them, under /var/tmp (the command sandbox keeps /tmp and /run private, so the repository's scripts would not be
// found there); the namespace, and the mounts with it, end with the run.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const NOBODY = '65534';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vitest = ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)];

/** @param {string} directory */
function nobodyReaches(directory) {
  const asNobody = [
    '--reuid',
    NOBODY,
    '--regid',
    NOBODY,
    '--clear-groups',
    'test',
    '-r',
    path.join(directory, 'package.json'),
  ];
  return spawnSync('setpriv', asNobody, { stdio: 'ignore' }).status === 0;
}

/**
 * Runs `command` and resolves to its exit code. A terminal's Ctrl-C reaches vitest itself (the whole process group gets
 * it) and only waits here; a SIGTERM or SIGHUP sent to this process (a CI's timeout) is passed on.
 * @param {string} command
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {Promise<number>}
 */
function run(command, args, env = process.env) {
  const child = spawn(command, args, { cwd: root, stdio: 'inherit', env });
  const wait = () => undefined;
  const forward = (/** @type {NodeJS.Signals} */ signal) => child.kill(signal);
  process.on('SIGINT', wait);
  process.on('SIGTERM', forward);
  process.on('SIGHUP', forward);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      process.off('SIGINT', wait);
      process.off('SIGTERM', forward);
      process.off('SIGHUP', forward);
      resolve(code ?? (signal === 'SIGINT' ? 130 : signal === 'SIGHUP' ? 129 : 143));
    });
  });
}

if (process.getuid?.() !== 0 || nobodyReaches(root)) {
  process.exitCode = await run(process.execPath, vitest);
} else if (spawnSync('unshare', ['--mount', '--propagation', 'private', 'true'], { stdio: 'ignore' }).status !== 0) {
  process.stderr.write(
    `${root} is out of reach of uid ${NOBODY}, whom the tests also run as, and no mount namespace can be made here to ` +
      `bind it elsewhere (unshare --mount needs CAP_SYS_ADMIN): clone it under a directory others may enter, or ` +
      `\`chmod o+x\` the parent directory that keeps them out\n`,
  );
  process.exitCode = 1;
} else {
  const parent = mkdtempSync('/var/tmp/durable-agent-checkout-');
  chmodSync(parent, 0o755);
  const mountPoint = path.join(parent, path.basename(root));
  mkdirSync(mountPoint);
  process.stderr.write(
    `${root} is out of reach of uid ${NOBODY}, whom the tests also run as (it, or a directory above it, is one only root may enter): ` +
      `running them with the checkout bound at ${mountPoint}, in a mount namespace of their own\n`,
  );
  // The checkout's own directory may be the one that keeps the second user out (`git clone . "$(mktemp -d)"`), and a
  // bind mount keeps its mode: the mount point is a tmpfs that user may enter, with each entry of the checkout bound
  // into it. dist/ is made first, so a build during the run writes into the checkout, not the tmpfs.
  mkdirSync(path.join(root, 'dist'), { recursive: true });
  const script = [
    'mount -t tmpfs -o mode=0755 durable-agent-checkout "$2" || exit',
    'for entry in "$1"/* "$1"/.[!.]* "$1"/..?*; do',
    '  [ -e "$entry" ] || continue',
    '  if [ -d "$entry" ]; then mkdir "$2/${entry##*/}"; else : > "$2/${entry##*/}"; fi',
    '  mount --bind "$entry" "$2/${entry##*/}" || exit',
    'done',
    'cd "$2" && shift 2 && exec "$@"',
  ].join('\n');
  // npm put the checkout's node_modules/.bin on PATH, and those of its parents, which mostly do not exist: the first is
  // at the mount point now, and the others are left out, since the sandbox of the second user's commands could not
  // even look for them behind the directory that keeps that user out.
  const moved = (/** @type {string} */ entry) =>
    entry === root || entry.startsWith(`${root}/`) ? mountPoint + entry.slice(root.length) : entry;
  const PATH = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((entry) => existsSync(entry))
    .map(moved)
    .join(path.delimiter);
  try {
    process.exitCode = await run(
      'unshare',
      [
        ...['--mount', '--propagation', 'private', '--', 'sh', '-c', script, 'sh', root, mountPoint],
        ...[process.execPath, ...vitest],
      ],
      { ...process.env, PATH },
    );
  } finally {
    // The mounts lived in the namespace only; their empty mount point is left in the host's view.
    rmdirSync(mountPoint);
    rmdirSync(parent);
  }
}
