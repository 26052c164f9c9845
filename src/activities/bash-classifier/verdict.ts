// Node: the shape of a per-command verdict (one row of the docs/tools.md §5.2 level table plus what to check).
import type { RiskLevel } from '../../protocol/risk-level.js';
import type { PathResolution } from './paths.js';
import type { ShellWord } from './words.js';

/** Variables that change which program runs or how: setting them hides what a later command does. */
export const DANGEROUS_VARIABLE =
  /^(PATH|LD_\w+|DYLD_\w+|BASH_ENV|ENV|PROMPT_COMMAND|IFS|SHELLOPTS|BASHOPTS|PS4|HOME|CDPATH|GIT_\w+|PAGER|MANPAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|NODE_OPTIONS|NODE_PATH|PYTHON\w*|PERL5\w*|RUBYOPT|RUBYLIB|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|RIPGREP_CONFIG_PATH|TAR_OPTIONS|LESS\w*|XDG_CONFIG_HOME|CURL_HOME|WGETRC|SSH_\w+|BROWSER|(?:HTTPS?|ALL|NO|FTP)_PROXY|(?:https?|all|no|ftp)_proxy)$/;

/** Why setting `name` is not harmless; git's own variables stand in for the protected .git configuration. */
export function overrideReason(name: string, what: string): string {
  return name.startsWith('GIT_')
    ? `sets ${name}, which overrides the protected .git configuration (it can make git run any program)`
    : `sets ${name}, which changes what ${what} run${what === 'the command' ? 's' : ''}`;
}

/** An argument that must resolve inside W; `write` marks a file the command writes (file write rules apply). */
export interface PathUse {
  word: ShellWord;
  write?: boolean;
  /** The command truncates the file when it exists (like `>`), which is destructive. */
  truncates?: boolean;
  /**
   * A symbolic link's target: resolved from the directory the link is made in (the word `from` names that directory,
   * or, with `directory` false, a path in it), not from the working directory.
   */
  linkFrom?: { word: ShellWord; directory: boolean };
  /**
   * How a glob in a `write` word is judged. By default it asks: the shell decides what it names. `source` (what `cp`
   * copies) and `entry` (the name a copy gets in a directory, `dir/*.ts`) are matched as patterns against the file write
   * rules instead, the pattern standing for every name it can take; an entry's pattern must not be able to begin with
   * `.` and its directory must be literal, so it cannot name `.git` or `.agent`.
   */
  glob?: 'source' | 'entry';
}

/** What the level table says about one simple command. */
export interface CommandVerdict {
  level: RiskLevel;
  rule: string;
  reason: string;
  approvalKey?: string;
  /**
   * The hosts a `network_write` command names (lower-case, `host` or `host:port`), every one of them; absent when they
   * cannot all be read off the words (a dynamic URL, a config file, a proxy option) or come from configuration (a
   * package registry, a git remote by name).
   */
  hosts?: string[];
  /** The command runs code of its own choosing (`perl -i`), so it may reach the network whatever its level says. */
  runsCode?: boolean;
  /** The command changes a protected path the file rules cannot see (`git config`, `git init --template`). */
  protectedWrite?: string;
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
