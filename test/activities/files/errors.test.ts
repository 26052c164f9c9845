import { describe, expect, it } from 'vitest';
import { fileSystemErrorEnvelope } from '../../../src/activities/files/errors.js';

const context = { tool_call_id: 'call_1', cwd: '.', params_input: { path: 'a.txt' }, path_resolved: 'a.txt' };

function systemError(code: string, syscall = 'write'): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failure, ${syscall} '/abs/a.txt'`), { code, syscall });
}

const map = (error: unknown, action: 'read' | 'write' = 'write') =>
  fileSystemErrorEnvelope(error, { rel: 'a.txt', action, context, timeMs: 3 });

describe('fileSystemErrorEnvelope', () => {
  it('maps EACCES, EPERM and EROFS to PERMISSION_DENIED with reason os_permission', () => {
    for (const code of ['EACCES', 'EPERM', 'EROFS']) {
      expect(map(systemError(code))?.error).toMatchObject({
        code: 'PERMISSION_DENIED',
        details: { reason: 'os_permission', errno: code, syscall: 'write' },
      });
    }
  });

  it('maps EIO and ENOSPC to EXECUTION_ERROR, without leaking absolute paths', () => {
    const eio = map(systemError('EIO', 'read'), 'read');
    expect(eio?.error).toMatchObject({ code: 'EXECUTION_ERROR', details: { reason: 'io_error', errno: 'EIO' } });
    expect(eio?.text).toBe("Failed to read 'a.txt': input/output error (EIO).");
    expect(eio?.error?.message).toBe(eio?.text);
    const full = map(systemError('ENOSPC'));
    expect(full?.error?.code).toBe('EXECUTION_ERROR');
    expect(JSON.stringify(full)).not.toContain('/abs/');
    expect(full?.context.path_resolved).toBe('a.txt');
    expect(full?.stats.time_ms).toBe(3);
  });

  it('maps name and symlink-loop errors to INVALID_PARAM', () => {
    expect(map(systemError('ENAMETOOLONG'))?.error).toMatchObject({
      code: 'INVALID_PARAM',
      details: { reason: 'name_too_long' },
    });
    expect(map(systemError('ELOOP'))?.error).toMatchObject({
      code: 'INVALID_PARAM',
      details: { reason: 'symlink_loop' },
    });
  });

  it('leaves errors that are not file-system errors to the caller', () => {
    expect(map(new TypeError('bug'))).toBeUndefined();
    expect(map(Object.assign(new Error('x'), { code: 'ERR_INVALID_ARG_TYPE' }))).toBeUndefined();
    expect(map('string')).toBeUndefined();
  });
});
