// Workflow-safe: a JSON Schema document as plain data (draft 2020-12, as zod 4 emits it), as tool contracts export it
// and the model APIs take it.

/** A JSON Schema node as plain data. */
export type JsonSchema = Record<string, unknown>;
