// Node: the activity interceptor of a keyed worker: every activity and local activity checks its run's proof first.
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { RunProofCheck } from './run-proof-check.js';

/** Interceptors that run `check` before any activity body. */
export function runProofInterceptor(check: RunProofCheck): ActivityInterceptorsFactory {
  return (context) => ({
    inbound: {
      execute: async (input, next) => {
        // An activity started outside any workflow has no run to prove: it is refused like a run without a proof.
        await check(context.info.workflowExecution?.workflowId ?? '', input.headers);
        return await next(input);
      },
    },
  });
}
