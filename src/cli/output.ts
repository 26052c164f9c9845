// Node: everything the CLI prints goes through here. Text from the model, a tool, a file or a server is made visible
// by the formatters (core/terminal-text) before it is coloured; the writers below show whatever control character is
// still raw in a line, so only this module's own colours reach the terminal.
import type { AgentResult, ProgressEntry } from '../protocol/run-report.js';
import { terminalJson, visibleLines, visibleText } from '../core/terminal-text.js';
import type { WorkflowBundleError } from '../history/replay-worker.js';

const useColor = Boolean(process.stderr.isTTY) && !process.env.NO_COLOR;
/** Whether stdout gets colours too (a terminal, not a pipe or a file). */
export const stdoutUsesColor = useColor && Boolean(process.stdout.isTTY);

const ESC = String.fromCharCode(0x1b);
/** The only escape sequences the CLI writes itself: the colours below and their reset. */
const OWN_COLOR = new RegExp(`(${ESC}\\[(?:0|1|2|31|32|33|36)m)`);

function paint(code: number, text: string): string {
  return useColor ? `${ESC}[${code}m${text}${ESC}[0m` : text;
}

/** Colours for human output on a TTY; plain text otherwise. */
export const color = {
  dim: (text: string) => paint(2, text),
  red: (text: string) => paint(31, text),
  green: (text: string) => paint(32, text),
  yellow: (text: string) => paint(33, text),
  cyan: (text: string) => paint(36, text),
  bold: (text: string) => paint(1, text),
};

/**
 * `text` as it may reach a terminal: the CLI's own colours when the stream shows them, and every other control
 * character shown as an escape (newlines and tabs kept), whatever a formatter forgot to make visible.
 */
export function terminalSafe(text: string, colors: boolean): string {
  const keep = { lines: true, keepBackslashes: true };
  if (!colors) return visibleText(text, keep);
  return text
    .split(OWN_COLOR)
    .map((part, index) => (index % 2 === 1 ? part : visibleText(part, keep)))
    .join('');
}

/** A cost as `list` and `status` print it in their columns: four decimals, `-` when none was reported. */
export function costCell(usd: number | null): string {
  return usd === null ? '-' : `$${usd.toFixed(4)}`;
}

function formatMs(ms: number | undefined): string {
  if (ms === undefined) return '';
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)}s` : `${ms}ms`;
}

function statusColor(status: string): (text: string) => string {
  if (status === 'success') return color.green;
  if (status === 'partial') return color.yellow;
  return color.red;
}

/**
 * One progress line: a step (model call) or a tool call with its short arguments, outcome and duration. Everything
 * in it came from the run (a model's name, a tool's arguments and error), so all of it is shown on this one line.
 */
export function formatProgress(entry: ProgressEntry): string {
  const text = visibleText(entry.text);
  const tool = visibleText(entry.tool ?? '');
  switch (entry.kind) {
    case 'step':
      return `${color.bold(`step ${entry.step}`)}  ${text}  ${color.dim(formatMs(entry.ms))}`;
    case 'tool': {
      const status = visibleText(entry.status ?? '');
      const detail = entry.detail ? color.dim(` ${visibleText(entry.detail)}`) : '';
      return `  ${color.cyan(tool.padEnd(9))} ${text}  ${statusColor(status)(status)} ${color.dim(formatMs(entry.ms))}${detail}`;
    }
    case 'approval': {
      const paint = entry.status === 'approved' ? color.green : color.red;
      return `  ${color.yellow(tool.padEnd(9))} ${paint(text)}  ${color.dim(`waited ${formatMs(entry.ms)}`)}`;
    }
    case 'answer':
      return `${color.green('answer')} (step ${entry.step})`;
    case 'error':
      return `${color.red('error')} ${text}`;
    case 'continued':
      return color.dim(`↻ ${text}`);
    case 'message':
      return color.cyan(text);
    case 'control':
      return color.yellow(text);
  }
}

/** Progress and notices go to stderr, so stdout carries only the answer or the JSON object. */
export function log(line: string): void {
  process.stderr.write(`${terminalSafe(line, useColor)}\n`);
}

/** A piece of a line on stderr (live output as it arrives): callers end their lines. */
export function logPart(text: string): void {
  process.stderr.write(terminalSafe(text, useColor));
}

/** One JSON line on stderr (live events with --json: stdout keeps its one final object). */
export function logJson(value: unknown): void {
  process.stderr.write(`${terminalJson(value)}\n`);
}

/** Human output on stdout, as it is given (callers end their lines). */
export function out(text: string): void {
  process.stdout.write(terminalSafe(text, stdoutUsesColor));
}

/** A `--json` object on one line of stdout: the exact value, with nothing in it a terminal would act on. */
export function outJson(value: unknown): void {
  process.stdout.write(`${terminalJson(value)}\n`);
}

/**
 * How a followed run ended, as `run` and `watch` print it: the answer on stdout (a structured run's result instead, as
 * JSON); the error, a summary and the link on stderr.
 */
export function printRunEnd(result: AgentResult, link: string | undefined): void {
  if (result.result !== undefined) outJson(result.result);
  else if (result.answer) out(`${visibleLines(result.answer)}\n`);
  if (result.error) log(color.red(`${result.status}: ${visibleLines(result.error)}`));
  const calls = `${result.toolCalls} tool call${result.toolCalls === 1 ? '' : 's'}`;
  // A run with sub-agents: what the whole tree spent, since that is what the run cost.
  const tree = result.totalUsage ? ` (${result.totalUsage.totalTokens} with its sub-agents)` : '';
  log(color.dim(`${result.status} · ${result.steps} steps · ${calls} · ${result.usage.totalTokens} tokens${tree}`));
  if (link) log(color.dim(visibleText(link)));
}

/**
 * `text` as one word a shell reads back as it is: quoted unless it is plainly safe. For the commands the CLI suggests
 * (`durable-agent approve ID CALL_ID`), whose call id the model chose: pasted, it can only ever be that one argument.
 */
export function shellWord(text: string): string {
  const shown = visibleText(text);
  return /^[\w@%+=:,./#-]+$/.test(shown) ? shown : `'${shown.replace(/'/g, `'\\''`)}'`;
}

/** Why the workflows could not be bundled, with the bundler's own error lines. */
export function printBundleError(error: WorkflowBundleError): void {
  log(color.red(`error: could not bundle the workflows in ${error.entry}: ${visibleLines(error.message)}`));
  for (const message of error.bundlerErrors) log(visibleLines(message));
}
