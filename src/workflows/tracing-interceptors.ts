// Workflow: the tracing interceptors of a worker that exports traces (bundled only into its bundle, src/worker.ts):
// Temporal's OpenTelemetry interceptors for the run's own span and every activity, child workflow and continuation it
// starts. Signals, updates and queries are left untraced: the package's update handler span adds a step to the
// handler's promise chain, and a run that took an update during a timer then no longer replays (an approval, a pause).
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';

export const interceptors: WorkflowInterceptorsFactory = () => {
  const inbound = new OpenTelemetryInboundInterceptor();
  return {
    inbound: [{ execute: (input, next) => inbound.execute(input, next) }],
    outbound: [new OpenTelemetryOutboundInterceptor()],
    internals: [new OpenTelemetryInternalsInterceptor()],
  };
};
