// Node: a content key as an operator types or pastes it on a command line (`output`, `rewind --to-checkpoint`).
import type { ContentKey } from '../protocol/content-key.js';
import { isContentKey, parseRef } from '../protocol/content-key.js';

/** A key as a person pastes it: `sha256:<hex>`, the bare 64 hex digits, or a `\0ref:` reference string. */
export function parseKeyArgument(text: string): ContentKey | undefined {
  const trimmed = text.trim();
  if (isContentKey(trimmed)) return trimmed;
  if (/^[0-9a-f]{64}$/.test(trimmed)) return `sha256:${trimmed}`;
  return parseRef(trimmed);
}
