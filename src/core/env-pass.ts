// Which worker variables a run may ask its commands to get (`--env-pass NAME`): any, except the worker's own
// credentials and settings. Only the worker's operator can hand those to commands (DURABLE_AGENT_ENV_PASS); whoever
// starts a run cannot collect them.

const WORKER_OWN = /^(OPENAI_|ANTHROPIC_|AWS_|TEMPORAL_|DURABLE_AGENT_)/;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why a run cannot ask for `name`, or undefined when it can. */
export function envPassRefusal(name: string): string | undefined {
  if (!VARIABLE_NAME.test(name)) return `'${name}' is not an environment variable name`;
  if (WORKER_OWN.test(name)) {
    return `${name} is one of the worker's own settings or credentials; only the worker's DURABLE_AGENT_ENV_PASS can pass it`;
  }
  return undefined;
}
