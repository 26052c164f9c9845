// Finds (or builds) Jaeger v2, the trace backend of `npm run observability` and of the tests that read back the spans a
// worker exports: one process that takes OTLP over gRPC and HTTP, keeps traces in memory and answers the query API.
// Jaeger ships no Debian package, and its release downloads are not reachable from every machine, so it is built from
// its Go module into the cache once. `go install …/cmd/jaeger@v1.75.0` refuses the module (its go.mod has a replace
// directive), so the build runs in a scratch module that requires Jaeger as a tool and builds that.
// A build from the module has no web UI (its assets are built with npm in Jaeger's own release process): the query API,
// which Grafana's Jaeger data source and the tests use, is all there.
import fs from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { findOnPath, isExecutableFile } from './executables.js';
import { cacheDir } from './state-dir.js';
import type { DirectoryEnvironment } from './state-dir.js';

/** The Go module version built: Jaeger's v1 tag of the release whose v2 tag is `JAEGER_RELEASE`. */
export const JAEGER_MODULE_VERSION = '1.75.0';

/** What the same release is called as a v2 binary and container image (jaegertracing/jaeger:2.12.0). */
export const JAEGER_RELEASE = '2.12.0';

/** The Go package of the all-in-one binary. */
export const JAEGER_GO_PACKAGE = 'github.com/jaegertracing/jaeger/cmd/jaeger';

/** An environment variable naming a Jaeger v2 binary to use instead of the cached build. */
export const JAEGER_PATH_VARIABLE = 'JAEGER_PATH';

/** Options of `findJaegerBinary`. */
export interface FindJaegerBinaryOptions {
  /** Build Jaeger into the cache when it is not there (default true; about 9 minutes on two cores). */
  build?: boolean;
  /** Receives progress lines (build steps, a heartbeat while the compiler is silent). */
  log?: (line: string) => void;
  /** Environment to resolve against (default `process.env`); also passed to the Go toolchain. */
  env?: DirectoryEnvironment;
}

/** No usable Jaeger binary; the message says why and what to do. */
export class JaegerBinaryError extends Error {
  override readonly name = 'JaegerBinaryError';
}

const VERSION_TIMEOUT_MS = 20_000;
const BUILD_TIMEOUT_MS = 30 * 60_000;
const PROGRESS_INTERVAL_MS = 30_000;
const OUTPUT_TAIL_LINES = 15;
// Jaeger's own release build stamps its version the same way (scripts/makefiles/BuildInfo.mk).
const VERSION_LDFLAG = `-X github.com/jaegertracing/jaeger/internal/version.latestVersion=v${JAEGER_RELEASE}`;

/** Where the build is kept: `<cacheDir>/bin/jaeger-1.75.0`. */
export function cachedJaegerBinaryPath(env: DirectoryEnvironment = process.env): string {
  return path.join(cacheDir(env), 'bin', `jaeger-${JAEGER_MODULE_VERSION}`);
}

/** The Jaeger binary: JAEGER_PATH's, else the cached build, else one built now (when `build` allows). */
export async function findJaegerBinary(options: FindJaegerBinaryOptions = {}): Promise<string> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => undefined);
  const explicit = env[JAEGER_PATH_VARIABLE];
  if (explicit) {
    // A setting that does not work is a configuration error, not a reason to use another binary.
    const file = path.resolve(explicit);
    const version = await jaegerVersion(file, env);
    if (!version.ok)
      throw new JaegerBinaryError(`${JAEGER_PATH_VARIABLE}=${explicit} is not a Jaeger v2 binary (${version.reason}).`);
    return file;
  }
  const cached = cachedJaegerBinaryPath(env);
  const found = await jaegerVersion(cached, env);
  if (found.ok && found.version === `v${JAEGER_RELEASE}`) return cached;
  if (options.build === false) {
    throw new JaegerBinaryError(
      `No Jaeger v${JAEGER_RELEASE} at ${cached} (${found.ok ? `it is ${found.version || 'unversioned'}` : found.reason}). ` +
        `Run \`npm run observability\` once to build it (about 9 minutes), or set ${JAEGER_PATH_VARIABLE} to a Jaeger v2 binary.`,
    );
  }
  await buildIntoCache(cached, env, log);
  return cached;
}

type VersionResult = { ok: true; version: string } | { ok: false; reason: string };

/** What `<file> version` says: Jaeger v2 prints `{"gitCommit":…,"gitVersion":…,"buildDate":…}` on stdout. */
async function jaegerVersion(file: string, env: DirectoryEnvironment): Promise<VersionResult> {
  if (!(await isExecutableFile(file))) return { ok: false, reason: 'no executable file there' };
  const result = await execa(file, ['version'], {
    env,
    extendEnv: false,
    reject: false,
    timeout: VERSION_TIMEOUT_MS,
    stdin: 'ignore',
  });
  try {
    const parsed = JSON.parse(result.stdout) as { gitVersion?: unknown };
    if (typeof parsed.gitVersion === 'string') return { ok: true, version: parsed.gitVersion };
  } catch {
    // Not Jaeger's answer: reported below.
  }
  const said = (result.stdout || result.stderr || result.message || '').replace(/\s+/g, ' ').trim().slice(0, 200);
  return { ok: false, reason: `\`version\` ${result.failed ? 'failed' : 'answered'}: ${said || 'no output'}` };
}

