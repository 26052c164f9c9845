// The Temporal floor of the concurrency bench: workflows with a durable run's step shape (temporal-floor-workflow.ts)
// on a worker with default options, on the same dev server. Each run streams the same scripted turns from its own model
// server through the same openai client, sending the task, the tools and what it has read so far, as a run does; what
// many of them at once cost against one is what Temporal itself costs on this machine, with no agent code in the step.
import { randomBytes } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Context } from '@temporalio/activity';
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { systemPrompt } from '../src/core/system-prompt.js';
import { normalizeToolCallIds, toAssistantToolCalls } from '../src/core/tool-calls.js';
import { StreamAssembler } from '../src/providers/openai-chat/stream-assembler.js';
import { builtinTools, toToolSchema } from '../src/tools/index.js';
import type { DurableEnv } from './durable-env.js';
import { BENCH_TASK, quietLogger } from './durable-env.js';
import { readScript } from './durable-scripts.js';
import type { FloorActivities } from './temporal-floor-workflow.js';
import { temporalFloorWorkflow } from './temporal-floor-workflow.js';

/** Runs floor workflows to the end; returns the wall time of one from start to result. */
export type TemporalFloorRun = (options: { steps: number; latencyMs: number; label: string }) => Promise<number>;

/** What the floor needs of its environment: a server, a client waiting for results, and scripted model servers. */
export type TemporalFloorEnv = Pick<DurableEnv, 'address' | 'namespace' | 'client' | 'onClose' | 'startModel'>;

/** Starts a floor worker reading the files under `workspace`/files (writeReadFiles) and returns how to run one. */
export async function startTemporalFloor(env: TemporalFloorEnv, workspace: string): Promise<TemporalFloorRun> {
  const filesDirectory = path.join(workspace, 'files');
  const files = (await readdir(filesDirectory)).sort().map((name) => path.join(filesDirectory, name));
  const bundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./temporal-floor-workflow.ts', import.meta.url)),
    logger: quietLogger,
  });
  const taskQueue = `bench-floor-${randomBytes(4).toString('hex')}`;
  const tools = builtinTools.map((tool) => toToolSchema(tool));
  const system = systemPrompt({ workspace, mode: 'default' });
  // Each run's conversation, kept in the worker as a run keeps its transcript in the content store.
  const conversations = new Map<string, ChatCompletionMessageParam[]>();
  const conversation = (): ChatCompletionMessageParam[] => {
    const workflowId = Context.current().info.workflowExecution?.workflowId;
    if (!workflowId) throw new Error('floor activity outside a workflow');
    let messages = conversations.get(workflowId);
    if (!messages) {
      messages = [
        { role: 'system', content: system },
        { role: 'user', content: BENCH_TASK },
      ];
      conversations.set(workflowId, messages);
    }
    return messages;
  };
  const activities: FloorActivities = {
    async modelCall(step, modelUrl) {
      const messages = conversation();
      const client = new OpenAI({ apiKey: 'unused', baseURL: modelUrl, maxRetries: 0 });
      const stream = await client.chat.completions.create({
        model: 'scripted-model',
        messages,
        tools: tools as OpenAI.Chat.Completions.ChatCompletionTool[],
        stream: true,
        stream_options: { include_usage: true },
      });
      const assembler = new StreamAssembler('scripted-model');
      for await (const chunk of stream) assembler.push(chunk);
      const turn = assembler.finish();
      messages.push({
        role: 'assistant',
        content: turn.content,
        ...(turn.toolCalls.length > 0
          ? { tool_calls: toAssistantToolCalls(turn.toolCalls, normalizeToolCallIds(turn.toolCalls, step)) }
          : {}),
      });
      return JSON.stringify({ step, content: turn.content, tools: turn.toolCalls.map((call) => call.name) });
    },
    async readFile(file) {
      const text = await readFile(file, 'utf8');
      const messages = conversation();
      const last = messages.at(-1);
      const callId = last?.role === 'assistant' ? last.tool_calls?.[0]?.id : undefined;
      if (callId) messages.push({ role: 'tool', tool_call_id: callId, content: text });
      return text.length;
    },
  };
  const connection = await NativeConnection.connect({ address: env.address });
  const worker = await Worker.create({
    connection,
    namespace: env.namespace,
    taskQueue,
    workflowBundle: bundle,
    activities,
  });
  const running = worker.run();
  env.onClose(async () => {
    worker.shutdown();
    await running;
    await connection.close();
  });
  return async (options) => {
    const model = await env.startModel({ script: readScript(options.steps), latencyMs: options.latencyMs });
    const workflowId = `bench-floor-${options.label}-${randomBytes(4).toString('hex')}`;
    try {
      const started = performance.now();
      const bytes = await env.client.workflow.execute(temporalFloorWorkflow, {
        workflowId,
        taskQueue,
        args: [{ steps: options.steps, files, modelUrl: model.url }],
      });
      if (bytes <= 0) throw new Error(`floor run ${options.label} read nothing`);
      if (model.remaining() !== 0 || model.failures.length > 0) {
        throw new Error(`floor run ${options.label} left the script unfinished: ${model.failures.join('; ')}`);
      }
      return performance.now() - started;
    } finally {
      conversations.delete(workflowId);
      await model.close();
    }
  };
}
