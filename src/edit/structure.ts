// The structure invariant: an edit never changes which block an
// untouched line belongs to. A re-indentation can parse cleanly and still
// change what the code means: `if name:` written at the level of the `else:`
// below it takes that `else:` away from its `if`; a line moved out of an
// `except` block runs in another case. Checked on the trees before and after.
//
// Which untouched lines can change blocks? A node that holds an untouched
// line L and starts before it either lies entirely in untouched text (then it
// is the same before and after), or it spans the edited lines, and then it
// also holds the first untouched line after them. So for each edited region
// it is enough to compare, at the first untouched line after it, the nodes
// that hold that line and started before it: those starting on untouched
// lines must be the same nodes (same kind, same line) before and after. Nodes
// starting on edited lines are the edit's own (a new `if` wrapping lines in
// braces is fine), and container nodes whose start is their first child's
// (Python's `block`, YAML's mappings) are left out, as their start moves
// whenever their first statement is edited; what counts is the statement
// that opened them (`if`, `def`, `class`, `{`).
import type { SyntaxNode, Tree } from "../parsers/treeSitter.ts";
import { diffArrays } from "diff";
import { type LineHunk, placeAfterLine, placeBeforeLine } from "./lineHunks.ts";

export interface StructureProblem {
  /** 0-based row and column (UTF-16) in the new text. */
  row: number;
  column: number;
  index: number;
  message: string;
  /** The line that changed blocks (its trimmed text) and the block it left or entered (`if_statement@2`, new-text row). */
  moved: { text: string; block: string };
}

interface Holder {
  type: string;
  /** Start row in new-text coordinates, or null when it starts on an edited line. */
  row: number | null;
}

const firstNonBlank = (line: string): number => {
  const m = /\S/.exec(line);
  return m ? m.index : -1;
};

/** Whether a node's start is fixed by a token of its own (a keyword, a bracket) rather than by its first child. */
function anchored(node: SyntaxNode): boolean {
  const first = node.child(0);
  return first === null || !first.isNamed;
}

/**
 * The nodes holding the line at `row` that start on an earlier row, innermost
 * first; null when an ERROR node is among them (the tree says nothing reliable).
 */
function holders(tree: Tree, row: number, column: number, toNew: (row: number) => number | null): Holder[] | null {
  let node: SyntaxNode | null = tree.rootNode.descendantForPosition({ row, column });
  const out: Holder[] = [];
  for (; node; node = node.parent) {
    if (node.isError || node.isMissing) return null;
    if (node.startPosition.row >= row) continue;
    if (!anchored(node)) continue;
    out.push({ type: node.type, row: toNew(node.startPosition.row) });
  }
  return out;
}

const describe = (type: string): string => type.replace(/_/g, " ");

/** How rows of an untouched line map across the edit: new row to its old one (null when edited), old row to its new one. */
function rowMaps(hunks: LineHunk[]): {
  untouchedAfter: (row: number) => number | null;
  oldToNew: (row: number) => number | null;
} {
  return {
    untouchedAfter: (row) => {
      const p = placeAfterLine(hunks, row);
      return "line" in p ? p.line : null;
    },
    oldToNew: (row) => {
      const p = placeBeforeLine(hunks, row);
      return "line" in p ? p.line : null;
    },
  };
}

/** A block as compared across the edit: its type and the (new) row it starts at. */
const holderKey = (x: Holder): string => `${x.type}@${x.row}`;

/** The offset of `column` on line `row` in the text the lines make. */
export function offsetOf(lines: string[], row: number, column: number): number {
  return lines.slice(0, row).reduce((n, l) => n + l.length + 1, 0) + column;
}

/**
 * Untouched lines whose enclosing blocks the edit changed (at most one per
 * edited region), as problems for the caller to refuse the edit with.
 */
