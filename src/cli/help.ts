// Help texts of the commands in command-table.ts, kept apart from the commands so `--help` loads no Temporal client.

/** Help text of `run`. */
export const runHelp = `Usage: durable-agent run [options] "<task>"

Runs an agent task as a durable workflow and follows it (Ctrl-C detaches; the run goes on).

Options:
  --cwd DIR           workspace the tools work in (default: current directory)
  --model M           model name (default: the worker's DURABLE_AGENT_MODEL)
  --fallback-model M  when a model call fails for good, retry the step with M (repeatable: a chain); PROVIDER:M
                      switches provider too (anthropic:claude-sonnet-4-5)
  --provider P        openai | openai-responses | anthropic | scripted (default: the worker's DURABLE_AGENT_PROVIDER)
  --base-url URL      the endpoint of --provider, e.g. any OpenAI-compatible server (default: the worker's
                      OPENAI_BASE_URL or ANTHROPIC_BASE_URL); without --model or DURABLE_AGENT_MODEL, the one model
                      it lists at URL/models (several: pick one with --model)
  --tool-protocol P   native (default: the API's function calling) | react (tools described in the prompt, calls
                      read from the answer's text) for models without function calling; native switches to react
                      by itself when the endpoint answers that it does not support tools
  --script FILE       serve this script of model turns from this process, in the API of --provider (default
                      scripted, i.e. Chat Completions; see docs/scripted-model.md)
  --max-steps N       stop after N model steps (default 50); the last step is sent with tool choice none, so the
                      model answers instead of calling more tools
  --tool-choice C     auto (default) | required | none | NAME: which tools the model may call at each step; NAME is
                      a tool the run can call (a built-in of its mode, or FinalResult with --output-schema)
  --output-schema F   JSON Schema file (an object schema): the run finishes by calling FinalResult with a result
                      that matches it; an invalid one goes back to the model once; run prints the result as JSON
  --tool-queue Q      run file and shell tools only on the worker polling Q (default: DURABLE_AGENT_TOOL_QUEUE;
                      with the embedded server, this host's worker)
  --mode M            default | read-only (default: the profile's, else default)
  --profile P         read-only | code-edit | ops | auto: the tools the run offers, pinned tools, mode and tool
                      limit of a class of task (auto: picked by keywords of the task; see README "Tool selection
                      and profiles"); without it every tool is offered and none is pinned
  --max-tools N       at most N tools per model request (default: the profile's, else 16); with more, each step
                      shows pinned, recently used and ToolSearch-found tools and the best matches for the task,
                      and ToolSearch finds the others
  --budget-usd USD    pause for approval before the step that would spend more (cost from the price table;
                      DURABLE_AGENT_PRICES=FILE overrides prices); an approval extends it by the same amount
  --max-tokens N      the same, for total tokens
  --on-budget P       ask (default) | stop: end the run as failed instead of asking
  --ask P             prompt | wait | deny | approve (default: prompt on a TTY, wait with --detach, deny otherwise)
  --env-pass NAME     give this run's commands the worker's variable NAME (repeatable); commands otherwise get only
                      PATH, the locale, git's identity and DURABLE_AGENT_ENV_PASS's names — never the worker's keys
  --mcp-config FILE   MCP servers for this run, in the .mcp.json shape: {"mcpServers": {"NAME": {"command", "args",
                      "env", "cwd"} | {"type": "http", "url", "headers"}}}; their tools are offered as
                      mcp__NAME__TOOL besides the worker's own (DURABLE_AGENT_MCP_CONFIG). \${VAR} and \${VAR:-default}
                      are filled in on the worker, never in the run's input (the worker's keys are refused)
  --json              print one JSON object {workflowId, runId, status, answer, result?, steps, toolCalls, usage}
                      on stdout (result: a structured run's JSON value)
  --detach            start the run and return at once
  -h, --help          show this help

Exit codes: 0 finished, 1 failed, 2 usage error, 3 cancelled or terminated, 4 left running (detached).`;

/** Help text of `start`. */
export const startHelp = `Usage: durable-agent start [options] "<task>"

Starts an agent task and returns at once: the same as "durable-agent run --detach" (see "durable-agent run --help" for
the options). --json prints {workflowId, runId, status: "running"}. Follow the run with "durable-agent watch ID".`;

