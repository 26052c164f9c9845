// Node: operating-system errors of the file tools, turned into envelopes the model can act on (docs/tools.md §1).
import { errorEnvelope } from '../../protocol/envelope.js';
import type { Envelope, EnvelopeContext } from '../../protocol/envelope.js';

/** The errno-style code of a Node error (`ENOENT`, `EACCES`, …), if it has one. */
export function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;
}

/** True for the codes that mean "nothing is there" (a missing file, or a file used as a directory on the way). */
export function isMissingError(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

const PERMISSION_CODES = new Set(['EACCES', 'EPERM', 'EROFS']);

// Resource and device failures: retrying the same call may work later, so they count toward the breaker (§10).
const IO_FAILURE_CODES = new Set([
  'ENOSPC',
  'EDQUOT',
  'EIO',
  'EFBIG',
  'EMFILE',
  'ENFILE',
  'EBUSY',
  'ETXTBSY',
  'EAGAIN',
  'ESTALE',
  'ERR_FS_FILE_TOO_LARGE',
]);

const DESCRIPTIONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EIO: 'input/output error',
  EFBIG: 'file too large',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in system',
  EBUSY: 'resource busy',
  ETXTBSY: 'text file busy',
  EAGAIN: 'resource temporarily unavailable',
  ESTALE: 'stale file handle',
  ERR_FS_FILE_TOO_LARGE: 'file too large to read into memory',
  ENAMETOOLONG: 'file name too long',
  ELOOP: 'too many levels of symbolic links',
};

/**
 * Maps a file-system error to an envelope: EACCES/EPERM/EROFS → PERMISSION_DENIED (`os_permission`), ENOSPC/EIO and
 * other I/O failures → EXECUTION_ERROR. Returns undefined for errors that are not file-system errors (bugs), which
 * the caller rethrows so the activity reports INTERNAL_ERROR.
 */
export function fileSystemErrorEnvelope(
  error: unknown,
  options: { rel: string; action: 'read' | 'write'; context: EnvelopeContext; timeMs: number },
): Envelope | undefined {
  const code = errorCode(error);
  if (code === undefined || !(/^E[A-Z0-9]+$/.test(code) || code.startsWith('ERR_FS_'))) return undefined;
  const syscall =
    typeof error === 'object' && error !== null && 'syscall' in error && typeof error.syscall === 'string'
      ? error.syscall
      : undefined;
  const description = DESCRIPTIONS[code] ?? 'I/O error';
  const base = { context: options.context, stats: { time_ms: options.timeMs } };
  const errno = { errno: code, ...(syscall ? { syscall } : {}) };
  if (PERMISSION_CODES.has(code)) {
    return errorEnvelope({
      ...base,
      code: 'PERMISSION_DENIED',
      message: `Cannot ${options.action} '${options.rel}': ${description} (${code}).`,
      details: { reason: 'os_permission', ...errno },
    });
  }
  if (code === 'ENAMETOOLONG' || code === 'ELOOP') {
    return errorEnvelope({
      ...base,
      code: 'INVALID_PARAM',
      message: `Cannot ${options.action} '${options.rel}': ${description} (${code}).`,
      details: { reason: code === 'ELOOP' ? 'symlink_loop' : 'name_too_long', ...errno },
    });
  }
  return errorEnvelope({
    ...base,
    code: 'EXECUTION_ERROR',
    message: `Failed to ${options.action} '${options.rel}': ${description} (${code}).`,
    details: { reason: IO_FAILURE_CODES.has(code) ? 'io_error' : 'os_error', ...errno },
  });
}
