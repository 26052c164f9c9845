// The CLI as a user runs it, for the CLI sections of the bench: the compiled CLI in dist/ (built if stale), a fresh
// process per command, the embedded dev server and its background worker in a state directory and ports of their own,
// no API key and no TEMPORAL_ADDRESS inherited from the shell that runs the bench.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { findTemporalBinary } from '../src/host/temporal-binary.js';
import { buildCliIfStale } from '../test/support/cli-build.js';
import { findFreePorts } from '../test/support/ports.js';

export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(repositoryRoot, 'bin', 'durable-agent.js');

/** What a finished command printed. */
export interface Output {
  stdout: string;
  stderr: string;
}

/** The CLI's environment and the commands that run the CLI and the Temporal CLI in it. */
export interface CliEnv {
  state: string;
  /** The embedded server's gRPC address. */
  address: string;
  /** The Temporal CLI's path. */
  temporal: string;
  env: Record<string, string | undefined>;
  /** `durable-agent ARGS` in a fresh process; throws unless it exits 0 from the compiled CLI. */
  cli: (args: string[]) => Promise<Output>;
  /** FILE ARGS in a fresh process of the same environment (`extraEnv` on top); throws unless it exits 0. */
  run: (file: string, args: string[], extraEnv?: Record<string, string>) => Promise<Output>;
  /** FILE ARGS started in the environment and not awaited, so its output can be read as it comes; never rejects. */
  spawn: ReturnType<typeof spawnIn>;
  /** The CLI's bin, to `spawn` with the Node running the bench. */
  bin: string;
}

function spawnIn(env: Record<string, string | undefined>) {
  return (file: string, args: string[], extraEnv: Record<string, string> = {}) =>
    execa(file, args, {
      cwd: repositoryRoot,
      env: { ...env, ...extraEnv },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
}

/** Builds the CLI if stale, starts the embedded server and worker (`dev-server`), runs `body`, stops them. */
export async function withCliEnv<T>(log: (line: string) => void, body: (cli: CliEnv) => Promise<T>): Promise<T> {
  // The bench measures what users run: the compiled CLI, built from these sources.
  await buildCliIfStale(log);
  const state = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-bench-cli-'));
  const [port, uiPort, codecPort] = (await findFreePorts(3)) as [number, number, number];
  // The scripted model needs no API key; a key or address of the shell running the bench is not the user's setup.
  const { OPENAI_API_KEY: _key, TEMPORAL_ADDRESS: _address, ...inherited } = process.env;
  const env = {
    ...inherited,
    DURABLE_AGENT_STATE_DIR: state,
    DURABLE_AGENT_DEV_PORT: String(port),
    DURABLE_AGENT_DEV_UI_PORT: String(uiPort),
    DURABLE_AGENT_DEV_CODEC_PORT: String(codecPort),
    NO_COLOR: '1',
  };
  const spawn = spawnIn(env);
  const cli = async (args: string[]): Promise<Output> => {
    const result = await spawn(process.execPath, [bin, ...args]);
    // A source changed since the build makes the bin run the sources through tsx (and say so): not what is measured.
    if (result.exitCode !== 0 || result.stderr.includes('running the TypeScript sources'))
      throw new Error(`durable-agent ${args.join(' ')} (exit ${result.exitCode}): ${result.stderr || result.stdout}`);
    return result;
  };
  const run = async (file: string, args: string[], extraEnv: Record<string, string> = {}): Promise<Output> => {
    const result = await spawn(file, args, extraEnv);
    if (result.exitCode !== 0) throw new Error(`${file} ${args.join(' ')} (exit ${result.exitCode}): ${result.stderr}`);
    return result;
  };
  try {
    await cli(['dev-server']);
    const temporal = (await findTemporalBinary({ build: true, log })).path;
    return await body({ state, address: `127.0.0.1:${port}`, temporal, env, cli, run, spawn, bin });
  } finally {
    await spawn(process.execPath, [bin, 'dev-server', '--stop']).catch(() => undefined);
    await rm(state, { recursive: true, force: true });
  }
}
