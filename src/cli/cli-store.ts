// Node: the content store as the CLI uses it, from the same settings as the workers (DURABLE_AGENT_STORE). Loaded on
// first use: most commands never read it, and the S3 client behind it would cost every command its load time.
import type { ContentKey } from '../protocol/content-key.js';
import type { ContentStore, DeleteOptions, StoredObject } from '../store/content-store.js';
import { stateDir } from '../host/state-dir.js';

/** The content store of `DURABLE_AGENT_STORE`, built on its first call. */
export function cliStore(env: NodeJS.ProcessEnv = process.env): ContentStore {
  let loaded: ContentStore | undefined;
  let loading: Promise<ContentStore> | undefined;
  const store = (): Promise<ContentStore> =>
    (loading ??= import('../store/store-from-env.js').then(({ storeFromEnv }) => {
      loaded = storeFromEnv(env, { stateDir: stateDir(env) });
      return loaded;
    }));
  return {
    get description() {
      return loaded?.description ?? 'the content store of DURABLE_AGENT_STORE';
    },
    put: async (content: string | Uint8Array) => (await store()).put(content),
    get: async (key: ContentKey) => (await store()).get(key),
    has: async (key: ContentKey) => (await store()).has(key),
    list: async function* (): AsyncIterable<StoredObject> {
      yield* (await store()).list();
    },
    delete: async (key: ContentKey, options?: DeleteOptions) => (await store()).delete(key, options),
  };
}
