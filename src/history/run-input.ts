// Node: the input a run was started with, read from the first event of its history (the workspace and the run's
// checkpoint settings, for `rewind` and `fork`).
import type { History } from '@temporalio/common/lib/proto-utils.js';
import type { AgentInput } from '../core/state.js';
import { decodeEventPayloads } from './events.js';

/** The run's input; undefined when the first event holds none this reader can decode (kept in External Storage). */
export function runInput(history: History): AgentInput | undefined {
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const input = decodeEventPayloads(started?.input?.payloads);
  if (!input || typeof input !== 'object' || typeof (input as Partial<AgentInput>).workspace !== 'string')
    return undefined;
  return input as AgentInput;
}
