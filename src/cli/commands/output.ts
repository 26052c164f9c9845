// Node: `output`: stored content by its key, byte for byte (escaped on a terminal).
import { MissingContentError, StoreUnavailableError } from '../../store/content-store.js';
import { storeFromEnv } from '../../store/store-from-env.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { parseKeyArgument } from '../key-argument.js';
import { visibleLines } from '../../core/terminal-text.js';
import { color, log, out, outJson } from '../output.js';
import { stateDir } from '../../host/state-dir.js';
import { parseCommandLine } from '../option-table.js';
import { outputOptions } from '../options/runs.js';

/** `output KEY [--json]`: the stored content's bytes on stdout, as they were stored. */
export async function outputCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(outputOptions, argv);
  if (positionals.length !== 1) throw new UsageError('output takes exactly one KEY (sha256:<64 hex digits>)');
  const key = parseKeyArgument(positionals[0]!);
  if (!key) throw new UsageError(`"${positionals[0]}" is not a content key; expected sha256:<64 lowercase hex digits>`);

  const store = storeFromEnv(process.env, { stateDir: stateDir() });
  let bytes: Uint8Array;
  try {
    bytes = await store.get(key);
  } catch (error) {
    if (!(error instanceof MissingContentError || error instanceof StoreUnavailableError)) throw error;
    log(color.red(`error: ${error.message}`));
    return EXIT.failed;
  }
  if (values.json) {
    const text = decodeText(bytes);
    const content = text ?? Buffer.from(bytes).toString('base64');
    const encoding = text === undefined ? 'base64' : 'utf8';
    outJson({ key, store: store.description, bytes: bytes.byteLength, encoding, content });
  } else if (process.stdout.isTTY) {
    // Stored content is what the model and its tools wrote: on a terminal it is shown, never acted on.
    const text = decodeText(bytes);
    if (text === undefined) {
      log(color.red('error: the content is not UTF-8 text; redirect it to a file or use --json (base64)'));
      return EXIT.failed;
    }
    out(visibleLines(text));
  } else {
    await new Promise<void>((resolve, reject) =>
      process.stdout.write(bytes, (error) => (error ? reject(error) : resolve())),
    );
  }
  return EXIT.finished;
}

function decodeText(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
