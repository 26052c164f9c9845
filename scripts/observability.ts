// `npm run observability`: Jaeger and Prometheus on this machine, in the foreground until Ctrl-C, to look at what the
// worker and the CLI export. Jaeger takes OTLP on 4317 (gRPC) and 4318 (HTTP) and answers its query API on 16686;
// Prometheus on 9090 scrapes the worker's metrics endpoint, 127.0.0.1:${DURABLE_AGENT_METRICS_PORT:-9464}, and every
// host:port in the comma-separated DURABLE_AGENT_METRICS_TARGETS. The first start builds Jaeger with Go (minutes) and
// fetches Prometheus into the cache; traces and metrics live in a temporary directory that goes when this stops.
//   npm run observability                   start both, in the foreground until Ctrl-C
//   npm run observability -- --provision    only build or fetch them into the cache, and say where they are
import { parseArgs } from 'node:util';
import { isPortFree, portFromEnv } from '../src/dev-server/ports.js';
import { findJaegerBinary } from '../src/host/jaeger-binary.js';
import { findPrometheusBinary } from '../src/host/prometheus-binary.js';
import { launchObservability, PORT_ROLES, STANDARD_PORTS } from '../test/support/observability.js';
import type { ObservabilityPorts } from '../test/support/observability.js';

const DEFAULT_METRICS_PORT = 9464;
// Often enough to watch a run move, rarely enough to cost nothing.
const SCRAPE_INTERVAL_MS = 5000;

const log = (line: string) => console.error(`observability: ${line}`);

/** The endpoints Prometheus scrapes: the worker's default one first, then the extra ones, each once. */
function metricsTargets(metricsPort: number): string[] {
  const extra = (process.env.DURABLE_AGENT_METRICS_TARGETS ?? '').split(',').map((target) => target.trim());
  return [...new Set([`127.0.0.1:${metricsPort}`, ...extra.filter(Boolean)])];
}

/** One line per standard port something else already listens on. */
async function takenPorts(ports: ObservabilityPorts): Promise<string[]> {
  const taken: string[] = [];
  for (const [role, port] of Object.entries(ports) as [keyof ObservabilityPorts, number][]) {
    if (!(await isPortFree(port)))
      taken.push(`  ${port} (${PORT_ROLES[role]}): \`ss -ltnp 'sport = :${port}'\` shows who`);
  }
  return taken;
}

/** Builds Jaeger and fetches Prometheus when they are not in the cache yet, and says where they are. */
async function provision(): Promise<number> {
  const started = performance.now();
  const prometheus = await findPrometheusBinary({ log });
  const jaeger = await findJaegerBinary({ log });
  console.log(`Prometheus ${prometheus.version}: ${prometheus.path}`);
  console.log(`Jaeger: ${jaeger}`);
  console.log(`took ${((performance.now() - started) / 1000).toFixed(1)}s`);
  return 0;
}

/** Runs until Ctrl-C (exit code 0) or until either process ends on its own (1). */
async function main(): Promise<number> {
  const metricsPort = portFromEnv(process.env, 'DURABLE_AGENT_METRICS_PORT') ?? DEFAULT_METRICS_PORT;
  const targets = metricsTargets(metricsPort);
  const taken = await takenPorts(STANDARD_PORTS);
  if (taken.length > 0) {
    console.error(
      `These ports are in use; stop what holds them (another \`npm run observability\`, a collector, a Jaeger or ` +
        `Prometheus service) and start again:\n${taken.join('\n')}`,
    );
    return 1;
  }
  const backends = await launchObservability({
    ports: STANDARD_PORTS,
    metricsTargets: targets,
    scrapeIntervalMs: SCRAPE_INTERVAL_MS,
    provision: true,
    log,
  });
  console.log(
    [
      `Jaeger      ${backends.jaegerQueryUrl}  (query API: /api/services, /api/traces?service=…)`,
      `Prometheus  ${backends.prometheusUrl}  (scraping ${targets.join(', ')} every ${SCRAPE_INTERVAL_MS / 1000}s)`,
      `OTLP        ${backends.otlpHttpUrl} (HTTP), ${backends.otlpGrpcUrl} (gRPC)`,
      '',
      'Set these for the worker and the CLI:',
      `  export OTEL_EXPORTER_OTLP_ENDPOINT=${backends.otlpHttpUrl}`,
      '  export OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf',
      `  export DURABLE_AGENT_METRICS_PORT=${metricsPort}`,
      '',
      `Logs: ${backends.directory}/jaeger/jaeger.log, ${backends.directory}/prometheus/prometheus.log`,
      'Ctrl-C stops both.',
    ].join('\n'),
  );

  const interrupted = new Promise<undefined>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve(undefined));
  });
  const ended = await Promise.race([interrupted, backends.ended]);
  if (ended !== undefined) log(ended);
  await backends.stop();
  return ended === undefined ? 0 : 1;
}

// `npm run observability --provision` works too: npm hands the flag over as npm_config_provision.
const { values } = parseArgs({
  options: { provision: { type: 'boolean', default: process.env.npm_config_provision === 'true' } },
});

try {
  process.exitCode = await (values.provision ? provision() : main());
} catch (error) {
  // Provisioning, configuration and start failures say what to do; the stack adds nothing to them.
  if (!(error instanceof Error)) throw error;
  console.error(error.message);
  process.exitCode = 1;
}
