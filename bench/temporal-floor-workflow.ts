// The Temporal floor of the concurrency bench, as workflow code: a durable run's step shape with none of the agent in
// it. Each step is one activity standing in for the model call, an upsert of the step's search attributes, and one
// local activity reading a file, the order a step of the read script takes.
import { proxyActivities, proxyLocalActivities, upsertSearchAttributes } from '@temporalio/workflow';
import { AGENT_SEARCH_ATTRIBUTES } from '../src/protocol/search-attributes.js';

export interface FloorActivities {
  /** Waits the model latency and answers with a small result, as a model step answers with content keys. */
  modelCall(step: number): Promise<string>;
  /** Reads a file and answers with its size. */
  readFile(file: string): Promise<number>;
}

// The same timeouts and retries as the agent's model call and local reads.
const { modelCall } = proxyActivities<FloorActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 8 },
});
const { readFile } = proxyLocalActivities<FloorActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

export interface FloorWorkflowInput {
  steps: number;
  files: string[];
}

/** `steps` steps, a file read after each but the last; answers with the bytes read. */
export async function temporalFloorWorkflow(input: FloorWorkflowInput): Promise<number> {
  let bytes = 0;
  for (let step = 1; step <= input.steps; step++) {
    await modelCall(step);
    upsertSearchAttributes([
      { key: AGENT_SEARCH_ATTRIBUTES.status, value: 'running' },
      { key: AGENT_SEARCH_ATTRIBUTES.step, value: step },
      { key: AGENT_SEARCH_ATTRIBUTES.costUsd, value: step / 1000 },
    ]);
    if (step < input.steps) bytes += await readFile(input.files[(step - 1) % input.files.length]!);
  }
  return bytes;
}
