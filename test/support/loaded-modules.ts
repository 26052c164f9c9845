// Which modules a spawned Node process loaded: a module to `--import` that records every module resolved (and every
// CommonJS one required) and prints the list on stderr at exit, and the reader of that line.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repository = fileURLToPath(new URL('../..', import.meta.url));
const MARK = 'LOADED ';

/** Writes the recorder into `directory` and returns the path to pass to `node --import`. */
export async function writeModuleRecorder(directory: string): Promise<string> {
  const hooks = path.join(directory, 'hooks.mjs');
  const register = path.join(directory, 'register.mjs');
  await writeFile(
    hooks,
    `let port;
export async function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  port.postMessage(resolved.url);
  return resolved;
}
`,
  );
  await writeFile(
    register,
    `import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const loaded = new Set();
port1.on('message', (url) => loaded.add(url));
port1.unref();
register(${JSON.stringify(`file://${hooks}`)}, { data: { port: port2 }, transferList: [port2] });
const require = createRequire(import.meta.url);
process.on('exit', () => {
  for (const file of Object.keys(require.cache)) loaded.add('file://' + file);
  process.stderr.write('\\n${MARK}' + JSON.stringify([...loaded]) + '\\n');
});
`,
  );
  return register;
}

/** The modules the recorder listed in `output`, in the order they were resolved: URLs, packages and own files. */
export function loadedModules(output: string): { urls: string[]; packages: Set<string>; own: string[] } {
  const line = output.split(/\r?\n/).find((text) => text.startsWith(MARK));
  if (!line) throw new Error(`no module list in:\n${output}`);
  const urls = JSON.parse(line.slice(MARK.length)) as string[];
  const packages = new Set(
    urls.map((url) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1]).filter((name) => name !== undefined),
  );
  const own = urls
    .filter((url) => url.startsWith('file://') && !url.includes('/node_modules/'))
    .map((url) => path.relative(repository, fileURLToPath(url)))
    .filter((file) => /^(dist|src)\//.test(file));
  return { urls, packages, own };
}
