// Node: one control message (protocol/run-control) from this terminal to a run: named with a fresh id (or the one
// given, so a script can retry without applying it twice), signed for the embedded worker, sent as its Update, and the
// run's receipt or refusal handed back.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import type { ControlKind, ControlReceipt, ControlRequest } from '../protocol/run-control.js';
import { CONTROL_UPDATES } from '../protocol/run-control.js';
import type { Connected } from './connect.js';
import { operatorName } from './operator.js';
import { operatorSigner } from './operator-signing.js';

/** How long the CLI waits for a worker to take or refuse the message. */
const CONTROL_TIMEOUT_MS = 60_000;

/** The run did not take the message; `reason` is the run's or the server's, phrased for the operator. */
export class ControlRefused extends Error {
  override name = 'ControlRefused';
  constructor(
    readonly reason: string,
    /** The run is closed (or unknown): `continue` then starts the next run of the chain. */
    readonly closed: boolean,
  ) {
    super(reason);
  }
}

/** Sends `kind` with `text` to `workflowId` and returns the run's receipt; throws ControlRefused when not taken. */
export async function sendControl(
  connected: Connected,
  workflowId: string,
  kind: ControlKind,
  options: { text?: string; id?: string } = {},
): Promise<ControlReceipt> {
  const request: ControlRequest = {
    id: options.id ?? `${kind}-${randomBytes(6).toString('hex')}`,
    ...(options.text !== undefined ? { text: options.text } : {}),
    sent_by: operatorName(),
  };
  const signer = operatorSigner(connected);
  const handle = connected.client.workflow.getHandle(workflowId);
  const deadline = Date.now() + CONTROL_TIMEOUT_MS;
  for (;;) {
    try {
      return await connected.client.connection.withDeadline(deadline, () =>
        // Signed last, just before it is sent: a signature is good for minutes only.
        handle.executeUpdate(CONTROL_UPDATES[kind], {
          args: [signer ? signer.control(workflowId, kind, request) : request],
        }),
      );
    } catch (error) {
      // The server takes no Update while no worker has polled the run's queue lately: a worker that was just
      // (re)started has not yet. The same id again is safe: the run applies it once.
      if (!isNoPoller(error) || Date.now() + NO_POLLER_RETRY_MS > deadline) throw refusal(error, kind);
      await sleep(NO_POLLER_RETRY_MS);
    }
  }
}

const NO_POLLER_RETRY_MS = 500;

function isNoPoller(error: unknown): boolean {
  return (
    error instanceof Error && /no poller seen for task queue recently/i.test(`${error.message} ${String(error.cause)}`)
  );
}

function refusal(error: unknown, kind: ControlKind): ControlRefused {
  if (error instanceof WorkflowUpdateFailedError) {
    const reason = error.cause?.message ?? error.message;
    if (/no registered handler for update/i.test(reason))
      return new ControlRefused(
        `the run's workflow code has no "${CONTROL_UPDATES[kind].name}" Update handler (it predates ${kind} messages): ${reason}`,
        false,
      );
    return new ControlRefused(reason, /has (finished|ended)/.test(reason));
  }
  if (error instanceof WorkflowNotFoundError)
    return /already completed/i.test(error.message)
      ? new ControlRefused('the run has already finished', true)
      : new ControlRefused(`no such run (${error.message})`, true);
  if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError)
    return new ControlRefused(
      `no worker answered within ${CONTROL_TIMEOUT_MS / 1000}s; is a worker running for this run's task queue?`,
      false,
    );
  return new ControlRefused(error instanceof Error ? error.message : String(error), false);
}
