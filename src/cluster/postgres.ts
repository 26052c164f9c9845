// The cluster's own PostgreSQL instance: the installed PostgreSQL's programs, a data directory and a port of its own
// under the cluster's state directory, never the system's instance. PostgreSQL refuses to run as root; as root it runs
// in a user namespace of its own (`unshare --user`), where it is an unprivileged user without capabilities and the data
// directory, private to root like the rest of root's state, stays where it is.
import fs from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { findOnPath, isExecutableFile } from '../host/executables.js';
import type { DirectoryEnvironment } from '../host/state-dir.js';
import { ClusterError } from './errors.js';

/** The installed PostgreSQL: its programs' directory and its version line (`postgres (PostgreSQL) 15.18 …`). */
export interface PostgresInstallation {
  binDir: string;
  version: string;
}

const PACKAGE_ADVICE =
  'install PostgreSQL (Debian/Ubuntu: `apt-get install postgresql`; macOS: `brew install postgresql`) or set POSTGRES_BIN_DIR to the directory of its initdb and postgres';

/** Finds initdb and postgres: POSTGRES_BIN_DIR, `pg_config --bindir`, the newest /usr/lib/postgresql/N/bin, PATH. */
export async function findPostgres(env: DirectoryEnvironment = process.env): Promise<PostgresInstallation> {
  const candidates: string[] = [];
  if (env.POSTGRES_BIN_DIR) candidates.push(path.resolve(env.POSTGRES_BIN_DIR));
  const pgConfig = await findOnPath('pg_config', env);
  if (pgConfig) {
    const result = await execa(pgConfig, ['--bindir'], { reject: false, stdin: 'ignore' });
    if (!result.failed) candidates.push(result.stdout.trim());
  }
  // Debian keeps the server programs off PATH, one directory per major version.
  const debianVersions = await fs.readdir('/usr/lib/postgresql').catch(() => [] as string[]);
  for (const major of debianVersions.sort((a, b) => Number(b) - Number(a)))
    candidates.push(path.join('/usr/lib/postgresql', major, 'bin'));
  const initdbOnPath = await findOnPath('initdb', env);
  if (initdbOnPath) candidates.push(path.dirname(initdbOnPath));

  for (const binDir of candidates) {
    if (!(await isExecutableFile(path.join(binDir, 'initdb')))) continue;
    const postgres = path.join(binDir, 'postgres');
    const version = await execa(postgres, ['--version'], { reject: false, stdin: 'ignore' });
    if (!version.failed) return { binDir, version: version.stdout.trim() };
  }
  if (env.POSTGRES_BIN_DIR)
    throw new ClusterError(`POSTGRES_BIN_DIR=${env.POSTGRES_BIN_DIR} has no working initdb and postgres.`);
  throw new ClusterError(`No PostgreSQL server programs found: ${PACKAGE_ADVICE}.`);
}

/** `command` as it must run: as root, inside a user namespace in which it is not root. */
export function asUnprivileged(command: string[]): string[] {
  return process.getuid?.() === 0 ? ['unshare', '--user', ...command] : command;
}

/** Creates the data directory with one password-protected superuser unless it exists; true when it created it. */
export async function initPostgres(options: {
  installation: PostgresInstallation;
  dataDir: string;
  user: string;
  password: string;
  logFile: string;
}): Promise<boolean> {
  if (await exists(path.join(options.dataDir, 'PG_VERSION'))) return false;
  await fs.mkdir(path.dirname(options.dataDir), { recursive: true, mode: 0o700 });
  const passwordFile = `${options.dataDir}.password`;
  await fs.writeFile(passwordFile, `${options.password}\n`, { mode: 0o600 });
  const [file, ...args] = asUnprivileged([
    path.join(options.installation.binDir, 'initdb'),
    '--pgdata',
    options.dataDir,
    '--username',
    options.user,
    '--pwfile',
    passwordFile,
    '--auth',
    'scram-sha-256',
    '--encoding',
    'UTF8',
    '--locale',
    'C',
  ]);
  try {
    const result = await execa(file!, args, { reject: false, all: true, stdin: 'ignore' });
    await fs.appendFile(options.logFile, `${result.all ?? ''}\n`);
    if (result.failed) {
      await fs.rm(options.dataDir, { recursive: true, force: true });
      throw new ClusterError(`initdb failed (exit ${result.exitCode}); see ${options.logFile}:\n${result.all ?? ''}`);
    }
  } finally {
    await fs.rm(passwordFile, { force: true });
  }
  return true;
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

/** The argv of the PostgreSQL server: loopback TCP only, no Unix socket (nothing else on the machine is disturbed). */
export function postgresCommand(installation: PostgresInstallation, dataDir: string, port: number): string[] {
  return asUnprivileged([
    path.join(installation.binDir, 'postgres'),
    '-D',
    dataDir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
    // Each of the server's four roles keeps a pool per store (20 + 2 connections).
    '-c',
    'max_connections=200',
  ]);
}
