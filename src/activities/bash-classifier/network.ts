// Node: the network_write rows of C.5.2 (package managers, network clients) and their approval keys.
import type { CommandVerdict, PathUse } from './verdict.js';
import { verdict } from './verdict.js';
import type { ParsedArguments, ShellWord } from './words.js';
import { parseArguments } from './words.js';

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
    const parsed = parseArguments(args, { withValue: JS_WITH_VALUE });
    const sub = parsed.positionals[0]?.value;
    if (sub === undefined)
      return name === 'yarn' && parsed.positionals.length === 0 ? install('yarn install') : undefined;
    if (!JS_NETWORK.has(sub)) return undefined;
    return install(`${name} ${name === 'npm' ? (NPM_CANONICAL[sub] ?? sub) : sub}`);
  }
  if (PYTHON_MANAGER.test(name)) {
    const sub = parseArguments(args, { stopAtFirstPositional: true }).positionals[0]?.value;
    if (sub === undefined) return undefined;
    if (name === 'uv' && (sub === 'pip' || sub === 'tool')) {
      const inner = parseArguments(args.slice(args.findIndex((word) => word.value === sub) + 1)).positionals[0]?.value;
      return inner !== undefined && PYTHON_NETWORK.has(inner) ? install(`uv ${sub}`) : undefined;
    }
    return PYTHON_NETWORK.has(sub) ? install(`${name} ${sub}`) : undefined;
  }
  if (PYTHON_INTERPRETER.test(name)) {
    const module = moduleArgument(args);
    if (module?.name === 'pip') {
      const sub = parseArguments(module.rest).positionals[0]?.value;
      if (sub !== undefined && PYTHON_NETWORK.has(sub)) return install(`pip ${sub}`);
    }
    return undefined;
  }
  const subcommands = SUBCOMMAND_NETWORK[name];
  if (subcommands) {
    const sub = parseArguments(args, { stopAtFirstPositional: true }).positionals[0]?.value;
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

const CURL_WITH_VALUE = [
  '-o',
  '--output',
  '-d',
  '--data',
  '--data-raw',
  '--data-binary',
  '--data-urlencode',
  '--data-ascii',
  '--json',
  '-H',
  '--header',
  '-X',
  '--request',
  '-u',
  '--user',
  '-A',
  '--user-agent',
  '-e',
  '--referer',
  '-b',
  '--cookie',
  '-c',
  '--cookie-jar',
  '-F',
  '--form',
  '--form-string',
  '-T',
  '--upload-file',
  '-x',
  '--proxy',
  '-m',
  '--max-time',
  '--connect-timeout',
  '-w',
  '--write-out',
  '-K',
  '--config',
  '-r',
  '--range',
  '-C',
  '--continue-at',
  '-E',
  '--cert',
  '--key',
  '--cacert',
  '--capath',
  '--retry',
  '--retry-delay',
  '--max-redirs',
  '--url',
  '--resolve',
  '--interface',
  '-U',
  '--proxy-user',
  '--limit-rate',
  '-z',
  '--time-cond',
  '--output-dir',
  '-D',
  '--dump-header',
  '--trace',
  '--trace-ascii',
  '--stderr',
  '--unix-socket',
  '-Q',
  '--quote',
  '--oauth2-bearer',
  '-Y',
  '-y',
];
const CURL_WRITES = new Set([
  '-o',
  '--output',
  '-c',
  '--cookie-jar',
  '-D',
  '--dump-header',
  '--trace',
  '--trace-ascii',
  '--stderr',
  '--output-dir',
]);
const CURL_READS = new Set(['-T', '--upload-file', '-K', '--config', '-E', '--cert', '--key', '--cacert', '--capath']);
const CURL_DATA = new Set(['-d', '--data', '--data-binary', '--data-urlencode', '--data-ascii', '--json']);
const CURL_FORM = new Set(['-F', '--form']);

const WGET_WITH_VALUE = [
  '-O',
  '--output-document',
  '-o',
  '--output-file',
  '-a',
  '--append-output',
  '-P',
  '--directory-prefix',
  '-i',
  '--input-file',
  '-U',
  '--user-agent',
  '--header',
  '-t',
  '--tries',
  '-T',
  '--timeout',
  '-w',
  '--wait',
  '-e',
  '--execute',
  '--post-data',
  '--post-file',
  '--body-file',
  '--body-data',
  '--method',
  '-Q',
  '--quota',
  '-l',
  '--level',
  '--user',
  '--password',
  '--load-cookies',
  '--save-cookies',
  '--certificate',
  '--private-key',
  '--ca-certificate',
  '-D',
  '--domains',
  '-A',
  '--accept',
  '-R',
  '--reject',
  '-X',
  '-I',
  '--limit-rate',
  '-B',
  '--base',
];
const WGET_WRITES = new Set([
  '-O',
  '--output-document',
  '-o',
  '--output-file',
  '-a',
  '--append-output',
  '-P',
  '--directory-prefix',
  '--save-cookies',
]);
const WGET_READS = new Set([
  '-i',
  '--input-file',
  '--post-file',
  '--body-file',
  '--load-cookies',
  '--certificate',
  '--private-key',
  '--ca-certificate',
]);

const HTTPIE_WITH_VALUE = [
  '-a',
  '--auth',
  '-A',
  '--auth-type',
  '-o',
  '--output',
  '--session',
  '--session-read-only',
  '--verify',
  '--cert',
  '--cert-key',
  '--proxy',
  '--timeout',
  '-p',
  '--print',
  '--pretty',
  '-s',
  '--style',
  '--format-options',
  '--max-redirects',
  '--default-scheme',
  '--boundary',
  '--raw',
  '--ssl',
  '--ciphers',
];
const HTTP_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

const SSH_WITH_VALUE = [
  '-b',
  '-c',
  '-D',
  '-E',
  '-e',
  '-F',
  '-I',
  '-i',
  '-J',
  '-L',
  '-l',
  '-m',
  '-O',
  '-o',
  '-p',
  '-Q',
  '-R',
  '-S',
  '-W',
  '-w',
  '-B',
];
const SCP_WITH_VALUE = ['-c', '-F', '-i', '-J', '-l', '-o', '-P', '-S', '-X'];
const RSYNC_WITH_VALUE = [
  '-e',
  '--rsh',
  '--rsync-path',
  '--exclude',
  '--include',
  '--exclude-from',
  '--include-from',
  '--files-from',
  '-f',
  '--filter',
  '--partial-dir',
  '--temp-dir',
  '-T',
  '--log-file',
  '--password-file',
  '--chmod',
  '--chown',
  '--max-size',
  '--min-size',
  '--bwlimit',
  '--timeout',
  '--contimeout',
  '--port',
  '--address',
  '--out-format',
  '--backup-dir',
  '--suffix',
  '--compare-dest',
  '--copy-dest',
  '--link-dest',
  '--info',
  '--debug',
  '-M',
  '--remote-option',
  '--iconv',
];

/** `host:path`, `user@host:path`, `host::module` or `rsync://…`: a remote operand of scp/rsync. */
function isRemoteOperand(value: string | undefined): boolean {
  if (value === undefined) return false;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return true;
  const colon = value.indexOf(':');
  const slash = value.indexOf('/');
  return colon > 0 && (slash === -1 || colon < slash);
}

const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443', ftp: '21', ssh: '22', git: '9418' };
const HOST_PORT = /^(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)(?::(\d{1,5}))?$/;

/**
 * The host of a URL operand (`https://example.com/x`, `example.com:8080/x`, `:3000` for localhost), lower-case, with its
 * port when it is not the scheme's default; undefined when it is not one. The authority is read with a strict grammar
 * rather than a URL parser, so a spelling two parsers disagree on (`a.com\@b.com`, `{a,b}.com`, `[1-3].x`) is no host.
 */
export function urlHost(value: string | undefined): string | undefined {
  if (value === undefined || value === '' || /[\\\s{}]/.test(value)) return undefined;
  const match = /^(?:([a-z][a-z0-9+.-]*):\/\/)?([^/?#]*)/i.exec(value.startsWith(':') ? `localhost${value}` : value);
  if (!match) return undefined;
  const scheme = match[1]?.toLowerCase() ?? 'http';
  const authority = match[2] ?? '';
  const userinfo = authority.split('@');
  if (userinfo.length > 2) return undefined;
  const hostPort = HOST_PORT.exec((userinfo[userinfo.length - 1] ?? '').toLowerCase());
  if (!hostPort) return undefined;
  const [, host, port] = hostPort;
  return port === undefined || port === DEFAULT_PORTS[scheme] ? host : `${host}:${port}`;
}

/** `user@host:path`, `host::module`, `rsync://host/…`: the host of an scp/rsync remote operand. */
export function remoteHost(value: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return urlHost(value);
  const colon = value.indexOf(':');
  const authority = value.slice(0, colon);
  const at = authority.lastIndexOf('@');
  return urlHost(at === -1 ? authority : authority.slice(at + 1));
}

/** A verdict whose key names the command and every host it reaches, sorted; without hosts there is no key. */
function hostKeyed(
  name: string,
  hosts: readonly (string | undefined)[],
  paths: PathUse[],
  reason: string,
): CommandVerdict {
  const base = verdict('network_write', 'network', reason, paths);
  if (hosts.length === 0 || hosts.some((host) => host === undefined)) return base;
  const unique = [...new Set(hosts as string[])].sort();
  return { ...base, approvalKey: `${name} ${unique.join(' ')}`, hosts: unique };
}

const optionPaths = (parsed: ParsedArguments, writes: ReadonlySet<string>, reads: ReadonlySet<string>): PathUse[] => {
  const paths: PathUse[] = [];
  for (const option of parsed.options) {
    if (!option.value || option.value.value === '-') continue;
    if (writes.has(option.name)) paths.push({ word: option.value, write: true });
    else if (reads.has(option.name)) paths.push({ word: option.value });
  }
  return paths;
};

/** `@file` (and `<file` for forms) inside a curl data or form value: a file curl reads and sends. */
function curlDataFiles(parsed: ParsedArguments): PathUse[] {
  const paths: PathUse[] = [];
  for (const option of parsed.options) {
    const value = option.value?.value;
    if (!option.value || value === undefined) continue;
    let file: string | undefined;
    if (CURL_DATA.has(option.name) && value.startsWith('@')) file = value.slice(1);
    if (CURL_FORM.has(option.name)) file = /^[^=]*=[@<]([^;]+)/.exec(value)?.[1];
    if (file !== undefined && file !== '-' && file !== '')
      paths.push({ word: { ...option.value, value: file, glob: false } });
  }
  return paths;
}

/** curl options that send it somewhere the URL operands do not say (a proxy, another address, a socket, a config). */
const CURL_REROUTES = new Set([
  '-K',
  '--config',
  '-x',
  '--proxy',
  '--preproxy',
  '--noproxy',
  '--resolve',
  '--connect-to',
  '--unix-socket',
  '--abstract-unix-socket',
  '--interface',
  '--dns-servers',
  '--doh-url',
  '-:',
  '--next',
  '--proxy1.0',
  '--socks4',
  '--socks4a',
  '--socks5',
  '--socks5-hostname',
]);
const WGET_REROUTES = new Set([
  '-i',
  '--input-file',
  '-e',
  '--execute',
  '-H',
  '--span-hosts',
  '-B',
  '--base',
  '--config',
]);
const HTTPIE_REROUTES = new Set(['--proxy']);
/** ssh-family options that run a local program or reach another host than the operand (`-o ProxyCommand=…`). */
const SSH_REROUTES = new Set(['-o', '-F', '-J', '-W', '-S', '-D', '-L', '-R', '-e', '--rsh', '--rsync-path', '-M']);

const rerouted = (parsed: ParsedArguments, options: ReadonlySet<string>): boolean =>
  parsed.options.some(
    (option) =>
      options.has(option.name) ||
      // a short cluster (`-sx`) ending in a rerouting letter takes the next word as its value
      (/^-[A-Za-z]{2,}$/.test(option.name) && [...option.name.slice(1)].some((letter) => options.has(`-${letter}`))),
  );

/**
 * The network_write rows for network clients. The approval key names the command and every host the line gives it
 * (`curl a.com b.com`), so approving it covers exactly those hosts; a client whose hosts cannot all be read off the
 * words (a dynamic URL, a config file, a proxy or resolve option) gets no key and asks every time.
 */
export function networkVerdict(name: string, args: readonly ShellWord[]): CommandVerdict | undefined {
  switch (name) {
    case 'curl': {
      const parsed = parseArguments(args, { withValue: CURL_WITH_VALUE });
      const urls = [
        ...parsed.options.filter((option) => option.name === '--url').map((option) => option.value),
        ...parsed.positionals,
      ];
      const hosts = rerouted(parsed, CURL_REROUTES) ? [undefined] : urls.map((word) => urlHost(word?.value));
      const paths = [...optionPaths(parsed, CURL_WRITES, CURL_READS), ...curlDataFiles(parsed)];
      const known = hosts.length > 0 && hosts.every((host) => host !== undefined);
      return hostKeyed(name, hosts, paths, known ? `curl reaches ${hosts.join(', ')}` : 'curl reaches the network');
    }
    case 'wget': {
      const parsed = parseArguments(args, { withValue: WGET_WITH_VALUE });
      const hosts = rerouted(parsed, WGET_REROUTES)
        ? [undefined]
        : parsed.positionals.map((word) => urlHost(word.value));
      const known = hosts.length > 0 && hosts.every((host) => host !== undefined);
      const reason = known ? `wget reaches ${hosts.join(', ')}` : 'wget reaches the network';
      return hostKeyed(name, hosts, optionPaths(parsed, WGET_WRITES, WGET_READS), reason);
    }
    case 'http':
    case 'https':
    case 'httpie': {
      const parsed = parseArguments(args, { withValue: HTTPIE_WITH_VALUE });
      const operands = parsed.positionals.filter((word) => !HTTP_METHODS.has(word.value ?? ''));
      const paths = optionPaths(parsed, new Set(['-o', '--output']), new Set());
      for (const item of operands.slice(1)) {
        const file = /^[^=:@]+(?:=|:=)?@(.+)$/.exec(item.value ?? '')?.[1];
        if (file !== undefined) paths.push({ word: { ...item, value: file, glob: false } });
      }
      const hosts = rerouted(parsed, HTTPIE_REROUTES) || !operands[0] ? [undefined] : [urlHost(operands[0].value)];
      return hostKeyed(name, hosts, paths, `${name} reaches the network`);
    }
    case 'scp':
    case 'rsync': {
      const parsed = parseArguments(args, { withValue: name === 'scp' ? SCP_WITH_VALUE : RSYNC_WITH_VALUE });
      if (!parsed.positionals.some((word) => isRemoteOperand(word.value))) return undefined;
      const local = parsed.positionals.filter((word) => !isRemoteOperand(word.value));
      const remote = parsed.positionals.filter((word) => isRemoteOperand(word.value));
      const hosts = rerouted(parsed, SSH_REROUTES) ? [undefined] : remote.map((word) => remoteHost(word.value ?? ''));
      return hostKeyed(
        name,
        hosts,
        local.map((word) => ({ word })),
        `${name} copies to or from another host`,
      );
    }
    case 'ssh': {
      const parsed = parseArguments(args, { withValue: SSH_WITH_VALUE, stopAtFirstPositional: true });
      if (parsed.positionals.length <= 1) return undefined;
      const target = parsed.positionals[0]?.value ?? '';
      const host = rerouted(parsed, SSH_REROUTES) ? undefined : urlHost(target.slice(target.lastIndexOf('@') + 1));
      const port = parsed.options.find((option) => option.name === '-p')?.value?.value;
      const hostPort =
        host !== undefined && port !== undefined ? (/^\d{1,5}$/.test(port) ? `${host}:${port}` : undefined) : host;
      return hostKeyed(name, [hostPort], [], 'ssh runs a command on another host');
    }
    case 'nc':
    case 'ncat':
    case 'netcat': {
      // Only `nc host port` names where it goes; listening, proxies and `-e`/`-c` programs do not.
      const parsed = parseArguments(args, { withValue: ['-p', '-s', '-w', '-i', '-q', '-x', '-X', '-e', '-c'] });
      const [host, port] = parsed.positionals.map((word) => word.value);
      const plain = parsed.options.every((option) => ['-v', '-n', '-z', '-w', '-q', '-N'].includes(option.name));
      const address = plain && parsed.positionals.length === 2 ? urlHost(host) : undefined;
      const named =
        address !== undefined && !address.includes(':') && port !== undefined && /^\d{1,5}$/.test(port)
          ? `${address}:${port}`
          : undefined;
      return hostKeyed(name, [named], [], `${name} opens network connections`);
    }
    default:
      return undefined;
  }
}

/** `ssh host` with no remote command opens an interactive session. */
export function isInteractiveSsh(args: readonly ShellWord[]): boolean {
  return parseArguments(args, { withValue: SSH_WITH_VALUE, stopAtFirstPositional: true }).positionals.length <= 1;
}
