// Workflow-safe: preloaded into each workflow context (worker.ts sharedWorkflowModules), before the SDK freezes the
// context's globals. The SDK records the stack of every promise a workflow creates (for the `__stack_trace` query),
// each frame looked up in the bundle's source map and formatted: at V8's default of 10 frames that was a third of the
// workflow thread's CPU in a step. Five frames still name the innermost callers of a waiting promise or a thrown error.
Error.stackTraceLimit = 5;

export {};
