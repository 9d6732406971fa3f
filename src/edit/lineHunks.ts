// Where two versions of a text differ, as line ranges: the regions an edit
// touched. Everything outside a hunk is an unchanged line whose position in the
// new text is known exactly.
import { diffArrays } from "diff";

/** A changed region: lines [beforeStart, beforeEnd) became [afterStart, afterEnd) (0-based). */
export interface LineHunk {
  beforeStart: number;
  beforeEnd: number;
  afterStart: number;
  afterEnd: number;
}

/** Past this many differing lines, the differing middle is taken as one region instead of diffed. */
const MAX_DIFFED_LINES = 4000;

/**
 * The changed regions between two line arrays, in order. The common head and
 * tail are cut first (an edit usually touches one place), and only the middle
 * is diffed, so a small edit in a large file costs little.
 */
export function lineHunks(before: string[], after: string[]): LineHunk[] {
  let start = 0;
  const shortest = Math.min(before.length, after.length);
  while (start < shortest && before[start] === after[start]) start++;
  let beforeEnd = before.length;
  let afterEnd = after.length;
  while (beforeEnd > start && afterEnd > start && before[beforeEnd - 1] === after[afterEnd - 1]) {
    beforeEnd--;
    afterEnd--;
  }
  if (start === beforeEnd && start === afterEnd) return [];
  const whole: LineHunk = { beforeStart: start, beforeEnd, afterStart: start, afterEnd };
  const oldMiddle = before.slice(start, beforeEnd);
  const newMiddle = after.slice(start, afterEnd);
  if (oldMiddle.length === 0 || newMiddle.length === 0 || oldMiddle.length + newMiddle.length > MAX_DIFFED_LINES) {
    return [whole];
  }
  const changes = diffArrays(oldMiddle, newMiddle, { maxEditLength: MAX_DIFFED_LINES });
  if (!changes) return [whole];

  const hunks: LineHunk[] = [];
  let b = start;
  let a = start;
  let open: LineHunk | null = null;
  for (const change of changes) {
    const n = change.count ?? change.value.length;
    if (!change.added && !change.removed) {
      b += n;
      a += n;
      open = null;
      continue;
    }
    // A removal next to an addition is one region (a replacement). Regions
    // separated by even one unchanged line stay apart: that line anchors where
    // each error is, so an error cannot move from one region into another
    // unnoticed.
    if (!open) {
      open = { beforeStart: b, beforeEnd: b, afterStart: a, afterEnd: a };
      hunks.push(open);
    }
    if (change.added) a += n;
    else b += n;
    open.beforeEnd = b;
    open.afterEnd = a;
  }
  return hunks;
}

/** What an unchanged line of the old text became, or which hunk holds it. */
export type LinePlace = { hunk: number } | { line: number };

/** Place of before-line `row` (0-based) in the new text. */
export function placeBeforeLine(hunks: LineHunk[], row: number): LinePlace {
  let shift = 0;
  for (let i = 0; i < hunks.length; i++) {
    const h = hunks[i];
    if (row < h.beforeStart) break;
    if (row < h.beforeEnd) return { hunk: i };
    shift += h.afterEnd - h.afterStart - (h.beforeEnd - h.beforeStart);
  }
  return { line: row + shift };
}

/** Place of after-line `row` (0-based): its own row when unchanged, else its hunk. */
export function placeAfterLine(hunks: LineHunk[], row: number): LinePlace {
  for (let i = 0; i < hunks.length; i++) {
    const h = hunks[i];
    if (row < h.afterStart) break;
    if (row < h.afterEnd) return { hunk: i };
  }
  return { line: row };
}
