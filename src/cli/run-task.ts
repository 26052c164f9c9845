// Node: a task started from `run`'s options and followed to its end (`run`; `start` and `demo` start it the same way).
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { Config } from '../config.js';
import { hostToolQueue } from '../config.js';
import type { AgentInput } from '../core/state.js';
import { visibleText } from '../core/terminal-text.js';
import type { ModelSelection, ToolProtocol } from '../protocol/model.js';
import type { agentWorkflow } from '../workflows/agent.js';
import type { LazyConnected } from './lazy-connected.js';
import { UsageError } from './exit-codes.js';
import { wantsLiveOutput } from './live-option.js';
import type { LiveOutput } from './live-output.js';
import { PRICES_ENV_VARIABLE } from './load-prices.js';
import { operatorSigner } from './operator-signing.js';
import { parseCommandLine } from './option-table.js';
import { runOptions } from './options/run.js';
import { color, log } from './output.js';
import { runUrl } from './run-url.js';
import { readyEmbeddedServer, startOverHttp } from './start-over-http.js';
import { TRACE_HEADER, traceCarrier } from './trace-parent.js';
import { withEnvOffer } from '../dev-server/worker-environment.js';
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
    return await (
      await import('./continue-task.js')
    ).continueTask(config, values.continue, task, {
      detach,
      json: values.json,
      stream: wantsLiveOutput(values),
      ...(idleMs !== undefined ? { idleMs } : {}),
      ...(values.model ? { model: values.model } : {}),
      ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
    });
  if (idleMs !== undefined && !values.session) throw new UsageError('--idle is the idle window of a --session run');
  const session = values.session
    ? { idleMs: idleMs ?? (await import('../core/run/session.js')).DEFAULT_IDLE_MS }
    : undefined;
  const remoteTools = Boolean(config.temporalAddress && (values['tool-queue'] ?? config.toolTaskQueue));
  const workspace = resolveWorkspace(values.cwd ?? process.cwd(), remoteTools);
  const maxSteps = parsePositiveInt(values['max-steps'] ?? '50', '--max-steps');
  // The workflow resolves the profile the same way (the input keeps `auto`); here for its mode and the log.
  // The profiles name the tool contracts, which load only for a run that names a profile.
  const profile =
    values.profile === undefined
      ? undefined
      : (await import('../core/tool-selection/profiles.js')).resolveProfile(values.profile, task);
  // A profile brings its mode (read-only runs read_only); --mode, when given, decides.
  const mode = values.mode !== undefined ? parseMode(values.mode) : (profile?.profile.mode ?? 'default');
  const maxTools = values['max-tools'] === undefined ? undefined : parsePositiveInt(values['max-tools'], '--max-tools');
  const askPolicy = parseAsk(values.ask, detach);
  const outputSchema = values['output-schema']
    ? await (await import('./output-schema-file.js')).readOutputSchema(values['output-schema'])
    : undefined;
  const toolChoice =
    values['tool-choice'] === undefined
      ? undefined
      : parseToolChoice(values['tool-choice'], await callableTools(mode, outputSchema !== undefined));
  // `--script` serves its turns in whichever API the run's provider speaks (the scripted server has them all).
  const provider = values.provider ?? (values.script ? 'scripted' : config.provider);
  if (provider === 'scripted' && !values.script && !values['base-url'] && !config.baseUrl)
    throw new UsageError('--provider scripted needs --script FILE (or --base-url of a running scripted server)');
  if (values.script && detach)
    throw new UsageError('--script is served by this command, so it cannot --detach; run it attached');
  const toolProtocol = values['tool-protocol'] as ToolProtocol | undefined;
  const stream = wantsLiveOutput(values);

  // The scripted server, the model lister (the OpenAI client) and the price file's reader load only when used.
  const scripted = values.script ? await serveScript(values.script) : undefined;
  const model =
    values.model ??
    (scripted
      ? 'scripted'
      : values['base-url'] === undefined
        ? config.model
        : await (await import('./endpoint-models.js')).modelOfBaseUrl(values['base-url'], provider, config.model));
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
  const prices = process.env[PRICES_ENV_VARIABLE]
    ? await (await import('./load-prices.js')).loadPriceTable()
    : undefined;
  const mcpServers = values['mcp-config']
    ? readRunMcpServers(values['mcp-config'], !config.temporalAddress)
    : undefined;
  const offerToWorker = config.temporalAddress
    ? []
    : embeddedWorkerOffer([...envPass, ...setVariablesOf(mcpServers)], envPass);
  const workerEnv = withEnvOffer(process.env, offerToWorker);
  // The embedded server and a worker of this configuration already running: the run starts over the HTTP API now and
  // the client that follows it connects afterwards. Otherwise connect() starts what is missing first.
  const ready = await readyEmbeddedServer(config, workerEnv);
  const inputFor = (embedded: boolean, searchAttributes: boolean): AgentInput => {
    // The embedded worker runs on this host, so the workspace is its; on a cluster, pin only when asked to.
    const toolTaskQueue =
      values['tool-queue'] ?? config.toolTaskQueue ?? (embedded ? hostToolQueue(config.taskQueue) : undefined);
    return {
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
      searchAttributes,
      ...(values['fallback-model']?.length ? { fallbackSelections: values['fallback-model'].map(parseFallback) } : {}),
      ...(toolTaskQueue ? { toolTaskQueue } : {}),
      ...(mcpServers ? { mcpServers } : {}),
      ...budget,
      ...(prices ? { prices } : {}),
      ...(session ? { session } : {}),
      ...(subAgents ? { subAgents } : {}),
      ...checkpointSettings(values['no-checkpoints'], values['checkpoint-ignore']),
    };
  };
  const workflowId = `agent-${slugify(task)}-${randomBytes(4).toString('hex')}`;
  const memo = { task, cwd: workspace };
  const summary = firstLine(task);
  const details = `model: ${selection.model ?? 'worker default'} · workspace: ${workspace} · mode: ${mode}`;
  const signer = operatorSigner({ embedded: config.temporalAddress === undefined });
  // Signed last, just before the start.
  const signed = (input: AgentInput) => (signer ? signer.run(workflowId, input) : input);
  const fastRunId = ready
    ? await startOverHttp(ready, {
        workflowId,
        workflowType: 'agentWorkflow',
        taskQueue: config.taskQueue,
        input: signed(inputFor(true, true)),
        memo,
        summary,
        details,
        ...traceHeader(),
      })
    : undefined;
  const announce = (link: string | undefined): void => {
    log(`${color.bold('run')} ${workflowId}${link ? `  ${color.dim(link)}` : ''}`);
    if (profile) log(`${color.bold('profile')} ${profile.profile.name}  ${color.dim(visibleText(profile.reason))}`);
  };
  // Live output reads the state directory, not the server: started with the run, it shows the first model call's
  // text as it comes while the client that follows the run is still loading and connecting.
  let early: Promise<LiveOutput | undefined> | undefined;
  let hinted = false;
  if (ready && fastRunId !== undefined) {
    announce(runUrl(ready, workflowId, fastRunId));
    if (stream && !detach && !session) {
      // The typing hint comes first: the model's text may start before the keys are read.
      hinted = !values.json && Boolean(process.stdin.isTTY);
      early = Promise.all([import('./live-output.js'), hinted ? import('./attached-input.js') : undefined]).then(
        ([{ followLiveOutput }, input]) => {
          if (input) log(color.dim(input.ATTACHED_HINT));
          return followLiveOutput(stream, workflowId, { from: 'start', json: values.json });
        },
      );
    }
  }
  let handedOver = false;
  let connection: LazyConnected | undefined;
  try {
    const followOptions = {
      json: values.json,
      detach,
      prompt: askPolicy === 'prompt' && Boolean(process.stdin.isTTY),
      ...(signer ? { signer } : {}),
      hinted,
      live: (id: string) => early ?? followLiveOutputOf(stream, id, values.json),
    };
    if (ready && fastRunId !== undefined && !session && !detach) {
      // Followed over the HTTP API, the client connected only when something needs it: a short run has ended before
      // the client would have loaded. The worker's supervision and the codec check need no client.
      const [{ followStarted }, { httpRunReader }, { lazyConnected }] = await Promise.all([
        import('./follow.js'),
        import('./http-run-reader.js'),
        import('./lazy-connected.js'),
      ]);
      const lazy = lazyConnected(
        async () => (await import('./connect.js')).connectAfterStart(config, ready, workerEnv),
        async () => {
          const [{ ensureEmbeddedCodec }, { superviseDevWorker }, { workerProcessCommand }] = await Promise.all([
            import('./embedded-codec.js'),
            import('../dev-server/supervisor.js'),
            import('./worker-command.js'),
          ]);
          await ensureEmbeddedCodec(ready);
          return superviseDevWorker({ command: workerProcessCommand(), env: workerEnv });
        },
      );
      connection = lazy;
      const reader = httpRunReader(ready, workflowId, fastRunId, async () => {
        const [{ client }, { handleReader }] = await Promise.all([lazy.get(), import('./handle-reader.js')]);
        return handleReader(
          client.workflow.getHandle<typeof agentWorkflow>(workflowId, undefined, { firstExecutionRunId: fastRunId }),
        );
      });
      handedOver = true;
      return await followStarted(
        lazy,
        { workflowId, runId: fastRunId, reader },
        { ...followOptions, link: runUrl(ready, workflowId, fastRunId) },
      );
    }
    const { connect, connectAfterStart } = await import('./connect.js');
    const connected =
      ready && fastRunId
        ? await connectAfterStart(config, ready, workerEnv)
        : await connect(config, { needWorker: true, offerToWorker });
    const { madeConnection } = await import('./lazy-connected.js');
    connection = madeConnection(connected);
    const handle =
      fastRunId !== undefined
        ? // The handle `start` returns: no run id, so queries reach the run a continue-as-new hands over to, and
          // the result is followed from the first run.
          Object.assign(
            connected.client.workflow.getHandle<typeof agentWorkflow>(workflowId, undefined, {
              firstExecutionRunId: fastRunId,
            }),
            { firstExecutionRunId: fastRunId },
          )
        : await connected.client.workflow.start<typeof agentWorkflow>('agentWorkflow', {
            workflowId,
            taskQueue: connected.taskQueue,
            args: [signed(inputFor(connected.embedded, await connected.hasSearchAttributes()))],
            memo,
            staticSummary: summary,
            staticDetails: details,
          });
    const runId = handle.firstExecutionRunId;
    const link = runUrl(connected, workflowId, runId);
    if (fastRunId === undefined) announce(link);
    // A session is followed until its first answer (it then waits for the next request, which may be days away).
    if (session && !detach) {
      const { FIRST_REQUEST, followRequest } = await import('./follow-request.js');
      return await followRequest(connected, workflowId, FIRST_REQUEST, { json: values.json, stream });
    }
    const [{ followStarted }, { handleReader }] = await Promise.all([
      import('./follow.js'),
      import('./handle-reader.js'),
    ]);
    handedOver = true;
    return await followStarted(
      connection,
      { workflowId, runId, reader: handleReader(handle) },
      { ...followOptions, link },
    );
  } finally {
    if (!handedOver) await (await early?.catch(() => undefined))?.stop();
    await connection?.close();
    await scripted?.close();
  }
}

