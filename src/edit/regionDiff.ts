// The unified diff of an edit, computed on the region it changed. jsdiff's
// createTwoFilesPatch splits and diffs both whole texts (milliseconds on a
// 5,000-line file, for an edit of one line); the lines before the first
// difference and after the last one are the same in both, so only the middle,
// with a margin wider than the diff's context, is diffed, and the hunks are
// moved back to their lines. The output is the same text as jsdiff's on the
// whole files (tested against it).
import { createTwoFilesPatch, formatPatch, structuredPatch } from "diff";

/** Lines kept around the changed middle: more than the context, so hunks never reach the cut. */
const MARGIN = 8;

export function regionDiff(oldName: string, newName: string, before: string, after: string, context = 3): string {
  const a = before.split("\n");
  const b = after.split("\n");
  let p = 0;
  const shortest = Math.min(a.length, b.length);
  while (p < shortest && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  // Nothing to cut (small texts, or the difference touches the last line, where the final
  // newline's bookkeeping lives): the whole texts.
  const from = Math.max(0, p - MARGIN);
  const toA = a.length - s + MARGIN;
  const toB = b.length - s + MARGIN;
  if (toA >= a.length || toB >= b.length || (from === 0 && toA >= a.length)) {
    return createTwoFilesPatch(oldName, newName, before, after, undefined, undefined, { context })!;
  }
  // Both slices end before the texts do, on whole lines: each ends with its newline.
  const sliceA = a.slice(from, toA).join("\n") + "\n";
  const sliceB = b.slice(from, toB).join("\n") + "\n";
  const patch = structuredPatch(oldName, newName, sliceA, sliceB, undefined, undefined, { context })!;
  for (const h of patch.hunks) {
    h.oldStart += from;
    h.newStart += from;
  }
  return formatPatch(patch);
}
