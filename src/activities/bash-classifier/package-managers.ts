// Node: the first network_write row of docs/tools.md §5.2: package managers that download or publish, with an approval
// key that names the manager and its subcommand in one spelling.
import type { CommandVerdict } from './verdict.js';
import { verdict } from './verdict.js';
import type { ShellWord } from './words.js';
import { splitShellArguments } from './words.js';

const JS_MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
const JS_NETWORK = new Set([
  'install',
  'i',
  'in',
  'isntall',
  'add',
  'ci',
  'clean-install',
  'install-test',
  'it',
  'update',
  'up',
  'upgrade',
  'publish',
  'unpublish',
  'login',
  'adduser',
]);
const JS_WITH_VALUE = [
  '--prefix',
  '-C',
  '--dir',
  '--cwd',
  '-w',
  '--workspace',
  '--filter',
  '-F',
  '--registry',
  '--userconfig',
  '--cache',
  '--loglevel',
];
// npm spells one command several ways; the approval key uses one spelling so an approval covers all of them.
const NPM_CANONICAL: Record<string, string> = {
  i: 'install',
  in: 'install',
  isntall: 'install',
  add: 'install',
  it: 'install-test',
  'clean-install': 'ci',
  up: 'update',
  upgrade: 'update',
  adduser: 'login',
};

const PYTHON_MANAGER = /^(pip\d*(\.\d+)?|uv|poetry)$/;
const PYTHON_NETWORK = new Set(['install', 'add', 'sync', 'download', 'upload']);
const PYTHON_INTERPRETER = /^python(\d+(\.\d+)?)?$/;

const SUBCOMMAND_NETWORK: Record<string, ReadonlySet<string>> = {
  cargo: new Set(['install', 'publish', 'add', 'update']),
  go: new Set(['get', 'install']),
  gem: new Set(['install']),
  brew: new Set(['install']),
  apt: new Set(['install']),
  'apt-get': new Set(['install']),
  yum: new Set(['install']),
  dnf: new Set(['install']),
};

/** First row of the network_write table: package managers that download or publish. */
export function packageManagerVerdict(name: string, args: readonly ShellWord[]): CommandVerdict | undefined {
  const install = (key: string): CommandVerdict => ({
    ...verdict('network_write', 'package_install', `${key} downloads or publishes packages`),
    approvalKey: key,
  });
  if (JS_MANAGERS.has(name)) {
    const parsed = splitShellArguments(args, { withValue: JS_WITH_VALUE });
    const sub = parsed.positionals[0]?.value;
    if (sub === undefined)
      return name === 'yarn' && parsed.positionals.length === 0 ? install('yarn install') : undefined;
    if (!JS_NETWORK.has(sub)) return undefined;
    return install(`${name} ${name === 'npm' ? (NPM_CANONICAL[sub] ?? sub) : sub}`);
  }
  if (PYTHON_MANAGER.test(name)) {
    const sub = splitShellArguments(args, { stopAtFirstPositional: true }).positionals[0]?.value;
    if (sub === undefined) return undefined;
    if (name === 'uv' && (sub === 'pip' || sub === 'tool')) {
      const inner = splitShellArguments(args.slice(args.findIndex((word) => word.value === sub) + 1)).positionals[0]
        ?.value;
      return inner !== undefined && PYTHON_NETWORK.has(inner) ? install(`uv ${sub}`) : undefined;
    }
    return PYTHON_NETWORK.has(sub) ? install(`${name} ${sub}`) : undefined;
  }
  if (PYTHON_INTERPRETER.test(name)) {
    const module = moduleArgument(args);
    if (module?.name === 'pip') {
      const sub = splitShellArguments(module.rest).positionals[0]?.value;
      if (sub !== undefined && PYTHON_NETWORK.has(sub)) return install(`pip ${sub}`);
    }
    return undefined;
  }
  const subcommands = SUBCOMMAND_NETWORK[name];
  if (subcommands) {
    const sub = splitShellArguments(args, { stopAtFirstPositional: true }).positionals[0]?.value;
    if (sub !== undefined && subcommands.has(sub)) return install(`${name} ${sub}`);
  }
  return undefined;
}

/** `python -m <module> rest…`: the module and what follows it. */
export function moduleArgument(args: readonly ShellWord[]): { name: string; rest: ShellWord[] } | undefined {
  for (let index = 0; index < args.length; index++) {
    const value = args[index]?.value;
    if (value === undefined) return undefined;
    if (value === '-m') {
      const module = args[index + 1]?.value;
      return module === undefined ? undefined : { name: module, rest: args.slice(index + 2) };
    }
    if (value.startsWith('-m') && value.length > 2) return { name: value.slice(2), rest: args.slice(index + 1) };
    if (!value.startsWith('-')) return undefined;
  }
  return undefined;
}
