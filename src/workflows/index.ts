// Workflow-safe: entry of the workflow bundle (workflowsPath): re-exports workflow functions and nothing else.
export { agentWorkflow } from './agent.js';