/** Live output of `id` from its start, when asked for. */
async function followLiveOutputOf(stream: boolean, id: string, json: boolean): Promise<LiveOutput | undefined> {
  const { followLiveOutput } = await import('./live-output.js');
  return await followLiveOutput(stream, id, { from: 'start', json });
}

/** The scripted model server of `--script FILE`; a file that cannot be read or is no script is a usage error. */
async function serveScript(file: string) {
  const [{ loadScript }, { startScriptedModelServer }] = await Promise.all([
    import('../scripted-model/script.js'),
    import('../scripted-model/server.js'),
  ]);
  const script = await loadScript(resolve(file)).catch((error: unknown) => {
    throw new UsageError(`--script: ${error instanceof Error ? error.message : String(error)}`);
  });
  return await startScriptedModelServer({ script });
}

/** The run's checkpoint settings: none at all, or the patterns it leaves out besides the defaults. */
function checkpointSettings(off: boolean, ignore: string[] | undefined): Pick<AgentInput, 'checkpoints'> {
  if (off) {
    if (ignore?.length)
      throw new UsageError('--no-checkpoints takes no checkpoints: --checkpoint-ignore has nothing to leave out');
    return { checkpoints: false };
  }
  return ignore?.length ? { checkpoints: { ignore } } : {};
}

// The trace the run joins (TRACEPARENT), in the start's header where the workflow's interceptors read it.
function traceHeader(): { header?: Record<string, unknown> } {
  const carrier = traceCarrier(process.env);
  return carrier ? { header: { [TRACE_HEADER]: carrier } } : {};
}
