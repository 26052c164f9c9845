// fast-check's assert, with a report a person can read: hostile inputs hold megabyte strings, so the counterexample
// is shown with every long string cut, and the seed and path to replay it come first.
import fc from 'fast-check';

const SHOWN_CHARS = 120;

/** Runs the property and throws a readable error naming the seed, the path and the (abbreviated) counterexample. */
export function assertProperty<T>(property: fc.IProperty<T>, parameters: fc.Parameters<T>): void {
  const details = fc.check(property, parameters);
  if (!details.failed) return;
  const shown = JSON.stringify(details.counterexample, (_key, value: unknown) =>
    typeof value === 'string' && value.length > SHOWN_CHARS
      ? `${value.slice(0, SHOWN_CHARS)}…(${value.length} chars)`
      : value,
  );
  const cause =
    details.errorInstance instanceof Error ? details.errorInstance : new Error(String(details.errorInstance));
  const error = new Error(
    `Property failed after ${details.numRuns} runs (seed ${details.seed}, path "${details.counterexamplePath}"):\n` +
      `${cause.message.slice(0, 4000)}\nCounterexample: ${shown.slice(0, 20_000)}`,
  );
  error.stack = `${error.message}\n${(cause.stack ?? '').split('\n').slice(1, 12).join('\n')}`;
  throw error;
}
