// Node: the callModel activity. Resolves the endpoint and tool schemas inside the activity, so the workflow
// history carries only tool names and the API key never leaves the worker.
import type { Context } from '@temporalio/activity';
import { currentActivityContext } from './activity-context.js';
import { CancelledFailure } from '@temporalio/common';
import type { ChatMessage, ModelRequest, ModelSelection, ModelTurn, ToolSchema } from '../protocol/model.js';
import type { ModelProvider, StreamProgress } from '../providers/model-provider.js';
import type { ToolContract } from '../tools/define-tool.js';
import { toModelFailure } from './failures.js';
import { finalResultToolSchema } from '../core/final-result.js';

/** A model request with its messages read back from the store (and its MCP tools' contracts from their catalog). */
export type ResolvedModelRequest = Omit<ModelRequest, 'transcript' | 'writes' | 'mcpCatalog'> & {
  messages: ChatMessage[];
  mcpContracts?: ReadonlyMap<string, ToolContract>;
  /** The schemas of the request's tools (requestTools), when the caller needs them too and built them already. */
  tools?: ToolSchema[];
};

/** Tool schemas by name, from the task registry or else from the task's MCP contracts. */
export type ResolveTools = (names: string[], mcp?: ReadonlyMap<string, ToolContract>) => ToolSchema[];

/** What `createCallModel` needs: an endpoint per selection and the schemas of the named tools. */
export interface CallModelDependencies {
  resolveProvider(selection: ModelSelection): { provider: ModelProvider; model: string };
  resolveTools: ResolveTools;
  /** The contracts of the named tools, for providers that export the schemas their own way. */
  resolveContracts?(names: string[], mcp?: ReadonlyMap<string, ToolContract>): ToolContract[];
}

const DEFAULT_HEARTBEAT_INTERVAL_MS = 5_000;

/** Creates the `callModel` activity; it also runs outside an activity (no heartbeats, no cancellation then). */
export function createCallModel(deps: CallModelDependencies): (request: ResolvedModelRequest) => Promise<ModelTurn> {
  return async function callModel(request: ResolvedModelRequest): Promise<ModelTurn> {
    const context = currentActivityContext();
    const signal = context?.cancellationSignal;
    const heartbeat = context ? startHeartbeat(context, request.step) : undefined;
    try {
      const { provider, model } = deps.resolveProvider(request.selection);
      const tools = request.tools ?? requestTools(request, deps.resolveTools);
      const toolContracts = deps.resolveContracts?.(request.toolNames, request.mcpContracts);
      return await provider.complete({
        messages: request.messages,
        tools,
        ...(toolContracts ? { toolContracts } : {}),
        model,
        ...(request.toolChoice ? { toolChoice: request.toolChoice } : {}),
        ...(signal ? { signal } : {}),
        ...(heartbeat ? { onProgress: heartbeat.progress } : {}),
      });
    } catch (error) {
      if (signal?.aborted) {
        throw signal.reason instanceof CancelledFailure ? signal.reason : new CancelledFailure('Model call cancelled');
      }
      throw toModelFailure(error);
    } finally {
      heartbeat?.stop();
    }
  };
}

/** The tools a request sends: the named ones, and a structured run's final tool built from its schema. */
export function requestTools(request: ResolvedModelRequest, resolveTools: ResolveTools): ToolSchema[] {
  const tools = resolveTools(request.toolNames, request.mcpContracts);
  return request.outputSchema ? [...tools, finalResultToolSchema(request.outputSchema)] : tools;
}

// Heartbeats go out on a timer, with the stream's latest progress as their details: they also cover the silence before
// the first token, so a dead worker is noticed and cancellation is delivered. None is sent in the first interval: a
// call that answers within it costs the server no heartbeat write at all.
function startHeartbeat(
  context: Context,
  step: number,
): { progress: (progress: StreamProgress) => void; stop: () => void } {
  const timeoutMs = context.info.heartbeatTimeoutMs;
  const intervalMs = timeoutMs
    ? Math.max(100, Math.min(DEFAULT_HEARTBEAT_INTERVAL_MS, timeoutMs / 3))
    : DEFAULT_HEARTBEAT_INTERVAL_MS;
  let details: { step: number } & Partial<StreamProgress> = { step };
  const timer = setInterval(() => context.heartbeat(details), intervalMs);
  timer.unref();
  return {
    progress: (progress) => {
      details = { step, ...progress };
    },
    stop: () => clearInterval(timer),
  };
}
