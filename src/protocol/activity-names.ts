// Workflow-safe: the activity types the workflow schedules besides the tools (whose activity type is the tool's name;
// every MCP tool runs as callMcpTool). The worker registers them under these names and `history`, `replay` and the
// bench read histories by them.
export const ACTIVITY = {
  callModel: 'callModel',
  listFunctionTools: 'listFunctionTools',
  storeContent: 'storeContent',
  applyOutputBudget: 'applyOutputBudget',
  classifyBash: 'classifyBash',
  checkpointWorkspace: 'checkpointWorkspace',
  listMcpTools: 'listMcpTools',
  callMcpTool: 'callMcpTool',
  verifyDecision: 'verifyDecision',
  verifyControl: 'verifyControl',
  signChildRun: 'signChildRun',
} as const;
