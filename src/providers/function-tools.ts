// Node: a request's tools as function descriptions (protocol ToolSchema): each contract's (tools/schema-export) and,
// for a structured run, the final tool built from its output schema. Chat Completions sends them as they are, the
// Responses API flattens them, the text protocol describes them in the prompt, and the model-call activity counts
// their tokens in this one shape whichever API the run names.
import type { ToolSchema } from '../protocol/model.js';
import { finalResultToolSchema } from '../core/final-result.js';
import { toToolSchema } from '../tools/schema-export.js';
import type { ProviderRequest } from './model-provider.js';

/** The tools a request offers, the final tool last. */
export function functionTools(request: Pick<ProviderRequest, 'tools' | 'outputSchema'>): ToolSchema[] {
  const tools = request.tools.map(toToolSchema);
  return request.outputSchema ? [...tools, finalResultToolSchema(request.outputSchema)] : tools;
}

/** Whether a request offers the model any tool at all. */
export function offersTools(request: Pick<ProviderRequest, 'tools' | 'outputSchema'>): boolean {
  return request.tools.length > 0 || request.outputSchema !== undefined;
}
