import { describe, expect, it } from 'vitest';
import type { PermissionContext } from '../../../src/core/permissions/index.js';
import type { BashSegment } from '../../../src/protocol/bash-classification.js';
import {
  aggregateSegments,
  classificationOf,
  decidePermission,
  deniedEnvelopeText,
  levelAction,
  LEVEL_SEVERITY,
  maxLevel,
  permissionDeniedError,
  permissionDetails,
  permissionSubject,
} from '../../../src/core/permissions/index.js';
import type { ToolContract } from '../../../src/tools/define-tool.js';
import { createFunctionTool } from '../../../src/tools/function-tool.js';
import { bash, editFile, glob, grep, readFile, writeFile } from '../../../src/tools/index.js';

const asTool = (tool: unknown): ToolContract => tool as ToolContract;
const context = (overrides: Partial<PermissionContext> = {}): PermissionContext => ({
  mode: 'default',
  enabled: true,
  approvals: new Set<string>(),
  ...overrides,
});

function segment(overrides: Partial<BashSegment>): BashSegment {
  return { text: 'x', level: 'read_only', rule: 'read_command', reason: 'only reads', action: 'allow', ...overrides };
}

const classification = classificationOf;

const npmInstall = segment({
  text: 'npm install lodash',
  level: 'network_write',
  rule: 'package_install',
  reason: 'npm install downloads or publishes packages',
  action: 'ask',
  approvalKey: 'npm install',
});

describe('docs/tools.md §4 levels and actions', () => {
  it('maps every level to its action', () => {
    expect(LEVEL_SEVERITY.map((level) => [level, levelAction(level)])).toEqual([
      ['read_only', 'allow'],
      ['write', 'allow'],
      ['unclassified', 'ask'],
      ['network_write', 'ask'],
      ['destructive', 'ask'],
      ['forbidden', 'deny'],
    ]);
    expect(levelAction('write', false)).toBe('ask');
  });

  it('orders severity forbidden > destructive > network_write > unclassified > write > read_only', () => {
    expect(maxLevel('unclassified', 'network_write')).toBe('network_write');
    expect(maxLevel('destructive', 'network_write')).toBe('destructive');
    expect(maxLevel('write', 'read_only')).toBe('write');
    expect(maxLevel('forbidden', 'destructive')).toBe('forbidden');
  });
});

