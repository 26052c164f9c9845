// Node: colors for what goes to stdout, used only when stdout is a terminal that takes them.
import { color, stdoutUsesColor } from './output.js';

const plain = (text: string): string => text;

/** Colours for what goes to stdout: the shared ones when stdout is a terminal, plain text when it is piped or redirected. */
export const stdoutColor: typeof color = stdoutUsesColor
  ? color
  : { dim: plain, red: plain, green: plain, yellow: plain, cyan: plain, bold: plain };
