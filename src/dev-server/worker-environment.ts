// What the embedded server's background worker and codec endpoint get from the environment of the CLI that starts
// them: a defined set, never the caller's whole environment. They outlive that CLI and serve every later one, and a
// command the worker runs can read its parent's environment (/proc/$PPID/environ), so a secret that happens to be in
// one user's shell (PGPASSWORD, GITHUB_PAT) must not ride along. The digest of the settings in that set decides when a
// running process is replaced (connect) and whether `status` may query the worker (http-api).
import { commaList } from '../core/comma-list.js';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { MCP_CONFIG_VARIABLE, variablesIn } from '../core/mcp-variables.js';
import { isAllowlisted, operatorPassedNames } from '../activities/executors/command-environment.js';

/** An environment as the CLI receives it. */
type Environment = Readonly<Record<string, string | undefined>>;

// The worker's settings without the DURABLE_AGENT_ prefix. NODE_EXTRA_CA_CERTS (a file path) lets it reach a model
// endpoint behind a private CA. NODE_OPTIONS is left out on purpose: it would carry the caller's --inspect (a debugger
// port on a long-lived process) or --require into the worker; name it in DURABLE_AGENT_ENV_PASS to pass it.
const WORKER_SETTINGS: ReadonlySet<string> = new Set([
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'TEMPORAL_NAMESPACE',
  'AGENT_MAX_TOOL_RESULT_BYTES',
  'NODE_EXTRA_CA_CERTS',
]);

// Every DURABLE_AGENT_* variable reaches the worker, so a setting added later needs no change here.
const OWN_SETTING = /^DURABLE_AGENT_/;

// Where the worker's traces and metrics go (docs/observability.md): set on the CLI's command line, they reach the
// worker it starts. OTEL_EXPORTER_OTLP_HEADERS may hold a collector's key: like the model keys, the worker needs it.
const TELEMETRY_SETTING = /^OTEL_/;

// Passed like every DURABLE_AGENT_* variable but read by the CLI only (the state directory is set to the resolved one):
// left out of the digest, so shells that differ only there share one worker.
const CLI_ONLY_SETTING = /^DURABLE_AGENT_(STATE_DIR|CACHE_DIR|DEV_\w+|PRICES)$/;

// The S3 store's credential chain reads AWS_* (keys, session token, profile, region, …); they go only to processes
// whose store is a bucket.
const AWS_SETTING = /^AWS_/;

function storeIsS3(env: Environment): boolean {
  return (env.DURABLE_AGENT_STORE ?? '').trim().startsWith('s3://');
}

/** The variables of `env` that pass `keep`, without unset ones. */
function pick(env: Environment, keep: (name: string) => boolean): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && keep(name)) picked[name] = value;
  return picked;
}

/**
 * Variables a run started from this shell named with `--env-pass`: the embedded worker holds them so that run's
 * commands can have them; other runs' commands do not get them.
 */
export const ENV_OFFER_VARIABLE = 'DURABLE_AGENT_ENV_OFFER';

/**
 * What the worker reads: its settings, the store's AWS_* when it is S3, the names DURABLE_AGENT_ENV_PASS adds, and the
 * variables its MCP servers file (DURABLE_AGENT_MCP_CONFIG) refers to as `${VAR}`.
 */
function workerSettings(env: Environment): Record<string, string> {
  const passed = operatorPassedNames(env);
  for (const name of commaList(env[ENV_OFFER_VARIABLE])) passed.add(name);
  for (const name of mcpConfigOf(env).variables) passed.add(name);
  const s3 = storeIsS3(env);
  return pick(
    env,
    (name) =>
      WORKER_SETTINGS.has(name) ||
      (OWN_SETTING.test(name) && !CLI_ONLY_SETTING.test(name)) ||
      TELEMETRY_SETTING.test(name) ||
      (s3 && AWS_SETTING.test(name)) ||
      // The worker hands these on to commands, so it has to have them.
      passed.has(name),
  );
}

/** What the codec endpoint reads: the content store's settings. */
function codecSettings(env: Environment): Record<string, string> {
  const s3 = storeIsS3(env);
  return pick(env, (name) => /^DURABLE_AGENT_(STORE|S3_)/.test(name) || (s3 && AWS_SETTING.test(name)));
}

/** What any program needs to run: the commands' allowlist plus HOME (commands get a home in the workspace instead). */
function runtime(name: string): boolean {
  return isAllowlisted(name) || name === 'HOME' || OWN_SETTING.test(name);
}

/** The background worker's whole environment: what any program needs to run, every DURABLE_AGENT_* and its settings. */
export function workerEnvironment(env: Environment): Record<string, string> {
  return { ...pick(env, runtime), ...workerSettings(env) };
}

/** The codec endpoint's whole environment: what any program needs to run, every DURABLE_AGENT_* and the store's. */
export function codecEnvironment(env: Environment): Record<string, string> {
  return { ...pick(env, runtime), ...codecSettings(env) };
}

/**
 * A digest (never the values: they include keys, and it is kept in a state file) of what the worker reads, the content
 * of its MCP servers file included: an edited file replaces the running worker.
 */
export function workerConfiguration(env: Environment): string {
  const mcp = mcpConfigOf(env).digest;
  return digest({ ...workerSettings(env), ...(mcp ? { [`${MCP_CONFIG_VARIABLE} content`]: mcp } : {}) });
}

/**
 * The worker's MCP servers file: the variables its values refer to and a digest of its content. The worker validates
 * the file when it starts and names any problem there; a file that cannot be read adds nothing here.
 */
function mcpConfigOf(env: Environment): { variables: string[]; digest?: string } {
  const file = env[MCP_CONFIG_VARIABLE]?.trim();
  if (!file) return { variables: [] };
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch {
    return { variables: [] };
  }
  let servers: unknown;
  try {
    servers = (JSON.parse(content) as { mcpServers?: unknown }).mcpServers;
  } catch {
    servers = undefined;
  }
  return { variables: variablesIn(stringsIn(servers)), digest: createHash('sha256').update(content).digest('hex') };
}

/** Every string inside a JSON value. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

/** A digest (never the values: they include credentials) of the store settings the codec endpoint reads. */
export function codecConfiguration(env: Environment): string {
  return digest(codecSettings(env));
}

function digest(settings: Record<string, string>): string {
  const lines = Object.keys(settings)
    .sort()
    .map((name) => `${name}=${settings[name]}`);
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

/** `env` with `names` added to the variables offered to the embedded worker (DURABLE_AGENT_ENV_OFFER). */
export function withEnvOffer(env: NodeJS.ProcessEnv, names: readonly string[]): NodeJS.ProcessEnv {
  if (names.length === 0) return env;
  const offered = commaList(env[ENV_OFFER_VARIABLE]);
  return { ...env, [ENV_OFFER_VARIABLE]: [...new Set([...offered, ...names])].join(',') };
}
