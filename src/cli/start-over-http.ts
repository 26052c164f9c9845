// Node: a run started through the embedded server's HTTP API before the Temporal client is loaded (about half of
// `run`'s start-up is loading the client and its protobuf root). Only when nothing needs waiting for: no
// TEMPORAL_ADDRESS, the recorded server alive, a background worker of this installation and configuration alive (pid
// and /proc, no RPC), the namespace the server registered the search attributes in, an input small enough to stay in
// history (no External Storage, which needs the data converter). Anything else, and an API that does not answer, is
// left to connect(), which starts or replaces what is missing.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Config } from '../config.js';
import type { HttpApi } from '../dev-server/http-api.js';
import { payloadThresholdFromEnv } from '../store/payload-threshold.js';
import { workerProcessCommand } from './worker-command.js';

/** Where a run can be started without waiting: the embedded server, a worker that will pick it up. */
export async function readyEmbeddedServer(config: Config, workerEnv: NodeJS.ProcessEnv): Promise<HttpApi | undefined> {
  if (config.temporalAddress) return undefined;
  const { embeddedHttpApi } = await import('../dev-server/http-api.js');
  const api = await embeddedHttpApi(workerEnv);
  if (!api || api.namespace !== config.namespace || api.serverNamespace !== config.namespace) return undefined;
  return (await api.workerReady(workerProcessCommand())) ? api : undefined;
}

/** What the run is started with; `input` is sent as the workflow's one argument. */
export interface HttpStart {
  workflowId: string;
  workflowType: string;
  taskQueue: string;
  input: unknown;
  memo: Record<string, unknown>;
  summary: string;
  details: string;
  /** The start's header fields (the trace the run joins). */
  header?: Record<string, unknown>;
}

/**
 * Starts the run and returns its run id; undefined when it is to be started over gRPC instead. That start names the
 * same workflow id, so a request that did reach the server before its answer was lost cannot start a second run.
 */
export async function startOverHttp(api: HttpApi, start: HttpStart): Promise<string | undefined> {
  // The SDK's client would move an argument this large to the content store; the HTTP API cannot.
  if (Buffer.byteLength(JSON.stringify(start.input)) >= payloadThresholdFromEnv(process.env)) return undefined;
  const { HttpApiUnavailable, startExecution } = await import('../dev-server/http-api.js');
  try {
    return await startExecution(api, {
      ...start,
      input: [start.input],
      requestId: randomUUID(),
      // The SDK's default identity, so the Web UI names the starter the same way.
      identity: `${process.pid}@${hostname()}`,
    });
  } catch (error) {
    if (error instanceof HttpApiUnavailable) return undefined;
    throw error;
  }
}