describe('decidePermission (§5.1)', () => {
  it('step 1: a disabled tool is denied with tool_disabled', () => {
    const decision = decidePermission(
      { tool: asTool(readFile), input: { path: 'a.txt' } },
      context({ enabled: false }),
    );
    expect(decision).toMatchObject({
      action: 'deny',
      rule: 'tool_disabled',
      denyCode: 'PERMISSION_DENIED',
      level: 'read_only',
    });
  });

  it('step 2: read-only mode denies every tool that is not a read tool, Bash included', () => {
    const readOnly = context({ mode: 'read_only', bash: classification([segment({})]) });
    for (const tool of [writeFile, editFile, bash]) {
      expect(decidePermission({ tool: asTool(tool), input: { path: 'a', command: 'ls' } }, readOnly)).toMatchObject({
        action: 'deny',
        rule: 'read_only_mode',
        denyCode: 'PERMISSION_DENIED',
      });
    }
    for (const tool of [readFile, glob, grep]) {
      expect(decidePermission({ tool: asTool(tool), input: { path: 'a' } }, readOnly).action).toBe('allow');
    }
    const readOnlyFunction = createFunctionTool({ name: 'lookup', description: 'x', risk: 'read_only' });
    expect(decidePermission({ tool: asTool(readOnlyFunction), input: { input: 'q' } }, readOnly).action).toBe('allow');
    const writingFunction = createFunctionTool({ name: 'store', description: 'x', risk: 'write' });
    expect(decidePermission({ tool: asTool(writingFunction), input: { input: 'q' } }, readOnly).rule).toBe(
      'read_only_mode',
    );
  });

  it('step 3: a path that lexically leaves the workspace is ACCESS_DENIED before classification', () => {
    const decision = decidePermission(
      { tool: asTool(writeFile), input: { path: '../x.txt' }, relPath: '../x.txt' },
      context(),
    );
    expect(decision).toMatchObject({ action: 'deny', denyCode: 'ACCESS_DENIED', deniedPath: '../x.txt' });
    expect(deniedEnvelopeText(decision, 'WriteFile')).toBe("Path '../x.txt' is outside the workspace.");
    expect(
      decidePermission({ tool: asTool(readFile), input: { path: 'a/../../etc/passwd' } }, context()).denyCode,
    ).toBe('ACCESS_DENIED');
    expect(decidePermission({ tool: asTool(readFile), input: { path: '~/.ssh/id_rsa' } }, context()).denyCode).toBe(
      'ACCESS_DENIED',
    );
  });

  it('step 4: read tools are read_only and allowed', () => {
    expect(decidePermission({ tool: asTool(grep), input: { pattern: 'x', path: 'src' } }, context())).toMatchObject({
      action: 'allow',
      level: 'read_only',
      approvalKeys: [],
    });
  });

  it('step 4: WriteFile/EditFile are write, allowed by writeAutoAllow, asked for protected paths', () => {
    expect(decidePermission({ tool: asTool(writeFile), input: { path: 'src/a.ts' } }, context())).toMatchObject({
      action: 'allow',
      level: 'write',
      rule: 'auto_allow_pattern',
    });
    expect(decidePermission({ tool: asTool(editFile), input: { path: 'config/.env' } }, context())).toMatchObject({
      action: 'ask',
      level: 'write',
      rule: 'protected_path',
    });
    expect(
      decidePermission({ tool: asTool(writeFile), input: { path: '.git/hooks/pre-commit' } }, context()).rule,
    ).toBe('protected_path');
    const narrow = context({ policy: { writeAutoAllow: ['src/**'] } });
    expect(decidePermission({ tool: asTool(writeFile), input: { path: 'README.md' } }, narrow)).toMatchObject({
      action: 'ask',
      rule: 'not_auto_allowed',
    });
  });

  it('step 4: an absolute path inside the workspace is matched relative to it', () => {
    const decision = decidePermission(
      { tool: asTool(writeFile), input: { path: '/work/ws/.env' } },
      context({ workspace: '/work/ws' }),
    );
    expect(decision).toMatchObject({ action: 'ask', rule: 'protected_path' });
  });

  it('step 4: function and MCP tools use their declared risk; none declared fails closed', () => {
    const undeclared = createFunctionTool({ name: 'mystery', description: 'x' });
    expect(decidePermission({ tool: asTool(undeclared), input: { input: '' } }, context())).toMatchObject({
      action: 'deny',
      level: 'unclassified',
      rule: 'unclassified_tool_fails_closed',
      denyCode: 'PERMISSION_DENIED',
    });
    const mcp = { name: 'mcp_tool', category: 'command' as const, confirmation: 'declared' as const };
    expect(decidePermission({ tool: mcp, input: {} }, context()).rule).toBe('unclassified_tool_fails_closed');
    const expectations = [
      ['read_only', 'allow'],
      ['write', 'ask'],
      ['destructive', 'ask'],
      ['network_write', 'ask'],
    ] as const;
    for (const [risk, action] of expectations) {
      const tool = createFunctionTool({ name: `f_${risk}`, description: 'x', risk });
      expect(decidePermission({ tool: asTool(tool), input: { input: '' } }, context())).toMatchObject({
        action,
        level: risk,
        rule: 'declared_risk',
      });
    }
    expect(decidePermission({ tool: { ...mcp, risk: 'forbidden' }, input: {} }, context())).toMatchObject({
      action: 'deny',
      denyCode: 'PERMISSION_DENIED',
    });
  });

  it('step 5, Bash: each level gives its §4 action', () => {
    const cases = [
      [segment({ level: 'read_only', action: 'allow' }), 'allow'],
      [segment({ level: 'write', rule: 'redirect_write', action: 'allow' }), 'allow'],
      [segment({ level: 'write', rule: 'protected_path', action: 'ask' }), 'ask'],
      [segment({ level: 'unclassified', rule: 'unclassified', action: 'ask' }), 'ask'],
      [segment({ level: 'destructive', rule: 'delete', action: 'ask' }), 'ask'],
      [npmInstall, 'ask'],
      [segment({ level: 'forbidden', rule: 'privilege_escalation', action: 'deny' }), 'deny'],
    ] as const;
    for (const [bashSegment, action] of cases) {
      const decision = decidePermission(
        { tool: asTool(bash), input: { command: bashSegment.text } },
        context({ bash: classification([bashSegment]) }),
      );
      expect(decision.action).toBe(action);
      expect(decision.level).toBe(bashSegment.level);
    }
  });

  it('Bash: a network_write key asks once; once approved, later calls with the same key are allowed', () => {
    const bashClassification = classification([segment({ text: 'ls' }), npmInstall]);
    const first = decidePermission(
      { tool: asTool(bash), input: { command: 'ls && npm install lodash' } },
      context({ bash: bashClassification }),
    );
    expect(first).toMatchObject({ action: 'ask', level: 'network_write', approvalKeys: ['npm install'] });

    const approvals = new Set(first.approvalKeys);
    const later = decidePermission(
      { tool: asTool(bash), input: { command: 'npm install zod' } },
      context({ bash: classification([{ ...npmInstall, text: 'npm install zod' }]), approvals }),
    );
    expect(later).toMatchObject({
      action: 'allow',
      level: 'network_write',
      rule: 'approved_in_task',
      approvalKeys: [],
    });

    const otherKey = classification([segment({ ...npmInstall, text: 'pip install x', approvalKey: 'pip install' })]);
    expect(decidePermission({ tool: asTool(bash), input: {} }, context({ bash: otherKey, approvals })).action).toBe(
      'ask',
    );
  });

  it('Bash: an approval does not cover destructive segments or segments without a key', () => {
    const approvals = new Set(['npm install']);
    const mixed = classification([
      npmInstall,
      segment({ text: 'rm a', level: 'destructive', rule: 'delete', reason: 'rm deletes', action: 'ask' }),
    ]);
    expect(decidePermission({ tool: asTool(bash), input: {} }, context({ bash: mixed, approvals }))).toMatchObject({
      action: 'ask',
      level: 'destructive',
      rule: 'delete',
      approvalKeys: [],
    });
    const keyless = classification([{ ...npmInstall, approvalKey: undefined }]);
    expect(decidePermission({ tool: asTool(bash), input: {} }, context({ bash: keyless, approvals })).action).toBe(
      'ask',
    );
  });

  it('Bash: a denied classification stays denied whatever was approved', () => {
    const outside = classification([
      segment({
        text: 'cat /etc/passwd',
        rule: 'path_outside_workspace',
        action: 'deny',
        deniedPath: '/etc/passwd',
        reason: "Path '/etc/passwd' is outside the workspace.",
      }),
    ]);
    const decision = decidePermission(
      { tool: asTool(bash), input: {} },
      context({ bash: outside, approvals: new Set(['npm install']) }),
    );
    expect(decision).toMatchObject({ action: 'deny', denyCode: 'ACCESS_DENIED', deniedPath: '/etc/passwd' });
  });

  it('Bash without a classification asks', () => {
    expect(decidePermission({ tool: asTool(bash), input: { command: 'ls' } }, context())).toMatchObject({
      action: 'ask',
      rule: 'not_classified',
    });
  });
});

