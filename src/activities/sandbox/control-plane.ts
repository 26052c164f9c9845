// Node: the endpoints of the worker's control plane that no sandboxed command may reach, even through an approved
// network proxy: the Temporal frontend the worker uses, the Web UI and codec endpoint it is configured with, and the
// embedded server's ports. The embedded server listens on 127.0.0.1, which the proxy refuses anyway; these entries
// also cover a server listening on every interface, reached through one of this machine's other addresses.
import { DEFAULT_DEV_CODEC_PORT, DEFAULT_DEV_PORT, HOST } from '../../dev-server/ports.js';

/** An endpoint no sandboxed command may connect to, and where the worker knows it from. */
export interface ControlPlaneEndpoint {
  host: string;
  port: number;
  source: string;
}

const DEFAULT_TEMPORAL_PORT = 7233;

/** The control plane of a worker with `env`, connected to Temporal at `temporalAddress` (when known). */
export function controlPlaneEndpoints(env: NodeJS.ProcessEnv, temporalAddress?: string): ControlPlaneEndpoint[] {
  const endpoints: ControlPlaneEndpoint[] = [];
  const add = (endpoint: ControlPlaneEndpoint | undefined): void => {
    if (endpoint && !endpoints.some((known) => known.host === endpoint.host && known.port === endpoint.port)) {
      endpoints.push(endpoint);
    }
  };
  if (temporalAddress) add(hostPort(temporalAddress, DEFAULT_TEMPORAL_PORT, "the worker's Temporal frontend"));
  if (env.TEMPORAL_ADDRESS) add(hostPort(env.TEMPORAL_ADDRESS, DEFAULT_TEMPORAL_PORT, 'TEMPORAL_ADDRESS'));
  for (const variable of ['TEMPORAL_UI_URL', 'TEMPORAL_CODEC_ENDPOINT']) {
    const value = env[variable];
    if (value) add(urlEndpoint(value, variable));
  }
  const devPort = port(env.DURABLE_AGENT_DEV_PORT) ?? DEFAULT_DEV_PORT;
  const local = (value: number | undefined, source: string): void => {
    if (value !== undefined) add({ host: HOST, port: value, source });
  };
  local(devPort, 'DURABLE_AGENT_DEV_PORT');
  local(port(env.DURABLE_AGENT_DEV_UI_PORT) ?? devPort + 1000, 'DURABLE_AGENT_DEV_UI_PORT');
  local(port(env.DURABLE_AGENT_DEV_HTTP_PORT), 'DURABLE_AGENT_DEV_HTTP_PORT');
  local(port(env.DURABLE_AGENT_DEV_CODEC_PORT) ?? DEFAULT_DEV_CODEC_PORT, 'DURABLE_AGENT_DEV_CODEC_PORT');
  local(port(env.DURABLE_AGENT_CODEC_PORT), 'DURABLE_AGENT_CODEC_PORT');
  return endpoints;
}

/** `host:port`, `[v6]:port` or a bare host (the default port). */
function hostPort(text: string, defaultPort: number, source: string): ControlPlaneEndpoint | undefined {
  const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(text.trim()) ?? /^([^:/\s]+)(?::(\d+))?$/.exec(text.trim());
  if (!match) return undefined;
  const value = match[2] === undefined ? defaultPort : port(match[2]);
  return value === undefined ? undefined : { host: match[1]!.toLowerCase(), port: value, source };
}

function urlEndpoint(text: string, source: string): ControlPlaneEndpoint | undefined {
  try {
    const url = new URL(text);
    const defaultPort = url.protocol === 'https:' ? 443 : 80;
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    return { host, port: url.port ? Number(url.port) : defaultPort, source };
  } catch {
    return undefined;
  }
}

function port(text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  return Number.isInteger(value) && value >= 1 && value <= 65_535 ? value : undefined;
}
