// Node: commands that run other code: a shell (`sh -c` is classified recursively, a shell reading a pipe runs
// whatever arrives) and the build and test runners, auto-allowed `write` by default.
import { BUILD_TOOLS, CARGO_BUILD, GO_BUILD, JS_MANAGERS, JS_SCRIPT_COMMANDS, REPL, SHELLS } from './command-tables.js';
import { moduleArgument } from './package-managers.js';
import type { CommandContext, CommandVerdict } from './verdict.js';
import { readPaths, verdict } from './verdict.js';
import type { ShellWord } from './words.js';
import { splitShellArguments } from './words.js';

/** `sh|bash|zsh|dash -c <script>`: the script is classified recursively; a shell reading a pipe runs whatever arrives. */
export function shellVerdict(
  name: string,
  args: readonly ShellWord[],
  context: CommandContext,
): CommandVerdict | undefined {
  if (!SHELLS.has(name)) return undefined;
  let command = false;
  let index = 0;
  for (; index < args.length; index++) {
    const value = args[index]?.value;
    if (value === undefined) break;
    if (value === '--') {
      index++;
      break;
    }
    if (value === '-o' || value === '+o' || value === '-O' || value === '+O') {
      index++;
      continue;
    }
    if (/^-[A-Za-z]+$/.test(value)) {
      if (value.includes('c')) command = true;
      continue;
    }
    if (value.startsWith('--') || /^\+[A-Za-z]+$/.test(value)) continue;
    break;
  }
  const operand = args[index];
  if (command) {
    if (operand?.value === undefined)
      return verdict('unclassified', 'dynamic_script', `${name} -c with a script only known at run time`);
    return { ...verdict('read_only', 'shell_c', `${name} -c runs its script`), script: operand.value };
  }
  if (operand === undefined) {
    if (context.piped) return verdict('forbidden', 'pipe_to_shell', `piping into ${name} runs whatever arrives`);
    return verdict('unclassified', 'shell_stdin', `${name} runs commands from its input`);
  }
  return verdict('unclassified', 'shell_script', `${name} runs a script file`, readPaths([operand]));
}

/** Build and test runners (auto-allowed `write` by default). */
export function buildVerdict(name: string, args: readonly ShellWord[]): CommandVerdict | undefined {
  const build = (reason: string): CommandVerdict => verdict('write', 'build_test', reason);
  const first = splitShellArguments(args, { stopAtFirstPositional: true }).positionals[0]?.value;
  if (BUILD_TOOLS.has(name)) return build(`${name} builds or tests the project`);
  if (JS_MANAGERS.has(name) && first !== undefined && JS_SCRIPT_COMMANDS.has(first))
    return build(`${name} ${first} runs a project script`);
  if (name === 'npx' && first === 'tsc') return build('npx tsc type-checks the project');
  if (name === 'go' && first !== undefined && GO_BUILD.has(first))
    return build(`go ${first} builds or tests the project`);
  if (name === 'cargo' && first !== undefined && CARGO_BUILD.has(first))
    return build(`cargo ${first} builds or tests the project`);
  if (REPL.test(name) && name.startsWith('python') && moduleArgument(args)?.name === 'pytest')
    return build('pytest runs the tests');
  return undefined;
}
