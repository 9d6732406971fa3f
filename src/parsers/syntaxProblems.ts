// The syntax errors tree-sitter found in a parse tree: ERROR nodes (text the
// grammar could not fit anywhere) and MISSING nodes (a token the parser
// inserted to recover, such as a closing bracket).
import type { SyntaxNode, Tree } from "./treeSitter.ts";

export interface RawSyntaxProblem {
  kind: "error" | "missing";
  /** 0-based row and column; the column counts UTF-16 code units, like JavaScript string indices. */
  row: number;
  column: number;
  /** Offset of the problem in the parsed text (UTF-16 code units). */
  index: number;
  /** ERROR: the source text the grammar rejected (first line, cut short). MISSING: the token expected. */
  text: string;
  /**
   * Where to point a reader, when it differs from the start: error recovery
   * often wraps everything from an enclosing statement (or the file's start) in
   * one ERROR node, and the node's first token inside a region of interest (the
   * lines an edit changed) says more than its start.
   */
  focus?: { row: number; column: number; index: number };
}

/** Rows [start, end), 0-based. An empty range stands for the row at `start`. */
export interface RowRange {
  start: number;
  end: number;
}

const SNIPPET_CHARS = 40;

function snippet(source: string, start: number, end: number): string {
  const head = source.slice(start, Math.min(end, start + SNIPPET_CHARS + 1));
  const firstLine = head.split(/\r?\n/, 1)[0].trimEnd();
  return firstLine.length > SNIPPET_CHARS || firstLine.length < head.trimEnd().length
    ? `${firstLine.slice(0, SNIPPET_CHARS)}…`
    : firstLine;
}

/**
 * Every ERROR and MISSING node of `tree`, in document order, nested ones
 * included. Only subtrees that contain an error are visited (tree-sitter marks
 * them), so a clean file costs one check.
 */
export function syntaxProblems(tree: Tree, source: string, focusRows: RowRange[] = []): RawSyntaxProblem[] {
  const problems: RawSyntaxProblem[] = [];
  if (!tree.rootNode.hasError) return problems;
  const stack: SyntaxNode[] = [tree.rootNode];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.isError) {
      const { row, column } = node.startPosition;
      const problem: RawSyntaxProblem = {
        kind: "error",
        row,
        column,
        index: node.startIndex,
        text: snippet(source, node.startIndex, node.endIndex),
      };
      const focus = focusOf(node, focusRows);
      if (focus) {
        problem.focus = { row: focus.startPosition.row, column: focus.startPosition.column, index: focus.startIndex };
        problem.text = snippet(source, focus.startIndex, node.endIndex);
      }
      problems.push(problem);
      // No `continue`: errors nested inside an ERROR node are kept too. When a
      // file is already broken, one ERROR node often swallows a large region
      // (a whole YAML document, a shell `if`), and a new error inside it shows
      // up only as a nested one.
    }
    if (node.isMissing) {
      const { row, column } = node.startPosition;
      problems.push({ kind: "missing", row, column, index: node.startIndex, text: node.type });
      continue;
    }
    // Children pushed last-first so they pop in document order.
    for (let i = node.childCount - 1; i >= 0; i--) {
      const child = node.child(i);
      if (child && (child.hasError || child.isMissing)) stack.push(child);
    }
  }
  return problems;
}

/**
 * For an ERROR node that starts before a focus range and reaches into it: its
 * first leaf (or nested ERROR) that starts inside the range. Null otherwise.
 */
function focusOf(error: SyntaxNode, ranges: RowRange[]): SyntaxNode | null {
  const startRow = error.startPosition.row;
  const endRow = error.endPosition.row;
  for (const { start, end } of ranges) {
    const last = Math.max(end, start + 1);
    if (start <= startRow && startRow < last) return null; // starts inside the range: its start is the place
    if (startRow >= last) continue; // starts after this range
    if (start > endRow) return null; // ranges are in order: none further can be reached
    let node: SyntaxNode | null = error;
    // Descend towards the first token at or after the range's first row.
    while (node && node.childCount > 0 && !(node !== error && node.isError)) {
      let next: SyntaxNode | null = null;
      for (let i = 0; i < node.childCount; i++) {
        const child = node.child(i);
        // The first child with text on or after the range's first row.
        const childEnd = child?.endPosition;
        if (child && childEnd && (childEnd.row > start || (childEnd.row === start && childEnd.column > 0))) {
          next = child;
          break;
        }
      }
      node = next;
    }
    if (node && node.startPosition.row >= start && node.startPosition.row < last) return node;
  }
  return null;
}
