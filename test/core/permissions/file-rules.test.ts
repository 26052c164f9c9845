import { describe, expect, it } from 'vitest';
import {
  DEFAULT_WRITE_PROTECTED,
  escapesWorkspace,
  fileWriteRule,
  normalizeRelativePath,
} from '../../../src/core/permissions/index.js';

describe('fileWriteRule (docs/tools.md §5.1 step 4 defaults)', () => {
  it.each([
    ['src/index.ts', 'allow', 'auto_allow_pattern'],
    ['.github/workflows/ci.yml', 'allow', 'auto_allow_pattern'],
    ['.', 'allow', 'auto_allow_pattern'],
    ['.git/config', 'ask', 'protected_path'],
    ['vendor/lib/.git/HEAD', 'ask', 'protected_path'],
    ['.env', 'ask', 'protected_path'],
    ['app/.env', 'ask', 'protected_path'],
    ['app/.env.production', 'ask', 'protected_path'],
    ['certs/server.pem', 'ask', 'protected_path'],
    ['tls.key', 'ask', 'protected_path'],
    ['keys/id_rsa.pub', 'ask', 'protected_path'],
    ['id_ed25519', 'ask', 'protected_path'],
    ['.agent/tool-output/x.txt', 'ask', 'protected_path'],
    ['./src/../.env', 'ask', 'protected_path'],
  ])('%s → %s (%s)', (relPath, action, rule) => {
    expect(fileWriteRule(relPath)).toEqual({ action, rule });
  });

  it('asks for a path outside writeAutoAllow and honours a custom protected list', () => {
    const policy = { writeAutoAllow: ['src/**', 'docs/*.md'] };
    expect(fileWriteRule('src/a/b.ts', policy)).toEqual({ action: 'allow', rule: 'auto_allow_pattern' });
    expect(fileWriteRule('docs/guide.md', policy)).toEqual({ action: 'allow', rule: 'auto_allow_pattern' });
    expect(fileWriteRule('docs/deep/guide.md', policy)).toEqual({ action: 'ask', rule: 'not_auto_allowed' });
    expect(fileWriteRule('package.json', policy)).toEqual({ action: 'ask', rule: 'not_auto_allowed' });
    expect(fileWriteRule('.', policy)).toEqual({ action: 'ask', rule: 'not_auto_allowed' });
    expect(fileWriteRule('package.json', { writeProtected: ['package.json'] })).toEqual({
      action: 'ask',
      rule: 'protected_path',
    });
    // A custom protected list replaces the defaults.
    expect(fileWriteRule('.env', { writeProtected: ['package.json'] })).toEqual({
      action: 'allow',
      rule: 'auto_allow_pattern',
    });
  });

  it('keeps the default protected list of docs/tools.md', () => {
    expect(DEFAULT_WRITE_PROTECTED).toContain('**/.env.*');
    expect(DEFAULT_WRITE_PROTECTED).toHaveLength(10);
  });
});

describe('normalizeRelativePath', () => {
  it.each([
    ['a/./b//c', 'a/b/c'],
    ['./a/../b', 'b'],
    ['.', '.'],
    ['', '.'],
    ['a/..', '.'],
    ['../x', '../x'],
    ['a/../../x', '../x'],
    ['/etc/../etc/passwd', '/etc/passwd'],
    ['/..', '/'],
    ['~/x', '~/x'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeRelativePath(input)).toBe(expected);
  });

  it('makes an absolute path inside the workspace relative', () => {
    expect(normalizeRelativePath('/work/ws/src/a.ts', '/work/ws')).toBe('src/a.ts');
    expect(normalizeRelativePath('/work/ws', '/work/ws/')).toBe('.');
    expect(normalizeRelativePath('/work/wsx/a', '/work/ws')).toBe('/work/wsx/a');
  });

  it('tells which normalised paths leave the workspace', () => {
    expect(['..', '../a', '/etc', '~/x'].map(escapesWorkspace)).toEqual([true, true, true, true]);
    expect(['.', 'a', '..a', 'a/..b'].map(escapesWorkspace)).toEqual([false, false, false, false]);
  });
});
