// Node: Temporal's activity context when there is one (activities called directly, in tests and scripts, have none).
import { Context } from '@temporalio/activity';

export function currentActivityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/** The attempt of the running activity; undefined outside one. */
export function activityAttempt(): number | undefined {
  return currentActivityContext()?.info.attempt;
}
