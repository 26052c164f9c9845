// Workflow-safe: the interrupt (protocol/run-control) as cancellation scopes. The model call of a step, and each tool
// call's classification, approval wait and activity, run in a scope of their own; an interrupt cancels the scopes open
// then (never the run's own scope: that is `cancel`). A tool activity's cancellation waits until the worker reports it
// done (WAIT_CANCELLATION_COMPLETED, workflows/activities), so a command's process group is gone before the run goes on.
import { CancellationScope, isCancellation } from '@temporalio/workflow';
import { interruptRun, interruptSignal } from '../protocol/run-control.js';
import type { AgentState } from '../core/state.js';
import type { InterruptCause } from '../core/step/call-interrupt.js';
import { recordInterrupt } from '../core/run/interrupt.js';
import type { ControlDesk } from './run-control.js';

/** What a piece of interruptible work came to: its value, or the interrupt that cancelled it. */
export type Interruptible<T> = { value: T } | { interrupted: InterruptCause };

/** The interruptible work of one run. */
export class Interrupter {
  private readonly open = new Map<CancellationScope, string>();
  private readonly cancelled = new WeakMap<CancellationScope, InterruptCause>();
  /** Set by an interrupt during a step's tool calls: the calls not started yet in this step do not start. */
  private stepCause: InterruptCause | undefined;

  /** Runs `work` (labelled for the interrupt's receipt) in a scope an interrupt cancels. */
  async run<T>(label: string, work: () => Promise<T>): Promise<Interruptible<T>> {
    const scope = new CancellationScope();
    this.open.set(scope, label);
    try {
      return { value: await scope.run(work) };
    } catch (error) {
      const cause = this.cancelled.get(scope);
      // The run's own cancellation reaches every scope too: only an interrupt's is answered here.
      if (cause === undefined || !isCancellation(error) || CancellationScope.current().consideredCancelled) throw error;
      return { interrupted: cause };
    } finally {
      this.open.delete(scope);
    }
  }

  /** The model call of a step: its turn, or undefined when an interrupt dropped it. A new step starts clean. */
  async modelCall<T>(step: number, work: () => Promise<T>): Promise<T | undefined> {
    this.stepCause = undefined;
    const done = await this.run(`model call of step ${step}`, work);
    return 'value' in done ? done.value : undefined;
  }

  /** Why the calls of this step that have not started yet are not to start; undefined when they go ahead. */
  get stepInterrupted(): InterruptCause | undefined {
    return this.stepCause;
  }

  /** Cancels everything under way; returns the labels of what it cancelled (empty when nothing was). */
  interrupt(cause: InterruptCause): string[] {
    const labels = [...this.open.values()];
    this.stepCause = cause;
    for (const scope of this.open.keys()) {
      this.cancelled.set(scope, cause);
      scope.cancel();
    }
    return labels;
  }
}

/** Installs the `interrupt` Update and the `interruptRun` Signal. */
export function installInterrupt(controls: ControlDesk, state: AgentState, interrupter: Interrupter): void {
  controls.install({
    kind: 'interrupt',
    update: interruptRun,
    signal: interruptSignal,
    description:
      'Cancels the model call or the tool calls under way (the run goes on), then queues "text", if any, with a note of what was interrupted: {"id", "text"?, "sent_by"?, "signature"?}. The receipt lists what was interrupted.',
    apply: (request) => {
      const interrupted = interrupter.interrupt({
        ...(request.sent_by ? { by: request.sent_by } : {}),
        ...(request.text ? { text: request.text } : {}),
      });
      const queued = recordInterrupt(state, request, interrupted, Date.now());
      return { interrupted, ...(queued !== undefined ? { queued } : {}) };
    },
  });
}
