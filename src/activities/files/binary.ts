// Node: binary detection of docs/tools.md §11.1 (ReadFile step 1), shared by the three file tools.
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

/** Bytes inspected for a NUL. */
export const BINARY_NUL_WINDOW = 8192;
/** Bytes inspected for the share of control characters. */
export const BINARY_CONTROL_WINDOW = 4096;
const CONTROL_SHARE_LIMIT = 0.3;

/** A NUL in the first 8,192 bytes, or more than 30% of the first 4,096 bytes in 0x00–0x08 or 0x0E–0x1F. */
export function looksBinary(bytes: Uint8Array): boolean {
  const nulWindow = Math.min(bytes.length, BINARY_NUL_WINDOW);
  for (let index = 0; index < nulWindow; index++) {
    if (bytes[index] === 0) return true;
  }
  const controlWindow = Math.min(bytes.length, BINARY_CONTROL_WINDOW);
  if (controlWindow === 0) return false;
  let control = 0;
  for (let index = 0; index < controlWindow; index++) {
    const byte = bytes[index]!;
    if (byte <= 0x08 || (byte >= 0x0e && byte <= 0x1f)) control++;
  }
  return control / controlWindow > CONTROL_SHARE_LIMIT;
}

/** Reads only the head of a file, so a huge binary is rejected without loading it. */
export async function readHead(filePath: string, length = BINARY_NUL_WINDOW): Promise<Uint8Array> {
  const handle = await open(filePath, 'r');
  try {
    return await readHeadOf(handle, length);
  } finally {
    await handle.close();
  }
}

/** The head of an opened file (read at position 0, whatever the handle's position). */
export async function readHeadOf(handle: FileHandle, length = BINARY_NUL_WINDOW): Promise<Uint8Array> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, 0);
  return buffer.subarray(0, bytesRead);
}

/** `looksBinary` on the head of a file. */
export async function isBinaryFile(filePath: string): Promise<boolean> {
  return looksBinary(await readHead(filePath));
}
