// Node: every provider a run can name, one line each. The name list (`--provider`, DURABLE_AGENT_PROVIDER), the
// unknown-provider message, the scripted model server's APIs and the worker's credentials per provider all come from
// here. Only names, summaries and credentials are loaded with this file: a provider's folder (its SDK) is imported
// when a run first names it, and its scripted dialect only by the scripted model server, so the CLI reading the names
// for `--help` loads no SDK.
import type { ScriptedDialectModule } from '../scripted-model/dialect.js';
import type { ProviderModule, WorkerCredentials } from './setup.js';

/** One provider: its name, its `--help` summary, its worker variables, its folder and its scripted dialect. */
export interface ProviderLine {
  name: string;
  /** One line for `--help`. */
  summary: string;
  credentials: WorkerCredentials;
  /** The provider's folder: its factory. */
  load: () => Promise<ProviderModule>;
  /** The API the scripted model server speaks for it (providers of one API share one). */
  scripted: () => Promise<ScriptedDialectModule>;
}

const OPENAI: WorkerCredentials = {
  keyVariable: 'OPENAI_API_KEY',
  baseUrlVariable: 'OPENAI_BASE_URL',
  apiOrigin: 'https://api.openai.com',
};

const ANTHROPIC: WorkerCredentials = {
  keyVariable: 'ANTHROPIC_API_KEY',
  baseUrlVariable: 'ANTHROPIC_BASE_URL',
  apiOrigin: 'https://api.anthropic.com',
};

/** The providers, the default (`openai`) first. */
export const PROVIDERS = [
  {
    name: 'openai',
    summary: 'OpenAI Chat Completions, or any compatible server (OPENAI_BASE_URL)',
    credentials: OPENAI,
    load: () => import('./openai-chat/adapter.js'),
    scripted: () => import('./openai-chat/scripted-dialect.js'),
  },
  {
    name: 'openai-responses',
    summary: 'OpenAI Responses, stateless, reasoning carried over',
    credentials: OPENAI,
    load: () => import('./openai-responses/adapter.js'),
    scripted: () => import('./openai-responses/scripted-dialect.js'),
  },
  {
    name: 'anthropic',
    summary: 'Anthropic Messages, with prompt caching and thinking carried over',
    credentials: ANTHROPIC,
    load: () => import('./anthropic/adapter.js'),
    scripted: () => import('./anthropic/scripted-dialect.js'),
  },
  {
    name: 'scripted',
    summary: 'Chat Completions served by the scripted model (docs/scripted-model.md)',
    credentials: OPENAI,
    load: () => import('./openai-chat/adapter.js'),
    scripted: () => import('./openai-chat/scripted-dialect.js'),
  },
] as const satisfies readonly ProviderLine[];

/** A provider's name. */
export type ProviderName = (typeof PROVIDERS)[number]['name'];

/** The provider names, in table order. */
export const PROVIDER_NAMES = PROVIDERS.map((line) => line.name) as [ProviderName, ...ProviderName[]];

/** The line of a name, if it names a provider. */
export function providerLine(name: string): ProviderLine | undefined {
  return PROVIDERS.find((line) => line.name === name);
}
