// Node: typing into an attached `run` on a terminal: a line and Enter is sent as `say`, Esc interrupts, Ctrl-C
// detaches. Keys are read in raw mode (node:readline keypress events); while the approval prompt of `--ask prompt` is
// shown the reader steps aside, so lines answer the prompt.
import { emitKeypressEvents } from 'node:readline';
import type { Key } from 'node:readline';
import type { Connected } from './connect.js';
import type { ControlKind } from '../protocol/run-control.js';
import { visibleLines, visibleText } from '../core/terminal-text.js';
import { color, log } from './output.js';

/** What one key does: nothing yet, send a line, interrupt, or detach. */
export type KeyAction = { type: 'none' } | { type: 'say'; text: string } | { type: 'interrupt' } | { type: 'detach' };

/** The line being typed, edited by keys; pure, so the mapping is tested without a terminal. */
export class LineEditor {
  private buffer = '';

  get line(): string {
    return this.buffer;
  }

  /** Applies one keypress (`sequence` is the text it typed, `key` its name and modifiers). */
  press(sequence: string | undefined, key: Key | undefined): KeyAction {
    if (key?.ctrl && (key.name === 'c' || key.name === 'd')) return { type: 'detach' };
    if (key?.name === 'escape') return { type: 'interrupt' };
    if (key?.name === 'return' || key?.name === 'enter') {
      const text = this.buffer.trim();
      this.buffer = '';
      return text ? { type: 'say', text } : { type: 'none' };
    }
    if (key?.name === 'backspace') this.buffer = [...this.buffer].slice(0, -1).join('');
    else if (key?.ctrl && key.name === 'u') this.buffer = '';
    // Printable text only: a pasted escape sequence or control character is no part of a message.
    else if (sequence && !key?.ctrl && !key?.meta && /^[^\p{Cc}]+$/u.test(sequence)) this.buffer += sequence;
    return { type: 'none' };
  }
}

/** The keyboard of an attached run: `suspend` while a prompt reads lines, `stop` when following ends. */
export interface AttachedInput {
  /** Called with true when a line starts being typed, false when it is sent or rubbed out (live output waits). */
  onTyping?: (typing: boolean) => void;
  suspend(): void;
  resume(): void;
  stop(): void;
}

/** The hint printed when reading starts. */
export const ATTACHED_HINT = 'type a message and Enter to steer, Esc to interrupt, Ctrl-C to detach';

/** Shows the line being typed (raw mode echoes nothing): what was added, a rubbed-out character, the line's end. */
function echo(before: number, line: string, action: KeyAction): void {
  const after = [...line];
  if (action.type === 'say') process.stderr.write('\n');
  else if (after.length > before) process.stderr.write(visibleText(after.slice(before).join('')));
  else if (after.length < before) process.stderr.write('\b \b'.repeat(before - after.length));
}

/** Starts reading keys for `workflowId` when stdin is a terminal; undefined otherwise. */
export function startAttachedInput(
  connected: () => Promise<Connected>,
  workflowId: string,
  onDetach: () => void,
  options: { hinted: boolean } = { hinted: false },
): AttachedInput | undefined {
  const stdin = process.stdin;
  if (!stdin.isTTY) return undefined;
  emitKeypressEvents(stdin);
  const editor = new LineEditor();
  const send = async (kind: ControlKind, text?: string): Promise<void> => {
    // Loaded with the client on the first message: a run followed without a word typed never loads it.
    const [client, { sendControl }] = await Promise.all([connected(), import('./send-control.js')]);
    const receipt = await sendControl(client, workflowId, kind, text !== undefined ? { text } : {});
    // What the run took shows in its progress lines; only an interrupt with nothing to stop says so here.
    if (kind === 'interrupt' && !receipt.interrupted?.length)
      log(color.dim('interrupt: nothing was under way; the run goes on'));
  };
  const sendInBackground = (kind: ControlKind, text?: string): void => {
    // A refusal's message is the run's reason (ControlRefused), phrased for the operator.
    send(kind, text).catch((error: unknown) =>
      log(color.red(`not sent: ${visibleLines(error instanceof Error ? error.message : String(error))}`)),
    );
  };
  const onKeypress = (sequence: string | undefined, key: Key | undefined): void => {
    const before = [...editor.line].length;
    const action = editor.press(sequence, key);
    const typing = editor.line.length > 0;
    if (before === 0 && typing) input.onTyping?.(true);
    echo(before, editor.line, action);
    if (before > 0 && !typing) input.onTyping?.(false);
    if (action.type === 'say') sendInBackground('message', action.text);
    else if (action.type === 'interrupt') sendInBackground('interrupt');
    else if (action.type === 'detach') onDetach();
  };
  let reading = false;
  const resume = (): void => {
    if (reading) return;
    reading = true;
    stdin.setRawMode(true);
    stdin.on('keypress', onKeypress);
    stdin.resume();
  };
  const suspend = (): void => {
    if (!reading) return;
    reading = false;
    stdin.off('keypress', onKeypress);
    stdin.setRawMode(false);
    stdin.pause();
  };
  if (!options.hinted) log(color.dim(ATTACHED_HINT));
  const input: AttachedInput = { suspend, resume, stop: suspend };
  resume();
  return input;
}
