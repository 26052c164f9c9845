// Node: the spans and metrics of model and tool calls. Each runs inside the activity's own span (Temporal's
// interceptor, which carries the attempt), so a retried attempt shows as a second activity span of the same trace.
// Model spans follow the OpenTelemetry GenAI conventions; prompts and outputs are recorded only when the operator asked
// (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT). With no tracer registered, every span here is a no-op.
import type { Attributes, Span } from '@opentelemetry/api';
import { SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import type { MetricMeter } from '@temporalio/common';
import type { ModelTurn } from '../protocol/model.js';
import type { Envelope } from '../protocol/envelope.js';
import { envelopeSize } from '../protocol/envelope.js';
import { costOf } from '../core/pricing.js';
import type { ContentKey } from '../protocol/content-key.js';
import type { ContentStore } from '../store/content-store.js';
import { currentActivityContext } from './activity-context.js';

const tracer = () => trace.getTracer('durable-agent');

/** Metric names of the activities (docs/observability.md). */
export const ACTIVITY_METRICS = {
  modelCallMs: 'durable_agent_model_call_duration_ms',
  firstTokenMs: 'durable_agent_model_time_to_first_token_ms',
  toolCalls: 'durable_agent_tool_calls_total',
  toolCallMs: 'durable_agent_tool_call_duration_ms',
  storeBytes: 'durable_agent_store_bytes_written_total',
} as const;

function meter(): MetricMeter | undefined {
  return currentActivityContext()?.metricMeter;
}

/** What a model call span is opened with. */
export interface ModelCallSpanStart {
  provider: string;
  model: string;
  step: number;
  purpose: 'step' | 'compaction';
}

/** The open span of one model call and what it reports when the call ends. */
export interface ModelCallSpan {
  /** Headers that carry the trace to the model's endpoint (W3C traceparent). */
  headers: Record<string, string>;
  firstToken(): void;
  ended(turn: ModelTurn, captured?: { input: unknown }): void;
  failed(error: unknown): void;
}

/** Opens the span of a model call under the activity's span. */
export function startModelCallSpan(start: ModelCallSpanStart, captureContent: boolean): ModelCallSpan {
  const startedAt = performance.now();
  let firstTokenAt: number | undefined;
  const span = tracer().startSpan(`chat ${start.model}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': start.provider,
      'gen_ai.request.model': start.model,
      'durable_agent.step': start.step,
      'durable_agent.call.purpose': start.purpose,
      'durable_agent.attempt': currentActivityContext()?.info.attempt ?? 1,
    },
  });
  const headers: Record<string, string> = {};
  propagation.inject(trace.setSpan(context.active(), span), headers);
  const tags = { provider: start.provider, model: start.model };
  const finish = (outcome: string): void => {
    meter()
      ?.createHistogram(ACTIVITY_METRICS.modelCallMs, 'int', 'ms', 'Model call latency')
      .record(Math.round(performance.now() - startedAt), { ...tags, outcome });
    span.end();
  };
  return {
    headers,
    firstToken: () => {
      if (firstTokenAt !== undefined) return;
      firstTokenAt = performance.now();
      const ms = Math.round(firstTokenAt - startedAt);
      span.addEvent('gen_ai.first_token', { 'durable_agent.time_to_first_token_ms': ms });
      meter()
        ?.createHistogram(ACTIVITY_METRICS.firstTokenMs, 'int', 'ms', 'Time to the first streamed token')
        .record(ms, tags);
    },
    ended: (turn, captured) => {
      const attributes: Attributes = {
        'gen_ai.response.model': turn.model,
        'gen_ai.response.finish_reasons': [turn.finishReason],
        'gen_ai.usage.input_tokens': turn.usage.promptTokens,
        'gen_ai.usage.output_tokens': turn.usage.completionTokens,
        'durable_agent.usage.cost_usd': costOf(turn.usage, turn.model).usd,
        'durable_agent.tool_calls': turn.toolCalls.length,
      };
      if (turn.usage.cachedTokens) attributes['gen_ai.usage.cache_read.input_tokens'] = turn.usage.cachedTokens;
      if (captureContent) {
        attributes['gen_ai.input.messages'] = JSON.stringify(captured?.input ?? null);
        attributes['gen_ai.output.messages'] = JSON.stringify([
          { role: 'assistant', content: turn.content, tool_calls: turn.toolCalls },
        ]);
      }
      span.setAttributes(attributes);
      finish('success');
    },
    failed: (error) => {
      recordFailure(span, error);
      finish('error');
    },
  };
}

/** Runs a tool call in its span and counts it by tool and outcome. */
export async function inToolCallSpan<T extends { envelope: Envelope }>(
  tool: string,
  attributes: Attributes,
  run: () => Promise<T>,
): Promise<T> {
  const startedAt = performance.now();
  return tracer().startActiveSpan(
    `execute_tool ${tool}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': tool,
        'durable_agent.attempt': currentActivityContext()?.info.attempt ?? 1,
        ...attributes,
      },
    },
    async (span) => {
      let outcome = 'exception';
      try {
        const result = await run();
        const error = result.envelope.error;
        outcome = error ? error.code : 'success';
        const spillKey = spillKeyOf(result.envelope);
        span.setAttributes({
          'durable_agent.tool.outcome': outcome,
          'durable_agent.tool.bytes_returned': envelopeSize(result.envelope),
          ...(spillKey ? { 'durable_agent.tool.spill_key': spillKey } : {}),
        });
        if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: error.code });
        return result;
      } catch (error) {
        recordFailure(span, error);
        throw error;
      } finally {
        const tags = { tool, outcome };
        const activityMeter = meter();
        activityMeter?.createCounter(ACTIVITY_METRICS.toolCalls, 'calls', 'Tool calls by outcome').add(1, tags);
        activityMeter
          ?.createHistogram(ACTIVITY_METRICS.toolCallMs, 'int', 'ms', 'Tool call latency')
          .record(Math.round(performance.now() - startedAt), tags);
        span.end();
      }
    },
  );
}

/** `store`, counting the bytes each activity puts into it (before the store finds it already has them). */
export function meteredStore(store: ContentStore): ContentStore {
  const put = async (content: string | Uint8Array): Promise<ContentKey> => {
    const bytes = typeof content === 'string' ? Buffer.byteLength(content) : content.byteLength;
    if (bytes > 0)
      meter()?.createCounter(ACTIVITY_METRICS.storeBytes, 'bytes', 'Bytes put into the content store').add(bytes);
    return store.put(content);
  };
  // The store's own methods stay on its prototype chain; only `put` is wrapped.
  return Object.assign(Object.create(store) as ContentStore, { put });
}

// A result too large for the model was stored whole: its key says where the rest is.
function spillKeyOf(envelope: Envelope): string | undefined {
  const truncation = envelope.data.truncation as { full_output_key?: unknown } | undefined;
  return typeof truncation?.full_output_key === 'string' ? truncation.full_output_key : undefined;
}

// The error's class and message only: an exception text never carries the model's prompt, but a stack might carry paths.
function recordFailure(span: Span, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.setAttribute('error.type', error instanceof Error ? error.name : 'Error');
}
