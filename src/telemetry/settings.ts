// Node: where traces and metrics go, read from the standard OpenTelemetry variables and the worker's own
// DURABLE_AGENT_METRICS_PORT. Nothing is exported unless one of them is set; a malformed value is a configuration
// error the operator sees at start, never a silent fallback.
import { ConfigError } from '../config.js';

/** The OTLP transports the OpenTelemetry specification names. */
export type OtlpProtocol = 'grpc' | 'http/protobuf' | 'http/json';
const PROTOCOLS: readonly OtlpProtocol[] = ['grpc', 'http/protobuf', 'http/json'];

/** An OTLP destination of one signal. */
export interface OtlpTarget {
  /** For HTTP, the full URL of the signal (…/v1/traces); for gRPC, the collector's address. */
  url: string;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
}

/** What a process exports. */
export interface TelemetrySettings {
  serviceName: string;
  traces?: OtlpTarget;
  metrics?: { prometheus?: { bindAddress: string }; otlp?: OtlpTarget };
  /** Prompts and outputs in spans: off unless OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true. */
  captureContent: boolean;
}

type Environment = Readonly<Record<string, string | undefined>>;

/** The settings `env` names; `defaultService` unless OTEL_SERVICE_NAME says otherwise. */
export function telemetrySettings(env: Environment, defaultService: string): TelemetrySettings {
  const protocol = protocolOf(env);
  const traces = target(env, 'TRACES', protocol);
  const otlpMetrics = target(env, 'METRICS', protocol);
  const port = metricsPort(env);
  return {
    serviceName: env.OTEL_SERVICE_NAME?.trim() || defaultService,
    ...(traces && env.OTEL_TRACES_EXPORTER !== 'none' ? { traces } : {}),
    ...(port !== undefined || (otlpMetrics && env.OTEL_METRICS_EXPORTER !== 'none')
      ? {
          metrics: {
            ...(port !== undefined ? { prometheus: { bindAddress: `${metricsHost(env)}:${port}` } } : {}),
            ...(otlpMetrics && env.OTEL_METRICS_EXPORTER !== 'none' ? { otlp: otlpMetrics } : {}),
          },
        }
      : {}),
    captureContent: env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === 'true',
  };
}

function protocolOf(env: Environment): OtlpProtocol {
  const given = env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim();
  if (!given) return 'http/protobuf';
  if ((PROTOCOLS as readonly string[]).includes(given)) return given as OtlpProtocol;
  throw new ConfigError(`OTEL_EXPORTER_OTLP_PROTOCOL=${given} is not one of ${PROTOCOLS.join(', ')}`);
}

// The signal's own variables win over the shared ones (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as given; the
// shared endpoint gets the signal's path appended, as the specification says).
function target(env: Environment, signal: 'TRACES' | 'METRICS', shared: OtlpProtocol): OtlpTarget | undefined {
  const own = env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!own && !base) return undefined;
  const protocolVariable = env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`]?.trim();
  const protocol = protocolVariable ? protocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: protocolVariable }) : shared;
  const path = signal === 'TRACES' ? 'v1/traces' : 'v1/metrics';
  const url = own ?? (protocol === 'grpc' ? base! : `${base!.replace(/\/+$/, '')}/${path}`);
  checkUrl(url, own ? `OTEL_EXPORTER_OTLP_${signal}_ENDPOINT` : 'OTEL_EXPORTER_OTLP_ENDPOINT');
  return {
    url,
    protocol,
    headers: {
      ...headersOf(env.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS'),
      ...headersOf(env[`OTEL_EXPORTER_OTLP_${signal}_HEADERS`], `OTEL_EXPORTER_OTLP_${signal}_HEADERS`),
    },
  };
}

function checkUrl(url: string, variable: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`${variable}=${url} is not a URL (http://host:4318)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ConfigError(`${variable}=${url}: only http:// and https:// endpoints are supported`);
}

// `key=value,key2=value2`, values URL-encoded (the W3C baggage format the specification uses).
function headersOf(value: string | undefined, variable: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (value ?? '').split(',')) {
    if (!pair.trim()) continue;
    const equals = pair.indexOf('=');
    if (equals <= 0) throw new ConfigError(`${variable}: "${pair.trim()}" is not key=value`);
    headers[pair.slice(0, equals).trim()] = decodeURIComponent(pair.slice(equals + 1).trim());
  }
  return headers;
}

function metricsPort(env: Environment): number | undefined {
  const given = env.DURABLE_AGENT_METRICS_PORT?.trim();
  if (!given) return undefined;
  const port = Number(given);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new ConfigError(`DURABLE_AGENT_METRICS_PORT=${given} is not a port (1-65535)`);
  return port;
}

// Loopback unless the operator says otherwise: the endpoint names models, tools and task queues.
function metricsHost(env: Environment): string {
  return env.DURABLE_AGENT_METRICS_HOST?.trim() || '127.0.0.1';
}
