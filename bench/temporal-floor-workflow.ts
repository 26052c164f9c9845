// The Temporal floor of the concurrency bench, as workflow code: a durable run's step shape with none of the agent in
// it. Each step is one activity making the model call, an upsert of the step's search attributes, and one local
// activity reading a file, the order a step of the read script takes.
import { proxyActivities, proxyLocalActivities, upsertSearchAttributes } from '@temporalio/workflow';
import { AGENT_SEARCH_ATTRIBUTES } from '../src/protocol/search-attributes.js';

export interface FloorActivities {
  /** Streams the step's answer from the run's model server and answers with its text and tool call names. */
  modelCall(step: number, modelUrl: string): Promise<string>;
  /** Reads a file, keeps it in the conversation the next model call sends, and answers with its size. */
  readFile(file: string): Promise<number>;
}

// The same timeouts and retries as the agent's model call and local reads.
const { modelCall } = proxyActivities<FloorActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '3 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 8,
  },
});
const { readFile } = proxyLocalActivities<FloorActivities>({
  startToCloseTimeout: '400 milliseconds',
  retry: { maximumAttempts: 1 },
});

export interface FloorWorkflowInput {
  steps: number;
  files: string[];
  /** The run's scripted model server (its base URL ending in /v1). */
  modelUrl: string;
}

/** `steps` steps, a file read after each but the last; answers with the bytes read. */
export async function temporalFloorWorkflow(input: FloorWorkflowInput): Promise<number> {
  let bytes = 0;
  for (let step = 1; step <= input.steps; step++) {
    await modelCall(step, input.modelUrl);
    upsertSearchAttributes([
      { key: AGENT_SEARCH_ATTRIBUTES.status, value: 'running' },
      { key: AGENT_SEARCH_ATTRIBUTES.step, value: step },
      { key: AGENT_SEARCH_ATTRIBUTES.costUsd, value: step / 1000 },
    ]);
    if (step < input.steps) bytes += await readFile(input.files[(step - 1) % input.files.length]!);
  }
  return bytes;
}
