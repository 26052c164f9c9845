// Help texts, kept apart from the commands so `--help` loads no Temporal client.

/** Help text of `run` (and `start`). */
export const runHelp = `Usage: durable-agent run [options] "<task>"

Runs an agent task as a durable workflow and follows it (Ctrl-C detaches; the run goes on).

Options:
  --cwd DIR           workspace the tools work in (default: current directory)
  --model M           model name (default: the worker's DURABLE_AGENT_MODEL)
  --provider P        openai | scripted (default: the worker's DURABLE_AGENT_PROVIDER)
  --base-url URL      any OpenAI-compatible endpoint (default: the worker's OPENAI_BASE_URL)
  --script FILE       with --provider scripted: serve this script of model turns (see docs/scripted-model.md)
  --max-steps N       stop after N model steps (default 50)
  --mode M            default | read-only
  --ask P             prompt | wait | deny | approve (default: prompt on a TTY, wait with --detach, deny otherwise)
  --json              print one JSON object {workflowId, runId, status, answer, steps, toolCalls, usage} on stdout
  --detach            start the run and return at once
  -h, --help          show this help

Exit codes: 0 finished, 1 failed, 2 usage error, 3 cancelled or terminated, 4 left running (detached).`;

/** Help text of `status`. */
export const statusHelp = `Usage: durable-agent status ID [--json]

Prints a run's status, step, usage and answer. --json prints
{workflowId, runId, status, step, answer?, pendingApprovals, breakers, usage}.`;

/** Help text of `watch`. */
export const watchHelp = `Usage: durable-agent watch ID [--json]

Follows a run live, from its recent progress to its end. Ctrl-C stops watching; the run goes on.`;

/** Help text of `worker`. */
export const workerHelp = `Usage: durable-agent worker [--address HOST:PORT] [--namespace NS] [--task-queue Q]

Runs a worker: agent workflows, model calls and tool calls. Without an address (or TEMPORAL_ADDRESS) it uses the
embedded dev server, starting it if needed. Provider settings and API keys come from this process's environment.`;

/** Help text of `dev-server`. */
export const devServerHelp = `Usage: durable-agent dev-server [--status [--json] | --stop]

Starts the embedded Temporal dev server (SQLite under the state directory, Web UI) and a background worker,
or whichever of them is not running. --status shows both; --stop stops both.`;

/** Help text of `demo`. */
export const demoHelp = `Usage: durable-agent demo [--json]

Copies examples/demo/project (a small library with a real bug and a failing test) to a temporary directory and runs
the agent on it end to end on the embedded Temporal server: it explores, reads, fixes the bug and runs the tests.
Without OPENAI_API_KEY the model is the scripted one (examples/demo/script.json over OpenAI-compatible HTTP);
with it, the real model does the work. The example directory itself is never changed.`;
