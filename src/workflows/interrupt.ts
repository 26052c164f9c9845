// Workflow-safe: the interrupt (protocol/run-control) as cancellation scopes. The model call of a step, and each tool
// call's classification, approval wait and activity, run in a cancellation scope; an interrupt cancels the one the
// calls under way share (never the run's own scope: that is `cancel`). A tool activity's cancellation waits until the
// worker reports it done (WAIT_CANCELLATION_COMPLETED, workflows/activities), so a command's process group is gone
// before the run goes on.
import { CancellationScope, isCancellation } from '@temporalio/workflow';
import { interruptRun, interruptSignal } from '../protocol/run-control.js';
import type { AgentState } from '../core/state.js';
import type { InterruptCause } from '../core/step/call-interrupt.js';
import { recordInterrupt } from '../core/run/interrupt.js';
import type { ControlDesk } from './run-control.js';

/** What a piece of interruptible work came to: its value, or the interrupt that cancelled it. */
export type Interruptible<T> = { value: T } | { interrupted: InterruptCause };

/**
 * The interruptible work of one run. Every call runs in one shared scope until an interrupt cancels it (the next call
 * gets a new one): a scope costs five promises to make, and the SDK captures the stack of every promise made in
 * workflow code, so a scope per call made a third of a step's promises.
 */
export class Interrupter {
  private scope: CancellationScope | undefined;
  /** The labels of the calls under way, by a number of their own. */
  private readonly open = new Map<number, string>();
  private opened = 0;
  private readonly cancelled = new WeakMap<CancellationScope, InterruptCause>();
  /** Set by an interrupt during a step's tool calls: the calls not started yet in this step do not start. */
  private stepCause: InterruptCause | undefined;

  /** Runs `work` (labelled for the interrupt's receipt) in a scope an interrupt cancels. */
  run<T>(label: string, work: () => Promise<T>): Promise<Interruptible<T>> {
    const scope = (this.scope ??= new CancellationScope());
    const call = this.opened++;
    this.open.set(call, label);
    return scope.run(work).then(
      (value) => {
        this.open.delete(call);
        return { value };
      },
      (error: unknown) => {
        this.open.delete(call);
        const cause = this.cancelled.get(scope);
        // The run's own cancellation reaches every scope too: only an interrupt's is answered here.
        if (cause === undefined || !isCancellation(error) || CancellationScope.current().consideredCancelled)
          throw error;
        return { interrupted: cause };
      },
    );
  }

  /** The model call of a step: its turn, or undefined when an interrupt dropped it. A new step starts clean. */
  modelCall<T>(step: number, work: () => Promise<T>): Promise<T | undefined> {
    this.stepCause = undefined;
    return this.run(`model call of step ${step}`, work).then((done) => ('value' in done ? done.value : undefined));
  }

  /** Why the calls of this step that have not started yet are not to start; undefined when they go ahead. */
  get stepInterrupted(): InterruptCause | undefined {
    return this.stepCause;
  }

  /** Cancels everything under way; returns the labels of what it cancelled (empty when nothing was). */
  interrupt(cause: InterruptCause): string[] {
    const labels = [...this.open.values()];
    this.stepCause = cause;
    if (this.scope && labels.length > 0) {
      this.cancelled.set(this.scope, cause);
      this.scope.cancel();
      this.scope = undefined;
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
