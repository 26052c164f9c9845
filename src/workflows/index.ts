// Sandbox entry (workflowsPath): re-exports workflow functions and nothing else.
export { agentWorkflow } from './agent.js';
