// Who is deciding at this terminal: recorded with every approval and rejection the CLI sends, so `run`, `watch` and
// `history` can say who let a call through.
import os from 'node:os';

/** `user@host` of this CLI process. */
export function operatorName(): string {
  let user = process.env.USER ?? process.env.LOGNAME;
  try {
    user = os.userInfo().username;
  } catch {
    // No passwd entry (some containers): the environment's name, if any, stands.
  }
  return `${user ?? 'unknown'}@${os.hostname()}`;
}
