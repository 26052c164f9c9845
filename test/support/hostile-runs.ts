// Real runs whose scripted model plays generated hostile turns, then answers: each run must complete within a bound
// (not stuck, not failed by a crash), and the last model request — the whole transcript, as the model sees it — must
// answer every call of every turn with one valid envelope, in order.
import type { WorkflowHandle } from '@temporalio/client';
import type { ChatMessage } from '../../src/protocol/model.js';
import type { AgentInput } from '../../src/core/state.js';
import type { AgentResult } from '../../src/protocol/run-report.js';
import type { ScriptTurn, ScriptedModelServer } from '../../src/scripted-model/server.js';
import { answerProblems } from './envelope-schema.js';
import type { HostileTurn } from './hostile-turns.js';
import { toScriptTurn } from './hostile-turns.js';

/** Starts a run of `script` in `workspace` with `input` added; the caller's harness decides where. */
export type StartHostileRun = (options: {
  script: ScriptTurn[];
  workspace: string;
  input: Partial<AgentInput>;
}) => Promise<{ handle: WorkflowHandle; model: ScriptedModelServer }>;

/** How one run went. */
export interface HostileRunOutcome {
  turns: number;
  calls: number;
  /** Tool messages holding a valid envelope for their call. */
  envelopes: number;
  /** `completed`, another ending, `stuck` (no result within the bound) or `crashed` (the run failed). */
  ending: string;
  problems: string[];
  ms: number;
}

const FINAL_ANSWER = 'Done with the hostile turns.';

/** Plays `turns` then a final answer in one run, and judges it. */
export async function playHostileRun(
  start: StartHostileRun,
  workspace: string,
  turns: readonly HostileTurn[],
  timeoutMs: number,
): Promise<HostileRunOutcome> {
  const calls = turns.reduce((sum, turn) => sum + turn.calls.length, 0);
  const started = Date.now();
  const { handle, model } = await start({
    script: [...turns.map(toScriptTurn), { content: FINAL_ANSWER }],
    workspace,
    // Every model call is scripted; compaction would ask the model for a summary the script does not hold.
    input: { maxSteps: turns.length + 2, askPolicy: 'deny', compactAtTokens: Number.MAX_SAFE_INTEGER },
  });
  try {
    const result = await resultWithin(handle, timeoutMs);
    const ms = Date.now() - started;
    if (result === 'stuck') {
      await handle.terminate('hostile run did not finish in time').catch(() => undefined);
      return {
        turns: turns.length,
        calls,
        envelopes: 0,
        ending: 'stuck',
        problems: [`no result in ${timeoutMs} ms`],
        ms,
      };
    }
    if (result instanceof Error) {
      return { turns: turns.length, calls, envelopes: 0, ending: 'crashed', problems: [result.message], ms };
    }
    const problems: string[] = [];
    if (result.status !== 'completed') problems.push(`run ended ${result.status}: ${result.error ?? ''}`);
    if (result.answer !== FINAL_ANSWER) problems.push(`the answer was ${JSON.stringify(result.answer)}`);
    const last = model.requests.at(-1) as { messages: ChatMessage[] } | undefined;
    const judged = judgeTranscript(last?.messages ?? [], turns);
    return {
      turns: turns.length,
      calls,
      envelopes: judged.envelopes,
      ending: result.status,
      problems: [...problems, ...judged.problems],
      ms,
    };
  } finally {
    await model.close();
  }
}

/** Every assistant message with tool calls, answered by its tool messages, one per generated turn. */
function judgeTranscript(
  messages: readonly ChatMessage[],
  turns: readonly HostileTurn[],
): { envelopes: number; problems: string[] } {
  const problems: string[] = [];
  let envelopes = 0;
  const assistants = messages.flatMap((message, index) =>
    message.role === 'assistant' && message.tool_calls?.length ? [index] : [],
  );
  if (assistants.length !== turns.length)
    problems.push(`${turns.length} turns played but ${assistants.length} assistant messages with tool calls`);
  assistants.forEach((index, turn) => {
    const assistant = messages[index]!;
    const count = assistant.role === 'assistant' ? (assistant.tool_calls?.length ?? 0) : 0;
    if (count !== turns[turn]?.calls.length)
      problems.push(`turn ${turn + 1}: ${turns[turn]?.calls.length} calls sent, ${count} recorded`);
    const answers = messages.slice(index + 1, index + 1 + count);
    const found = answerProblems(assistant, answers);
    problems.push(...found.map((problem) => `turn ${turn + 1}: ${problem}`));
    if (found.length === 0) envelopes += count;
  });
  return { envelopes, problems };
}

async function resultWithin(handle: WorkflowHandle, timeoutMs: number): Promise<AgentResult | Error | 'stuck'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'stuck'>((resolve) => {
    timer = setTimeout(() => resolve('stuck'), timeoutMs);
  });
  try {
    return await Promise.race([
      (handle.result() as Promise<AgentResult>).catch((error: unknown) =>
        error instanceof Error ? error : new Error(String(error)),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
