// A real workspace for the search tests: a copy of this repository's src/ plus crafted files that exercise every
// traversal and matching rule (hidden, ignored, binary, CRLF, long lines, Unicode, symlinks).
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repositorySource = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src');

/** The root .gitignore of the fixture, and the same rules as tinyglobby ignore globs. */
export const FIXTURE_GITIGNORE = '*.log\n/ignored/\ntmp/\n';
/** tinyglobby equivalents of FIXTURE_GITIGNORE (relative to the workspace root). */
export const FIXTURE_GITIGNORE_GLOBS = ['**/*.log', 'ignored/**', '**/tmp/**'];

const crafted: Record<string, string | Buffer> = {
  '.gitignore': FIXTURE_GITIGNORE,
  'notes.log': 'needle in a log\n',
  'ignored/a.ts': 'export const needle = "ignored";\n',
  'src/tmp/x.ts': 'export const needle = "tmp";\n',
  '.hidden/secret.ts': 'export const needle = "hidden";\n',
  'src/.dotfile.ts': 'export const needle = "dotfile";\n',
  'node_modules/pkg/index.js': 'module.exports = "needle vendor";\n',
  'build/out.js': 'console.log("needle build");\n',
  'docs/build': 'a file named like an ignored directory: needle\n',
  'data/blob.bin': Buffer.from('needle\0\0\0binary needle\n', 'latin1'),
  'data/crlf.txt': 'foo\r\nbar  \r\nq\rz needle\r\n\r\nend foo\r\nlast\r\r\n',
  'data/long.txt': [
    `${'x'.repeat(3000)} needle`,
    `${'a'.repeat(1986)}${'😀'.repeat(10)} needle`,
    'short needle',
    '',
  ].join('\n'),
  'data/unicode.txt': [
    'ſtraße needle',
    '\u212Aelvin and kelvin',
    '٣٤٥ arabic digits',
    'éa É café',
    'nbsp\u00A0here',
    'bom\uFEFFmid',
    'sep\u2028line',
    'tab\there',
    '😀 emoji needle',
    'ΑΒΓ αβγ greek',
    '',
  ].join('\n'),
  'data/bom.txt': '\uFEFFfoo needle\nbar\n',
  'data/late-nul.txt': `${'a'.repeat(9000)}\nneedle\0after\ntail needle\n`,
  'data/many.txt': Array.from(
    { length: 300 },
    (_, index) => `${index % 3 === 0 ? 'needle' : 'filler'} ${index + 1}\n`,
  ).join(''),
  'data/-dash file.txt': 'needle dash\n',
  'data/empty.txt': '',
  'data/no-newline.txt': 'first\nlast needle',
  'data/special [x].txt': 'needle bracket $1 (paren) a.b\n',
  'data/nested/deep/file.md': '# needle heading\n\nTODO: write\n',
  'data/Upper.TS': 'export const NEEDLE = 1;\n',
  'data/a-b.ts': 'needle\n',
  'data/a/b.ts': 'needle\n',
};

/** Creates the fixture workspace in a fresh temporary directory and returns its path. */
export async function createSearchWorkspace(): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'search-fixture-'));
  // The source tree changes while the project is edited; a copy keeps both sides of each comparison on one snapshot.
  await cp(repositorySource, path.join(root, 'src'), { recursive: true });
  for (const [relative, content] of Object.entries(crafted)) {
    const target = path.join(root, relative);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  await symlink('../src/protocol/envelope.ts', path.join(root, 'data/link.ts'));
  await symlink('../src', path.join(root, 'data/linkdir'));
  return root;
}

/** Removes a fixture workspace. */
export async function removeSearchWorkspace(root: string): Promise<void> {
  await rm(root, { recursive: true, force: true });
}
