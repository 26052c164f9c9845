// Node: the size cap of one model answer. Every provider streams, and a stream has no end of its own: an endpoint
// that kept sending (text, reasoning, tool-call names or arguments, or one event that never ends) would otherwise be
// read until the worker ran out of memory or a string grew past V8's limit. What a turn accumulates is metered while
// it streams; past the cap the stream is dropped (its reader cancelled, which closes the request) and the call fails
// for good, since asking the same endpoint again would only stream as much again.
import { ApplicationFailure } from '@temporalio/common';
import { MAX_MODEL_OUTPUT_VARIABLE, maxModelOutputBytesFromEnv } from './output-limit.js';

/** The failure's type, for whoever reads the workflow's history. */
export const MODEL_OUTPUT_TOO_LARGE = 'ModelOutputTooLarge';

/** The non-retryable failure of an answer past the cap. */
export function modelOutputTooLarge(limit: number): ApplicationFailure {
  return ApplicationFailure.create({
    type: MODEL_OUTPUT_TOO_LARGE,
    message:
      `The model's answer exceeded ${limit} bytes of output (text, reasoning and tool calls); the stream was stopped. ` +
      `Raise ${MAX_MODEL_OUTPUT_VARIABLE} on the worker if answers this large are expected.`,
    nonRetryable: true,
    details: [{ limitBytes: limit }],
  });
}

/** Counts the UTF-8 bytes a turn holds and throws `modelOutputTooLarge` once they pass the limit. */
export class OutputMeter {
  private bytes = 0;

  constructor(readonly limit: number = maxModelOutputBytesFromEnv()) {}

  /** Text appended to the turn. */
  add(text: string | null | undefined): void {
    if (!text) return;
    this.bytes += Buffer.byteLength(text, 'utf8');
    this.check();
  }

  /** A value replaced by another (a name resent, arguments given whole at the end): only the difference counts. */
  replace(before: string | null | undefined, after: string | null | undefined): void {
    this.bytes -= before ? Buffer.byteLength(before, 'utf8') : 0;
    this.add(after);
  }

  /** A structured item kept as it came (a reasoning item), by the size of its JSON. */
  addItem(item: unknown): void {
    this.add(JSON.stringify(item));
  }

  /** Raw bytes not yet part of the turn (an event still being received) must fit the cap too. */
  checkPending(length: number): void {
    if (this.bytes + length > this.limit) throw modelOutputTooLarge(this.limit);
  }

  private check(): void {
    if (this.bytes > this.limit) throw modelOutputTooLarge(this.limit);
  }
}
