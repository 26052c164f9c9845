// Node: the tree-sitter-bash node kinds the walker tells apart, and the queries it makes over them.
import type { SyntaxNode } from './parser.js';

export const STATEMENTS = new Set([
  'command',
  'redirected_statement',
  'pipeline',
  'list',
  'subshell',
  'compound_statement',
  'if_statement',
  'while_statement',
  'for_statement',
  'c_style_for_statement',
  'case_statement',
  'function_definition',
  'negated_command',
  'test_command',
  'declaration_command',
  'unset_command',
  'variable_assignment',
  'variable_assignments',
  'do_group',
  'elif_clause',
  'else_clause',
  'case_item',
]);
export const SEQUENCES = new Set([
  'program',
  'compound_statement',
  'do_group',
  'else_clause',
  'elif_clause',
  'if_statement',
  'case_statement',
  'case_item',
  'negated_command',
  'list',
]);
export const LOOPS = new Set(['while_statement', 'for_statement', 'c_style_for_statement']);
export const SUBSTITUTIONS = new Set(['command_substitution', 'process_substitution']);
export const REDIRECTS = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect']);

export function destinations(redirect: SyntaxNode): SyntaxNode[] {
  return redirect.childrenForFieldName('destination').filter((child): child is SyntaxNode => child !== null);
}

/** Substitution nodes below `nodes`, outermost only; statements nested in here-document redirects are visited apart. */
export function findSubstitutions(nodes: readonly SyntaxNode[]): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  const visit = (node: SyntaxNode, inHeredoc: boolean): void => {
    if (SUBSTITUTIONS.has(node.type)) {
      found.push(node);
      return;
    }
    if (inHeredoc && STATEMENTS.has(node.type)) return;
    for (const child of node.namedChildren) if (child) visit(child, inHeredoc || node.type === 'heredoc_redirect');
  };
  for (const node of nodes) visit(node, false);
  return found;
}

export function assignedNames(node: SyntaxNode): string[] {
  const names: string[] = [];
  const visit = (current: SyntaxNode): void => {
    if (current.type === 'variable_assignment') {
      names.push(current.childForFieldName('name')?.text ?? '');
      return;
    }
    if (current.type === 'variable_name' && current.parent?.type !== 'variable_assignment') names.push(current.text);
    for (const child of current.namedChildren) if (child && !SUBSTITUTIONS.has(child.type)) visit(child);
  };
  visit(node);
  return names;
}
