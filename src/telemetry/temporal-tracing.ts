// Node: Temporal's OpenTelemetry interceptors as the agent uses them. The workflow side is bundled with the workflows
// (its spans have ids from the workflow's seeded randomness, so a replay makes the same spans and they are exported
// only once, when first made), its spans leave through a sink, and activities run in a span whose parent the workflow
// sent in the activity's headers. A replay of the traced bundle registers the sink too, with no exporter.
import { fileURLToPath } from 'node:url';
import type { Context as ActivityContext } from '@temporalio/activity';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptors, InjectedSinks } from '@temporalio/worker';
import { Resource } from '@opentelemetry/resources';
import { NoopSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Tracing } from './tracing.js';

/** The workflow interceptors' module (workflows/tracing-interceptors), for the bundle's `workflowInterceptorModules`. */
export const workflowTracingInterceptors = fileURLToPath(
  new URL(
    import.meta.url.endsWith('.ts') ? '../workflows/tracing-interceptors.ts' : '../workflows/tracing-interceptors.js',
    import.meta.url,
  ),
);

/** The sink the workflow interceptors export their spans through (nowhere, without tracing). */
export function workflowSpanSinks(tracing?: Pick<Tracing, 'processor' | 'resource'>): InjectedSinks<never> {
  const exporter = tracing
    ? makeWorkflowExporter(tracing.processor, tracing.resource)
    : makeWorkflowExporter(new NoopSpanProcessor(), new Resource({}));
  return { exporter } as unknown as InjectedSinks<never>;
}

/** Runs each activity in a span under the workflow's (a no-op span when no tracer is registered). */
export function activityTracing(context: ActivityContext): ActivityInterceptors {
  return {
    inbound: new OpenTelemetryActivityInboundInterceptor(context),
    outbound: new OpenTelemetryActivityOutboundInterceptor(context),
  };
}
