// A scripted model whose answer depends on where the transcript is, not on how many requests came before: a model call
// retried after a server crash (its first answer never recorded) gets the same answer again, as a real model shown the
// same transcript would. The run reads `notes.txt`, then appends `line 1` … `line N` to it, one EditFile per step (an
// edit applied twice would show as a duplicated line), then answers. Turns are rendered by the scripted model's own
// Chat Completions dialect, so the worker's real `openai` client and stream assembly run.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { chatDialect } from '../../src/providers/openai-chat/scripted-dialect.js';
import type { ScriptTurn } from '../../src/scripted-model/script.js';

/** The file every run edits, relative to its workspace; it starts as `END\n`. */
export const NOTES_FILE = 'notes.txt';

/** A running model for one run. */
export interface EditModel {
  url: string;
  /** Model requests answered, retries included. */
  requests(): number;
  /** Requests received and not answered yet: a model call in flight. */
  inFlight(): number;
  close(): Promise<void>;
}

/** The turn for a transcript in which the model has already made `calls` tool-calling turns. */
function turnAt(calls: number, edits: number, file: string): ScriptTurn {
  if (calls === 0) return { tool_calls: [{ name: 'ReadFile', arguments: { path: file } }] };
  if (calls <= edits)
    return {
      tool_calls: [
        { name: 'EditFile', arguments: { path: file, old_string: 'END', new_string: `line ${calls}\nEND` } },
      ],
    };
  return { content: `Appended ${edits} lines.` };
}

/** Starts the model on a free port (editing `file`, default NOTES_FILE); every answer waits `latencyMs` first, so runs last long enough to be disturbed. */
export async function startEditModel(options: { edits: number; latencyMs: number; file?: string }): Promise<EditModel> {
  let answered = 0;
  let inFlight = 0;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      void (async () => {
        const parsed = JSON.parse(body) as { messages?: { role: string; tool_calls?: unknown[] }[] };
        const read = chatDialect.read(parsed as Record<string, unknown>);
        if (!read.ok) {
          response.writeHead(read.status, { 'content-type': 'application/json' });
          response.end(JSON.stringify(chatDialect.errorBody(read.status, 'invalid_request', read.message)));
          return;
        }
        const calls = (parsed.messages ?? []).filter(
          (message) => message.role === 'assistant' && (message.tool_calls?.length ?? 0) > 0,
        ).length;
        const turn = turnAt(calls, options.edits, options.file ?? NOTES_FILE);
        answered += 1;
        inFlight += 1;
        await sleep(options.latencyMs);
        inFlight -= 1;
        const render = { turnNumber: calls + 1, model: 'scripted', created: 0, promptChars: body.length };
        if (!read.stream) {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify(chatDialect.render(turn, render)));
          return;
        }
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const event of chatDialect.renderEvents(turn, { ...render, includeUsage: true }))
          response.write(`data: ${JSON.stringify(event.data)}\n\n`);
        response.end(chatDialect.done ?? '');
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: () => answered,
    inFlight: () => inFlight,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The numbers of the `line N` lines of a notes file, in file order: 1…N once each when nothing was lost or repeated. */
export function lineNumbers(notes: string): number[] {
  return notes
    .split('\n')
    .filter((line) => line.startsWith('line '))
    .map((line) => Number(line.slice('line '.length)));
}
