import treeSitter from '@vscode/tree-sitter-wasm';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const { Parser, Language } = treeSitter;
await Parser.init();
const wasm = require.resolve('@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm');
const bash = await Language.load(wasm);
const parser = new Parser();
parser.setLanguage(bash);
for (const cmd of process.argv.slice(2)) {
  const t0 = performance.now();
  const tree = parser.parse(cmd)!;
  console.log(cmd, '=>', (performance.now()-t0).toFixed(2), 'ms hasError', tree.rootNode.hasError);
  const dump = (n: any, d: number) => { console.log('  '.repeat(d) + (n.isNamed? n.type : JSON.stringify(n.type)) + (n.childCount===0||['word','raw_string','string_content'].includes(n.type)? ' ' + JSON.stringify(n.text):'') + (n.parent && n.parent.fieldNameForChild ? '' : '')); for (let i=0;i<n.childCount;i++){ const f = n.fieldNameForChild(i); if (f) process.stdout.write('  '.repeat(d+1)+'['+f+']\n'); dump(n.child(i), d+1);} };
  dump(tree.rootNode, 1);
}
