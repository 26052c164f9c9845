// Sandbox-safe: the ordered set of built-in tool contracts.
import { bash } from './bash.js';
import type { ToolContract } from './define-tool.js';
import { editFile } from './edit-file.js';
import { glob } from './glob.js';
import { grep } from './grep.js';
import { readFile } from './read-file.js';
import { writeFile } from './write-file.js';

/** The six built-in tools (C.2), sorted by name. */
export const builtinTools: readonly ToolContract[] = [bash, editFile, glob, grep, readFile, writeFile] as unknown as readonly ToolContract[];

export { bash, editFile, glob, grep, readFile, writeFile };
