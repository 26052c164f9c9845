// Sandbox-safe: the activity types the workflow schedules besides the tools (whose activity type is the tool's name).
// The worker registers them under these names and `history`, `replay` and the bench read histories by them.
export const ACTIVITY = {
  callModel: 'callModel',
  listFunctionTools: 'listFunctionTools',
  storeContent: 'storeContent',
  budgetTurn: 'budgetTurn',
  classifyBash: 'classifyBash',
} as const;
