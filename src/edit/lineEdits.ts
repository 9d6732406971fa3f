// Line-addressed changes applied to a snapshot's lines: all resolved against
// the same snapshot, checked for overlaps, and applied together.
import { fitIndentation } from "./indent.js";

export interface LineChange {
  /** 1-based first line replaced or deleted; for an insertion, the line the content goes before. */
  start: number;
  /** Last line replaced or deleted (inclusive); start - 1 for an insertion. */
  end: number;
  content: string[];
  indentLevel?: number;
  /** Skip re-indentation (content is taken verbatim). */
  verbatim?: boolean;
}

export interface AppliedLines {
  lines: string[];
  /** First and last line of the changed region in the new text, covering every change. */
  start: number;
  end: number;
  /** Each change's own lines in the new text, in order (a deletion: end = start - 1, where the lines were). */
  regions: Array<{ start: number; end: number }>;
}

export function applyLineChanges(lines: string[], changes: LineChange[]): AppliedLines | { error: string } {
  const sorted = [...changes].sort((a, b) => a.start - b.start || a.end - b.end);
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1];
    const b = sorted[i];
    if (b.start <= a.end || (b.start === a.start && a.end < a.start && b.end < b.start)) {
      return { error: `changes overlap: lines ${a.start}-${Math.max(a.start, a.end)} and ${b.start}-${Math.max(b.start, b.end)}; give each line to at most one change` };
    }
  }
  const out: string[] = [];
  let next = 1;
  let offset = 0;
  let first = Infinity;
  let last = -Infinity;
  const regions: Array<{ start: number; end: number }> = [];
  for (const c of sorted) {
    for (; next < c.start; next++) out.push(lines[next - 1]);
    const content = c.verbatim
      ? c.content
      : fitIndentation(c.content, { lines, at: c.start - 1, replacing: c.end - c.start + 1, indentLevel: c.indentLevel });
    const newStart = c.start + offset;
    out.push(...content);
    first = Math.min(first, newStart);
    last = Math.max(last, newStart + content.length - 1);
    regions.push({ start: newStart, end: newStart + content.length - 1 });
    offset += content.length - (c.end - c.start + 1);
    next = c.end + 1;
  }
  for (; next <= lines.length; next++) out.push(lines[next - 1]);
  return { lines: out, start: first === Infinity ? 1 : first, end: last, regions };
}
