// Node: "Did you mean" names for NOT_FOUND (docs/tools.md §11.1 ReadFile step 1).
import { readdir } from 'node:fs/promises';
import path from 'node:path';

const MAX_SUGGESTIONS = 3;

/**
 * At most three workspace-relative paths in the missing file's directory whose lower-cased name contains the requested
 * basename, or is contained in it; closest length first.
 */
export async function similarNames(real: string, rel: string): Promise<string[]> {
  const wanted = path.basename(real).toLowerCase();
  if (wanted === '') return [];
  let names: string[];
  try {
    names = await readdir(path.dirname(real));
  } catch {
    return [];
  }
  const directoryRel = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '.';
  return names
    .filter((name) => {
      const lower = name.toLowerCase();
      return lower.includes(wanted) || wanted.includes(lower);
    })
    .sort((left, right) => {
      const distance = Math.abs(left.length - wanted.length) - Math.abs(right.length - wanted.length);
      return distance !== 0 ? distance : left < right ? -1 : left > right ? 1 : 0;
    })
    .slice(0, MAX_SUGGESTIONS)
    .map((name) => (directoryRel === '.' ? name : `${directoryRel}/${name}`));
}
