// Node: how a stdio MCP server is started — program, arguments, environment, working directory. The operator's servers
// (the worker's file) run as the worker, outside the command sandbox, so nothing the model can write is on their
// working directory or import path unless the operator's file names it. A run's servers run in the command sandbox,
// offline, with the environment commands get and none of the worker's own settings or keys (docs/security.md).
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import { envPassRefusal } from '../../core/env-pass.js';
import type { McpStdioServer } from '../../protocol/mcp.js';
import { McpConfigError, stdioCommandProblem } from '../../core/mcp-servers.js';
import { commandEnvironment } from '../executors/command-environment.js';
import type { CommandSandbox } from '../sandbox/command-sandbox.js';
import { sandboxedCommand } from '../sandbox/command-sandbox.js';

/** Whose configuration a server comes from: the worker's operator, or the run. */
export type McpServerSource = 'worker' | 'run';

/** What the worker starts a stdio server with. */
export interface StdioLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Removes the server's own empty directory once the server is gone. */
  cleanup: () => Promise<void>;
}

/** What starting a server depends on besides its settings. */
export interface StdioLaunchContext {
  source: McpServerSource;
  /** The run's workspace (real path): a run's server may write there, and no inherited search path may point there. */
  workspace: string;
  /** The worker's environment. */
  env: NodeJS.ProcessEnv;
  /** The sandbox commands run in; a run's servers run in it too. */
  sandbox: CommandSandbox;
  /** The worker's data directory: each server's default working directory is a fresh empty one under it. */
  dataDir: string;
}

/**
 * Search-path variables (`:`-separated) whose entries name where programs and modules are loaded from. What the worker
 * hands on from its own environment loses every entry that is relative (found from the server's working directory) or
 * inside the workspace; values the server's own `env` sets are the operator's words and kept as written.
 */
export const SEARCH_PATH_VARIABLES: readonly string[] = [
  'PATH',
  'PYTHONPATH',
  'PYTHONHOME',
  'PYTHONSTARTUP',
  'PYTHONUSERBASE',
  'NODE_PATH',
  'PERL5LIB',
  'PERLLIB',
  'RUBYLIB',
  'CLASSPATH',
  'LD_LIBRARY_PATH',
  'LD_PRELOAD',
  'BASH_ENV',
  'ENV',
];

/** Where the servers' empty working directories are made: `<data dir>/mcp`. */
export function mcpScratchRoot(dataDir: string): string {
  return path.join(path.resolve(dataDir), 'mcp');
}

/** The program, arguments, environment and working directory of `config`, a server of `name`, for this workspace. */
export async function stdioLaunch(
  name: string,
  config: McpStdioServer,
  context: StdioLaunchContext,
): Promise<StdioLaunch> {
  const problem = stdioCommandProblem(name, config);
  if (problem) throw new McpConfigError(problem);
  const sandboxed = context.source === 'run' && context.sandbox.kind === 'bubblewrap';
  const root = mcpScratchRoot(context.dataDir);
  await mkdir(root, { recursive: true, mode: 0o700 });
  const scratch = await mkdtemp(path.join(root, 'cwd-'));
  const cleanup = () => rm(scratch, { recursive: true, force: true });
  try {
    const realScratch = await realpath(scratch);
    // A directory inside the workspace (a worker whose data directory is in it) is one the model can write to.
    if (!sandboxed && config.cwd === undefined && isInside(realScratch, context.workspace)) {
      throw new McpConfigError(
        `mcpServers.${name}: the worker's data directory (${context.dataDir}) is inside the run's workspace, so the ` +
          `server would start where the model writes; give the server a cwd, or move the worker's state directory ` +
          `(DURABLE_AGENT_STATE_DIR) out of the workspace`,
      );
    }
    const inherited = await inheritedEnvironment(context, { sandboxed, scratch: realScratch });
    const env = { ...inherited, ...(config.env ?? {}) };
    if (sandboxed) {
      const { file, args } = sandboxedCommand(context.sandbox, [config.command, ...(config.args ?? [])], {
        root: context.workspace,
        // The sandbox's own /tmp, empty and discarded with the server; bwrap itself starts in the scratch directory.
        cwd: config.cwd ?? '/tmp',
        network: false,
        // The worker's PATH decides which toolchains under its home the sandbox shows, never the run's `env`: a run's
        // PATH of `~/.ssh` would otherwise have it mounted.
        pathVariable: inherited.PATH,
      });
      return { command: file, args, env, cwd: realScratch, cleanup };
    }
    return { command: config.command, args: config.args ?? [], env, cwd: config.cwd ?? realScratch, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/**
 * What the server inherits, before its own `env`: what commands get (the allowlist and the operator's
 * DURABLE_AGENT_ENV_PASS names), with search paths cleaned. The operator's servers keep the worker's HOME (their caches
 * where they usually are); a run's get their own HOME and none of the worker's settings or keys.
 */
async function inheritedEnvironment(
  context: StdioLaunchContext,
  where: { sandboxed: boolean; scratch: string },
): Promise<Record<string, string>> {
  const inherited = commandEnvironment(context.env);
  // The SDK adds the worker process's own PATH and HOME to whatever it is given, so both are always set here.
  const processEnv = process.env;
  inherited.PATH ??= context.env.PATH ?? processEnv.PATH ?? '';
  for (const variable of SEARCH_PATH_VARIABLES) {
    const value = inherited[variable];
    if (value !== undefined) inherited[variable] = await withoutWorkspaceEntries(value, context.workspace);
  }
  if (context.source === 'run') {
    for (const variable of Object.keys(inherited))
      if (envPassRefusal(variable) !== undefined) delete inherited[variable];
    inherited.HOME = where.sandboxed ? '/tmp' : where.scratch;
    if (where.sandboxed) inherited.TMPDIR = '/tmp';
  } else {
    const home = context.env.HOME ?? processEnv.HOME;
    if (home !== undefined) inherited.HOME = home;
  }
  return inherited;
}

/** `value`'s `:`-separated entries without the relative ones (empty means the cwd) and those inside `workspace`. */
async function withoutWorkspaceEntries(value: string, workspace: string): Promise<string> {
  const kept: string[] = [];
  for (const entry of value.split(path.delimiter)) {
    if (!path.isAbsolute(entry)) continue;
    if (isInside(await nearestRealPath(entry), workspace)) continue;
    kept.push(entry);
  }
  return kept.join(path.delimiter);
}

/** The real path of `target`, or of its nearest existing ancestor with the rest appended (links resolved either way). */
async function nearestRealPath(target: string): Promise<string> {
  const rest: string[] = [];
  let current = path.resolve(target);
  for (;;) {
    try {
      return path.join(await realpath(current), ...rest.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return path.resolve(target);
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

function isInside(target: string, root: string): boolean {
  const relative = path.relative(root, target);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}
