// Node: the process's tracer provider, exporting over OTLP as the settings say (gRPC, HTTP protobuf or HTTP JSON), with
// the async-hooks context manager so a span started in an activity is the parent of what the activity calls, and the
// W3C propagator so the model's HTTP request carries the trace too. Spans leave in batches; `shutdown` flushes them.
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { Resource } from '@opentelemetry/resources';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { OtlpTarget, TelemetrySettings } from './settings.js';

/** What the worker hands to Temporal's interceptors: where workflow spans go, and who they say made them. */
export interface Tracing {
  processor: SpanProcessor;
  resource: Resource;
  /** Exports what is still buffered and stops. */
  shutdown(): Promise<void>;
}

// Long enough to batch a step's spans, short enough that a trace is readable a moment after its run ends.
const EXPORT_DELAY_MS = 1_000;

/** Registers the process's tracer provider; undefined without a traces target (every span is then a no-op). */
export async function startTracing(settings: TelemetrySettings): Promise<Tracing | undefined> {
  if (!settings.traces) return undefined;
  const resource = new Resource({ 'service.name': settings.serviceName });
  const processor = new BatchSpanProcessor(await exporterFor(settings.traces), {
    scheduledDelayMillis: EXPORT_DELAY_MS,
  });
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return { processor, resource, shutdown: () => provider.shutdown() };
}

// Each transport's exporter is loaded only when named: gRPC alone brings a second gRPC stack.
async function exporterFor(target: OtlpTarget): Promise<SpanExporter> {
  const options = { url: target.url, headers: target.headers };
  switch (target.protocol) {
    case 'grpc': {
      const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-grpc');
      const { Metadata } = await import('@grpc/grpc-js');
      const metadata = new Metadata();
      for (const [key, value] of Object.entries(target.headers)) metadata.set(key, value);
      return new OTLPTraceExporter({ url: target.url, metadata });
    }
    case 'http/protobuf': {
      const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
      return new OTLPTraceExporter(options);
    }
    case 'http/json': {
      const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
      return new OTLPTraceExporter(options);
    }
  }
}
