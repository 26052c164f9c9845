// Node: the check every activity of a keyed worker passes before its body runs: the run was started by the operator
// (its proof verifies under the key, for this workflow id, this input, this chain), or nothing happens.
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import type { Payload } from '@temporalio/common';
import type { RunProofHeader } from '../../protocol/run-authorization.js';
import {
  RUN_NOT_AUTHORIZED,
  RUN_PROOF_HEADER,
  runProofMessage,
  runProofWindowRefusal,
} from '../../protocol/run-authorization.js';
import type { RunBindings } from './run-bindings.js';
import { macMatches } from '../../authorization/signing.js';

/** Throws a non-retryable RUN_NOT_AUTHORIZED failure unless `headers` prove the operator started `workflowId`. */
export type RunProofCheck = (workflowId: string, headers: Record<string, Payload>) => Promise<void>;

/** The check for a worker holding `key`. */
export function createRunProofCheck(key: Uint8Array, bindings: RunBindings): RunProofCheck {
  return async (workflowId, headers) => {
    const header = readHeader(headers[RUN_PROOF_HEADER]);
    const refuse = (why: string): never => {
      throw ApplicationFailure.create({
        type: RUN_NOT_AUTHORIZED,
        nonRetryable: true,
        message: `durable-agent: this worker acts only for runs its operator started (with the key in the state directory); ${workflowId} ${why}. Start runs with durable-agent run.`,
      });
    };
    if (!header) return refuse('carries no proof');
    if (header.workflowId !== workflowId) return refuse(`carries the proof of another run (${header.workflowId})`);
    if (!macMatches(key, runProofMessage(header.workflowId, header.issuedAt, header.digest), header.mac))
      return refuse('carries a proof that does not match its input or was not signed with this key');
    const late = runProofWindowRefusal(header.issuedAt, header.startedAt);
    if (late) return refuse(`carries a proof it cannot use: ${late}`);
    const bound = await bindings.bind(header.mac, header.firstRunId);
    if (bound !== header.firstRunId)
      return refuse(`reuses the proof of an earlier run of that id (first run ${bound}), not its own`);
  };
}

function readHeader(payload: Payload | undefined): RunProofHeader | undefined {
  if (!payload) return undefined;
  let value: unknown;
  try {
    value = defaultPayloadConverter.fromPayload(payload);
  } catch {
    return undefined;
  }
  const header = value as Partial<RunProofHeader> | null;
  if (
    typeof header?.workflowId !== 'string' ||
    typeof header.digest !== 'string' ||
    typeof header.mac !== 'string' ||
    typeof header.firstRunId !== 'string' ||
    typeof header.issuedAt !== 'number' ||
    typeof header.startedAt !== 'number'
  )
    return undefined;
  return header as RunProofHeader;
}
