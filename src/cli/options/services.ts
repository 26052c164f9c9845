// Node: the options of the commands that run a long-lived process (`worker`, `dev-server`, `codec-server`): each one's
// table is its parsing, its `--help` and its line in the README's CLI reference.
import { DEFAULT_CODEC_PORT } from '../../store/codec-server.js';
import type { CommandOptions } from '../option-table.js';

/** `worker`. */
export const workerOptions = {
  arguments: '',
  usage: 'inline',
  positionals: false,
  description: `Runs a worker: agent workflows, model calls and tool calls. Without an address (or TEMPORAL_ADDRESS) it uses the
embedded dev server, starting it if needed. Provider settings and API keys come from this process's environment.
File and shell tools of runs pinned to --tool-queue run only on this worker, against this host's filesystem.
DURABLE_AGENT_MCP_CONFIG=FILE (the .mcp.json shape) names MCP servers whose tools every run this worker serves is
offered; their calls run on the tool queue. DURABLE_AGENT_MCP_RUN_SERVERS=http|all|none says which servers a run's
--mcp-config may add (default http: a run never starts a program on this host; all: a run's stdio servers too, in
the command sandbox).`,
  options: {
    address: { type: 'string', value: 'HOST:PORT', help: "the cluster's frontend (default: TEMPORAL_ADDRESS)" },
    namespace: { type: 'string', value: 'NS', help: 'the namespace (default: TEMPORAL_NAMESPACE, else default)' },
    'task-queue': {
      type: 'string',
      value: 'Q',
      help: 'the shared queue: workflows, model calls, unpinned tools (default: DURABLE_AGENT_TASK_QUEUE)',
    },
    'tool-queue': {
      type: 'string',
      value: 'Q',
      help: "this host's queue for file and shell tools (default: DURABLE_AGENT_TOOL_QUEUE, else <task-queue>@<hostname>)",
    },
  },
} as const satisfies CommandOptions;

/** `dev-server`. */
export const devServerOptions = {
  arguments: '',
  usage: 'inline',
  positionals: false,
  description: `Starts the embedded Temporal dev server (SQLite under the state directory, Web UI), a background worker and the
Web UI's codec endpoint (on DURABLE_AGENT_DEV_CODEC_PORT, default 8234), or whichever of them is not running.
The server's HTTP API, which status and list read, listens on DURABLE_AGENT_DEV_HTTP_PORT (default: a free port).`,
  options: {
    status: { type: 'boolean', default: false, help: "show all three and the HTTP API's address" },
    stop: { type: 'boolean', default: false, help: 'stop them' },
    json: { type: 'boolean', default: false, help: 'with --status: print the status as one JSON object' },
  },
} as const satisfies CommandOptions;

/** `codec-server`. */
export const codecServerOptions = {
  arguments: '',
  usage: 'inline',
  positionals: false,
  description: `Serves a Temporal remote codec endpoint (POST /decode, POST /encode, GET /health) that shows stored content in the
Web UI where history carries only content keys: transcripts, tool results, large arguments and payloads Temporal
External Storage moved to the store (DURABLE_AGENT_STORE, as the workers use it). Point the UI at it:
TEMPORAL_CODEC_ENDPOINT=http://host:8234 for the temporalio/ui container, or the UI's Settings > Codec Server.
It serves only the operator: the Host must be its own address, a browser's Origin the UI's, and the caller on
loopback the endpoint's user or root (the kernel says who opened the connection). A caller from elsewhere needs
DURABLE_AGENT_CODEC_TOKEN, as a bearer token or as the cookie GET /login?token=… sets (the UI must include
credentials); without the variable, one listening beyond loopback makes a token up and logs its sign-in link.`,
  options: {
    port: {
      type: 'string',
      value: String(DEFAULT_CODEC_PORT),
      default: String(DEFAULT_CODEC_PORT),
      help: `the port to listen on (default ${DEFAULT_CODEC_PORT})`,
    },
    host: { type: 'string', value: '127.0.0.1', default: '127.0.0.1', help: 'the address to listen on' },
    'cors-origin': {
      type: 'string',
      multiple: true,
      value: 'URL',
      help: "the UI's origin as the browser sees it (repeatable; default TEMPORAL_UI_URL, else the embedded UI)",
    },
    'allowed-host': {
      type: 'string',
      multiple: true,
      value: 'NAME:PORT',
      help: 'another name the Host header may carry (repeatable; required with --host 0.0.0.0)',
    },
  },
} as const satisfies CommandOptions;
