// Node: a task started from `run`'s options and followed to its end (`run`; `start` and `demo` start it the same way).
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { Config } from '../config.js';
import { hostToolQueue } from '../config.js';
import type { AgentInput } from '../core/state.js';
import { resolveProfile } from '../core/tool-selection/profiles.js';
import { visibleText } from '../core/terminal-text.js';
import type { ModelSelection, ToolProtocol } from '../protocol/model.js';
import { startScriptedModelServer } from '../scripted-model/server.js';
import type { agentWorkflow } from '../workflows/agent.js';
import { connect, runUrl } from './connect.js';
import { modelOfBaseUrl } from './endpoint-models.js';
import { UsageError } from './exit-codes.js';
import { followStarted } from './follow.js';
import { followLiveOutput, wantsLiveOutput } from './live-output.js';
import { FIRST_REQUEST, followRequest } from './follow-request.js';
import { continueTask } from './continue-task.js';
import { DEFAULT_IDLE_MS } from '../core/run/session.js';
import { loadPriceTable, PRICES_ENV_VARIABLE } from './load-prices.js';
import { operatorSigner } from './operator-signing.js';
import { parseCommandLine } from './option-table.js';
import { runOptions } from './options/run.js';
import { readOutputSchema } from './output-schema-file.js';
import { color, log } from './output.js';
import {
  callableTools,
  embeddedWorkerOffer,
  firstLine,
  parseAsk,
  parseBudget,
  parseSubAgents,
  parseEnvPass,
  parseFallback,
  parseMode,
  parseIdle,
  parsePositiveInt,
  parseToolChoice,
  readRunMcpServers,
  resolveWorkspace,
  setVariablesOf,
  slugify,
} from './run-input.js';

/** A task started from `run`'s options and followed (`run`, `start` with `forceDetach`, `demo`). */
export async function runTask(argv: string[], config: Config, forceDetach = false): Promise<number> {
  const { values, positionals } = parseCommandLine(runOptions, argv);
  const task = positionals.join(' ').trim();
  if (!task) throw new UsageError('A task is required: durable-agent run "<task>"');
  const detach = forceDetach || values.detach;
  const idleMs = values.idle !== undefined ? parseIdle(values.idle) : undefined;
  if (values.continue !== undefined)
    return await continueTask(config, values.continue, task, {
      detach,
      json: values.json,
      stream: wantsLiveOutput(values),
      ...(idleMs !== undefined ? { idleMs } : {}),
      ...(values.model ? { model: values.model } : {}),
      ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
    });
  if (idleMs !== undefined && !values.session) throw new UsageError('--idle is the idle window of a --session run');
  const session = values.session ? { idleMs: idleMs ?? DEFAULT_IDLE_MS } : undefined;
  const remoteTools = Boolean(config.temporalAddress && (values['tool-queue'] ?? config.toolTaskQueue));
  const workspace = resolveWorkspace(values.cwd ?? process.cwd(), remoteTools);
  const maxSteps = parsePositiveInt(values['max-steps'] ?? '50', '--max-steps');
  // The workflow resolves the profile the same way (the input keeps `auto`); here for its mode and the log.
  const profile = resolveProfile(values.profile, task);
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
  if (provider === 'scripted' && !values.script && !values['base-url'] && !config.baseUrl)
    throw new UsageError('--provider scripted needs --script FILE (or --base-url of a running scripted server)');
  if (values.script && detach)
    throw new UsageError('--script is served by this command, so it cannot --detach; run it attached');
  const toolProtocol = values['tool-protocol'] as ToolProtocol | undefined;
  const stream = wantsLiveOutput(values);

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
  const subAgents = parseSubAgents(values);
  // A price file is read here and recorded in the run's input, so the workflow prices calls deterministically.
  const prices = process.env[PRICES_ENV_VARIABLE] ? await loadPriceTable() : undefined;
  const mcpServers = values['mcp-config']
    ? readRunMcpServers(values['mcp-config'], !config.temporalAddress)
    : undefined;
  const offerToWorker = config.temporalAddress
    ? []
    : embeddedWorkerOffer([...envPass, ...setVariablesOf(mcpServers)], envPass);
  const connected = await connect(config, { needWorker: true, offerToWorker });
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
    ...(session ? { session } : {}),
    ...(subAgents ? { subAgents } : {}),
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
    // A session is followed until its first answer (it then waits for the next request, which may be days away).
    if (session && !detach)
      return await followRequest(connected, workflowId, FIRST_REQUEST, { json: values.json, stream });
    return await followStarted(connected, handle, {
      link,
      json: values.json,
      detach,
      prompt: askPolicy === 'prompt' && Boolean(process.stdin.isTTY),
      ...(signer ? { signer } : {}),
      live: (id) => followLiveOutput(stream, id, { from: 'start', json: values.json }),
    });
  } finally {
    await connected.close();
    await scripted?.close();
  }
}
