// Node: the in-sandbox half of an approved command's network. The sandbox has its own network namespace with nothing
// but a loopback; a small Node relay (the worker's own node binary, bound in read-only) listens on 127.0.0.1 there,
// forwards every connection to the proxy's UNIX socket bound into the sandbox, and runs the command with the proxy
// variables set. It writes nothing to the command's stdout or stderr and exits with the command's status (128 + the
// signal when it was killed). Programs that ignore the proxy variables have no network at all.

/** Where the proxy's socket appears inside the sandbox (in the command's private /tmp). */
export const SANDBOX_PROXY_SOCKET = '/tmp/.durable-agent-network-proxy.sock';

/** What an approved network command's sandbox gets bound in. */
export interface SandboxNetwork {
  /** The proxy's socket on the host. */
  proxySocket: string;
  /** The node binary that runs the relay (the worker's own, visible even when it lives in the hidden home). */
  relayExecutable: string;
}

/** The proxy variables a command gets, upper- and lower-case, so curl, git, pip, npm, cargo and Go all use them. */
export const PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY'] as const;

// Plain CommonJS for `node -e`, so it runs the same from the TypeScript sources and from the build. Arguments: the
// socket, then the command. The command stays in the relay's process group, so the worker's signals (sent to the whole
// group on timeout and cancellation) reach it directly and at once, exactly as without a relay; a relay passing them
// on would lose the race against bwrap's own exit. The relay only outlives them, to report the command's status.
const RELAY_SOURCE = String.raw`'use strict';
const net = require('node:net');
const { spawn } = require('node:child_process');
const { constants } = require('node:os');
const [socketPath, file, ...args] = process.argv.slice(1);
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR2']) process.on(signal, () => {});
const server = net.createServer({ allowHalfOpen: true }, (client) => {
  const upstream = net.connect({ path: socketPath, allowHalfOpen: true });
  const cut = () => { client.destroy(); upstream.destroy(); };
  client.on('error', cut).on('close', cut);
  upstream.on('error', cut).on('close', cut);
  client.pipe(upstream);
  upstream.pipe(client);
});
server.on('error', (error) => {
  process.stderr.write('network relay: ' + error.message + '\n');
  process.exit(125);
});
server.listen(0, '127.0.0.1', () => {
  const proxy = 'http://127.0.0.1:' + server.address().port;
  const env = { ...process.env, NO_PROXY: '', no_proxy: '' };
  for (const name of ${JSON.stringify(PROXY_VARIABLES)}) env[name] = env[name.toLowerCase()] = proxy;
  const child = spawn(file, args, { stdio: 'inherit', env });
  child.on('error', (error) => {
    process.stderr.write('network relay: cannot run ' + file + ': ' + error.message + '\n');
    process.exit(127);
  });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
});
`;

/** bwrap's arguments that bind the proxy's socket and the relay's node into the sandbox (after its /tmp and home). */
export function networkBindings(network: SandboxNetwork | false): string[] {
  if (!network) return [];
  return [
    '--ro-bind',
    network.relayExecutable,
    network.relayExecutable,
    '--bind',
    network.proxySocket,
    SANDBOX_PROXY_SOCKET,
  ];
}

/** The command line that runs `command` behind the relay inside the sandbox. */
export function relayCommand(network: SandboxNetwork, command: readonly string[]): string[] {
  return [network.relayExecutable, '-e', RELAY_SOURCE, '--', SANDBOX_PROXY_SOCKET, ...command];
}
