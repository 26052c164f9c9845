// A trace backend and a metrics backend on this machine, for tests that check what a worker exports and for
// `npm run observability`: Jaeger (OTLP in, the query API out, traces in memory) and Prometheus (scraping the given
// metrics endpoints), each with its configuration, log and data in a temporary directory that goes with it. Both are
// killed on `stop()` and when the process that started them exits.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { HOST, isListening } from '../../src/dev-server/ports.js';
import { findJaegerBinary, jaegerConfig } from '../../src/host/jaeger-binary.js';
import type { JaegerPorts } from '../../src/host/jaeger-binary.js';
import { findPrometheusBinary, prometheusArgs, prometheusConfig } from '../../src/host/prometheus-binary.js';
import { watchChild } from './child-process.js';
import type { WatchedChild } from './child-process.js';
import { findFreePorts } from './ports.js';

/** Every port the two processes listen on. */
export interface ObservabilityPorts extends JaegerPorts {
  prometheus: number;
}

/** The standard ports: OTLP 4317/4318, Jaeger's query API 16686 (its gRPC 16685), Prometheus 9090. */
export const STANDARD_PORTS: ObservabilityPorts = {
  otlpGrpc: 4317,
  otlpHttp: 4318,
  queryHttp: 16686,
  queryGrpc: 16685,
  prometheus: 9090,
};

/** What each port is for, as error messages name it. */
export const PORT_ROLES: Record<keyof ObservabilityPorts, string> = {
  otlpGrpc: 'Jaeger OTLP/gRPC',
  otlpHttp: 'Jaeger OTLP/HTTP',
  queryHttp: 'Jaeger query API',
  queryGrpc: 'Jaeger query gRPC',
  prometheus: 'Prometheus',
};

/** A span as Jaeger's query API returns it (the parts tests read). */
export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: { refType: string; traceID: string; spanID: string }[];
  startTime: number;
  duration: number;
  tags: { key: string; type: string; value: unknown }[];
  processID: string;
}

/** A trace as Jaeger's query API returns it. */
export interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string; tags: { key: string; type: string; value: unknown }[] }>;
}

/** A search of Jaeger's traces: one service, optionally its spans' tags and operation name. */
export interface TraceSearch {
  service: string;
  /** Span tags every matching trace has a span with, e.g. `{ 'gen_ai.request.model': 'm' }`. */
  tags?: Record<string, string>;
  operation?: string;
  /** How far back to look (default 1h). */
  lookback?: string;
  /** At most this many traces (default 20). */
  limit?: number;
}

/** One series of an instant query's answer. */
export interface PrometheusSample {
  metric: Record<string, string>;
  value: number;
}

/** The running pair. */
export interface Observability {
  /** Where OTLP/HTTP goes: OTEL_EXPORTER_OTLP_ENDPOINT for `http/protobuf` and `http/json`. */
  otlpHttpUrl: string;
  /** Where OTLP/gRPC goes: OTEL_EXPORTER_OTLP_ENDPOINT for `grpc`. */
  otlpGrpcUrl: string;
  jaegerQueryUrl: string;
  prometheusUrl: string;
  /** Holds each process's configuration and log (`jaeger/jaeger.log`, `prometheus/prometheus.log`). */
  directory: string;
  /** Jaeger's `/api/traces` with these parameters (a string is the service). */
  traces(query: string | Record<string, string>): Promise<JaegerTrace[]>;
  /** The traces of `service` that have spans with all of `tags`. */
  findTraces(search: TraceSearch): Promise<JaegerTrace[]>;
  /** One trace by id, undefined when Jaeger has none. */
  trace(traceId: string): Promise<JaegerTrace | undefined>;
  /** Prometheus's instant query: one sample per series (a scalar answer is one sample without labels). */
  query(promql: string): Promise<PrometheusSample[]>;
  /** Settles when either process ends without `stop()`: which one, how, and its log's last lines. */
  ended: Promise<string>;
  /** Stops both and removes the directory. */
  stop(): Promise<void>;
}

/** Options of `launchObservability`. */
export interface LaunchObservabilityOptions {
  ports: ObservabilityPorts;
  /** host:port of each metrics endpoint Prometheus scrapes at `/metrics`. */
  metricsTargets: readonly string[];
  scrapeIntervalMs: number;
  /** Build Jaeger / fetch Prometheus when they are not provisioned yet (default false: tests only look them up). */
  provision?: boolean;
  /** Receives provisioning progress. */
  log?: (line: string) => void;
}

