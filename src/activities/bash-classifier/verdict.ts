// Node: the shape of a per-command verdict (one row of the C.5.2 level table plus what to check).
import type { RiskLevel } from '../../tools/define-tool.js';
import type { PathResolution } from './paths.js';
import type { ShellWord } from './words.js';

/** An argument that must resolve inside W; `write` marks a file the command writes (file write rules apply). */
export interface PathUse {
  word: ShellWord;
  write?: boolean;
  /** The command truncates the file when it exists (like `>`), which is destructive. */
  truncates?: boolean;
}

/** What the level table says about one simple command. */
export interface CommandVerdict {
  level: RiskLevel;
  rule: string;
  reason: string;
  approvalKey?: string;
  /** Arguments checked against the workspace boundary (ACCESS_DENIED when outside). */
  paths: PathUse[];
  /** `sh -c <script>`: the script to classify recursively. */
  script?: string;
  /** A directory change (`cd`, `pushd`, `popd`) for the rest of the enclosing list. */
  directoryChange?: { command: 'cd' | 'pushd' | 'popd'; target?: ShellWord };
}

/** What a rule may look at besides the words. */
export interface CommandContext {
  /** stdin comes from a pipe (a shell reading it runs whatever arrives). */
  piped: boolean;
  /** Resolves a word against the segment's working directory and W. */
  resolve(word: ShellWord): Promise<PathResolution>;
}

/** A verdict with no path checks. */
export function verdict(level: RiskLevel, rule: string, reason: string, paths: PathUse[] = []): CommandVerdict {
  return { level, rule, reason, paths };
}

/** Every word as a read path. */
export function readPaths(words: readonly ShellWord[]): PathUse[] {
  return words.map((word) => ({ word }));
}
