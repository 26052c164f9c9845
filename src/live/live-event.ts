// Node: what a live model call tells its watchers, chunk by chunk: the call's identity and attempt, then its start,
// its deltas, and its end, failure or supersession. None of it enters workflow history: the committed turn is the record.
import { z } from 'zod';

/** Which model call and which attempt a chunk belongs to. */
export interface LiveCallIdentity {
  workflowId: string;
  /** A continued run has a new runId; activity ids restart per run. */
  runId: string;
  /** The callModel activity's id in that run. */
  activityId: string;
  /** The run's step (ModelRequest.step). */
  step: number;
  /** Temporal's activity attempt, 1-based. */
  attempt: number;
  purpose: 'step' | 'compaction';
}

/** One piece of a streamed answer, as an adapter reports it. */
export type LiveDelta =
  | { kind: 'text'; text: string }
  /** Reasoning summaries (or thinking) where the API streams them. */
  | { kind: 'reasoning'; text: string }
  /** A tool call's name, once it is known. */
  | { kind: 'tool_call'; index: number; id?: string; name: string }
  /** A fragment of a tool call's arguments. */
  | { kind: 'tool_arguments'; index: number; text: string };

/** What a call attempt publishes besides its identity, `seq` and `at`. */
export type LivePayload =
  | { kind: 'start'; model: string }
  | LiveDelta
  | { kind: 'end'; finishReason: string }
  /** This attempt threw (the activity's classified message). */
  | { kind: 'failed'; error: string }
  /** Published by attempt N > 1 before its start: the attempts before N are void. */
  | { kind: 'superseded'; supersededAttempt: number };

/** One published event: `seq` counts per (runId, activityId, attempt) from 0; `at` is epoch ms when published. */
export type LiveEvent = LiveCallIdentity & { seq: number; at: number } & LivePayload;

const identity = {
  workflowId: z.string(),
  runId: z.string(),
  activityId: z.string(),
  step: z.number().int().nonnegative(),
  attempt: z.number().int().positive(),
  purpose: z.enum(['step', 'compaction']),
  seq: z.number().int().nonnegative(),
  at: z.number(),
};

// A reader takes nothing on trust: a line another process wrote is checked against the shapes above, field by field.
const liveEventSchema = z.discriminatedUnion('kind', [
  z.object({ ...identity, kind: z.literal('start'), model: z.string() }),
  z.object({ ...identity, kind: z.literal('text'), text: z.string() }),
  z.object({ ...identity, kind: z.literal('reasoning'), text: z.string() }),
  z.object({
    ...identity,
    kind: z.literal('tool_call'),
    index: z.number().int().nonnegative(),
    id: z.string().optional(),
    name: z.string(),
  }),
  z.object({ ...identity, kind: z.literal('tool_arguments'), index: z.number().int().nonnegative(), text: z.string() }),
  z.object({ ...identity, kind: z.literal('end'), finishReason: z.string() }),
  z.object({ ...identity, kind: z.literal('failed'), error: z.string() }),
  z.object({ ...identity, kind: z.literal('superseded'), supersededAttempt: z.number().int().positive() }),
]);

/** One serialized event read back: the event, or undefined for a line that is not one. */
export function parseLiveEvent(line: string): LiveEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const parsed = liveEventSchema.safeParse(value);
  return parsed.success ? (parsed.data as LiveEvent) : undefined;
}
