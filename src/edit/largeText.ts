// A large file as its bytes and the offset of each line, for edits that touch
// a few lines of it: the lines an edit reads are decoded one at a time, the
// edited region is a FileModel of a window of lines (what parseFile would give
// for them), and the new file is the bytes before the window, the window
// written again, and the bytes after it. Half a million line strings are never
// made (decoding and splitting 32 MB, and collecting the strings, took most of
// a second).
import type { Eol, FileModel, LargeText } from "./fileModel.js";

export type { LargeText } from "./fileModel.js";

/** The lines of `bytes` as parseFile divides them, without decoding any. */
export function scanText(bytes: Buffer): LargeText {
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const body = bom ? 3 : 0;
  let starts = new Uint32Array(Math.max(16, Math.ceil(bytes.length / 32)));
  let count = 0;
  let crlf = 0;
  let s = body;
  for (let i = bytes.indexOf(10, s); i !== -1; i = bytes.indexOf(10, s)) {
    if (count + 2 > starts.length) {
      const grown = new Uint32Array(starts.length * 2);
      grown.set(starts);
      starts = grown;
    }
    starts[count++] = s;
    if (i > s && bytes[i - 1] === 13) crlf++;
    s = i + 1;
  }
  const ended = count;
  const finalNewline = s === bytes.length && bytes.length > body;
  if (s < bytes.length) starts[count++] = s;
  starts[count] = bytes.length;
  return {
    bytes,
    bom,
    count,
    starts: starts.subarray(0, count + 1),
    finalNewline,
    eol: crlf > ended - crlf ? "\r\n" : "\n",
    crlf,
  };
}

/** Whether line i (0-based) ends with a newline of its own (every line but an unterminated last one). */
function terminated(t: LargeText, i: number): boolean {
  return i < t.count - 1 || t.finalNewline;
}

/** Byte range of line i's text, without its ending. */
export function lineRange(t: LargeText, i: number): { start: number; end: number } {
  const start = t.starts[i];
  if (!terminated(t, i)) return { start, end: t.starts[i + 1] };
  const nl = t.starts[i + 1] - 1;
  return { start, end: nl > start && t.bytes[nl - 1] === 13 ? nl - 1 : nl };
}

/** Line i's text (0-based), decoded as parseFile decodes it. */
export function lineText(t: LargeText, i: number): string {
  const { start, end } = lineRange(t, i);
  return t.bytes.toString("utf8", start, end);
}

/** Line i's ending (an unterminated last line gets the file's usual one, as in parseFile). */
export function lineEol(t: LargeText, i: number): Eol {
  if (!terminated(t, i)) return t.eol;
  const nl = t.starts[i + 1] - 1;
  return nl > t.starts[i] && t.bytes[nl - 1] === 13 ? "\r\n" : "\n";
}

/** The lines of a large text as an array-like that decodes only what is read. */
export interface LineSource {
  readonly length: number;
  at(i: number): string | undefined;
  slice(from?: number, to?: number): string[];
}

/** A LineSource of `length` lines, line i read by `at` (i in range). */
function sourceOf(length: number, at: (i: number) => string): LineSource {
  return {
    length,
    at: (i) => (i >= 0 && i < length ? at(i) : undefined),
    slice: (from = 0, to = length) => {
      const out: string[] = [];
      for (let i = Math.max(0, from); i < Math.min(to, length); i++) out.push(at(i));
      return out;
    },
  };
}

export function lineSource(t: LargeText): LineSource {
  return sourceOf(t.count, (i) => lineText(t, i));
}

/**
 * Lines [from, to) as a FileModel, each line as parseFile gives it (with its
 * original bytes, so that it is written back as it was). It ends with a newline
 * when more lines follow it; the ending given to new lines is the whole file's.
 */
export function windowModel(t: LargeText, from: number, to: number): FileModel {
  const lines: string[] = [];
  const raw: Buffer[] = [];
  const eols: Eol[] = [];
  for (let i = from; i < to; i++) {
    const { start, end } = lineRange(t, i);
    raw.push(t.bytes.subarray(start, end));
    lines.push(t.bytes.toString("utf8", start, end));
    eols.push(lineEol(t, i));
  }
  return { bom: false, lines, raw, eols, finalNewline: to < t.count || t.finalNewline, eol: t.eol };
}

/**
 * The last index i below `length` with sorted[i] <= x (0 when there is none):
 * which line a byte offset falls in, given where lines start.
 */
export function lastAtMost(sorted: ArrayLike<number>, x: number, length = sorted.length): number {
  let lo = 0;
  let hi = length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sorted[mid] <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The line (0-based) holding byte `offset`. */
export function lineAtByte(t: LargeText, offset: number): number {
  return lastAtMost(t.starts, offset, t.count);
}

/**
 * A plan's edit of a large text: lines [first, first + oldCount) (the window,
 * `old` as windowModel gave it) become the lines of `model`.
 */
export interface Window {
  first: number;
  oldCount: number;
  old: FileModel;
}

/** The new file in pieces: the bytes before the window, the window written again, the bytes after it. */
export function windowPieces(t: LargeText, w: Window, model: FileModel, serialize: (m: FileModel) => Buffer): Buffer[] {
  const head = t.bytes.subarray(0, t.starts[w.first]);
  const tail = t.bytes.subarray(t.starts[w.first + w.oldCount]);
  return [head, serialize({ ...model, bom: false }), tail];
}

/** The new text's lines, reading through the window (for the lines shown after an edit). */
export function windowedSource(t: LargeText, w: Window, model: FileModel): LineSource {
  const newCount = model.lines.length;
  return sourceOf(t.count - w.oldCount + newCount, (i) => {
    if (i < w.first) return lineText(t, i);
    if (i < w.first + newCount) return model.lines[i - w.first];
    return lineText(t, i - newCount + w.oldCount);
  });
}

/** Lines kept unchanged either side of a window's edits: the diff's margin and context, and the region shown, fit inside. */
export const WINDOW_MARGIN_LINES = 32;
