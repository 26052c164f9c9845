// A 1 MB WriteFile argument crosses every layer in well under a second each; the stream is read at least twice as
// fast as the SDK's own reader manages on the same bytes (it copies its whole buffer for every event).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MEGABYTE,
  executorLayer,
  fileContent,
  layerDirectories,
  parseLayer,
  sdkStreamLayer,
  startStreamServer,
  storeLayer,
  streamLayer,
  turnLayer,
  validateLayer,
  writeFileArguments,
  writeFileStream,
} from '../../support/large-argument-layers.js';

const LAYER_BOUND_MS = 1_000;
const content = fileContent(MEGABYTE);
const raw = writeFileArguments(content);

async function timed<T>(run: () => T | Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
}

let directories: Awaited<ReturnType<typeof layerDirectories>>;
beforeAll(async () => {
  directories = await layerDirectories();
});
afterAll(async () => {
  await directories?.close();
});

describe('a 1 MB argument, layer by layer', () => {
  it.each<[string, () => unknown]>([
    ['parse valid JSON', () => parseLayer(raw.valid)],
    ['parse and repair single quotes', () => parseLayer(raw.singleQuoted)],
    ['parse and close truncated JSON', () => parseLayer(raw.truncated)],
    ['schema validation', () => validateLayer(parseLayer(raw.valid))],
    ['plan, call machine and transcript', () => turnLayer(raw.valid)],
    ['plan, call machine and transcript of mangled text', () => turnLayer(raw.singleQuoted)],
    ['content store out and back', () => storeLayer(directories.store, raw.valid)],
    ['WriteFile executor', () => executorLayer(directories.workspace, content, 'big')],
  ])('%s takes under a second', async (_name, run) => {
    await run(); // warm
    const { ms } = await timed(run);
    expect(ms).toBeLessThan(LAYER_BOUND_MS);
  });

  it('the streamed arguments, 4 characters a delta, are read and assembled whole in under 5 seconds', async () => {
    const server = await startStreamServer(writeFileStream(content));
    try {
      const ours = await timed(() => streamLayer(server.url));
      expect(ours.value).toBe(raw.valid.length);
      expect(ours.ms).toBeLessThan(5_000);
    } finally {
      await server.close();
    }
  }, 60_000);

  // The SDK's reader costs more than linearly: an eighth of the megabyte shows the difference at a fraction of the time.
  it('the streamed arguments are read at least twice as fast as by the SDK', async () => {
    const quarter = writeFileArguments(fileContent(MEGABYTE / 8)).valid.length;
    const server = await startStreamServer(writeFileStream(fileContent(MEGABYTE / 8)));
    try {
      const ours = await timed(() => streamLayer(server.url));
      const sdk = await timed(() => sdkStreamLayer(server.url));
      expect(ours.value).toBe(quarter);
      expect(sdk.value).toBe(quarter);
      expect(ours.ms * 2).toBeLessThan(sdk.ms);
    } finally {
      await server.close();
    }
  }, 60_000);
});