/** Help text of `status`. */
export const statusHelp = `Usage: durable-agent status ID [--run-id R] [--json]

Prints a run's status, step, usage and answer: the task's current run, or with --run-id one run of its chain (one
that continued as new says "continued" and names the run it handed on to). --json prints
{workflowId, runId, status, step, profile?, answer?, result?, error?, continuedAs?, pendingApprovals, breakers, usage}. A finished run is
read from the result it returned, so it shows no pending approvals and no breakers.`;

/** Help text of `watch`. */
export const watchHelp = `Usage: durable-agent watch ID [--json]

Follows a run live, from its recent progress to its end. Ctrl-C stops watching; the run goes on.`;

/** Help text of `worker`. */
export const workerHelp = `Usage: durable-agent worker [--address HOST:PORT] [--namespace NS] [--task-queue Q] [--tool-queue Q]

Runs a worker: agent workflows, model calls and tool calls. Without an address (or TEMPORAL_ADDRESS) it uses the
embedded dev server, starting it if needed. Provider settings and API keys come from this process's environment.
File and shell tools of runs pinned to --tool-queue (default: <task-queue>@<hostname>, or DURABLE_AGENT_TOOL_QUEUE)
run only on this worker, against this host's filesystem. DURABLE_AGENT_MCP_CONFIG=FILE (the .mcp.json shape) names MCP
servers whose tools every run this worker serves is offered; their calls run on the tool queue.
DURABLE_AGENT_MCP_RUN_SERVERS=http|all|none says which servers a run's --mcp-config may add (default http: a run
never starts a program on this host; all: a run's stdio servers too, in the command sandbox).`;

/** Help text of `dev-server`. */
export const devServerHelp = `Usage: durable-agent dev-server [--status [--json] | --stop]

Starts the embedded Temporal dev server (SQLite under the state directory, Web UI), a background worker and the
Web UI's codec endpoint (on DURABLE_AGENT_DEV_CODEC_PORT, default 8234), or whichever of them is not running.
The server's HTTP API, which status and list read, listens on DURABLE_AGENT_DEV_HTTP_PORT (default: a free port).
--status shows all three and the HTTP API's address; --stop stops them.`;

/** Help text of `codec-server`. */
export const codecServerHelp = `Usage: durable-agent codec-server [--port 8234] [--host 127.0.0.1] [--cors-origin URL]… [--allowed-host NAME:PORT]…

Serves a Temporal remote codec endpoint (POST /decode, POST /encode, GET /health) that shows stored content in the
Web UI where history carries only content keys: transcripts, tool results, large arguments and payloads Temporal
External Storage moved to the store (DURABLE_AGENT_STORE, as the workers use it). Point the UI at it:
TEMPORAL_CODEC_ENDPOINT=http://host:8234 for the temporalio/ui container, or the UI's Settings > Codec Server.
--cors-origin is the UI's origin as the browser sees it (repeatable; default TEMPORAL_UI_URL, else the embedded UI).
It serves only the operator: the Host must be its own address (--allowed-host names others, and is required with
--host 0.0.0.0), a browser's Origin the UI's, and the caller on loopback the endpoint's user or root (the kernel says
who opened the connection). A caller from elsewhere needs DURABLE_AGENT_CODEC_TOKEN, as a bearer token or as the cookie
GET /login?token=… sets (the UI must include credentials); without the variable, one listening beyond loopback makes a
token up and logs its sign-in link.`;

/** Help text of `demo`. */
export const demoHelp = `Usage: durable-agent demo [--provider P] [--tool-protocol react] [--json]

Copies examples/demo/project (a small library with a real bug and a failing test) to a temporary directory and runs
the agent on it end to end on the embedded Temporal server: it explores, reads, fixes the bug and runs the tests.
Without OPENAI_API_KEY the model is the scripted one (examples/demo/script.json over HTTP, through the real SDK
client of --provider: openai, openai-responses or anthropic); with it, the real model does the work.
--tool-protocol react runs it as with a model without function calling: tools described in the prompt, calls read
from the answer's text. The example directory itself is never changed.`;

/** Help text of `approve`. */
export const approveHelp = `Usage: durable-agent approve ID CALL_ID [--remember] [--reason R] [--json]

Approves a tool call waiting for a human decision (see "status ID" for the pending call ids).
--remember approves the call's approval key ("npm install", "curl example.com") for the rest of the task.
Exits 0 when the run accepted the decision, 1 (with the reason) when the call is unknown or already decided.`;

/** Help text of `deny`. */
export const denyHelp = `Usage: durable-agent deny ID CALL_ID [--reason R] [--json]

Rejects a tool call waiting for a human decision; the model sees the rejection (and the reason) as the call's result.
Exits 0 when the run accepted the decision, 1 (with the reason) when the call is unknown or already decided.`;

