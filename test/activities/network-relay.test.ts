// The sandbox side of an approved command's network: still its own network namespace, the proxy's socket and the
// relay's node bound in after the private /tmp and the hidden home, and the command run behind the relay.
import { describe, expect, it } from 'vitest';
import { bubblewrapArguments } from '../../src/activities/sandbox/bubblewrap-arguments.js';
import { relayCommand, SANDBOX_PROXY_SOCKET } from '../../src/activities/sandbox/network-relay.js';

const network = {
  proxySocket: '/tmp/durable-agent-network-x/proxy.sock',
  relayExecutable: '/home/agent/.nvm/bin/node',
};
const layout = {
  root: '/work/project',
  cwd: '/work/project',
  network,
  workerHome: '/home/agent',
  pathDirectories: ['/usr/bin'],
  hiddenDirectories: [],
  hiddenFiles: [],
};

describe('an approved network command in bubblewrap', () => {
  it('keeps its own network namespace and gets the socket and the node binary bound in after /tmp and the home', () => {
    const args = bubblewrapArguments(layout);
    expect(args).toContain('--unshare-net');
    const joined = args.join(' ');
    const socket = joined.indexOf(`--bind ${network.proxySocket} ${SANDBOX_PROXY_SOCKET}`);
    const node = joined.indexOf(`--ro-bind ${network.relayExecutable} ${network.relayExecutable}`);
    expect(socket).toBeGreaterThan(joined.indexOf('--tmpfs /tmp'));
    expect(node).toBeGreaterThan(joined.indexOf('--tmpfs /home/agent'));
    expect(bubblewrapArguments({ ...layout, network: false }).join(' ')).not.toContain(network.proxySocket);
  });

  it('runs the command behind the relay, with the socket inside the sandbox', () => {
    const command = relayCommand(network, ['bash', '-c', 'curl x']);
    expect(command.slice(0, 2)).toEqual([network.relayExecutable, '-e']);
    expect(command.slice(3)).toEqual(['--', SANDBOX_PROXY_SOCKET, 'bash', '-c', 'curl x']);
  });
});