describe('aggregateSegments', () => {
  it('takes the most restrictive action and the most severe level, forbidden before path denials', () => {
    const outside = segment({ rule: 'path_outside_workspace', action: 'deny', deniedPath: '/etc' });
    const forbidden = segment({ level: 'forbidden', rule: 'privilege_escalation', action: 'deny' });
    const destructive = segment({ level: 'destructive', rule: 'delete', action: 'ask' });
    expect(aggregateSegments([outside, forbidden])).toMatchObject({
      outcome: 'deny',
      denyCode: 'PERMISSION_DENIED',
      rule: 'privilege_escalation',
    });
    expect(aggregateSegments([destructive, outside])).toMatchObject({
      outcome: 'deny',
      denyCode: 'ACCESS_DENIED',
      level: 'destructive',
      deniedPath: '/etc',
    });
    expect(aggregateSegments([segment({}), npmInstall, destructive])).toMatchObject({
      outcome: 'ask',
      level: 'destructive',
      rule: 'delete',
      approvalKeys: ['npm install'],
    });
    expect(aggregateSegments([])).toMatchObject({ outcome: 'allow', level: 'read_only' });
  });
});

describe('denied envelopes (§4)', () => {
  it('words a denied ASK and fills details.permission', () => {
    const decision = decidePermission(
      { tool: asTool(bash), input: { command: 'npm install lodash' } },
      context({ bash: classification([npmInstall]) }),
    );
    const subject = permissionSubject({ name: 'Bash', confirmation: 'command' }, { command: 'npm  install\nlodash' });
    expect(subject).toBe('npm install lodash');
    const error = permissionDeniedError(decision, subject, { rejectionReason: 'not today' });
    expect(error).toEqual({
      code: 'PERMISSION_DENIED',
      message:
        "'npm install lodash' requires confirmation (network_write: npm install downloads or publishes packages) and was not approved.",
      details: {
        reason: 'not_approved',
        rejection_reason: 'not today',
        permission: {
          level: 'network_write',
          action: 'ask',
          effective_action: 'deny',
          reason: 'npm install downloads or publishes packages',
          rule: 'package_install',
          approval_key: 'npm install',
        },
      },
    });
  });

  it('marks a DENY as action deny and names its cause', () => {
    const disabled = decidePermission({ tool: asTool(grep), input: {} }, context({ enabled: false }));
    expect(permissionDeniedError(disabled, 'Grep')).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: "Tool 'Grep' is disabled.",
      details: {
        reason: 'tool_disabled',
        permission: { action: 'deny', effective_action: 'deny', rule: 'tool_disabled' },
      },
    });
    const forbidden = decidePermission(
      { tool: asTool(bash), input: {} },
      context({
        bash: classification([
          segment({
            text: 'sudo ls',
            level: 'forbidden',
            rule: 'privilege_escalation',
            reason: 'sudo runs commands as another user',
            action: 'deny',
          }),
        ]),
      }),
    );
    expect(deniedEnvelopeText(forbidden, 'sudo ls')).toBe(
      "'sudo ls' is forbidden (forbidden: sudo runs commands as another user) and never runs.",
    );
    const readOnly = decidePermission(
      { tool: asTool(writeFile), input: { path: 'a' } },
      context({ mode: 'read_only' }),
    );
    expect(deniedEnvelopeText(readOnly, 'WriteFile')).toContain('read-only mode');
    const failClosed = decidePermission(
      { tool: asTool(createFunctionTool({ name: 'f', description: 'x' })), input: {} },
      context(),
    );
    expect(deniedEnvelopeText(failClosed, 'f')).toContain('fail closed');
  });

  it('reports ACCESS_DENIED with the path', () => {
    const decision = decidePermission({ tool: asTool(readFile), input: { path: '../secret' } }, context());
    expect(permissionDeniedError(decision, 'ReadFile')).toMatchObject({
      code: 'ACCESS_DENIED',
      message: "Path '../secret' is outside the workspace.",
      details: { path: '../secret', permission: { action: 'deny' } },
    });
  });

  it('lists every key still needing approval', () => {
    const details = permissionDetails({
      action: 'ask',
      level: 'network_write',
      rule: 'r',
      reason: 'x',
      approvalKeys: ['npm install', 'curl a.com'],
    });
    expect(details).toMatchObject({ approval_key: 'npm install', approval_keys: ['npm install', 'curl a.com'] });
    expect(permissionSubject({ name: 'WriteFile', confirmation: 'path' }, { path: 'a' })).toBe('WriteFile');
  });
});
