// Every reference to a document points at something in this repository: no citation of a document a clone does not
// contain, no `docs/X.md §N` naming a section X lacks, no `docs/X.md#anchor` or markdown link naming a missing file or
// heading (anchors are GitHub's heading slugs). A bare `§N` means docs/tools.md.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { globSync } from 'tinyglobby';
import { describe, expect, it } from 'vitest';

const repository = fileURLToPath(new URL('..', import.meta.url));
const self = path.relative(repository, fileURLToPath(import.meta.url));

/** Where references are checked: the code, its tests and tools, and the documentation. */
const SCANNED = ['{src,test,bench,soak,scripts}/**/*.{ts,mts,cts,js,mjs,cjs,json,md,sh,go,py,yml}', 'docs/**/*.md'];
const SCANNED_ROOT_FILES = ['README.md'];
/** Recorded data (histories, scripts), not prose. */
const NOT_SCANNED = ['test/fixtures/**', '**/node_modules/**'];

/** The document a bare `§N` refers to. */
const SECTION_DOCUMENT = 'docs/tools.md';

// Documents that are not in the repository, and the section numbers of the one that used to be cited.
const OUTSIDE_DOCUMENT = /TOOL-SPEC|\bDESIGN\.md\b|\bSTYLE\.md\b|\bC\.\d+(?:\.\d+)*\b/g;
// `docs/tools.md §5.1`, or a bare `§5.1`.
const SECTION_REFERENCE = /(?:\bdocs\/([\w.-]+\.md)\s+)?§\s?(\d+(?:\.\d+)*)/g;
// `docs/architecture.md#temporal-mapping`, or a bare `docs/security.md`.
const DOCUMENT_REFERENCE = /(?<![\w/.-])docs\/([\w.-]+\.md)(?:#([\w-]+))?/g;
// A markdown link or image target: `[text](target)`.
const MARKDOWN_LINK = /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;

/** What a markdown document offers to references: its heading anchors and its numbered sections. */
interface DocumentIndex {
  anchors: Set<string>;
  sections: Set<string>;
}

/** One reference that names nothing, with where it is. */
interface Problem {
  file: string;
  line: number;
  text: string;
  why: string;
}

/** GitHub's anchor for a heading: the rendered text lower-cased, punctuation dropped, spaces as hyphens. */
function headingSlug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '');
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The lines of a markdown text outside fenced code blocks, with their 1-based numbers. */
function proseLines(text: string): Array<{ line: number; text: string }> {
  const lines: Array<{ line: number; text: string }> = [];
  let fence: string | undefined;
  text.split('\n').forEach((content, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(content)?.[1];
    if (marker !== undefined && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      return;
    }
    if (fence === undefined) lines.push({ line: index + 1, text: content });
  });
  return lines;
}

/** The anchors (duplicates numbered as GitHub does) and the section numbers of a markdown document. */
function indexDocument(markdown: string): DocumentIndex {
  const anchors = new Set<string>();
  const sections = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const slug = headingSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    const number = /^(\d+(?:\.\d+)*)\.?\s/.exec(heading)?.[1];
    if (number !== undefined) sections.add(number);
  }
  for (const match of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
  return { anchors, sections };
}

/**
 * The comments of a source file, with everything else blanked to spaces so offsets still match: a bare `docs/X.md` in
 * code may be data, such as a path in a test's workspace, so only comments are read as references there. Strings are
 * skipped so that a glob such as `'docs/*.md'` opens no comment.
 */
function commentText(source: string): string {
  let kept = '';
  let state: 'code' | 'line' | 'block' | "'" | '"' | '`' = 'code';
  for (let index = 0; index < source.length; index++) {
    const char = source[index]!;
    const pair = source.slice(index, index + 2);
    if (char === '\n') {
      kept += char;
      if (state === 'line' || state === "'" || state === '"') state = 'code';
    } else if (state === 'line' || state === 'block') {
      if (state === 'block' && pair === '*/') {
        kept += '  ';
        index++;
        state = 'code';
      } else kept += char;
    } else if (state === 'code') {
      if (pair === '//' || pair === '/*') {
        kept += '  ';
        index++;
        state = pair === '//' ? 'line' : 'block';
      } else {
        if (char === "'" || char === '"' || char === '`') state = char;
        kept += ' ';
      }
    } else {
      if (char === '\\') {
        kept += source[index + 1] === '\n' ? ' \n' : '  ';
        index++;
      } else {
        if (char === state) state = 'code';
        kept += ' ';
      }
    }
  }
  return kept;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let index = 0; index < offset; index++) if (text.charCodeAt(index) === 10) line++;
  return line;
}

