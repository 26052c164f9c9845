import { describe, expect, it } from 'vitest';
import {
  McpConfigError,
  expandMcpServer,
  parseMcpConfig,
  referencedVariables,
  stdioCommandProblem,
} from '../../src/core/mcp-servers.js';

const parse = (mcpServers: unknown) => parseMcpConfig({ mcpServers }, 'mcp.json');

describe('parseMcpConfig', () => {
  it('reads stdio and Streamable HTTP servers in the .mcp.json shape', () => {
    expect(
      parse({
        fs: { command: 'npx', args: ['-y', 'server'], env: { A: '1' }, cwd: '/srv' },
        api: { type: 'http', url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
        plain: { url: 'http://localhost:3001/mcp' },
        typed: { type: 'stdio', command: 'server' },
      }),
    ).toEqual({
      fs: { command: 'npx', args: ['-y', 'server'], env: { A: '1' }, cwd: '/srv' },
      api: { type: 'http', url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
      plain: { type: 'http', url: 'http://localhost:3001/mcp' },
      typed: { type: 'stdio', command: 'server' },
    });
  });

  it.each([
    [{ fs: { command: 'node', argz: [] } }, 'mcp.json: mcpServers.fs: unknown field "argz"'],
    [{ fs: { args: ['x'] } }, 'mcp.json: mcpServers.fs.command:'],
    [{ fs: { command: 'node', args: ['ok', 3] } }, 'mcp.json: mcpServers.fs.args[1]:'],
    [{ fs: { command: 'node', env: { A: 1 } } }, 'mcp.json: mcpServers.fs.env.A:'],
    [{ api: { type: 'http', url: 'x', command: 'y' } }, 'mcp.json: mcpServers.api: unknown field "command"'],
    [{ api: { type: 'sse', url: 'x' } }, 'mcp.json: mcpServers.api.type: the SSE transport is not supported'],
    [{ api: { type: 'ws', url: 'x' } }, 'mcp.json: mcpServers.api.type: expected "stdio" or "http", got "ws"'],
    [{ 'bad name': { command: 'x' } }, 'mcp.json: server name "bad name" must be'],
    [{ fs: 'npx server' }, 'mcp.json: mcpServers.fs: expected an object'],
  ])('names the server and the field of a bad entry: %j', (servers, message) => {
    expect(() => parse(servers)).toThrow(McpConfigError);
    expect(() => parse(servers)).toThrow(message);
  });

  it('refuses a file without mcpServers', () => {
    expect(() => parseMcpConfig({ servers: {} }, 'x.json')).toThrow('x.json: expected an object with "mcpServers"');
  });
});

describe('expandMcpServer', () => {
  const env = { TOKEN: 'secret', HOST: 'mcp.example', EMPTY: '' };

  it('fills in ${VAR} and ${VAR:-default} in every string field', () => {
    expect(
      expandMcpServer(
        'api',
        { type: 'http', url: 'https://${HOST}:${PORT:-443}/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
        { env },
      ),
    ).toEqual({ type: 'http', url: 'https://mcp.example:443/mcp', headers: { Authorization: 'Bearer secret' } });
    expect(
      expandMcpServer(
        'fs',
        { command: '${BIN:-node}', args: ['--token=${TOKEN}'], env: { T: '${TOKEN}', E: '${EMPTY:-fallback}' } },
        { env },
      ),
    ).toEqual({ command: 'node', args: ['--token=secret'], env: { T: 'secret', E: 'fallback' } });
  });

  it('names the server, field and variable that is not set', () => {
    expect(() => expandMcpServer('fs', { command: 'x', args: ['a', '${MISSING}'] }, { env })).toThrow(
      'mcpServers.fs.args[1]: ${MISSING} is not set on the worker.',
    );
  });

  it('refuses the variables the scope refuses, even when they are set', () => {
    const refuse = (name: string) => (name === 'TOKEN' ? 'not for runs' : undefined);
    expect(() =>
      expandMcpServer('api', { type: 'http', url: 'x', headers: { a: '${TOKEN}' } }, { env, refuse }),
    ).toThrow('mcpServers.api.headers.a: not for runs.');
  });

  it("fills in ${workspaceFolder} with the run's workspace, never from the environment; keeps it before a run", () => {
    const server = {
      command: 'git-server',
      args: ['--repository', '${workspaceFolder}'],
      cwd: '${workspaceFolder}/sub',
    };
    const worker = { env: { workspaceFolder: '/from/the/environment' }, workspace: '/work/repo' };
    expect(expandMcpServer('git', server, worker)).toEqual({
      command: 'git-server',
      args: ['--repository', '/work/repo'],
      cwd: '/work/repo/sub',
    });
    expect(expandMcpServer('git', server, { env: {} })).toEqual(server);
    expect(referencedVariables(server)).toEqual([]);
  });

  it('refuses a relative command with a directory in it unless the server has a cwd', () => {
    expect(stdioCommandProblem('s', { command: './server.py' })).toMatch(
      /mcpServers.s.command: ".\/server.py" is a relative path/,
    );
    expect(stdioCommandProblem('s', { command: 'node_modules/.bin/x' })).toMatch(/\$\{workspaceFolder\}/);
    expect(stdioCommandProblem('s', { command: './server.py', cwd: '/srv' })).toBeUndefined();
    expect(stdioCommandProblem('s', { command: 'python3' })).toBeUndefined();
    expect(stdioCommandProblem('s', { command: '/usr/bin/python3' })).toBeUndefined();
  });

  it('lists the variables a server refers to', () => {
    expect(referencedVariables({ command: '${A}', args: ['${B:-x}', '${A}'], env: { k: '${C}' } })).toEqual([
      'A',
      'B',
      'C',
    ]);
    expect(referencedVariables({ type: 'http', url: 'http://${H}/mcp', headers: { a: '$NOT ${D}' } })).toEqual([
      'H',
      'D',
    ]);
  });
});
