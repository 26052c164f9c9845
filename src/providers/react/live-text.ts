// Node: live output of an answer in the text protocol. The model writes `Thought:`, `Action:` and `Action Input:`
// lines as plain text; as the text streams, each line is told apart by its label, so watchers see the thought as text
// and each action as a tool call (its name, then its input as arguments), as they would a native call.
import type { LiveDelta } from '../../live/live-event.js';
import { FINAL_ANSWER_LABEL } from './format.js';

const LABELS = [
  { label: 'Thought:', kind: 'text' },
  { label: FINAL_ANSWER_LABEL, kind: 'text' },
  { label: 'Action Input:', kind: 'arguments' },
  { label: 'Action:', kind: 'name' },
] as const;

type LineKind = 'text' | 'arguments' | 'name' | 'undecided';

/** Turns the text deltas of a text-protocol answer into live deltas; other deltas pass as they are. */
export function reactLiveDeltas(emit: (delta: LiveDelta) => void): (delta: LiveDelta) => void {
  let line = '';
  let kind: LineKind = 'undecided';
  // Lines without a label continue what came before: an Action Input's JSON may span lines.
  let flow: 'text' | 'arguments' = 'text';
  let calls = 0;
  // The one space after a label belongs to the format, whichever chunk brings it.
  let labelSpace = false;
  const send = (text: string): void => {
    if (text === '') return;
    if (flow === 'arguments' && calls > 0) emit({ kind: 'tool_arguments', index: calls - 1, text });
    else emit({ kind: 'text', text });
  };
  const decide = (): void => {
    const trimmed = line.trimStart();
    const found = LABELS.find(({ label }) => trimmed.startsWith(label));
    if (found) {
      kind = found.kind;
      line = trimmed.slice(found.label.length);
      labelSpace = true;
      if (found.kind !== 'name') flow = found.kind;
    } else if (!LABELS.some(({ label }) => label.startsWith(trimmed))) {
      kind = flow;
    }
  };
  const take = (text: string): void => {
    line += text;
    if (kind === 'undecided') decide();
    if (labelSpace && line !== '') {
      labelSpace = false;
      if (line.startsWith(' ')) line = line.slice(1);
    }
    if (kind === 'text' || kind === 'arguments') {
      send(line);
      line = '';
    }
  };
  const endLine = (): void => {
    if (kind === 'undecided') kind = flow;
    if (kind === 'name') {
      emit({ kind: 'tool_call', index: calls, name: line.trim() });
      calls += 1;
      flow = 'arguments';
    } else {
      send(`${line}\n`);
    }
    line = '';
    kind = 'undecided';
    labelSpace = false;
  };
  return (delta) => {
    if (delta.kind !== 'text') return emit(delta);
    const parts = delta.text.split('\n');
    parts.forEach((part, position) => {
      take(part);
      if (position < parts.length - 1) endLine();
    });
  };
}
