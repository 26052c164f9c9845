// Finds (or fetches) Prometheus, the metrics backend of `npm run observability` and of the tests that read back what a
// worker's metrics endpoint serves. An installed one is used, else Debian's package is fetched with `apt-get download`
// (no root needed) and its binary kept in the cache, as for bubblewrap and ripgrep.
// The fetched binary serves the whole HTTP API; its web pages read templates and scripts from files of the Debian
// package and of the JavaScript packages it depends on, which only `apt-get install prometheus` brings.
import path from 'node:path';
import { fetchDebianBinary } from './debian-binary.js';
import { findOnPath, isExecutableFile } from './executables.js';
import { cacheDir } from './state-dir.js';
import type { DirectoryEnvironment } from './state-dir.js';
import { askVersion } from './temporal-binary.js';

/** An environment variable naming a Prometheus binary to use instead of the installed or cached one. */
export const PROMETHEUS_PATH_VARIABLE = 'PROMETHEUS_PATH';

/** Options of `findPrometheusBinary`. */
export interface FindPrometheusBinaryOptions {
  /** Fetch Debian's package into the cache when no Prometheus is installed or cached (default true). */
  fetch?: boolean;
  /** Receives progress lines. */
  log?: (line: string) => void;
  /** Environment to resolve against (default `process.env`). */
  env?: DirectoryEnvironment;
}

/** A Prometheus that answered `--version`. */
export interface PrometheusBinary {
  path: string;
  /** From the first line of `--version`, e.g. `2.42.0+ds`. */
  version: string;
}

/** No usable Prometheus; the message says why and what to do. */
export class PrometheusBinaryError extends Error {
  override readonly name = 'PrometheusBinaryError';
}

/** Where a fetched Prometheus is kept: `<cacheDir>/bin/prometheus`. */
export function cachedPrometheusBinaryPath(env: DirectoryEnvironment = process.env): string {
  return path.join(cacheDir(env), 'bin', 'prometheus');
}

/** Prometheus: PROMETHEUS_PATH's, `prometheus` on PATH, the cached one, or Debian's fetched now (when allowed). */
export async function findPrometheusBinary(options: FindPrometheusBinaryOptions = {}): Promise<PrometheusBinary> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => undefined);
  const explicit = env[PROMETHEUS_PATH_VARIABLE];
  if (explicit) {
    const file = path.resolve(explicit);
    const checked = await prometheusVersion(file, env);
    if (!checked.ok)
      throw new PrometheusBinaryError(`${PROMETHEUS_PATH_VARIABLE}=${explicit} is not Prometheus (${checked.reason}).`);
    return { path: file, version: checked.version };
  }
  for (const candidate of [await findOnPath('prometheus', env), cachedPrometheusBinaryPath(env)]) {
    if (!candidate) continue;
    const checked = await prometheusVersion(candidate, env);
    if (checked.ok) return { path: candidate, version: checked.version };
  }
  const cached = cachedPrometheusBinaryPath(env);
  const advice = `install it (apt-get install prometheus) or set ${PROMETHEUS_PATH_VARIABLE} to a Prometheus binary`;
  if (options.fetch === false) throw new PrometheusBinaryError(`No Prometheus on PATH or at ${cached}: ${advice}.`);
  log(`Prometheus is not installed: fetching Debian's package into ${path.dirname(cached)}…`);
  try {
    await fetchDebianBinary('prometheus', 'usr/bin/prometheus', cached);
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
    // `apt-get download` finds nothing before the package lists were read once.
    throw new PrometheusBinaryError(
      `Could not fetch Debian's prometheus package (${why}); run \`apt-get update\` first, or ${advice}.`,
    );
  }
  const checked = await prometheusVersion(cached, env);
  if (!checked.ok)
    throw new PrometheusBinaryError(`The fetched Prometheus does not work (${checked.reason}): ${advice}.`);
  log(`Prometheus ${checked.version} cached at ${cached}`);
  return { path: cached, version: checked.version };
}

type VersionResult = { ok: true; version: string } | { ok: false; reason: string };

/** Runs `<file> --version`: Prometheus answers `prometheus, version 2.42.0+ds (branch: …)` on its first line. */
async function prometheusVersion(file: string, env: DirectoryEnvironment): Promise<VersionResult> {
  if (!(await isExecutableFile(file))) return { ok: false, reason: 'no executable file there' };
  const { result } = await askVersion(file, env);
  // Older releases print the version on stderr.
  const firstLine = (result.stdout || result.stderr).split('\n')[0]?.trim() ?? '';
  const match = /^prometheus, version (\S+)/.exec(firstLine);
  if (match) return { ok: true, version: match[1]! };
  return { ok: false, reason: `--version said ${JSON.stringify(firstLine || result.message)}` };
}

/** What one Prometheus scrapes, and how often. */
export interface PrometheusScrape {
  /** host:port of each metrics endpoint, read at `/metrics`. */
  targets: readonly string[];
  scrapeIntervalMs: number;
  /** The `job` label of the scraped series (default `durable-agent`). */
  job?: string;
}

/** Prometheus's configuration: one job scraping `targets` every `scrapeIntervalMs`. */
export function prometheusConfig(scrape: PrometheusScrape): string {
  const interval = `${Math.max(1, Math.round(scrape.scrapeIntervalMs))}ms`;
  // JSON strings are YAML strings: the targets and job name are quoted whatever they contain.
  return `# Written by durable-agent: the worker metrics endpoints to scrape.
global:
  scrape_interval: ${interval}
  scrape_timeout: ${interval}
  evaluation_interval: ${interval}
scrape_configs:
  - job_name: ${JSON.stringify(scrape.job ?? 'durable-agent')}
    static_configs:
      - targets: [${scrape.targets.map((target) => JSON.stringify(target)).join(', ')}]
`;
}

/** Prometheus's command line: the configuration, a data directory of its own, and one listening address. */
export function prometheusArgs(options: { configFile: string; dataDir: string; listen: string }): string[] {
  return [
    `--config.file=${options.configFile}`,
    `--storage.tsdb.path=${options.dataDir}`,
    `--web.listen-address=${options.listen}`,
  ];
}