export function structureProblems(
  oldTree: Tree,
  newTree: Tree,
  hunks: LineHunk[],
  oldLines: string[],
  newLines: string[],
): StructureProblem[] {
  const problems: StructureProblem[] = [];
  const { untouchedAfter, oldToNew } = rowMaps(hunks);
  // Old row of an untouched new row.
  const newToOld = (row: number): number => {
    let shift = 0;
    for (const h of hunks) {
      if (row < h.afterStart) break;
      shift += h.afterEnd - h.afterStart - (h.beforeEnd - h.beforeStart);
    }
    return row - shift;
  };
  for (let k = 0; k < hunks.length; k++) {
    const h = hunks[k];
    // The first untouched, non-blank line after the region.
    let row = h.afterEnd;
    while (row < newLines.length && (untouchedAfter(row) === null || firstNonBlank(newLines[row]) === -1)) row++;
    if (row >= newLines.length) continue;
    const column = firstNonBlank(newLines[row]);
    const oldRow = newToOld(row);
    if (oldLines[oldRow] !== newLines[row]) continue; // not the same line after all (should not happen)
    const after = holders(newTree, row, column, untouchedAfter);
    const before = holders(oldTree, oldRow, column, oldToNew);
    if (!after || !before) continue;
    const kept = new Set(after.filter((x) => x.row !== null).map(holderKey));
    const had = new Set(before.filter((x) => x.row !== null).map(holderKey));
    const lost = before.find((x) => x.row !== null && !kept.has(holderKey(x)));
    const gained = after.find((x) => x.row !== null && !had.has(holderKey(x)));
    const shown = newLines[row].trim().slice(0, 60);
    const index = offsetOf(newLines, row, column);
    if (lost) {
      problems.push({
        row,
        column,
        index,
        message: `line ${row + 1} (\`${shown}\`), which the edit does not touch, would no longer be inside the ${describe(lost.type)} that starts at line ${lost.row! + 1}`,
        moved: { text: newLines[row].trim(), block: holderKey(lost) },
      });
    } else if (gained) {
      problems.push({
        row,
        column,
        index,
        message: `line ${row + 1} (\`${shown}\`), which the edit does not touch, would move into the ${describe(gained.type)} that starts at line ${gained.row! + 1}`,
        moved: { text: newLines[row].trim(), block: holderKey(gained) },
      });
    }
  }
  return problems;
}

/**
 * Lines the edit re-indented but did not otherwise change (same text once
 * trimmed, paired in order within each edited region) whose enclosing blocks
 * changed: a softer signal than structureProblems. A caller may move a line
 * into another block on purpose ("fix the indentation of line 15"), so this
 * only ranks readings of an ambiguous indentation; it never refuses an edit.
 */
export function movedLineProblems(
  oldTree: Tree,
  newTree: Tree,
  hunks: LineHunk[],
  oldLines: string[],
  newLines: string[],
): StructureProblem[] {
  const problems: StructureProblem[] = [];
  const { untouchedAfter, oldToNew } = rowMaps(hunks);
  for (const h of hunks) {
    const olds = oldLines.slice(h.beforeStart, h.beforeEnd);
    const news = newLines.slice(h.afterStart, h.afterEnd);
    let o = 0;
    let n = 0;
    let found: StructureProblem | undefined;
    for (const c of diffArrays(
      olds.map((l) => l.trim()),
      news.map((l) => l.trim()),
    )) {
      if (c.removed) o += c.count;
      else if (c.added) n += c.count;
      else {
        for (let k = 0; k < c.count && !found; k++, o++, n++) {
          const oldRow = h.beforeStart + o;
          const newRow = h.afterStart + n;
          const column = firstNonBlank(newLines[newRow]);
          if (column === -1) continue;
          const after = holders(newTree, newRow, column, untouchedAfter);
          const before = holders(oldTree, oldRow, firstNonBlank(oldLines[oldRow]), oldToNew);
          if (!after || !before) continue;
          const kept = new Set(after.filter((x) => x.row !== null).map(holderKey));
          const lost = before.find((x) => x.row !== null && !kept.has(holderKey(x)));
          if (lost) {
            found = {
              row: newRow,
              column,
              index: offsetOf(newLines, newRow, column),
              message: `line ${newRow + 1} (\`${newLines[newRow].trim().slice(0, 60)}\`), a line the edit only re-indents, would leave the ${describe(lost.type)} that starts at line ${lost.row! + 1}`,
              moved: { text: newLines[newRow].trim(), block: holderKey(lost) },
            };
          }
        }
      }
      if (found) break;
    }
    if (found) problems.push(found);
  }
  return problems;
}
