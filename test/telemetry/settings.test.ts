// Where telemetry goes, from the standard OpenTelemetry variables: nothing unless asked, the signal's path appended to
// a shared HTTP endpoint, the signal's own variables first, headers decoded, and a malformed value refused by name.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { telemetrySettings } from '../../src/telemetry/settings.js';

describe('telemetry settings', () => {
  it('exports nothing and records no content without any variable', () => {
    expect(telemetrySettings({}, 'svc')).toEqual({ serviceName: 'svc', captureContent: false });
  });

  it('sends traces and metrics to the shared endpoint, each under its own path, with the shared headers', () => {
    const settings = telemetrySettings(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=a%3Db,team = ops',
        OTEL_SERVICE_NAME: 'agents',
      },
      'svc',
    );
    expect(settings.serviceName).toBe('agents');
    expect(settings.traces).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: { 'x-api-key': 'a=b', team: 'ops' },
    });
    expect(settings.metrics?.otlp?.url).toBe('http://collector:4318/v1/metrics');
  });

  it('takes a gRPC endpoint as it is, and the signal-specific endpoint and protocol over the shared ones', () => {
    const settings = telemetrySettings(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/v1/traces',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      },
      'svc',
    );
    expect(settings.traces).toMatchObject({ url: 'https://traces.example/v1/traces', protocol: 'http/json' });
    expect(settings.metrics?.otlp).toMatchObject({ url: 'http://collector:4317', protocol: 'grpc' });
  });

  it('serves Prometheus on loopback at DURABLE_AGENT_METRICS_PORT, and honours OTEL_*_EXPORTER=none', () => {
    const settings = telemetrySettings(
      {
        DURABLE_AGENT_METRICS_PORT: '9464',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_TRACES_EXPORTER: 'none',
        OTEL_METRICS_EXPORTER: 'none',
      },
      'svc',
    );
    expect(settings.traces).toBeUndefined();
    expect(settings.metrics).toEqual({ prometheus: { bindAddress: '127.0.0.1:9464' } });
  });

  it('records prompts and outputs only when the GenAI content variable is true', () => {
    const on = { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'TRUE' };
    expect(telemetrySettings(on, 'svc').captureContent).toBe(true);
    expect(telemetrySettings({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: '1' }, 'svc').captureContent).toBe(
      false,
    );
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' }, /OTEL_EXPORTER_OTLP_PROTOCOL=thrift is not one of grpc/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /OTEL_EXPORTER_OTLP_ENDPOINT=collector:4318/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'file:///tmp/x' }, /only http:\/\/ and https:\/\//],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_EXPORTER_OTLP_HEADERS: 'novalue' }, /"novalue" is not key=value/],
    [{ DURABLE_AGENT_METRICS_PORT: '70000' }, /DURABLE_AGENT_METRICS_PORT=70000 is not a port/],
  ])('refuses %j by name', (env, message) => {
    expect(() => telemetrySettings(env, 'svc')).toThrow(ConfigError);
    expect(() => telemetrySettings(env, 'svc')).toThrow(message);
  });
});
