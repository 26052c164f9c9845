import { randomBytes } from 'node:crypto';
import { commaList } from '../../core/comma-list.js';
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../../config.js';
import { PROVIDER_NAMES, hostToolQueue } from '../../config.js';
import { FINAL_RESULT_TOOL } from '../../core/final-result.js';
import type { ModelSelection, ToolChoice, ToolProtocol } from '../../protocol/model.js';
import { createTaskRegistry } from '../../tools/task-registry.js';
import { readOutputSchema } from '../output-schema-file.js';
import type { AgentInput, AgentMode, AskPolicy } from '../../core/state.js';
import type { ResolvedProfile } from '../../core/tool-selection/profiles.js';
import { AUTO_PROFILE, PROFILE_NAMES, isProfileName, resolveProfile } from '../../core/tool-selection/profiles.js';
import { startScriptedModelServer } from '../../scripted-model/server.js';
import type { agentWorkflow } from '../../workflows/agent.js';
import { connect, runUrl } from '../connect.js';
import type { Connected } from '../connect.js';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { envPassRefusal } from '../../core/env-pass.js';
import type { McpServers } from '../../core/mcp-servers.js';
import { McpConfigError, expandMcpServer, referencedVariables } from '../../core/mcp-servers.js';
import { readMcpConfigFile } from '../../mcp-config/config-file.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { ENV_OFFER_VARIABLE } from '../../dev-server/worker-environment.js';
import { onlyModelOf } from '../endpoint-models.js';
import { DetachedError, followRun } from '../follow.js';
import type { OperatorSigner } from '../operator-signing.js';
import { operatorSigner } from '../operator-signing.js';
import { loadPriceTable, PRICES_ENV_VARIABLE } from '../load-prices.js';
import { visibleText } from '../../core/terminal-text.js';
import { color, log, outJson, printRunEnd } from '../output.js';

const options = {
  cwd: { type: 'string' },
  model: { type: 'string' },
  'fallback-model': { type: 'string', multiple: true },
  provider: { type: 'string' },
  'base-url': { type: 'string' },
  'tool-protocol': { type: 'string' },
  'env-pass': { type: 'string', multiple: true },
  script: { type: 'string' },
  'max-steps': { type: 'string' },
  'tool-queue': { type: 'string' },
  'budget-usd': { type: 'string' },
  'max-tokens': { type: 'string' },
  'on-budget': { type: 'string' },
  mode: { type: 'string' },
  profile: { type: 'string' },
  'max-tools': { type: 'string' },
  ask: { type: 'string' },
  'tool-choice': { type: 'string' },
  'output-schema': { type: 'string' },
  'mcp-config': { type: 'string' },
  json: { type: 'boolean', default: false },
  detach: { type: 'boolean', default: false },
} as const;

/** `start`: `run --detach`. */
export async function startCommand(argv: string[], config: Config): Promise<number> {
  return await runCommand(argv, config, true);
}

