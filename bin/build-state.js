// Whether dist/ holds a build of the sources beside it. Plain JavaScript: it runs before anything is compiled.
import fs from 'node:fs';
import path from 'node:path';

/**
 * Why `root`'s compiled CLI cannot be run as it is: dist/cli/main.js is missing, or (in a checkout, where src/ is
 * there) a source is newer than its compiled file or was never compiled. Undefined when dist/ is up to date.
 * @param {string} root the package directory
 * @returns {string | undefined}
 */
export function staleBuild(root) {
  const dist = path.join(root, 'dist');
  if (!fs.existsSync(path.join(dist, 'cli', 'main.js'))) return 'dist/ holds no build (dist/cli/main.js is missing)';
  const src = path.join(root, 'src');
  if (!fs.existsSync(src)) return undefined;
  return staleIn(src, dist, 'src');
}

/**
 * @param {string} sources
 * @param {string} compiled
 * @param {string} shown
 * @returns {string | undefined}
 */
function staleIn(sources, compiled, shown) {
  for (const entry of fs.readdirSync(sources, { withFileTypes: true })) {
    const source = path.join(sources, entry.name);
    if (entry.isDirectory()) {
      const stale = staleIn(source, path.join(compiled, entry.name), `${shown}/${entry.name}`);
      if (stale !== undefined) return stale;
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      const output = fs.statSync(path.join(compiled, entry.name.replace(/\.ts$/, '.js')), { throwIfNoEntry: false });
      if (output === undefined) return `${shown}/${entry.name} is not compiled in dist/`;
      if (fs.statSync(source).mtimeMs > output.mtimeMs) return `${shown}/${entry.name} changed after the last build`;
    }
  }
  return undefined;
}