/** The parts of a Grafana dashboard the tests read. */
export interface GrafanaDashboard {
  schemaVersion: number;
  uid: string;
  __inputs: { name: string; type: string; pluginId: string }[];
  panels: {
    id: number;
    type: string;
    title: string;
    datasource?: { type: string; uid: string };
    gridPos: { x: number; y: number; w: number; h: number };
    targets?: { refId: string; expr: string; datasource?: { type: string; uid: string } }[];
  }[];
}

/** docs/grafana/durable-agent-dashboard.json, as Grafana reads it. */
export function loadDashboard(): GrafanaDashboard {
  const file = new URL('../../docs/grafana/durable-agent-dashboard.json', import.meta.url);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as GrafanaDashboard;
}

const START_TIMEOUT_MS = 60_000;
const LOG_TAIL_LINES = 25;

/** Both on free ports of their own, Prometheus scraping `metricsTargets` every `scrapeIntervalMs` (default 1 s). */
export async function startObservability(
  options: { metricsTargets?: readonly string[]; scrapeIntervalMs?: number } = {},
): Promise<Observability> {
  const [otlpGrpc, otlpHttp, queryHttp, queryGrpc, prometheus] = (await findFreePorts(5)) as [
    number,
    number,
    number,
    number,
    number,
  ];
  return await launchObservability({
    ports: { otlpGrpc, otlpHttp, queryHttp, queryGrpc, prometheus },
    metricsTargets: options.metricsTargets ?? [],
    scrapeIntervalMs: options.scrapeIntervalMs ?? 1000,
  });
}

/** Provisions both binaries into the cache (Prometheus in seconds, a Jaeger build in about 9 minutes). */
export async function provisionObservability(log: (line: string) => void): Promise<void> {
  await findPrometheusBinary({ fetch: true, log });
  await findJaegerBinary({ build: true, log });
}

