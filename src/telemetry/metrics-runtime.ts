// Node: the Temporal runtime's telemetry, which exports the SDK's worker metrics and the agent's own (both go through
// its meter): a Prometheus endpoint, OTLP, or both. Installed once per process, before any connection is made.
import { Runtime } from '@temporalio/worker';
import type { TelemetrySettings } from './settings.js';

// Often enough for a dashboard to follow a run step by step.
const OTLP_EXPORT_INTERVAL = '5s';

/** Installs the runtime with the settings' metrics; says in one line per destination where they go. */
export function installMetricsRuntime(settings: TelemetrySettings, log: (line: string) => void): void {
  const metrics = settings.metrics;
  if (!metrics) return;
  const { prometheus, otlp } = metrics;
  if (prometheus && otlp)
    log('telemetry: metrics go to the Prometheus endpoint only (the runtime exports to one destination)');
  Runtime.install({
    telemetryOptions: {
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
