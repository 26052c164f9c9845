// Node: one segment under construction (its level only rises as the walker learns more), and the rules that look at
// the whole command line once every segment is finished.
import { levelSeverity } from '../../core/permissions/levels.js';
import type { BashSegment, PermissionAction } from '../../protocol/bash-classification.js';
import type { RiskLevel } from '../../protocol/risk-level.js';
import type { CommandVerdict } from './verdict.js';

/** One segment under construction: levels only ever rise. */
export class SegmentDraft {
  level: RiskLevel = 'read_only';
  rule = 'read_command';
  reason = 'only reads';
  approvalKey: string | undefined;
  /** False once something other than the network itself makes the segment ask: an approval key cannot cover it. */
  approvable = true;
  writeBlock: { rule: string; reason: string } | undefined;
  deniedPath: string | undefined;
  /** A `sh -c` wrapper with nothing of its own: its script's segments stand for it. */
  transparent = false;
  /** The rule of the command's own row (undefined for bare redirections and assignments). */
  commandRule: string | undefined;
  /** The hosts a network command names, all of them; undefined when they cannot be read off its words. */
  hosts: string[] | undefined;
  runsCode = false;
  /** Set when a glob in an option position was judged on the files there now: sound only if nothing makes files first. */
  expansionJudged: string | undefined;

  constructor(readonly text: string) {}

  /** The command's own row; a floor raised earlier (an assignment, a wrapper option) still wins when more severe. */
  apply(verdict: CommandVerdict): void {
    if (levelSeverity(verdict.level) >= levelSeverity(this.level)) {
      this.level = verdict.level;
      this.rule = verdict.rule;
      this.reason = verdict.reason;
    }
    this.commandRule = verdict.rule;
    this.approvalKey = verdict.approvalKey;
    this.hosts = verdict.hosts;
    this.runsCode ||= verdict.runsCode === true;
  }

  raise(level: RiskLevel, rule: string, reason: string): void {
    this.transparent = false;
    if (level !== 'read_only' && level !== 'write' && level !== 'network_write') this.approvable = false;
    if (levelSeverity(level) > levelSeverity(this.level)) {
      this.level = level;
      this.rule = rule;
      this.reason = reason;
    }
  }

  blockWrite(rule: string, reason: string): void {
    this.transparent = false;
    this.approvable = false;
    this.writeBlock ??= { rule, reason };
  }

  deny(path: string): void {
    this.transparent = false;
    this.deniedPath ??= path;
  }

  finish(bashWriteAutoAllow: ReadonlySet<string>): BashSegment {
    let action: PermissionAction;
    let { rule, reason } = this;
    if (this.level === 'forbidden') action = 'deny';
    else if (this.deniedPath !== undefined) {
      action = 'deny';
      rule = 'path_outside_workspace';
      reason = `Path '${this.deniedPath}' is outside the workspace.`;
    } else if (this.level === 'read_only') action = 'allow';
    else if (this.level === 'write') {
      if (this.writeBlock) {
        action = 'ask';
        ({ rule, reason } = this.writeBlock);
      } else action = bashWriteAutoAllow.has(this.rule) ? 'allow' : 'ask';
    } else action = 'ask';
    const segment: BashSegment = { text: this.text, level: this.level, rule, reason, action };
    if (this.level === 'network_write' && this.approvable && this.approvalKey !== undefined && action === 'ask') {
      segment.approvalKey = this.approvalKey;
    }
    if (this.deniedPath !== undefined && this.level !== 'forbidden') segment.deniedPath = this.deniedPath;
    const offline =
      !this.runsCode &&
      (this.level === 'read_only' || this.level === 'write' || this.level === 'destructive') &&
      (this.commandRule === undefined || OFFLINE_RULES.has(this.commandRule));
    SEGMENT_FACTS.set(segment, {
      offline,
      ...(this.level === 'network_write' && this.hosts ? { hosts: this.hosts } : {}),
      ...(this.expansionJudged !== undefined && action === 'allow' ? { expansionJudged: this.expansionJudged } : {}),
    });
    return segment;
  }
}

/** What the line-level rules need to know about a segment beyond what is recorded (see `finishLine`). */
interface SegmentFacts {
  /** The segment cannot reach the network whatever the sandbox allows (reads, file and git writes, deletions). */
  offline: boolean;
  hosts?: string[];
  expansionJudged?: string;
}

const SEGMENT_FACTS = new WeakMap<BashSegment, SegmentFacts>();

/** Rows of commands that open no connection of their own. Build runners, interpreters and unknown programs may. */
const OFFLINE_RULES = new Set([
  'read_command',
  'search',
  'find',
  'sed_print',
  'git_read',
  'cd_inside',
  'assignment',
  'test',
  'version_query',
  'file_write',
  'git_write',
  'git_protected_write',
  'redirect_write',
  'delete',
  'move',
  'permissions',
  'in_place_edit',
  'kill',
  'git_destructive',
]);

/**
 * The rules that look at the whole command line once every segment is known:
 * - a network approval covers exactly what it names: when any other part of the line may reach the network too (a
 *   build runner, an interpreter, anything not known to be offline), no segment keeps an approval key, so the line
 *   asks every time and approving it remembers nothing;
 * - a glob judged on today's files holds only when no other part of the line can make files first;
 * - `networkHosts`: every host the network segments name, when each of them names its hosts.
 */
export function finishLine(segments: BashSegment[]): { segments: BashSegment[]; networkHosts?: string[] } {
  const facts = segments.map((segment) => SEGMENT_FACTS.get(segment) ?? { offline: false });
  const network = segments.filter((segment) => segment.level === 'network_write');
  const reachesNetwork = segments.some(
    (segment, index) => segment.level !== 'network_write' && facts[index]?.offline !== true,
  );
  const othersRead = (index: number): boolean =>
    segments.every((segment, other) => other === index || segment.level === 'read_only');
  const finished = segments.map((segment, index) => {
    let result = segment;
    const judged = facts[index]?.expansionJudged;
    if (judged !== undefined && !othersRead(index)) {
      result = {
        ...result,
        level: levelSeverity(result.level) > levelSeverity('unclassified') ? result.level : 'unclassified',
        rule: 'option_like_glob',
        reason: `${judged}, and another part of the command line can create files before it expands`,
        action: result.action === 'deny' ? 'deny' : 'ask',
      };
    }
    if (network.length > 0 && reachesNetwork && result.approvalKey !== undefined) {
      const { approvalKey: _dropped, ...rest } = result;
      result = {
        ...rest,
        reason: `${rest.reason}; another part of the command line may reach the network too, so an approval covers only this call`,
      };
    }
    return result;
  });
  const hosts = network.map((segment) => facts[segments.indexOf(segment)]?.hosts);
  if (network.length === 0 || hosts.some((list) => list === undefined)) return { segments: finished };
  return { segments: finished, networkHosts: [...new Set(hosts.flat() as string[])].sort() };
}
