// The unified diff of an edit, computed on the region it changed. jsdiff's
// createTwoFilesPatch splits and diffs both whole texts (milliseconds on a
// 5,000-line file, seconds and gigabytes on a 32 MB one, for an edit of one
// line); the lines before the first difference and after the last one are the
// same in both, so only the middle, with a margin wider than the diff's
// context, is diffed, and the hunks are moved back to their lines. A
// difference near the end is diffed from the margin to the end, where the
// final newline's bookkeeping lives. The output is the same text as jsdiff's
// on the whole files (tested against it).
import { formatPatch, structuredPatch } from "diff";

/** Lines kept around the changed middle: more than the context, so hunks never reach the cut. */
const MARGIN = 8;

export function regionDiff(oldName: string, newName: string, before: string, after: string, context = 3): string {
  return regionDiffOfLines(oldName, newName, before.split("\n"), after.split("\n"), context);
}

/**
 * regionDiff over texts already split at "\n" (`text.split("\n")`: a text
 * ending in a newline ends with an empty string), so that a caller holding a
 * file's lines never builds the whole text.
 */
export function regionDiffOfLines(
  oldName: string,
  newName: string,
  a: readonly string[],
  b: readonly string[],
  context = 3,
  lineOffset = 0,
): string {
  let p = 0;
  const shortest = Math.min(a.length, b.length);
  while (p < shortest && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  const from = Math.max(0, p - MARGIN);
  const toA = a.length - s + MARGIN;
  const toB = b.length - s + MARGIN;
  // Near the end: from the margin to the end of both texts (their last lines, with or without a
  // final newline, as they are). Elsewhere both slices end before the texts do, on whole lines.
  const nearEnd = toA >= a.length || toB >= b.length;
  const sliceA = nearEnd ? a.slice(from).join("\n") : a.slice(from, toA).join("\n") + "\n";
  const sliceB = nearEnd ? b.slice(from).join("\n") : b.slice(from, toB).join("\n") + "\n";
  const patch = structuredPatch(oldName, newName, sliceA, sliceB, undefined, undefined, { context })!;
  // `lineOffset`: a and b are a window of two longer texts, starting at that line of both (and
  // holding enough equal lines around their difference that the slices are the whole texts' slices).
  if (lineOffset + from > 0) {
    for (const h of patch.hunks) {
      h.oldStart += lineOffset + from;
      h.newStart += lineOffset + from;
    }
  }
  return formatPatch(patch);
}
