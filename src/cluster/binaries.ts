// The cluster's programs, built from their Go modules and kept in the cache like the dev-server binary: the Temporal
// server, its SQL schema tool, the Web UI server and the NATS server that carries live model output. No `replace` directives stand in the way of `go install`, so each
// builds from the Go module proxy (or GOMODCACHE, or a GOPROXY mirror) with nothing but a Go toolchain.
import fs from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { findOnPath, isExecutableFile } from '../host/executables.js';
import { cacheDir } from '../host/state-dir.js';
import { askVersion } from '../host/temporal-binary.js';
import type { DirectoryEnvironment } from '../host/state-dir.js';
import { ClusterError } from './errors.js';
import { NATS_SERVER_VERSION, TEMPORAL_SERVER_VERSION, TEMPORAL_UI_VERSION } from './topology.js';

/** One program of the cluster. */
export interface ClusterProgram {
  /** What messages call it. */
  label: string;
  /** The package `go install` builds, with its version. */
  goPackage: string;
  /** The name `go install` gives the binary (the package's last path element). */
  builtName: string;
  /** The file name in `<cache>/bin`: the version is part of it, so another version is never mistaken for this one. */
  cachedName: string;
  /** The first line `--version` prints. */
  versionLine: string;
  /** An environment variable naming a binary to use instead. */
  override: string;
}

/** The Temporal server, all roles in one process. */
export const TEMPORAL_SERVER: ClusterProgram = {
  label: 'Temporal server',
  goPackage: `go.temporal.io/server/cmd/server@v${TEMPORAL_SERVER_VERSION}`,
  builtName: 'server',
  cachedName: `temporal-server-${TEMPORAL_SERVER_VERSION}`,
  versionLine: `temporal version ${TEMPORAL_SERVER_VERSION}`,
  override: 'TEMPORAL_SERVER_PATH',
};

/** The schema tool that creates and migrates the server's databases (`temporal-sql-tool`). */
export const TEMPORAL_SQL_TOOL: ClusterProgram = {
  label: 'Temporal SQL schema tool',
  goPackage: `go.temporal.io/server/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`,
  builtName: 'sql',
  cachedName: `temporal-sql-tool-${TEMPORAL_SERVER_VERSION}`,
  versionLine: `temporal-sql-tool version ${TEMPORAL_SERVER_VERSION}`,
  override: 'TEMPORAL_SQL_TOOL_PATH',
};

/** The Web UI server; its module carries the built UI, so no JavaScript build is needed. */
export const TEMPORAL_UI_SERVER: ClusterProgram = {
  label: 'Temporal Web UI server',
  goPackage: `github.com/temporalio/ui-server/v2/cmd/server@v${TEMPORAL_UI_VERSION}`,
  builtName: 'server',
  cachedName: `temporal-ui-server-${TEMPORAL_UI_VERSION}`,
  versionLine: `Temporal UI version ${TEMPORAL_UI_VERSION}`,
  override: 'TEMPORAL_UI_SERVER_PATH',
};

/** The NATS server with JetStream: the live output of model calls, from workers on any host to any CLI. */
export const NATS_SERVER: ClusterProgram = {
  label: 'NATS server',
  goPackage: `github.com/nats-io/nats-server/v2@v${NATS_SERVER_VERSION}`,
  builtName: 'nats-server',
  cachedName: `nats-server-${NATS_SERVER_VERSION}`,
  versionLine: `nats-server: v${NATS_SERVER_VERSION}`,
  override: 'NATS_SERVER_PATH',
};

const BUILD_TIMEOUT_MS = 30 * 60_000;
const PROGRESS_INTERVAL_MS = 30_000;

/** Where a built program is kept. */
export function cachedProgramPath(program: ClusterProgram, env: DirectoryEnvironment = process.env): string {
  return path.join(cacheDir(env), 'bin', program.cachedName);
}

/**
 * The program's binary: the override variable's, else the cached one, else one built with `go install` into the cache.
 * A build happens once per version and machine (the server: about 10 minutes on a cold Go cache).
 */
export async function findClusterProgram(
  program: ClusterProgram,
  options: { env?: DirectoryEnvironment; log?: (line: string) => void } = {},
): Promise<string> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => undefined);
  const explicit = env[program.override];
  if (explicit) {
    const file = path.resolve(explicit);
    const problem = await versionProblem(program, file, env);
    if (problem) throw new ClusterError(`${program.override}=${explicit} is not the ${program.label} (${problem}).`);
    return file;
  }
  const cached = cachedProgramPath(program, env);
  if ((await isExecutableFile(cached)) && !(await versionProblem(program, cached, env))) return cached;
  await buildIntoCache(program, cached, env, log);
  return cached;
}

/** Why `file` is not the program at the expected version, or undefined when it is. */
async function versionProblem(
  program: ClusterProgram,
  file: string,
  env: DirectoryEnvironment,
): Promise<string | undefined> {
  if (!(await isExecutableFile(file))) return 'no executable file there';
  const { result, firstLine } = await askVersion(file, env);
  if (firstLine === program.versionLine) return undefined;
  return `--version says ${JSON.stringify(firstLine || result.stderr.trim() || result.message)}, expected ${JSON.stringify(program.versionLine)}`;
}

async function buildIntoCache(
  program: ClusterProgram,
  target: string,
  env: DirectoryEnvironment,
  log: (line: string) => void,
): Promise<void> {
  const go = await findOnPath('go', env);
  if (!go) {
    throw new ClusterError(
      `No ${program.label} cached at ${target} and no \`go\` on PATH to build it: install Go (https://go.dev/dl/) ` +
        `or set ${program.override} to a build of ${program.goPackage}.`,
    );
  }
  const workDir = path.dirname(target);
  await fs.mkdir(workDir, { recursive: true });
  // A private GOBIN renamed into place at the end: an interrupted build never leaves half a binary in the cache. The
  // working directory is outside any module, so no go.mod around the caller influences the build.
  const staging = await fs.mkdtemp(path.join(workDir, '.go-build-'));
  const started = Date.now();
  log(`Building the ${program.label} (go install ${program.goPackage}; once, cached in ${workDir})…`);
  const progress = setInterval(
    () => log(`go install ${program.goPackage}: still running (${Math.round((Date.now() - started) / 1000)}s)…`),
    PROGRESS_INTERVAL_MS,
  );
  try {
    const build = await execa(go, ['install', program.goPackage], {
      env: { ...env, CGO_ENABLED: '0', GOTOOLCHAIN: 'local', GOBIN: staging },
      extendEnv: false,
      cwd: workDir,
      all: true,
      reject: false,
      timeout: BUILD_TIMEOUT_MS,
      stdin: 'ignore',
    });
    if (build.failed) {
      const tail = (build.all ?? '').split('\n').slice(-15).join('\n');
      throw new ClusterError(
        `go install ${program.goPackage} failed (${build.timedOut ? 'timed out' : `exit ${build.exitCode}`}); ` +
          `it needs Go and the modules from GOPROXY, GOMODCACHE or a mirror.\n${tail}`,
      );
    }
    const built = path.join(staging, program.builtName);
    const problem = await versionProblem(program, built, env);
    if (problem) throw new ClusterError(`The built ${program.label} does not work: ${problem}.`);
    await fs.rename(built, target);
    log(`Built the ${program.label} in ${Math.round((Date.now() - started) / 1000)}s: ${target}`);
  } finally {
    clearInterval(progress);
    await fs.rm(staging, { recursive: true, force: true });
  }
}
