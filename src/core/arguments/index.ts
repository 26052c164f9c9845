// Workflow-safe: pure functions, no Node builtins, no I/O.
// Argument parsing (docs/tools.md §6) and rule-based repair and validation (§7) of model tool calls.

export { MAX_ARGUMENT_BYTES, isPlainObject, jsonTypeOf, parseArguments, parseJsonAs } from './parse-arguments.js';
export type { DecodeResult, JsonTarget, ParseOptions, ParseResult } from './parse-arguments.js';
export { RESERVED_KEYS, fixArguments } from './fix-arguments.js';
export type { FixResult } from './fix-arguments.js';
export { inputJsonSchema } from './json-schema.js';
export type { RepairSchema } from './json-schema.js';
