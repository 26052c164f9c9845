// Node: the host a network client's operand names (a URL, `host:port`, an scp/rsync remote), read with a strict
// grammar so that an approval names exactly where the command goes.

/** `host:path`, `user@host:path`, `host::module` or `rsync://…`: a remote operand of scp/rsync. */
export function isRemoteOperand(value: string | undefined): boolean {
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
