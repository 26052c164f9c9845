// Node: the trace a run joins when the shell that starts it is part of one: TRACEPARENT (and TRACESTATE), the
// OpenTelemetry convention for carrying a W3C trace context in the environment. It is handed to the workflow in the
// start's header, where Temporal's OpenTelemetry interceptors read their parent, so the run's spans, its activities'
// and its model requests' are all in the caller's trace.
import { ConfigError } from '../config.js';

/** The header the interceptors read (@temporalio/interceptors-opentelemetry's TRACE_HEADER). */
export const TRACE_HEADER = '_tracer-data';

// version-traceid-spanid-flags, lowercase hex, neither id all zeros (the W3C Trace Context format).
const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The carrier of `env`'s trace context, or undefined when it names none; a malformed one is refused. */
export function traceCarrier(env: Readonly<Record<string, string | undefined>>): Record<string, string> | undefined {
  const traceparent = env.TRACEPARENT?.trim();
  if (!traceparent) return undefined;
  if (!TRACEPARENT.test(traceparent))
    throw new ConfigError(
      `TRACEPARENT=${traceparent} is not a W3C traceparent (00-<32 hex trace id>-<16 hex span id>-<2 hex flags>)`,
    );
  const tracestate = env.TRACESTATE?.trim();
  return { traceparent, ...(tracestate ? { tracestate } : {}) };
}