/** Help text of `cancel`. */
export const cancelHelp = `Usage: durable-agent cancel ID [--wait SECONDS] [--json]

Requests cancellation of a run and waits (default 60 s) for it to close, then prints its final status
(--json: {workflowId, runId, status}). Exits 0 once the run is closed, 1 if it is still open after the wait.`;

/** Help text of `list`. */
export const listHelp = `Usage: durable-agent list [--status S] [--pending-approvals] [--min-cost USD] [--limit N] [--json]

Lists agent runs, newest first, one row per task: its current run (after a reset or a continue-as-new, the run that
carries it on) with id, run id, status, step, cost, start and task.
  --status S            running | waiting_approval | completed | failed | cancelled | terminated | timed_out |
                        continued (runs that handed their task on, one row each)
  --pending-approvals   only runs with tool calls waiting for a decision
  --min-cost USD        only runs that cost at least this much
  --limit N             at most N runs (default 20)
  --json                an array of {workflowId, runId, status, step, costUsd, pendingApprovals, startTime, closeTime, task}`;

/** Help text of `history`. */
export const historyHelp = `Usage: durable-agent history ID [--run-id R] [--json]

Shows a run step by step from its event history: each model call (model, tokens, duration, retries) and the tool
calls it asked for (summary, status or error code, duration, attempts). Without --run-id it reads the chain that led to
the current run: the runs it continued as new from, and where an operator reset it (the steps a reset abandoned stay
in the old run's own history, named on the reset line). --json prints
{workflowId, runId, status, resets?, steps: [{step, model: {...}, tools: [...]}], runIds}.`;

/** Help text of `fork`. */
export const forkHelp = `Usage: durable-agent fork ID --from-step N [options]

Starts a new run that goes on from run ID's state after step N: its transcript, what it read and its tools, rebuilt
by replaying the recorded run with this installation's workflow code. Useful to redo a run's tail with a stronger
model, or with more to say. The fork's steps are numbered on from N; it pays for its own model calls; its memo names
the run it came from (forkedFrom), and "history ID" of the original lists its forks. The workspace's files are not
rewound: they are as they are now, and an edit of a file changed since the original read it asks for a fresh read.

Options:
  --from-step N       the step whose end the fork starts from (0: the start of the task)
  --model M           the fork's model (default: the original's)
  --provider P        the fork's provider (default: the original's; a new provider drops the original's --base-url)
  --base-url URL      the fork's OpenAI-compatible endpoint
  --task-append TEXT  one more user message before the fork's first step
  --run-id R          fork this run of ID's chain (default: the chain that led to its current run)
  --json, --detach    as for "durable-agent run"

Exit codes as for "durable-agent run".`;

/** Help text of `replay`. */
export const replayHelp = `Usage: durable-agent replay ID|FILE [--run-id R] [--workflows FILE] [--json]

Re-executes the current workflow code against a recorded run (by id from the server, or a history JSON file as
written by "temporal workflow show --output json") to check that a code change is safe for runs in flight.
--workflows replays another workflows entry file instead of this installation's.
Exits 0 when the code reproduces the history; 1 with the event where it diverges when it does not.`;

/** Help text of `output`. */
export const outputHelp = `Usage: durable-agent output KEY [--json]

Prints stored content (a transcript node, a tool result, a long answer) exactly as stored, by its key: sha256:<hex>
as shown in status, history and the Web UI (the bare 64 hex digits work too). The store is the one the workers use
(DURABLE_AGENT_STORE). On a terminal, control characters are shown as escapes (\x1b) rather than acted on; piped or
redirected, the bytes are exact. --json prints {key, store, bytes, encoding: "utf8" | "base64", content}.
Exits 1 when the key is not in the store, 2 when KEY is not a key.`;

/** Help text of `gc`. */
export const gcHelp = `Usage: durable-agent gc [--older-than 30d] [--dry-run] [--json]

Deletes stored content that no open run can reach and that was last written (or re-used) longer ago than
--older-than (30d, 12h, 90m, 45s; default 30d). Reachable means referred to by an open agent run (its storeRoots
query) or by content that is. If an open run does not answer (no worker polling its task queue), nothing is
deleted. On S3 a re-used object's time is refreshed at most once a day, so keep --older-than well above 1d there.
--dry-run reports what would be deleted; --json prints one object {status, store, stored, reachable, recent,
deleted, deletedKeys, kept, missing, …}.`;
