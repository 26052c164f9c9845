// Node: the network_write rows of docs/tools.md §5.2 for network clients (curl, wget, HTTPie, scp, rsync, ssh, netcat)
// and their approval keys; package managers are in package-managers.ts.
import { isRemoteOperand, remoteHost, urlHost } from './hosts.js';
import {
  CURL_DATA,
  CURL_FORM,
  CURL_READS,
  CURL_REROUTES,
  CURL_WITH_VALUE,
  CURL_WRITES,
  HTTPIE_REROUTES,
  HTTPIE_WITH_VALUE,
  HTTP_METHODS,
  RSYNC_WITH_VALUE,
  SCP_WITH_VALUE,
  SSH_REROUTES,
  SSH_WITH_VALUE,
  WGET_READS,
  WGET_REROUTES,
  WGET_WITH_VALUE,
  WGET_WRITES,
} from './network-client-options.js';
import type { CommandVerdict, PathUse } from './verdict.js';
import { verdict } from './verdict.js';
import type { ParsedArguments, ShellWord } from './words.js';
import { splitShellArguments } from './words.js';

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
      const parsed = splitShellArguments(args, { withValue: CURL_WITH_VALUE });
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
      const parsed = splitShellArguments(args, { withValue: WGET_WITH_VALUE });
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
      const parsed = splitShellArguments(args, { withValue: HTTPIE_WITH_VALUE });
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
      const parsed = splitShellArguments(args, { withValue: name === 'scp' ? SCP_WITH_VALUE : RSYNC_WITH_VALUE });
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
      const parsed = splitShellArguments(args, { withValue: SSH_WITH_VALUE, stopAtFirstPositional: true });
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
      const parsed = splitShellArguments(args, { withValue: ['-p', '-s', '-w', '-i', '-q', '-x', '-X', '-e', '-c'] });
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
  return splitShellArguments(args, { withValue: SSH_WITH_VALUE, stopAtFirstPositional: true }).positionals.length <= 1;
}