/**
 * Every reference in `files` (path → text) that names nothing. `documents` indexes every markdown file by its path;
 * `exists` says whether a relative link's target is there.
 */
function findProblems(
  files: ReadonlyMap<string, string>,
  documents: ReadonlyMap<string, DocumentIndex>,
  exists: (file: string) => boolean,
): Problem[] {
  const problems: Problem[] = [];
  const report = (file: string, text: string, offset: number, found: string, why: string) =>
    problems.push({ file, line: lineOf(text, offset), text: found, why });
  const checkAnchor = (document: string, anchor: string | undefined): string | undefined => {
    const index = documents.get(document);
    if (index === undefined) return `${document} does not exist`;
    if (anchor !== undefined && !index.anchors.has(anchor)) return `${document} has no heading #${anchor}`;
    return undefined;
  };

  for (const [file, text] of files) {
    const markdown = file.endsWith('.md');
    for (const match of text.matchAll(OUTSIDE_DOCUMENT)) {
      report(file, text, match.index, match[0], 'cites a document that is not in the repository');
    }
    for (const match of text.matchAll(SECTION_REFERENCE)) {
      const document = match[1] === undefined ? SECTION_DOCUMENT : `docs/${match[1]}`;
      const index = documents.get(document);
      const why =
        index === undefined
          ? `${document} does not exist`
          : index.sections.has(match[2]!)
            ? undefined
            : `${document} has no section ${match[2]}`;
      if (why !== undefined) report(file, text, match.index, match[0], why);
    }
    // Anchored references are unambiguous anywhere; a bare document path only in comments and prose.
    const prose = markdown ? text : commentText(text);
    for (const match of text.matchAll(DOCUMENT_REFERENCE)) {
      const anchored = match[2] !== undefined;
      if (!anchored && prose.slice(match.index, match.index + match[0].length) !== match[0]) continue;
      const why = checkAnchor(`docs/${match[1]}`, match[2]);
      if (why !== undefined) report(file, text, match.index, match[0], why);
    }
    if (!markdown) continue;
    for (const { line, text: content } of proseLines(text)) {
      for (const match of content.replace(/`[^`]*`/g, '').matchAll(MARKDOWN_LINK)) {
        const target = match[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const [pathPart = '', anchor] = target.split('#', 2);
        const linked =
          pathPart === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), pathPart));
        const why = linked.endsWith('.md')
          ? checkAnchor(linked, anchor)
          : exists(linked)
            ? undefined
            : `${linked} does not exist`;
        if (why !== undefined) problems.push({ file, line, text: match[0], why });
      }
    }
  }
  return problems;
}

/** A repository path in backticks, e.g. `src/core/step/call.ts` or `test/support/`. */
const REPOSITORY_PATH = /`((?:src|test|bench|soak|scripts|examples|docs)\/[A-Za-z0-9_./-]+)`/g;

function scannedFiles(): Map<string, string> {
  const names = [
    ...globSync(SCANNED, { cwd: repository, ignore: NOT_SCANNED }),
    ...SCANNED_ROOT_FILES.filter((name) => existsSync(path.join(repository, name))),
  ];
  return new Map(
    names.filter((name) => name !== self).map((name) => [name, readFileSync(path.join(repository, name), 'utf8')]),
  );
}

function markdownIndexes(files: ReadonlyMap<string, string>): Map<string, DocumentIndex> {
  const documents = new Map<string, DocumentIndex>();
  for (const [name, text] of files) if (name.endsWith('.md')) documents.set(name, indexDocument(text));
  return documents;
}

function describeProblems(problems: Problem[]): string[] {
  return problems.map((problem) => `${problem.file}:${problem.line}: ${problem.text} — ${problem.why}`);
}

describe('references to documents', () => {
  it('name only documents, sections and headings that exist in the repository', () => {
    const files = scannedFiles();
    const problems = findProblems(files, markdownIndexes(files), (file) => existsSync(path.join(repository, file)));
    expect(describeProblems(problems)).toEqual([]);
  });

  it('name only files and folders of the repository when the docs give a path in backticks', () => {
    const missing: string[] = [];
    for (const [file, text] of scannedFiles()) {
      if (!file.endsWith('.md')) continue;
      for (const [line, content] of text.split('\n').entries()) {
        for (const match of content.matchAll(REPOSITORY_PATH)) {
          const named = match[1]!;
          // `acme` is the worked example of adding a provider: its files are the ones to be written.
          if (named.includes('/acme')) continue;
          const bare = named.replace(/\/$/, '');
          const found = [bare, bare.replace(/\.js$/, '.ts')].some((candidate) =>
            existsSync(path.join(repository, candidate)),
          );
          if (!found) missing.push(`${file}:${line + 1}: ${named}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('numbers every top-level section of docs/tools.md from 0 without a gap', () => {
    const sections = indexDocument(readFileSync(path.join(repository, SECTION_DOCUMENT), 'utf8')).sections;
    const top = [...sections].filter((section) => !section.includes('.')).map(Number);
    expect(top).toEqual(top.map((_, index) => index));
    expect(top.length).toBeGreaterThan(0);
  });

  it('are found when they dangle', () => {
    const tools = '# Tools\n\n## 5. Permissions\n\n### 5.1 Evaluation order\n';
    const architecture = '# Architecture\n\n## Temporal mapping\n\n## Temporal mapping\n\n```\n## Not a heading\n```\n';
    const documents = new Map([
      ['docs/tools.md', indexDocument(tools)],
      ['docs/architecture.md', indexDocument(architecture)],
    ]);
    const outside = ['TOOL', '-SPEC C.5.1'].join('');
    const files = new Map([
      ['src/a.ts', `// ${outside} step 4, (C.9) and DESIGN.md "Temporal mapping"\nconst x = 'docs/data.md';\n`],
      ['src/b.ts', '// docs/tools.md §5.1 step 4, §5, docs/tools.md §5.2 and §6\n'],
      [
        'src/c.ts',
        "// docs/architecture.md#temporal-mapping-1, docs/architecture.md#missing, docs/gone.md\nit('§7')\n",
      ],
      [
        'docs/d.md',
        '[ok](tools.md#51-evaluation-order) [bad](tools.md#6-budget) [none](../gone.md) `[x](nowhere.md)`\n',
      ],
      ['README.md', '[ok](docs/tools.md) [img](docs/img/a.png) [same](#readme) [lost](#lost)\n\n# README\n'],
    ]);
    documents.set('docs/d.md', indexDocument(files.get('docs/d.md')!));
    documents.set('README.md', indexDocument(files.get('README.md')!));
    const problems = findProblems(files, documents, (file) => file === 'docs/img/a.png');
    expect(problems.map((problem) => `${problem.file}:${problem.line} ${problem.text}`)).toEqual([
      'src/a.ts:1 TOOL-SPEC',
      'src/a.ts:1 C.5.1',
      'src/a.ts:1 C.9',
      'src/a.ts:1 DESIGN.md',
      'src/b.ts:1 docs/tools.md §5.2',
      'src/b.ts:1 §6',
      'src/c.ts:2 §7',
      'src/c.ts:1 docs/architecture.md#missing',
      'src/c.ts:1 docs/gone.md',
      'docs/d.md:1 ](tools.md#6-budget)',
      'docs/d.md:1 ](../gone.md)',
      'README.md:1 ](#lost)',
    ]);
  });

  it('anchor headings by GitHub slugs', () => {
    expect(headingSlug('5.1 Evaluation order')).toBe('51-evaluation-order');
    expect(headingSlug('Endpoints: who can read and approve through what is served')).toBe(
      'endpoints-who-can-read-and-approve-through-what-is-served',
    );
    expect(headingSlug("The Web UI's codec endpoint")).toBe('the-web-uis-codec-endpoint');
    expect(headingSlug('`npm run cluster`: the same topology')).toBe('npm-run-cluster-the-same-topology');
    expect(headingSlug('Command sandbox (bubblewrap), root worker or not')).toBe(
      'command-sandbox-bubblewrap-root-worker-or-not',
    );
  });
});
