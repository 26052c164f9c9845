// The hostile-turn property of the pure pipeline (stream assembly, id normalisation, argument repair, planning, the
// per-call machine, the transcript step), checked over as many generated turns as the caller asks: fifty in
// the quick unit loop (test/core/step/hostile-turns.test.ts), a thousand in the long project that `npm test` runs
// (test/core/step/hostile-turns.long.test.ts).
import fc from 'fast-check';
import { expect } from 'vitest';
import type { AgentInput } from '../../src/core/state.js';
import { initialState } from '../../src/core/state.js';
import type { StepEnv } from '../../src/core/step/step-env.js';
import { renderChunks } from '../../src/scripted-model/script.js';
import { assembleStream } from '../../src/providers/openai-chat/stream-assembler.js';
import { createTaskRegistry } from '../../src/tools/task-registry.js';
import { answerProblems } from './envelope-schema.js';
import type { HostileTurn } from './hostile-turns.js';
import { hostileTurnArbitrary, toScriptTurn } from './hostile-turns.js';
import type { OfflineWorld } from './offline-turn.js';
import { runTurnOffline } from './offline-turn.js';
import { assertProperty } from './property.js';

const worldArbitrary: fc.Arbitrary<OfflineWorld> = fc.record({
  activities: fc.array(fc.constantFrom('success', 'partial', 'error', 'failure', 'timeout', 'elsewhere' as const), {
    minLength: 1,
    maxLength: 8,
  }),
  commands: fc.array(fc.constantFrom('read_only', 'destructive', 'forbidden' as const), { minLength: 1, maxLength: 4 }),
  approvals: fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }),
});

const inputArbitrary = fc.record({
  askPolicy: fc.constantFrom('deny', 'approve', 'wait' as const),
  mode: fc.constantFrom('default', 'read_only' as const),
  pinned: fc.boolean(),
});

function envFor(options: { askPolicy: AgentInput['askPolicy']; mode: AgentInput['mode']; pinned: boolean }): StepEnv {
  const state = initialState('task-fuzz', 'system', 'survive the model');
  state.step = 1;
  const input: AgentInput = {
    task: 'survive the model',
    workspace: '/work/space',
    selection: { model: 'scripted' },
    maxSteps: 10,
    mode: options.mode,
    askPolicy: options.askPolicy,
    ...(options.pinned ? { toolTaskQueue: 'host-a' } : {}),
  };
  return { state, input, registry: createTaskRegistry() };
}

/** The turn as the provider assembles it from the scripted server's stream chunks. */
function assembled(turn: HostileTurn) {
  const chunks = renderChunks(toScriptTurn(turn), {
    turnNumber: 1,
    model: 'scripted',
    created: 0,
    promptChars: 0,
    includeUsage: true,
  });
  return assembleStream(chunks, 'scripted');
}

/**
 * Checks that every call of `turns` generated turns (from `seed`, or FUZZ_SEED) is answered with one valid envelope,
 * in order, under the call's final id, a call cut off mid-stream never running, and nothing throwing.
 */
export function checkHostileTurns(turns: number, seed: number): void {
  let calls = 0;
  assertProperty(
    fc.property(hostileTurnArbitrary(), worldArbitrary, inputArbitrary, (turn, world, options) => {
      const modelTurn = assembled(turn);
      // The stream keeps every call apart by its index, whatever its id and name.
      expect(modelTurn.toolCalls).toHaveLength(turn.calls.length);
      if (modelTurn.toolCalls.length === 0) return;
      const env = envFor(options);
      const result = runTurnOffline(env, modelTurn, world);
      const problems = answerProblems(result.assistant, result.answers);
      if (problems.length > 0) throw new Error(problems.join('\n'));
      // A call cut off mid-stream is answered, never run.
      const started = new Set(
        env.state.events
          .filter((event) => event.type === 'tool_lifecycle' && event.data.status === 'started')
          .map((event) => event.data.tool_call_id),
      );
      const ids = result.assistant.role === 'assistant' ? (result.assistant.tool_calls ?? []) : [];
      modelTurn.toolCalls.forEach((call, index) => {
        if (!call.complete) expect(started.has(ids[index]!.id), `call ${index} ran half-received`).toBe(false);
      });
      expect(env.state.toolCalls).toBe(turn.calls.length);
      calls += turn.calls.length;
    }),
    { numRuns: turns, seed: Number(process.env.FUZZ_SEED ?? seed), endOnFailure: true },
  );
  expect(calls).toBeGreaterThan(turns);
}