/** `run` (and `start`, with `forceDetach`). */
export async function runCommand(argv: string[], config: Config, forceDetach = false): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true });
  const task = positionals.join(' ').trim();
  if (!task) throw new UsageError('A task is required: durable-agent run "<task>"');
  const detach = forceDetach || values.detach;
  const remoteTools = Boolean(config.temporalAddress && (values['tool-queue'] ?? config.toolTaskQueue));
  const workspace = resolveWorkspace(values.cwd ?? process.cwd(), remoteTools);
  const maxSteps = parsePositiveInt(values['max-steps'] ?? '50', '--max-steps');
  const profile = parseProfile(values.profile, task);
  // A profile brings its mode (read-only runs read_only); --mode, when given, decides.
  const mode = values.mode !== undefined ? parseMode(values.mode) : (profile?.profile.mode ?? 'default');
  const maxTools = values['max-tools'] === undefined ? undefined : parsePositiveInt(values['max-tools'], '--max-tools');
  const askPolicy = parseAsk(values.ask, detach);
  const outputSchema = values['output-schema'] ? await readOutputSchema(values['output-schema']) : undefined;
  const toolChoice =
    values['tool-choice'] === undefined
      ? undefined
      : parseToolChoice(values['tool-choice'], callableTools(mode, outputSchema !== undefined));
  // `--script` serves its turns in whichever API the run's provider speaks (the scripted server has them all).
  const provider = values.provider ?? (values.script ? 'scripted' : config.provider);
  if (provider !== undefined && !(PROVIDER_NAMES as readonly string[]).includes(provider))
    throw new UsageError(`--provider must be one of ${PROVIDER_NAMES.join(', ')}, got "${provider}"`);
  if (provider === 'scripted' && !values.script && !values['base-url'] && !config.baseUrl)
    throw new UsageError('--provider scripted needs --script FILE (or --base-url of a running scripted server)');
  if (values.script && detach)
    throw new UsageError('--script is served by this command, so it cannot --detach; run it attached');
  const toolProtocol = parseToolProtocol(values['tool-protocol']);

  const scripted = values.script ? await startScriptedModelServer({ script: resolve(values.script) }) : undefined;
  const model =
    values.model ?? (scripted ? 'scripted' : await modelOfBaseUrl(values['base-url'], provider, config.model));
  const selection: ModelSelection = {
    ...(provider ? { provider } : {}),
    ...(model ? { model } : {}),
    ...((scripted?.url ?? values['base-url']) ? { baseUrl: scripted?.url ?? values['base-url'] } : {}),
    ...(toolProtocol ? { toolProtocol } : {}),
  };
  const envPass = parseEnvPass(values['env-pass'] ?? []);
  const budget = parseBudget(values['budget-usd'], values['max-tokens'], values['on-budget']);
  // A price file is read here and recorded in the run's input, so the workflow prices calls deterministically.
  const prices = process.env[PRICES_ENV_VARIABLE] ? await loadPriceTable() : undefined;
  const mcpServers = values['mcp-config']
    ? readRunMcpServers(values['mcp-config'], !config.temporalAddress)
    : undefined;
  if (!config.temporalAddress) offerToEmbeddedWorker([...envPass, ...setVariablesOf(mcpServers)], envPass);
  const connected = await connect(config, { needWorker: true });
  // The embedded worker runs on this host, so the workspace is its; on a cluster, pin only when asked to.
  const toolTaskQueue =
    values['tool-queue'] ??
    config.toolTaskQueue ??
    (connected.embedded ? hostToolQueue(connected.taskQueue) : undefined);
  const input: AgentInput = {
    task,
    workspace,
    selection,
    maxSteps,
    mode,
    askPolicy,
    ...(envPass.length > 0 ? { envPass } : {}),
    ...(values.profile !== undefined ? { profile: values.profile } : {}),
    ...(maxTools !== undefined ? { maxTools } : {}),
    ...(toolChoice ? { toolChoice } : {}),
    ...(outputSchema ? { outputSchema } : {}),
    searchAttributes: await connected.hasSearchAttributes(),
    ...(values['fallback-model']?.length ? { fallbackSelections: values['fallback-model'].map(parseFallback) } : {}),
    ...(toolTaskQueue ? { toolTaskQueue } : {}),
    ...(mcpServers ? { mcpServers } : {}),
    ...budget,
    ...(prices ? { prices } : {}),
  };
  try {
    const workflowId = `agent-${slugify(task)}-${randomBytes(4).toString('hex')}`;
    const signer = operatorSigner(connected);
    // Started by type name: the CLI never loads workflow code. Signed last, just before the start.
    const handle = await connected.client.workflow.start<typeof agentWorkflow>('agentWorkflow', {
      workflowId,
      taskQueue: connected.taskQueue,
      args: [signer ? signer.run(workflowId, input) : input],
      memo: { task, cwd: workspace },
      staticSummary: firstLine(task),
      staticDetails: `model: ${selection.model ?? 'worker default'} · workspace: ${workspace} · mode: ${mode}`,
    });
    const runId = handle.firstExecutionRunId;
    const link = runUrl(connected, workflowId, runId);
    log(`${color.bold('run')} ${workflowId}${link ? `  ${color.dim(link)}` : ''}`);
    if (profile) log(`${color.bold('profile')} ${profile.profile.name}  ${color.dim(visibleText(profile.reason))}`);
    return await followStarted(connected, handle, {
      link,
      json: values.json,
      detach,
      prompt: askPolicy === 'prompt' && Boolean(process.stdin.isTTY),
      ...(signer ? { signer } : {}),
    });
  } finally {
    await connected.close();
    await scripted?.close();
  }
}

/**
 * After a run started: detached, its ids; otherwise follows it to its end (Ctrl-C detaches) and prints how it ended,
 * the exit code saying how (`run` and `fork`).
 */
