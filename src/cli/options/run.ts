// Node: the options of the commands that start a run (`run`, `start`, `fork`, `demo`): each one's table is its parsing,
// its checks of fixed choices, its `--help` and its line in the README's CLI reference.
import { PROVIDER_NAMES } from '../../config.js';
import { AUTO_PROFILE, PROFILE_NAMES } from '../../protocol/profile-names.js';
import type { CommandOptions } from '../option-table.js';
import { liveOutputOptions } from './live.js';

const RUN_EXIT_CODES =
  'Exit codes: 0 finished, 1 failed, 2 usage error, 3 cancelled or terminated, 4 left running (detached).';

/** `--provider`, as every command that picks a model names it. */
const provider = {
  type: 'string',
  value: 'P',
  choices: PROVIDER_NAMES,
  help: `${PROVIDER_NAMES.join(' | ')} (default: the worker's DURABLE_AGENT_PROVIDER)`,
} as const;

const runTable = {
  cwd: { type: 'string', value: 'DIR', help: 'workspace the tools work in (default: current directory)' },
  model: { type: 'string', value: 'M', help: "model name (default: the worker's DURABLE_AGENT_MODEL)" },
  'fallback-model': {
    type: 'string',
    multiple: true,
    value: 'M',
    help: 'when a model call fails for good, retry the step with M (repeatable: a chain); PROVIDER:M switches provider too (anthropic:claude-sonnet-4-5)',
  },
  provider,
  'base-url': {
    type: 'string',
    value: 'URL',
    help: "the endpoint of --provider, e.g. any OpenAI-compatible server (default: the worker's OPENAI_BASE_URL or ANTHROPIC_BASE_URL); without --model or DURABLE_AGENT_MODEL, the one model it lists at URL/models (several: pick one with --model)",
  },
  'tool-protocol': {
    type: 'string',
    value: 'P',
    choices: ['native', 'react'],
    help: "native (default: the API's function calling) | react (tools described in the prompt, calls read from the answer's text) for models without function calling; native switches to react by itself when the endpoint answers that it does not support tools",
  },
  script: {
    type: 'string',
    value: 'FILE',
    help: 'serve this script of model turns from this process, in the API of --provider (default scripted, i.e. Chat Completions; see docs/scripted-model.md)',
  },
  'max-steps': {
    type: 'string',
    value: 'N',
    help: 'stop after N model steps (default 50); the last step is sent with tool choice none, so the model answers instead of calling more tools',
  },
  'tool-choice': {
    type: 'string',
    value: 'C',
    help: 'auto (default) | required | none | NAME: which tools the model may call at each step; NAME is a tool the run can call (a built-in of its mode, or FinalResult with --output-schema)',
  },
  'output-schema': {
    type: 'string',
    value: 'F',
    help: 'JSON Schema file (an object schema): the run finishes by calling FinalResult with a result that matches it; an invalid one goes back to the model once; run prints the result as JSON',
  },
  'tool-queue': {
    type: 'string',
    value: 'Q',
    help: "run file and shell tools only on the worker polling Q (default: DURABLE_AGENT_TOOL_QUEUE; with the embedded server, this host's worker)",
  },
  mode: {
    type: 'string',
    value: 'M',
    choices: ['default', 'read-only'],
    alsoAccepted: ['read_only'],
    help: "default | read-only (default: the profile's, else default)",
  },
  profile: {
    type: 'string',
    value: 'P',
    choices: [...PROFILE_NAMES, AUTO_PROFILE],
    help: `${[...PROFILE_NAMES, AUTO_PROFILE].join(' | ')}: the tools the run offers, pinned tools, mode and tool limit of a class of task (auto: picked by keywords of the task; see README "Tool selection and profiles"); without it every tool is offered and none is pinned`,
  },
  'max-tools': {
    type: 'string',
    value: 'N',
    help: "at most N tools per model request (default: the profile's, else 16); with more, each step shows pinned, recently used and ToolSearch-found tools and the best matches for the task, and ToolSearch finds the others",
  },
  'budget-usd': {
    type: 'string',
    value: 'USD',
    help: 'pause for approval before the step that would spend more (cost from the price table; DURABLE_AGENT_PRICES=FILE overrides prices); an approval extends it by the same amount',
  },
  'max-tokens': { type: 'string', value: 'N', help: 'the same, for total tokens' },
  'on-budget': {
    type: 'string',
    value: 'P',
    choices: ['ask', 'stop'],
    help: 'ask (default) | stop: end the run as failed instead of asking',
  },
  ask: {
    type: 'string',
    value: 'P',
    choices: ['prompt', 'wait', 'deny', 'approve'],
    help: 'prompt | wait | deny | approve (default: prompt on a TTY, wait with --detach, deny otherwise)',
  },
  'sub-agents': {
    type: 'string',
    value: 'N',
    help: 'how deep the Task tool may delegate: sub-agents of sub-agents down to N levels (default 2; 0: no Task tool). Each sub-agent is a child workflow with its own history; its approvals are decided on this run',
  },
  'sub-agent-steps': {
    type: 'string',
    value: 'N',
    help: 'at most N steps per sub-agent (default 40; a Task call may ask for fewer)',
  },
  'sub-agent-timeout': {
    type: 'string',
    value: 'D',
    help: 'cancel a sub-agent still running after D: 90s, 30m, 2h (default 30m); its Task call answers with a TIMEOUT error',
  },
  'max-sub-agents': {
    type: 'string',
    value: 'N',
    help: 'at most N sub-agents per run (default 16; each sub-agent may start as many of its own)',
  },
  'env-pass': {
    type: 'string',
    multiple: true,
    value: 'NAME',
    help: "give this run's commands the worker's variable NAME (repeatable); commands otherwise get only PATH, the locale, git's identity and DURABLE_AGENT_ENV_PASS's names — never the worker's keys",
  },
  'checkpoint-ignore': {
    type: 'string',
    multiple: true,
    value: 'PATTERN',
    help: 'leave PATTERN (gitignore syntax, repeatable) out of the workspace checkpoints, besides .gitignore, .git/, node_modules/ and .agent/ (docs/checkpoints.md)',
  },
  'no-checkpoints': {
    type: 'boolean',
    default: false,
    help: 'take no workspace checkpoints: diff and rewind have nothing to show for this run',
  },
  'mcp-config': {
    type: 'string',
    value: 'FILE',
    help: 'MCP servers for this run, in the .mcp.json shape: {"mcpServers": {"NAME": {"command", "args", "env", "cwd"} | {"type": "http", "url", "headers"}}}; their tools are offered as mcp__NAME__TOOL besides the worker\'s own (DURABLE_AGENT_MCP_CONFIG). ${VAR} and ${VAR:-default} are filled in on the worker, never in the run\'s input (the worker\'s keys are refused)',
  },
  json: {
    type: 'boolean',
    default: false,
    help: "print one JSON object {workflowId, runId, status, answer, result?, steps, toolCalls, usage} on stdout (result: a structured run's JSON value)",
  },
  detach: { type: 'boolean', default: false, help: 'start the run and return at once' },
  session: {
    type: 'boolean',
    default: false,
    help: 'a conversation: after its answer the run waits for the next request (durable-agent continue ID "…"), and closes as completed after --idle without one; run returns once the first request is answered',
  },
  idle: {
    type: 'string',
    value: 'D',
    help: 'how long a --session run waits for the next request: 45s, 30m, 12h, 7d (default 30m)',
  },
  continue: {
    type: 'string',
    value: 'ID',
    help: 'the task is the next request of run ID\'s conversation: the same as durable-agent continue ID "<task>" (the other options but --idle, --model, --base-url, --json and --detach do not apply)',
  },
} as const;

