// Node: a provider that switches to the text protocol for a model whose endpoint turns function calling away, as
// Ollama ("<model> does not support tools"), vLLM ("auto" tool choice requires --enable-auto-tool-choice …) and
// llama.cpp ("tools param requires --jinja flag", "Unsupported param: tools") answer a request carrying `tools`.
import type { ModelProvider } from '../model-provider.js';
import { offersTools } from '../model-provider.js';
import { createReactProvider } from './protocol.js';

/** How such servers word it; a message must match one of these, so no other bad request changes the protocol. */
const TOOLS_REJECTED: readonly RegExp[] = [
  /does(?: not|n't) support (?:tools|tool use|tool calling|function calling|functions)/i,
  /tools param requires --jinja/i,
  /unsupported param(?:eter)?:? ['"`]?tools\b/i,
  /tool choice requires --enable-auto-tool-choice/i,
  /\b(?:tools|tool use|tool calling|function calling|tool_choice)\b[^.]{0,40}\b(?:is |are )?not supported/i,
];

/**
 * True for the error of an endpoint that rejects `tools`: HTTP 400, or 500 (llama.cpp has answered these with a
 * server error), with a message saying so.
 */
export function rejectsTools(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const status = (error as { status?: unknown }).status;
  if (status !== 400 && status !== 500) return false;
  return TOOLS_REJECTED.some((pattern) => pattern.test(error.message));
}

/**
 * `inner` with function calling, until its endpoint rejects tools for a model: that call is made again in the text
 * protocol, and so is every later call for that model at this endpoint while the worker runs (the provider is cached
 * per endpoint). Remembering it in the worker is safe for replay: a model call's result is what history records, and
 * a replay reads it from there instead of calling the model, so how the worker reached the answer never matters.
 */
export function withReactFallback(inner: ModelProvider): ModelProvider {
  const react = createReactProvider(inner);
  const withoutFunctionCalling = new Set<string>();
  return {
    name: inner.name,
    async complete(request) {
      if (withoutFunctionCalling.has(request.model)) return await react.complete(request);
      try {
        return await inner.complete(request);
      } catch (error) {
        if (!offersTools(request) || request.signal?.aborted || !rejectsTools(error)) throw error;
        withoutFunctionCalling.add(request.model);
        return await react.complete(request);
      }
    },
  };
}