export async function followStarted(
  connected: Connected,
  handle: WorkflowHandleWithFirstExecutionRunId<typeof agentWorkflow>,
  options: { link: string | undefined; json: boolean; detach: boolean; prompt: boolean; signer?: OperatorSigner },
): Promise<number> {
  const { workflowId } = handle;
  const runId = handle.firstExecutionRunId;
  if (options.detach) {
    if (options.json) outJson({ workflowId, runId, status: 'running' });
    else log(`detached; follow it with: durable-agent watch ${workflowId}`);
    return EXIT.detached;
  }
  const abort = new AbortController();
  const onInterrupt = (): void => abort.abort();
  process.once('SIGINT', onInterrupt);
  connected.keepWorkerAlive();
  try {
    const { result, exitCode } = await followRun(handle, {
      signal: abort.signal,
      prompt: options.prompt,
      ...(options.signer ? { signer: options.signer } : {}),
    });
    if (options.json) {
      const { status, answer, steps, toolCalls, usage } = result;
      const structured = result.result !== undefined ? { result: result.result } : {};
      const error = result.error ? { error: result.error } : {};
      outJson({ workflowId, runId, status, answer, ...structured, steps, toolCalls, usage, ...error });
    } else {
      printRunEnd(result, options.link);
    }
    return exitCode;
  } catch (error) {
    if (!(error instanceof DetachedError)) throw error;
    log(`\ndetached; the run goes on. Follow it with: durable-agent watch ${workflowId}`);
    return EXIT.detached;
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

/**
 * The model of a run given --base-url but no --model: DURABLE_AGENT_MODEL, else the one model the endpoint serves (the
 * worker's default names a model of the worker's own endpoint). The scripted provider keeps the worker's default.
 */
export async function modelOfBaseUrl(
  baseUrl: string | undefined,
  provider: string | undefined,
  configured: string | undefined,
): Promise<string | undefined> {
  if (baseUrl === undefined || provider === 'scripted') return undefined;
  if (configured) return configured;
  const model = await onlyModelOf(baseUrl);
  // The name is the endpoint's own text.
  log(`${color.bold('model')} ${visibleText(model)}  ${color.dim(`the one model ${visibleText(baseUrl)} serves`)}`);
  return model;
}

/**
 * The workspace as an absolute real path. When the run's tools are pinned to another host's worker (a cluster and a
 * tool queue), the directory may exist only there: an absolute path is then passed on as it is, and that worker checks it.
 */
function resolveWorkspace(path: string, remoteTools: boolean): string {
  const absolute = resolve(path);
  let stats;
  try {
    stats = statSync(absolute);
  } catch {
    if (remoteTools && isAbsolute(path)) return absolute;
    throw new UsageError(`--cwd ${path}: no such directory`);
  }
  if (!stats.isDirectory()) throw new UsageError(`--cwd ${path}: not a directory`);
  return realpathSync(absolute);
}

function parsePositiveInt(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`${flag} must be a positive integer, got "${text}"`);
  return value;
}

function parseBudget(
  usd: string | undefined,
  tokens: string | undefined,
  onBudget: string | undefined,
): Pick<AgentInput, 'budgetUsd' | 'maxTokens' | 'onBudget'> {
  const budgetUsd = usd === undefined ? undefined : Number(usd);
  if (budgetUsd !== undefined && !(Number.isFinite(budgetUsd) && budgetUsd > 0))
    throw new UsageError(`--budget-usd must be a positive number, got "${usd}"`);
  const maxTokens = tokens === undefined ? undefined : parsePositiveInt(tokens, '--max-tokens');
  if (onBudget !== undefined && onBudget !== 'ask' && onBudget !== 'stop')
    throw new UsageError(`--on-budget must be ask or stop, got "${onBudget}"`);
  return {
    ...(budgetUsd !== undefined ? { budgetUsd } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(onBudget ? { onBudget } : {}),
  };
}

/** `--tool-protocol`: `native` function calling, or `react` (tools described in the prompt) for models without it. */
function parseToolProtocol(text: string | undefined): ToolProtocol | undefined {
  if (text === undefined || text === 'native' || text === 'react') return text;
  throw new UsageError(`--tool-protocol must be native or react, got "${text}"`);
}

/** `--profile NAME|auto`: the workflow resolves it the same way (the input keeps `auto`); here for its mode and the log. */
function parseProfile(text: string | undefined, task: string): ResolvedProfile | undefined {
  if (text === undefined) return undefined;
  if (text !== AUTO_PROFILE && !isProfileName(text))
    throw new UsageError(`--profile must be one of ${[...PROFILE_NAMES, AUTO_PROFILE].join(', ')}, got "${text}"`);
  return resolveProfile(text, task);
}

function parseMode(text: string): AgentMode {
  if (text === 'default') return 'default';
  if (text === 'read-only' || text === 'read_only') return 'read_only';
  throw new UsageError(`--mode must be default or read-only, got "${text}"`);
}

/**
 * The tools a run started here can call: the built-ins its mode shows, and the final tool of a structured run. Function
 * tools are registered on workers, which this command does not see.
 */
function callableTools(mode: AgentMode, structured: boolean): string[] {
  const names = createTaskRegistry()
    .visible({ mode })
    .map((tool) => tool.name);
  return structured ? [...names, FINAL_RESULT_TOOL] : names;
}

/** `--tool-choice auto|required|none|NAME`, NAME one of `callable`. */
export function parseToolChoice(text: string, callable: readonly string[]): ToolChoice {
  if (text === 'auto' || text === 'required' || text === 'none') return text;
  if (callable.includes(text)) return { name: text };
  throw new UsageError(
    `--tool-choice must be auto, required, none or a tool the run can call (${callable.join(', ')}), got "${text}"`,
  );
}

function parseAsk(text: string | undefined, detach: boolean): AskPolicy {
  if (text === undefined) return process.stdin.isTTY && !detach ? 'prompt' : detach ? 'wait' : 'deny';
  if (text === 'prompt' || text === 'wait' || text === 'deny' || text === 'approve') return text;
  throw new UsageError(`--ask must be prompt, wait, deny or approve, got "${text}"`);
}

/**
 * `--fallback-model M` or `PROVIDER:M` (`anthropic:claude-sonnet-4-5`): a prefix names a provider only when it is one,
 * so model names with a colon of their own (`llama3:8b`) stay whole.
 */
export function parseFallback(text: string): ModelSelection {
  const colon = text.indexOf(':');
  const prefix = colon > 0 ? text.slice(0, colon) : '';
  if (!(PROVIDER_NAMES as readonly string[]).includes(prefix)) return { model: text };
  const model = text.slice(colon + 1);
  if (!model) throw new UsageError(`--fallback-model ${text}: a model name is missing after "${prefix}:"`);
  return { provider: prefix, model };
}

/** Short, URL-safe words of the task for the workflow id. */
export function slugify(task: string): string {
  const slug = task
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 32)
    .replace(/-+$/, '');
  return slug || 'task';
}

function firstLine(text: string): string {
  const line = text.split('\n')[0]!.trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** `--env-pass NAME` (repeatable, or comma-separated): names only, checked here so a refused one fails at once. */
function parseEnvPass(values: readonly string[]): string[] {
  const names = [...new Set(values.flatMap(commaList))];
  for (const name of names) {
    const refusal = envPassRefusal(name);
    if (refusal) throw new UsageError(`--env-pass: ${refusal}.`);
  }
  return names;
}

/**
 * `--mcp-config FILE`: the run's MCP servers, validated here so a bad file fails at once. They go into the run's input
 * unexpanded; a `${VAR}` naming the worker's own settings or credentials is refused as `--env-pass` refuses it, and for
 * the embedded worker (which takes the variables from this shell) every `${VAR}` must be set here or have a default.
 */
function readRunMcpServers(file: string, embedded: boolean): McpServers {
  try {
    const servers = readMcpConfigFile(file);
    for (const [name, server] of Object.entries(servers)) {
      for (const variable of referencedVariables(server)) {
        const refusal = envPassRefusal(variable);
        if (refusal) throw new McpConfigError(`${file}: mcpServers.${name} uses \${${variable}}: ${refusal}`);
      }
      if (embedded) expandMcpServer(name, server, { env: process.env });
    }
    return servers;
  } catch (error) {
    if (error instanceof McpConfigError) throw new UsageError(`--mcp-config: ${error.message}`);
    throw error;
  }
}

/** The variables the servers refer to that are set in this shell (the embedded worker needs their values). */
function setVariablesOf(servers: McpServers | undefined): string[] {
  return Object.values(servers ?? {})
    .flatMap(referencedVariables)
    .filter((name) => process.env[name] !== undefined);
}

/**
 * The embedded worker is started with a defined environment, so the variables a run names must be handed to it from
 * this shell (a worker started without them is replaced; runs survive that). A remote worker uses its own. `required`
 * are the `--env-pass` names, which must be set; the others (an MCP server's variables) may fall back to defaults.
 */
function offerToEmbeddedWorker(names: readonly string[], required: readonly string[]): void {
  if (names.length === 0) return;
  for (const name of required) {
    if (process.env[name] === undefined) {
      throw new UsageError(`--env-pass: ${name} is not set in this shell, and the embedded worker takes it from here.`);
    }
  }
  const offered = commaList(process.env[ENV_OFFER_VARIABLE]);
  process.env[ENV_OFFER_VARIABLE] = [...new Set([...offered, ...names])].join(',');
}