async function buildIntoCache(target: string, env: DirectoryEnvironment, log: (line: string) => void): Promise<void> {
  const go = await findOnPath('go', env);
  if (!go) {
    throw new JaegerBinaryError(
      `No Jaeger cached at ${target} and no \`go\` on PATH to build it: install Go >= 1.24 (https://go.dev/dl/) ` +
        `or set ${JAEGER_PATH_VARIABLE} to a Jaeger v2 binary.`,
    );
  }
  const binDir = path.dirname(target);
  await fs.mkdir(binDir, { recursive: true });
  // The scratch module and the binary stay in a private directory until the binary answers `version`, then the binary
  // is renamed into place: an interrupted or concurrent build never leaves half a binary where a lookup finds it.
  const staging = await fs.mkdtemp(path.join(binDir, '.jaeger-build-'));
  // GOWORK=off: no go.work of the caller's may pull the scratch module into a workspace.
  const goEnv = { ...env, CGO_ENABLED: '0', GOTOOLCHAIN: 'local', GOWORK: 'off' };
  const started = Date.now();
  log(
    `Building Jaeger v${JAEGER_RELEASE} (Go module v${JAEGER_MODULE_VERSION}); this takes about 9 minutes on two cores, ` +
      `once: the binary is cached in ${binDir}…`,
  );
  try {
    const built = path.join(staging, 'jaeger');
    const steps: [string, string[]][] = [
      ['go mod init', ['mod', 'init', 'durable-agent-jaeger-build']],
      ['go get -tool', ['get', '-tool', `${JAEGER_GO_PACKAGE}@v${JAEGER_MODULE_VERSION}`]],
      ['go build', ['build', '-ldflags', VERSION_LDFLAG, '-o', built, JAEGER_GO_PACKAGE]],
    ];
    for (const [label, args] of steps) {
      const step = await runGo(go, args, { env: goEnv, cwd: staging, label, log });
      if (!step.ok) {
        throw new JaegerBinaryError(
          `Building Jaeger failed at \`go ${args.join(' ')}\` (${step.summary}). The build needs Go >= 1.24 and ` +
            `Jaeger's modules from the Go module proxy (GOPROXY), GOMODCACHE or a mirror; or set ` +
            `${JAEGER_PATH_VARIABLE} to a Jaeger v2 binary.\n${step.tail}`,
        );
      }
    }
    const version = await jaegerVersion(built, env);
    if (!version.ok) throw new JaegerBinaryError(`The built Jaeger does not work: ${version.reason}.`);
    await fs.rename(built, target);
    log(`Built Jaeger in ${Math.round((Date.now() - started) / 1000)}s: ${target}`);
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}

interface GoStep {
  env: DirectoryEnvironment;
  cwd: string;
  label: string;
  log: (line: string) => void;
}

async function runGo(
  go: string,
  args: string[],
  step: GoStep,
): Promise<{ ok: boolean; summary: string; tail: string }> {
  const started = Date.now();
  const tail: string[] = [];
  const subprocess = execa(go, args, {
    env: step.env,
    extendEnv: false,
    cwd: step.cwd,
    all: true,
    reject: false,
    timeout: BUILD_TIMEOUT_MS,
    stdin: 'ignore',
  });
  // The compiler prints nothing for minutes; a heartbeat tells the user it is not hung.
  const progress = setInterval(
    () => step.log(`${step.label}: still running (${Math.round((Date.now() - started) / 1000)}s)…`),
    PROGRESS_INTERVAL_MS,
  );
  try {
    for await (const line of subprocess.iterable({ from: 'all' })) {
      tail.push(line);
      if (tail.length > OUTPUT_TAIL_LINES) tail.shift();
    }
    const result = await subprocess;
    const seconds = Math.round((Date.now() - started) / 1000);
    if (!result.failed) return { ok: true, summary: `${seconds}s`, tail: '' };
    const summary = result.timedOut
      ? `timed out after ${seconds}s`
      : `exit ${result.exitCode ?? '?'} after ${seconds}s`;
    return { ok: false, summary, tail: tail.map((line) => `  ${line}`).join('\n') };
  } finally {
    clearInterval(progress);
  }
}

/** The ports one Jaeger listens on, all on 127.0.0.1 unless `host` says otherwise. */
export interface JaegerPorts {
  otlpGrpc: number;
  otlpHttp: number;
  /** The query API (and, in builds that carry it, the web UI). */
  queryHttp: number;
  /** The query service's gRPC API (api_v2, api_v3): unused here, but it always listens, so it gets a port too. */
  queryGrpc: number;
}

/**
 * Jaeger's configuration (`--config file:PATH`): the all-in-one pipeline (OTLP in, batched, into memory) on the given
 * ports and nothing else. The defaults would also open the Jaeger and Zipkin receivers, sampling, health and
 * telemetry endpoints on fixed ports, and make the query service trace itself to localhost:4317.
 */
export function jaegerConfig(ports: JaegerPorts, options: { host?: string; maxTraces?: number } = {}): string {
  const host = options.host ?? '127.0.0.1';
  return `# Written by durable-agent: Jaeger v2 with in-memory storage, OTLP in, the query API out.
service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: info

extensions:
  jaeger_storage:
    backends:
      memory_store:
        memory:
          max_traces: ${options.maxTraces ?? 100_000}
  jaeger_query:
    storage:
      traces: memory_store
    enable_tracing: false
    http:
      endpoint: ${host}:${ports.queryHttp}
    grpc:
      endpoint: ${host}:${ports.queryGrpc}

receivers:
  otlp:
    protocols:
      grpc:
        endpoint: ${host}:${ports.otlpGrpc}
      http:
        endpoint: ${host}:${ports.otlpHttp}

processors:
  batch:
    timeout: 200ms

exporters:
  jaeger_storage_exporter:
    trace_storage: memory_store
`;
}
