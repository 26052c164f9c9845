// Node: `run`'s option values turned into the run's input: each checked here, so a bad one is a usage error before
// anything starts (fixed choices are checked by the option table).
import { parseDuration } from './duration.js';
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { PROVIDER_NAMES } from '../config.js';
import { commaList } from '../core/comma-list.js';
import { envPassRefusal } from '../core/env-pass.js';
import { FINAL_RESULT_TOOL } from '../core/final-result.js';
import type { McpServers } from '../protocol/mcp.js';
import { McpConfigError, expandMcpServer, referencedVariables } from '../core/mcp-servers.js';
import type { AgentInput, AskPolicy } from '../core/state.js';
import type { AgentMode } from '../protocol/agent-mode.js';
import { readMcpConfigFile } from '../mcp-config/config-file.js';
import type { ModelSelection, ToolChoice } from '../protocol/model.js';
import { UsageError } from './exit-codes.js';
import type { SubAgentLimits } from '../protocol/sub-agents.js';
import { DEFAULT_SUB_AGENT_LIMITS } from '../core/sub-agents/limits.js';

/**
 * The workspace as an absolute real path. When the run's tools are pinned to another host's worker (a cluster and a
 * tool queue), the directory may exist only there: an absolute path is then passed on as it is, and that worker checks it.
 */
export function resolveWorkspace(path: string, remoteTools: boolean): string {
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

export function parsePositiveInt(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`${flag} must be a positive integer, got "${text}"`);
  return value;
}

/** `--budget-usd`, `--max-tokens` and `--on-budget` (its choices checked by the option table). */
export function parseBudget(
  usd: string | undefined,
  tokens: string | undefined,
  onBudget: string | undefined,
): Pick<AgentInput, 'budgetUsd' | 'maxTokens' | 'onBudget'> {
  const budgetUsd = usd === undefined ? undefined : Number(usd);
  if (budgetUsd !== undefined && !(Number.isFinite(budgetUsd) && budgetUsd > 0))
    throw new UsageError(`--budget-usd must be a positive number, got "${usd}"`);
  const maxTokens = tokens === undefined ? undefined : parsePositiveInt(tokens, '--max-tokens');
  return {
    ...(budgetUsd !== undefined ? { budgetUsd } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(onBudget ? { onBudget: onBudget as NonNullable<AgentInput['onBudget']> } : {}),
  };
}

/** `--mode` (its choices checked by the option table): `read-only` is the input's `read_only`. */
export function parseMode(text: string): AgentMode {
  return text === 'default' ? 'default' : 'read_only';
}

/**
 * The tools a run started here can call: the built-ins its mode shows, and the final tool of a structured run. Function
 * tools are registered on workers, which this command does not see.
 */
export async function callableTools(mode: AgentMode, structured: boolean): Promise<string[]> {
  // The tool contracts load only for a run that names a tool (--tool-choice).
  const { createTaskRegistry } = await import('../tools/task-registry.js');
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

/** `--ask` (its choices checked by the option table), else prompt on a TTY, wait detached, deny otherwise. */
export function parseAsk(text: string | undefined, detach: boolean): AskPolicy {
  if (text === undefined) return process.stdin.isTTY && !detach ? 'prompt' : detach ? 'wait' : 'deny';
  return text as AskPolicy;
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

/** `--idle D`: how long a session waits for its next request (at least a second; a timer needs one). */
export function parseIdle(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms < 1000)
    throw new UsageError(`--idle takes a duration like 45s, 30m, 12h or 7d, got "${text}"`);
  return ms;
}

/** The task's first line, for the run's summary in the Web UI. */
export function firstLine(text: string): string {
  const line = text.split('\n')[0]!.trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** `--env-pass NAME` (repeatable, or comma-separated): names only, checked here so a refused one fails at once. */
export function parseEnvPass(values: readonly string[]): string[] {
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
export function readRunMcpServers(file: string, embedded: boolean): McpServers {
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
export function setVariablesOf(servers: McpServers | undefined): string[] {
  return Object.values(servers ?? {})
    .flatMap(referencedVariables)
    .filter((name) => process.env[name] !== undefined);
}

/**
 * The embedded worker is started with a defined environment, so the variables a run names must be handed to it from
 * this shell (a worker started without them is replaced; runs survive that). A remote worker uses its own. `required`
 * are the `--env-pass` names, which must be set; the others (an MCP server's variables) may fall back to defaults.
 */
export function embeddedWorkerOffer(names: readonly string[], required: readonly string[]): readonly string[] {
  for (const name of required) {
    if (process.env[name] === undefined) {
      throw new UsageError(`--env-pass: ${name} is not set in this shell, and the embedded worker takes it from here.`);
    }
  }
  return names;
}

/** `--sub-agents`, `--sub-agent-steps`, `--sub-agent-timeout`, `--max-sub-agents`: undefined with `--sub-agents 0`. */
export function parseSubAgents(values: {
  'sub-agents'?: string | undefined;
  'sub-agent-steps'?: string | undefined;
  'sub-agent-timeout'?: string | undefined;
  'max-sub-agents'?: string | undefined;
}): SubAgentLimits | undefined {
  const depth = values['sub-agents'];
  if (depth !== undefined && !/^\d+$/.test(depth))
    throw new UsageError(`--sub-agents must be a number of levels (0: no Task tool), got "${depth}"`);
  if (depth === '0') return undefined;
  const timeout = values['sub-agent-timeout'];
  const timeoutMs = timeout === undefined ? undefined : parseDuration(timeout);
  if (timeout !== undefined && (timeoutMs === undefined || timeoutMs < 1000))
    throw new UsageError(`--sub-agent-timeout takes a duration like 90s, 30m or 2h, got "${timeout}"`);
  return {
    maxDepth: depth === undefined ? DEFAULT_SUB_AGENT_LIMITS.maxDepth : Number(depth),
    maxChildren:
      values['max-sub-agents'] === undefined
        ? DEFAULT_SUB_AGENT_LIMITS.maxChildren
        : parsePositiveInt(values['max-sub-agents'], '--max-sub-agents'),
    maxSteps:
      values['sub-agent-steps'] === undefined
        ? DEFAULT_SUB_AGENT_LIMITS.maxSteps
        : parsePositiveInt(values['sub-agent-steps'], '--sub-agent-steps'),
    timeoutMs: timeoutMs ?? DEFAULT_SUB_AGENT_LIMITS.timeoutMs,
  };
}
