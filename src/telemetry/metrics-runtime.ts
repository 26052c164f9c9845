// Node: the Temporal runtime's telemetry, which exports the SDK's worker metrics and the agent's own (both go through
// its meter): a Prometheus endpoint, OTLP, or both. Installed once per process, before any connection is made.
import { Runtime } from '@temporalio/worker';
import type { RuntimeOptions } from '@temporalio/worker';
import type { TelemetrySettings } from './settings.js';

// Often enough for a dashboard to follow a run step by step.
const OTLP_EXPORT_INTERVAL = '5s';

/**
 * Installs the runtime with `base` (its logging) and the settings' metrics, and says where the metrics go; with neither,
 * leaves the default runtime.
 */
export function installMetricsRuntime(
  settings: TelemetrySettings,
  log: (line: string) => void,
  base: RuntimeOptions = {},
): void {
  const metrics = settings.metrics;
  if (!metrics) {
    if (Object.keys(base).length > 0) Runtime.install(base);
    return;
  }
  const { prometheus, otlp } = metrics;
  if (prometheus && otlp)
    log('telemetry: DURABLE_AGENT_METRICS_PORT is set, so metrics are served there and not sent over OTLP');
  Runtime.install({
    ...base,
    telemetryOptions: {
      ...base.telemetryOptions,
      metrics: {
        // `temporal_` on the SDK's own metrics, as Temporal's dashboards expect; the agent's carry `durable_agent_`.
        metricPrefix: 'temporal_',
        ...(prometheus
          ? { prometheus: { bindAddress: prometheus.bindAddress, useSecondsForDurations: false } }
          : {
              otel: {
                url: otlp!.url,
                // The runtime speaks gRPC and HTTP protobuf; an OTLP/HTTP receiver takes protobuf wherever it takes
                // JSON (the OTLP specification requires both), so http/json sends protobuf to the same URL.
                http: otlp!.protocol !== 'grpc',
                headers: otlp!.headers,
                metricsExportInterval: OTLP_EXPORT_INTERVAL,
                temporality: 'cumulative',
              },
            }),
      },
    },
  });
  log(
    prometheus
      ? `telemetry: Prometheus metrics on http://${prometheus.bindAddress}/metrics`
      : `telemetry: metrics over OTLP (${otlp!.protocol === 'grpc' ? 'grpc' : 'http/protobuf'}) to ${otlp!.url}`,
  );
}
