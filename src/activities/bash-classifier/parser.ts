// Node: loads tree-sitter-bash (WebAssembly, shipped in @vscode/tree-sitter-wasm) once per worker process.
import { createRequire } from 'node:module';
import treeSitter from '@vscode/tree-sitter-wasm';
import type { Node, Parser, Tree } from '@vscode/tree-sitter-wasm';

/** A node of the tree-sitter-bash syntax tree. */
export type SyntaxNode = Node;

const require = createRequire(import.meta.url);

let loading: Promise<Parser> | undefined;

async function loadParser(): Promise<Parser> {
  await treeSitter.Parser.init();
  const language = await treeSitter.Language.load(
    require.resolve('@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm'),
  );
  const parser = new treeSitter.Parser();
  parser.setLanguage(language);
  return parser;
}

/** The shared bash parser; a failed load is retried on the next call (a missing WASM file is a worker problem). */
export function bashParser(): Promise<Parser> {
  loading ??= loadParser().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/** True when the tree nests deeper than `limit` (checked without recursion, so any input is safe to measure). */
export function nestsDeeperThan(root: SyntaxNode, limit: number): boolean {
  const cursor = root.walk();
  try {
    let depth = 0;
    for (;;) {
      if (cursor.gotoFirstChild()) {
        depth++;
        if (depth > limit) return true;
        continue;
      }
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return false;
        depth--;
      }
    }
  } finally {
    cursor.delete();
  }
}

/**
 * Parses a script and hands its tree to `use`, freeing the tree's WebAssembly memory afterwards. `undefined` is passed
 * when the text does not parse cleanly (tree-sitter recovers from errors, so an ERROR or MISSING node counts as failure).
 */
export async function withParsedScript<T>(
  script: string,
  use: (root: SyntaxNode | undefined) => Promise<T>,
): Promise<T> {
  const parser = await bashParser();
  let tree: Tree | null = null;
  try {
    tree = parser.parse(script);
    const root = tree && !tree.rootNode.hasError ? tree.rootNode : undefined;
    return await use(root);
  } finally {
    tree?.delete();
  }
}
