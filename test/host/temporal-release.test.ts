// The official Temporal CLI release: fetched, checked against its checksums file and unpacked into the cache, and
// given up on when the network misbehaves.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findOnPath } from '../../src/host/executables.js';
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
import { fakeTemporal, scratchHost, writeExecutable } from '../support/temporal-host.js';

const host = scratchHost();

/** A PATH directory with only what the release step runs: `tar`, and the `gzip` it runs for `-z`. */
async function releaseTools(): Promise<string> {
  const tools = path.join(host.root, 'release-tools');
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
  const directory = await fs.mkdtemp(path.join(host.root, 'archive-'));
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
    const env = host.environment({ PATH: await releaseTools(), TEMPORAL_CLI_DOWNLOAD_BASE_URL: `${server.baseUrl}/` });
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
      `No Temporal CLI cached yet: downloading the official release (a few seconds, once; cached in ${path.join(host.root, 'cache')})…`,
    );
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^Downloaded ${archiveName} \\(.* sha256 verified\\)`)),
    );
    expect(await fs.readdir(path.join(host.root, 'cache', 'bin'))).toEqual(['temporal']);
    expect((await findTemporalBinary({ env, build: false })).source).toBe('cache');
  });

  it('rejects an archive whose SHA-256 differs from the checksums file and installs nothing', async () => {
    const archive = await releaseArchive({ temporal: releaseBinary, LICENSE: 'MIT' });
    const published = sha256('the archive that was published');
    server = await serveRelease({ 'checksums.txt': `${published}  ${archiveName}\n`, [archiveName]: archive });
    const env = host.environment({ PATH: await releaseTools(), TEMPORAL_CLI_DOWNLOAD_BASE_URL: server.baseUrl });
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
      `${releaseStep!.slice(0, -1)}; trying the Go build (about 6-7 minutes the first time, once; cached in ${path.join(host.root, 'cache')})`,
    );
    expect(await fs.readdir(path.join(host.root, 'cache', 'bin'))).toEqual([]);
  });

  it('says which platform has no official build when the checksums file does not list it', async () => {
    server = await serveRelease({ 'checksums.txt': `${sha256('x')}  temporal_cli_1.5.1_plan9_mips.tar.gz\n` });
    const env = host.environment({ PATH: await releaseTools(), TEMPORAL_CLI_DOWNLOAD_BASE_URL: server.baseUrl });

    const error = await findTemporalBinary({ env }).catch((caught: unknown) => caught);

    expect((error as TemporalBinaryError).attempts).toContain(
      `release: ${server.baseUrl}/v${TEMPORAL_CLI_VERSION}/checksums.txt lists no ${archiveName} ` +
        `(no official build for ${process.platform}/${process.arch}).`,
    );
    expect(server.requests).toEqual([`/v${TEMPORAL_CLI_VERSION}/checksums.txt`]);
  });

  it('reports a missing archive with its HTTP status and URL', async () => {
    server = await serveRelease({ 'checksums.txt': `${sha256('x')}  ${archiveName}\n` });
    const env = host.environment({ PATH: await releaseTools(), TEMPORAL_CLI_DOWNLOAD_BASE_URL: server.baseUrl });

    const error = await findTemporalBinary({ env }).catch((caught: unknown) => caught);

    expect((error as TemporalBinaryError).attempts).toContain(
      `release: official release download failed: HTTP 404 Not Found (${server.baseUrl}/v${TEMPORAL_CLI_VERSION}/${archiveName}).`,
    );
  });

  it('reports an archive without the binary as unusable and installs nothing', async () => {
    const archive = await releaseArchive({ LICENSE: 'MIT' });
    server = await serveRelease({ 'checksums.txt': `${sha256(archive)}  ${archiveName}\n`, [archiveName]: archive });
    const env = host.environment({ PATH: await releaseTools(), TEMPORAL_CLI_DOWNLOAD_BASE_URL: server.baseUrl });

    const error = await findTemporalBinary({ env }).catch((caught: unknown) => caught);

    expect((error as TemporalBinaryError).attempts.find((line) => line.startsWith('release:'))).toMatch(
      /^release: official release archive unusable: `tar -xzf` could not extract `temporal` from temporal_cli_.*\.tar\.gz: /,
    );
    expect(await fs.readdir(path.join(host.root, 'cache', 'bin'))).toEqual([]);
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
    const env = host.environment({ PATH: tools });
    const lines: string[] = [];
    const started = performance.now();

    const found = await findTemporalBinary({ env, log: (line) => lines.push(line) });

    expect(found.source).toBe('go-build');
    expect(performance.now() - started).toBeLessThan(5_000);
    const port = new URL(host.refusedUrl).port;
    expect(lines).toContain(
      `release: official release download failed: connect ECONNREFUSED 127.0.0.1:${port} ` +
        `(${host.refusedUrl}/v${TEMPORAL_CLI_VERSION}/checksums.txt); ` +
        `trying the Go build (about 6-7 minutes the first time, once; cached in ${path.join(host.root, 'cache')})`,
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
    const file = path.join(host.root, 'download');
    await expect(downloadToFile(`${baseUrl}/stall`, file, limits)).rejects.toThrow('stalled: no data for 0.3s');
    await expect(downloadToFile(`${baseUrl}/big`, file, limits)).rejects.toThrow(
      `more than 1024 bytes from ${baseUrl}/big`,
    );
    expect(await downloadToFile(`${baseUrl}/ok`, file, limits)).toEqual({ sha256: sha256('fine'), bytes: 4 });
    expect(await fs.readFile(file, 'utf8')).toBe('fine');
  });
});
