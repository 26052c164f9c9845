// Node: reads a text-protocol answer (react-format) tolerantly: labels in any case, with markdown emphasis or list
// marks, an answer or an Action Input wrapped in code fences. Arguments are left as the model wrote them: the
// workflow's argument repair (core/arguments) handles near-JSON exactly as it does for native tool calls.

/** One tool call written as text. */
export interface ReactAction {
  name: string;
  /** The Action Input as written (fences removed); `{}` when the model gave none. */
  input: string;
  /** False when the answer was cut off by the token limit inside this call's input. */
  complete: boolean;
}

/** What an answer says: tool calls, a final answer, or neither. */
export type ReactAnswer =
  | { kind: 'actions'; thought: string; actions: ReactAction[] }
  | { kind: 'final'; answer: string }
  | { kind: 'malformed' };

type Label = 'thought' | 'action' | 'input' | 'final' | 'observation';

interface Section {
  label: Label | undefined;
  /** The text after the label, then the lines up to the next label. */
  lines: string[];
  /** The label's line as written. */
  raw?: string;
}

// A label at the start of a line: `Action:`, `**Action Input:**`, `- final answer :`, `### Thought:`, `Action_Input:`.
const LABEL_LINE =
  /^\s*(?:[-*>#]+\s*)?[*_]{0,2}\s*(thought|action[\s_-]*input|action|final[\s_-]*answer|observation)\s*[*_]{0,2}\s*:\s*[*_]{0,2}(.*)$/i;

/**
 * Parses an answer. The first Action or Final Answer decides its kind: actions written before a final answer are
 * calls (the "answer" was written before their results), a final answer is everything after its label. A line starting
 * `Observation:` ends the answer: the model is imagining a tool's result, and nothing after it was grounded.
 * `truncated` says the answer was cut off by the token limit: the last call is then incomplete when nothing follows it.
 */
export function parseReactAnswer(text: string, truncated = false): ReactAnswer {
  const sections = sectionsOf(withoutFence(text));
  const observation = sections.findIndex((section) => section.label === 'observation');
  const grounded = observation === -1 ? sections : sections.slice(0, observation);
  const decisive = grounded.findIndex((section) => section.label === 'action' || section.label === 'final');
  if (decisive === -1) return { kind: 'malformed' };
  if (grounded[decisive]!.label === 'final') {
    const answer = sections
      .slice(decisive)
      .flatMap((section, index) => (index === 0 ? section.lines : [section.raw ?? '', ...section.lines.slice(1)]))
      .join('\n')
      .trim();
    return answer === '' ? { kind: 'malformed' } : { kind: 'final', answer };
  }
  const thought = grounded
    .slice(0, decisive)
    .map((section) => section.lines.join('\n').trim())
    .filter((part) => part !== '')
    .join('\n');
  const actions: ReactAction[] = [];
  grounded.forEach((section, index) => {
    if (index < decisive || section.label !== 'action') return;
    const next = grounded[index + 1];
    const action = actionOf(section, next?.label === 'input' ? next : undefined);
    if (action === undefined) return;
    const last = index + (next?.label === 'input' ? 1 : 0) === sections.length - 1;
    actions.push({ ...action, complete: !(truncated && last) });
  });
  return actions.length === 0 ? { kind: 'malformed' } : { kind: 'actions', thought, actions };
}

/** The final answer an answer gives, else the whole text (for requests that offer no tools). */
export function finalAnswerOf(text: string): string {
  const parsed = parseReactAnswer(text);
  return parsed.kind === 'final' ? parsed.answer : text.trim();
}

function sectionsOf(text: string): Section[] {
  const sections: Section[] = [{ label: undefined, lines: [] }];
  for (const line of text.split(/\r?\n/)) {
    const match = LABEL_LINE.exec(line);
    if (match) sections.push({ label: labelOf(match[1]!), lines: [match[2]!.trim()], raw: line });
    else sections.at(-1)!.lines.push(line);
  }
  return sections.filter((section) => section.label !== undefined || section.lines.some((line) => line.trim()));
}

function labelOf(word: string): Label {
  const compact = word.toLowerCase().replace(/[\s_-]+/g, '');
  if (compact === 'actioninput') return 'input';
  if (compact === 'finalanswer') return 'final';
  return compact as Label;
}

/** The tool's name (backticks, quotes and `()` removed) and its input; an input on the Action line itself is taken. */
function actionOf(action: Section, input: Section | undefined): Omit<ReactAction, 'complete'> | undefined {
  const line = action.lines[0] ?? '';
  const inline = /^([^\s{(]+)\s*\(?\s*(\{[\s\S]*?)\)?\s*$/.exec(line);
  const name = (inline?.[1] ?? line)
    .replace(/\(\s*\)$/, '')
    .replace(/^[`'"]+|[`'".,;]+$/g, '')
    .trim();
  if (name === '') return undefined;
  const written = input ? input.lines.join('\n') : [inline?.[2] ?? '', ...action.lines.slice(1)].join('\n');
  const cleaned = withoutFence(written)
    .replace(/^`+|`+$/g, '')
    .trim();
  return { name, input: cleaned === '' ? '{}' : cleaned };
}

/** The text inside a code fence (```json … ```) when the whole text is one; else the text unchanged. */
function withoutFence(text: string): string {
  const fenced = /^\s*```[\w-]*[^\S\n]*\n([\s\S]*?)\n?\s*```\s*$/.exec(text);
  return fenced ? fenced[1]! : text;
}
