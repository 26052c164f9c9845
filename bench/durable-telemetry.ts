// What traces and metrics cost a run: two worker processes made as `durable-agent worker` makes them, one exporting
// every span to a real Jaeger over OTLP and serving metrics that a real Prometheus scrapes, one exporting nothing,
// running the same 30-step run at the same model latency, alternated and repeated.
import path from 'node:path';
import { createDirectoryStore } from '../src/store/directory-store.js';
import { agentDataConverter } from '../src/store/data-converter.js';
import { Client, Connection } from '@temporalio/client';
import { startObservability } from '../test/support/observability.js';
import { findFreePorts } from '../test/support/ports.js';
import { startWorkerProcess, writeWorkflowBundle } from '../test/support/worker-process.js';
import type { ChartedRows } from './chart.js';
import type { BenchWorker, DurableEnv } from './durable-env.js';
import { readScript, writeReadFiles } from './durable-scripts.js';
import { compareTimes, formatMs } from './measure.js';

/** How long a run is and how often each side runs. */
export interface TelemetrySizes {
  steps: number;
  latencyMs: number;
  repetitions: number;
}

const TARGET = 1.03;

/** A run on the exporting worker ÷ the same run on the silent one. */
export async function benchTelemetry(env: DurableEnv, sizes: TelemetrySizes): Promise<ChartedRows> {
  const workspace = await env.tempDirectory('telemetry');
  await writeReadFiles(workspace);
  const [metricsPort] = (await findFreePorts(1)) as [number];
  const backends = await startObservability({ metricsTargets: [`127.0.0.1:${metricsPort}`], scrapeIntervalMs: 5_000 });
  env.onClose(() => backends.stop());
  const bundles = await env.tempDirectory('telemetry-bundle');
  // Each side with the bundle its worker would load: the traced one only where traces are exported.
  const bundlePaths = {
    on: await writeWorkflowBundle(bundles, { tracing: true }),
    off: await writeWorkflowBundle(bundles),
  };
  const connection = await Connection.connect({ address: env.address });
  env.onClose(() => connection.close());
  const worker = async (label: 'on' | 'off', settings: Record<string, string>): Promise<BenchWorker> => {
    const storeDirectory = await env.tempDirectory(`telemetry-store-${label}`);
    const taskQueue = `bench-telemetry-${label}-${path.basename(storeDirectory).slice(-6)}`;
    const started = await startWorkerProcess({
      address: env.address,
      taskQueue,
      storeDir: storeDirectory,
      bundlePath: bundlePaths[label],
      env: settings,
    });
    env.onClose(() => started.stop());
    const dataConverter = agentDataConverter({ store: createDirectoryStore(storeDirectory) });
    return {
      taskQueue,
      toolTaskQueue: taskQueue,
      storeDirectory,
      dataConverter,
      client: new Client({ connection, namespace: env.namespace, dataConverter }),
    };
  };
  const exporting = await worker('on', {
    OTEL_EXPORTER_OTLP_ENDPOINT: backends.otlpHttpUrl,
    OTEL_SERVICE_NAME: 'durable-agent-bench',
    DURABLE_AGENT_METRICS_PORT: String(metricsPort),
  });
  const silent = await worker('off', {});
  const script = readScript(sizes.steps);
  const run = async (on: boolean) => {
    const { result } = await env.runToEnd(on ? exporting : silent, {
      script,
      workspace,
      maxSteps: sizes.steps,
      latencyMs: sizes.latencyMs,
      label: on ? 'traced' : 'untraced',
    });
    return result.steps;
  };
  const times = await compareTimes(
    [true],
    () => run(true),
    () => run(false),
    { repetitions: sizes.repetitions },
  );
  const spans = (await backends.traces('durable-agent-bench')).reduce((sum, trace) => sum + trace.spans.length, 0);
  return {
    rows: [
      {
        measurement: `${sizes.steps} steps at ${sizes.latencyMs} ms with traces to Jaeger and metrics scraped by Prometheus ÷ without`,
        ours: formatMs(times.ours),
        baseline: formatMs(times.baseline),
        ratio: times.ratio,
        ratioRange: times.ratioRange,
        conclusion:
          `exporting adds ${formatMs((times.ours - times.baseline) / sizes.steps)} a step ` +
          `(${times.ratio <= TARGET ? 'within' : 'over'} the ${TARGET}× target; medians of ${sizes.repetitions} ` +
          `alternated runs, each side a worker process of its own; Jaeger held ${spans.toLocaleString('en')} spans ` +
          `of the last runs it was asked for).`,
      },
    ],
    bars: [{ label: 'traces and metrics on ÷ off', value: times.ratio, target: TARGET }],
  };
}
