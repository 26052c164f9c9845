// Workflow-safe: the interfaces of the activities the workflow schedules, by activity type. The worker's activities
// implement them (`satisfies` in src/activities/), and the workflow's proxies are typed by them, so the workflow never
// imports the Node side.
import type { ACTIVITY } from './activity-names.js';
import type { DecisionVerdict, VerifyDecisionRequest } from './approval.js';
import type { BashClassification, ClassifyBashInput } from './bash-classification.js';
import type { FunctionToolSpec } from './function-tool-spec.js';
import type { ListMcpToolsInput, McpListing } from './mcp.js';
import type { ModelRequest, ModelTurn } from './model.js';
import type { ApplyOutputBudgetInput, ApplyOutputBudgetResult } from './output-budget.js';
import type { ElsewhereResult, StoredToolResult, ToolActivityInput } from './tool-activity.js';
import type { PendingWrites } from './transcript-ref.js';
import type { VerifyControlRequest } from './run-control.js';
import type { RunAuthorization } from './run-authorization.js';
import type { SignChildRunRequest } from './sub-agents.js';
import type { CheckpointWorkspaceInput } from './checkpoint.js';
import type { ContentKey } from './content-key.js';

/** A tool activity: the activity type is the tool's name (every MCP tool runs as `callMcpTool`). */
export type ToolActivity = (request: ToolActivityInput) => Promise<StoredToolResult | ElsewhereResult>;

/** The activities of every worker besides the tools, by the names of activity-names.ts. */
export interface AgentActivities {
  /** One model call of a step (or a compaction's summary). */
  [ACTIVITY.callModel]: (request: ModelRequest) => Promise<ModelTurn>;
  /** The worker's function tools, recorded once per task. */
  [ACTIVITY.listFunctionTools]: () => Promise<FunctionToolSpec[]>;
  /** Stores content the workflow made (the last step of a finished run). */
  [ACTIVITY.storeContent]: (writes: PendingWrites) => Promise<void>;
  /** Layer 2 of the output budget: compresses and spills a step's largest results. */
  [ACTIVITY.applyOutputBudget]: (input: ApplyOutputBudgetInput) => Promise<ApplyOutputBudgetResult>;
  /** A Bash command's classification, where the workspace is. */
  [ACTIVITY.classifyBash]: (input: ClassifyBashInput) => Promise<BashClassification>;
  /** The workspace recorded as a checkpoint, where it is: a run's files before its first call that may change them. */
  [ACTIVITY.checkpointWorkspace]: (input: CheckpointWorkspaceInput) => Promise<ContentKey>;
  /** The tools of the worker's and the run's MCP servers, listed once per task. */
  [ACTIVITY.listMcpTools]: (input: ListMcpToolsInput) => Promise<McpListing | ElsewhereResult>;
  /** Every MCP tool call. */
  [ACTIVITY.callMcpTool]: ToolActivity;
}

/** The activities of a worker that holds the operator's key (local activities of the workflow). */
export interface AuthorizationActivities {
  [ACTIVITY.verifyDecision]: (request: VerifyDecisionRequest) => Promise<DecisionVerdict>;
  [ACTIVITY.verifyControl]: (request: VerifyControlRequest) => Promise<DecisionVerdict>;
  /** Signs the start of a sub-agent of the calling run (null from a worker without a key). */
  [ACTIVITY.signChildRun]: (request: SignChildRunRequest) => Promise<RunAuthorization | null>;
}
