// Workflow-safe: what the workflow keeps of a tool result. The envelope itself is stored once as the tool message;
// the workflow decides breakers, fallbacks, progress and the step's output budget from this small summary.
import type { Envelope, ErrorCode, ToolStatus } from './envelope.js';
import { envelopeSize } from './envelope.js';

/** Longest text or error message kept in the summary (progress lines and operators read it). */
const MAX_SUMMARY_TEXT = 2_000;

export interface ToolOutcome {
  status: ToolStatus;
  text: string;
  error?: { code: ErrorCode; message: string };
  /** `size(envelope)` of docs/tools.md §0: what the step's output budget counts. */
  bytes: number;
  /** Already compressed by the output budget (never compressed twice). */
  compressed: boolean;
}

/** The summary of an envelope. */
export function outcomeOf(envelope: Envelope): ToolOutcome {
  return {
    status: envelope.status,
    text: cut(envelope.text),
    ...(envelope.error ? { error: { code: envelope.error.code, message: cut(envelope.error.message) } } : {}),
    bytes: envelopeSize(envelope),
    compressed: envelope.data.truncated === true,
  };
}

/** Which tool served a call whose primary tool is failing, and why (set on the fallback's envelope). */
export interface FallbackNote {
  served_by: string;
  primary: string;
  reason: string;
  primary_error: string;
}

/** A fallback's envelope, told that it served another tool's call; errors stay as they are. */
export function withFallbackNote(envelope: Envelope, note: FallbackNote): Envelope {
  if (envelope.status === 'error') return envelope;
  return {
    ...envelope,
    data: { ...envelope.data, fallback: note },
    text: `${note.primary} is failing (${note.reason}); served by ${note.served_by}. ${envelope.text}`,
  };
}

function cut(text: string): string {
  return text.length > MAX_SUMMARY_TEXT ? `${text.slice(0, MAX_SUMMARY_TEXT)}…` : text;
}