/** `run`. */
export const runOptions = {
  arguments: '"<task>"',
  argumentsLast: true,
  usage: 'options',
  description: 'Runs an agent task as a durable workflow and follows it (Ctrl-C detaches; the run goes on).',
  options: { ...runTable, ...liveOutputOptions },
  epilogue: RUN_EXIT_CODES,
} as const satisfies CommandOptions;

const { detach: _alwaysDetached, ...startTable } = runTable;

/** `start`: `run --detach`, parsed with run's table. */
export const startOptions = {
  arguments: '"<task>"',
  argumentsLast: true,
  usage: 'options',
  description: `Starts an agent task and returns at once: the same as "durable-agent run --detach".
--json prints {workflowId, runId, status: "running"}. Follow the run with "durable-agent watch ID".`,
  options: startTable,
} as const satisfies CommandOptions;

/** `fork`. */
export const forkOptions = {
  arguments: 'ID',
  usage: 'options',
  description: `Starts a new run that goes on from run ID's state after step N: its transcript, what it read and its tools, rebuilt
by replaying the recorded run with this installation's workflow code. Useful to redo a run's tail with a stronger
model, or with more to say. The fork's steps are numbered on from N; it pays for its own model calls; its memo names
the run it came from (forkedFrom), and "history ID" of the original lists its forks. Without --workspace or --in-place
the workspace's files are as they are now, and an edit of a file changed since the original read it asks for a fresh
read; with them the fork starts from the files the original had after step N, from its checkpoints.`,
  options: {
    'from-step': {
      type: 'string',
      value: 'N',
      required: true,
      help: 'the step whose end the fork starts from (0: the start of the task)',
    },
    model: { type: 'string', value: 'M', help: "the fork's model (default: the original's)" },
    provider: {
      ...provider,
      help: `${PROVIDER_NAMES.join(' | ')}: the fork's provider (default: the original's; a new provider drops the original's --base-url)`,
    },
    'base-url': { type: 'string', value: 'URL', help: "the fork's OpenAI-compatible endpoint" },
    'task-append': { type: 'string', value: 'TEXT', help: "one more user message before the fork's first step" },
    workspace: {
      type: 'string',
      value: 'DIR',
      help: "the fork's workspace: made (empty or new) with the original's files after step N",
    },
    'in-place': {
      type: 'boolean',
      default: false,
      help: "set the original's workspace back to its files after step N first (as rewind), and fork there",
    },
    force: { type: 'boolean', default: false, help: 'with --in-place: as for "durable-agent rewind"' },
    'tool-queue': {
      type: 'string',
      value: 'Q',
      help: "with --workspace: run the fork's file and shell tools on the worker polling Q, the host DIR is on (default: DURABLE_AGENT_TOOL_QUEUE; with the embedded server, this host's worker)",
    },
    'run-id': {
      type: 'string',
      value: 'R',
      help: "fork this run of ID's chain (default: the chain that led to its current run)",
    },
    json: { type: 'boolean', default: false, help: 'as for "durable-agent run"' },
    detach: { type: 'boolean', default: false, help: 'as for "durable-agent run"' },
    ...liveOutputOptions,
  },
  epilogue: 'Exit codes as for "durable-agent run".',
} as const satisfies CommandOptions;

/** `demo`. */
export const demoOptions = {
  arguments: '',
  usage: 'inline',
  positionals: false,
  description: `Copies examples/demo/project (a small library with a real bug and a failing test) to a temporary directory and runs
the agent on it end to end on the embedded Temporal server: it explores, reads, fixes the bug and runs the tests.
Without OPENAI_API_KEY the model is the scripted one (examples/demo/script.json over HTTP, through the real SDK
client of --provider); with it, the real model does the work. The example directory itself is never changed.`,
  options: {
    provider: {
      ...provider,
      help: `${PROVIDER_NAMES.filter((name) => name !== 'scripted').join(' | ')}: the API the scripted model is served in (default openai)`,
    },
    'tool-protocol': {
      type: 'string',
      value: 'react',
      help: "run it as with a model without function calling: tools described in the prompt, calls read from the answer's text",
    },
    json: { type: 'boolean', default: false, help: 'as for "durable-agent run"' },
  },
} as const satisfies CommandOptions;