/** Both on the given ports; waits until Jaeger's query API and OTLP receivers and Prometheus's readiness answer. */
export async function launchObservability(options: LaunchObservabilityOptions): Promise<Observability> {
  const provision = options.provision ?? false;
  const jaegerBinary = await findJaegerBinary({ build: provision, ...(options.log ? { log: options.log } : {}) });
  const prometheusBinary = await findPrometheusBinary({
    fetch: provision,
    ...(options.log ? { log: options.log } : {}),
  });
  const { ports } = options;
  const directory = await fsp.mkdtemp(path.join(os.tmpdir(), 'durable-agent-observability-'));
  const children: Launched[] = [];
  let stopping = false;
  // A test process that ends without stop() (a failed hook, an interrupted run) takes both with it.
  const onExit = () => {
    for (const child of children) if (child.watched.exit() === undefined) child.process.kill('SIGKILL');
    fs.rmSync(directory, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  const stop = async () => {
    stopping = true;
    process.removeListener('exit', onExit);
    await Promise.all(children.map((child) => child.watched.stop()));
    await fsp.rm(directory, { recursive: true, force: true });
  };

  const jaegerQueryUrl = `http://${HOST}:${ports.queryHttp}`;
  const prometheusUrl = `http://${HOST}:${ports.prometheus}`;
  try {
    const jaegerDir = path.join(directory, 'jaeger');
    await fsp.mkdir(jaegerDir);
    const jaegerConfigFile = path.join(jaegerDir, 'jaeger.yaml');
    await fsp.writeFile(jaegerConfigFile, jaegerConfig(ports));
    const jaeger = await launch('jaeger', jaegerBinary, ['--config', `file:${jaegerConfigFile}`], jaegerDir);
    children.push(jaeger);

    const prometheusDir = path.join(directory, 'prometheus');
    await fsp.mkdir(prometheusDir);
    const prometheusConfigFile = path.join(prometheusDir, 'prometheus.yml');
    await fsp.writeFile(
      prometheusConfigFile,
      prometheusConfig({ targets: options.metricsTargets, scrapeIntervalMs: options.scrapeIntervalMs }),
    );
    const prometheus = await launch(
      'prometheus',
      prometheusBinary.path,
      prometheusArgs({
        configFile: prometheusConfigFile,
        dataDir: path.join(prometheusDir, 'data'),
        listen: `${HOST}:${ports.prometheus}`,
      }),
      prometheusDir,
    );
    children.push(prometheus);

    // Jaeger starts its query extension before its receivers: ready means both answer.
    await waitUntil(
      jaeger,
      `Jaeger's query API on ${jaegerQueryUrl} and OTLP on ports ${ports.otlpGrpc}, ${ports.otlpHttp}`,
      async () =>
        (await answers(`${jaegerQueryUrl}/api/services`)) &&
        (await isListening(HOST, ports.otlpHttp)) &&
        (await isListening(HOST, ports.otlpGrpc)),
    );
    await waitUntil(prometheus, `Prometheus on ${prometheusUrl}`, () => answers(`${prometheusUrl}/-/ready`));
  } catch (error) {
    // The error already carries the logs' tails: the directory can go with the processes.
    await stop();
    throw error;
  }

  const traces = async (query: string | Record<string, string>): Promise<JaegerTrace[]> => {
    const params = new URLSearchParams(typeof query === 'string' ? { service: query } : query);
    const body = await getJson<{ data: JaegerTrace[] | null }>(`${jaegerQueryUrl}/api/traces?${params.toString()}`);
    return body.data ?? [];
  };
  return {
    otlpHttpUrl: `http://${HOST}:${ports.otlpHttp}`,
    otlpGrpcUrl: `http://${HOST}:${ports.otlpGrpc}`,
    jaegerQueryUrl,
    prometheusUrl,
    directory,
    traces,
    findTraces: (search) =>
      traces({
        service: search.service,
        ...(search.tags ? { tags: JSON.stringify(search.tags) } : {}),
        ...(search.operation ? { operation: search.operation } : {}),
        lookback: search.lookback ?? '1h',
        limit: String(search.limit ?? 20),
      }),
    trace: async (traceId) => {
      const response = await fetch(`${jaegerQueryUrl}/api/traces/${encodeURIComponent(traceId)}`);
      if (response.status === 404) return undefined;
      if (!response.ok)
        throw new Error(`Jaeger answered ${response.status} for trace ${traceId}: ${await response.text()}`);
      return ((await response.json()) as { data: JaegerTrace[] }).data[0];
    },
    ended: new Promise<string>((resolve) => {
      for (const child of children) {
        void child.exited.then(async (how) => {
          if (!stopping) resolve(`${child.name} ${how}:\n${await logTail(child.logFile)}`);
        });
      }
    }),
    query: async (promql) => {
      const body = await getJson<PrometheusAnswer>(
        `${prometheusUrl}/api/v1/query?${new URLSearchParams({ query: promql }).toString()}`,
      );
      if (body.status !== 'success') throw new Error(`Prometheus refused ${promql}: ${body.error ?? body.status}`);
      const { resultType, result } = body.data;
      if (resultType === 'scalar') return [{ metric: {}, value: Number((result as [number, string])[1]) }];
      return (result as { metric: Record<string, string>; value: [number, string] }[]).map((series) => ({
        metric: series.metric,
        value: Number(series.value[1]),
      }));
    },
    stop,
  };
}

interface PrometheusAnswer {
  status: string;
  error?: string;
  data: { resultType: string; result: unknown };
}

interface Launched {
  name: string;
  process: ReturnType<typeof spawn>;
  watched: WatchedChild;
  /** Settles with how the process ended. */
  exited: Promise<string>;
  logFile: string;
}

async function launch(name: string, binary: string, args: string[], directory: string): Promise<Launched> {
  const logFile = path.join(directory, `${name}.log`);
  const logFd = fs.openSync(logFile, 'a');
  const child = spawn(binary, args, { cwd: directory, stdio: ['ignore', logFd, logFd] });
  fs.closeSync(logFd);
  const watched = watchChild(child, directory);
  const exited = new Promise<string>((resolve) => child.once('close', () => resolve(watched.exit() ?? 'ended')));
  return { name, process: child, watched, exited, logFile };
}

/** Polls `ready` until it is true; a process that exits first, or the time limit, is an error with its log's tail. */
async function waitUntil(child: Launched, what: string, ready: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const exited = child.watched.exit();
    if (exited) throw new Error(`${child.name} ${exited} before ${what} answered:\n${await logTail(child.logFile)}`);
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline)
      throw new Error(`${what} did not answer within ${START_TIMEOUT_MS / 1000}s:\n${await logTail(child.logFile)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function answers(url: string): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
  await response.body?.cancel();
  return response.ok;
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  // Prometheus answers a bad query with 400 and a JSON body that says why; pass that on.
  if (!response.ok && !text.startsWith('{')) throw new Error(`${url} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

async function logTail(file: string): Promise<string> {
  const text = await fsp.readFile(file, 'utf8').catch(() => '');
  return `--- ${file} (last lines) ---\n${text.trimEnd().split('\n').slice(-LOG_TAIL_LINES).join('\n')}`;
}
