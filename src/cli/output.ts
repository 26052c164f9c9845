import type { AgentResult, ProgressEntry } from '../core/state.js';

const useColor = process.stderr.isTTY && !process.env.NO_COLOR;

function paint(code: number, text: string): string {
  return useColor ? `\u001b[${code}m${text}\u001b[0m` : text;
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

function formatMs(ms: number | undefined): string {
  if (ms === undefined) return '';
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)}s` : `${ms}ms`;
}

function statusColor(status: string): (text: string) => string {
  if (status === 'success') return color.green;
  if (status === 'partial') return color.yellow;
  return color.red;
}

/** One progress line: a step (model call) or a tool call with its short arguments, outcome and duration. */
export function formatProgress(entry: ProgressEntry): string {
  switch (entry.kind) {
    case 'step':
      return `${color.bold(`step ${entry.step}`)}  ${entry.text}  ${color.dim(formatMs(entry.ms))}`;
    case 'tool': {
      const status = entry.status ?? '';
      const detail = entry.detail ? color.dim(` ${entry.detail}`) : '';
      return `  ${color.cyan((entry.tool ?? '').padEnd(9))} ${entry.text}  ${statusColor(status)(status)} ${color.dim(formatMs(entry.ms))}${detail}`;
    }
    case 'approval': {
      const paint = entry.status === 'approved' ? color.green : color.red;
      return `  ${color.yellow((entry.tool ?? '').padEnd(9))} ${paint(entry.text)}  ${color.dim(`waited ${formatMs(entry.ms)}`)}`;
    }
    case 'answer':
      return `${color.green('answer')} (step ${entry.step})`;
    case 'error':
      return `${color.red('error')} ${entry.text}`;
    case 'continued':
      return color.dim(`↻ ${entry.text}`);
  }
}

/** Progress and notices go to stderr, so stdout carries only the answer or the JSON object. */
export function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/**
 * How a followed run ended, as `run` and `watch` print it: the answer on stdout (a structured run's result instead, as
 * JSON); the error, a summary and the link on stderr.
 */
export function printRunEnd(result: AgentResult, link: string | undefined): void {
  if (result.result !== undefined) process.stdout.write(`${JSON.stringify(result.result)}\n`);
  else if (result.answer) process.stdout.write(`${result.answer}\n`);
  if (result.error) log(color.red(`${result.status}: ${result.error}`));
  const calls = `${result.toolCalls} tool call${result.toolCalls === 1 ? '' : 's'}`;
  log(color.dim(`${result.status} · ${result.steps} steps · ${calls} · ${result.usage.totalTokens} tokens`));
  if (link) log(color.dim(link));
}
