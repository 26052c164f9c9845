// Node: the executor of every MCP tool call (the one `callMcpTool` activity). It finds the tool and its server in the
// task's catalog, checks the arguments against the declared schema, calls the tool on the worker's pooled connection
// while heartbeating, and turns the answer — or the failure — into an envelope. Temporal's cancellation aborts the
// request, and the SDK tells the server (notifications/cancelled).
import type { McpServers } from '../../protocol/mcp.js';
import { McpConfigError } from '../../core/mcp-servers.js';
import { errorEnvelope } from '../../protocol/envelope.js';
import { DEFAULT_MCP_CALL_TIMEOUT_MS } from '../../tools/mcp-tool.js';
import type { ExecutorContext, ToolExecutor } from '../executors/types.js';
import type { ToolActivityResult } from '../../protocol/tool-activity.js';
import { argumentProblems } from './arguments.js';
import type { McpCatalogs } from './catalog.js';
import type { McpConnection, McpConnectionPool } from './connections.js';
import { expandCatalogServer } from './connections.js';
import { callResultEnvelope, isConnectionFailure, mcpFailure } from './result.js';

/** What MCP calls need from the worker. */
export interface McpCallDependencies {
  servers: McpServers;
  connections: McpConnectionPool;
  catalogs: McpCatalogs;
}

/** The executor behind `callMcpTool`. */
export function mcpCallExecutor(deps: McpCallDependencies): ToolExecutor {
  return async (context) => {
    const fail = (code: Parameters<typeof errorEnvelope>[0]['code'], message: string): ToolActivityResult => ({
      envelope: errorEnvelope({ code, message, stats: { time_ms: context.elapsedMs() }, context: context.context }),
    });
    const reference = context.request.mcp;
    if (!reference) return fail('MCP_NOT_FOUND', 'The call names no MCP tool.');
    const catalog = await deps.catalogs.get(reference.catalog);
    const descriptor = catalog.tools.find((tool) => tool.name === reference.tool);
    const server = descriptor ? catalog.servers[descriptor.server] : undefined;
    if (!descriptor || !server)
      return fail('MCP_NOT_FOUND', `No MCP tool '${reference.tool}' was listed for this task.`);

    const problems = argumentProblems(descriptor.inputSchema, context.request.input);
    if (problems.length > 0) {
      return fail(
        'MCP_PARAM_ERROR',
        `Invalid arguments for ${reference.tool}: ${problems.join('; ')}. Re-issue the call with corrected arguments.`,
      );
    }

    let connection: McpConnection;
    try {
      const config = expandCatalogServer(descriptor.server, server, deps.servers, deps.connections.env, context.root);
      connection = await deps.connections.connect(descriptor.server, config, {
        workspace: context.root,
        source: server.source,
      });
    } catch (error) {
      if (error instanceof McpConfigError) {
        return fail('MCP_NETWORK_ERROR', `MCP server '${descriptor.server}' cannot be started: ${error.message}`);
      }
      // Nothing was sent: a connection failure is worth another attempt when the tool may be retried at all.
      if (!isLastAttempt(context)) throw error;
      const failure = mcpFailure(error, reference.tool);
      return fail(failure.code, `MCP server '${descriptor.server}' is unavailable: ${failure.message}`);
    }
    if (!connection.tools.has(descriptor.tool)) {
      deps.connections.release(connection);
      return fail(
        'MCP_NOT_FOUND',
        `MCP server '${descriptor.server}' no longer offers '${descriptor.tool}' (it has: ${[...connection.tools.keys()].join(', ')}).`,
      );
    }

    try {
      const result = await connection.client.callTool(
        { name: descriptor.tool, arguments: context.request.input },
        undefined,
        {
          signal: context.signal,
          timeout: descriptor.timeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS,
          // Progress is life: the heartbeat says so at once, and the request's own timeout starts again.
          resetTimeoutOnProgress: true,
          onprogress: (progress) => context.heartbeat({ tool: reference.tool, progress }),
        },
      );
      return {
        envelope: callResultEnvelope(result as Parameters<typeof callResultEnvelope>[0], {
          tool: reference.tool,
          context: context.context,
          stats: { time_ms: context.elapsedMs() },
        }),
      };
    } catch (error) {
      if (context.signal.aborted) throw context.signal.reason;
      if (isConnectionFailure(error)) {
        deps.connections.discard(connection);
        // A tool that may be retried runs again on a fresh connection (the server restarted, or comes back).
        if (!isLastAttempt(context)) throw error;
      }
      const failure = mcpFailure(error, reference.tool);
      const tail = connection.stderrTail();
      const message =
        failure.code === 'MCP_NETWORK_ERROR' && tail ? `${failure.message} (stderr: ${tail})` : failure.message;
      return fail(failure.code, message);
    } finally {
      deps.connections.release(connection);
    }
  };
}

function isLastAttempt(context: ExecutorContext): boolean {
  return context.attempt >= (context.request.maximumAttempts ?? 1);
}
