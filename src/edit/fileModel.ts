// A file as lines, with everything needed to write it back byte for byte:
// BOM, each line's own ending (LF or CRLF, mixed files stay mixed), the final
// newline or its absence, and the original bytes of every line (so bytes that
// are not valid UTF-8 survive on lines an edit does not touch).
import { isUtf8 } from "node:buffer";
import { diffArrays } from "diff";
import type { IdList } from "./lineRefs.js";

export type Eol = "\n" | "\r\n";

export interface FileModel {
  bom: boolean;
  /** Decoded text of each line, without its ending. */
  lines: string[];
  /** Original bytes of each line (without ending), or null for lines an edit produced. */
  raw: Array<Buffer | null>;
  /** Each line's ending; the last line's is used only when `finalNewline`. */
  eols: Eol[];
  finalNewline: boolean;
  /** The ending given to new lines: the most common one in the file (LF when none). */
  eol: Eol;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export function parseFile(bytes: Buffer): FileModel {
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const body = bom ? bytes.subarray(3) : bytes;
  // Valid UTF-8 decodes and encodes back to the same bytes: no line needs its original bytes kept
  // (a Buffer per line costs a 32 MB file hundreds of megabytes).
  const keepRaw = !isUtf8(body);
  if (!keepRaw) return parseText(bom, body.toString("utf8"));
  const lines: string[] = [];
  const raw: Array<Buffer | null> = [];
  const eols: Eol[] = [];
  let crlf = 0;
  let lf = 0;
  let s = 0;
  let i = body.indexOf(10);
  while (i !== -1) {
    const isCrlf = i > s && body[i - 1] === 13;
    const end = isCrlf ? i - 1 : i;
    raw.push(keepRaw ? body.subarray(s, end) : null);
    lines.push(body.toString("utf8", s, end));
    eols.push(isCrlf ? "\r\n" : "\n");
    if (isCrlf) crlf++;
    else lf++;
    s = i + 1;
    i = body.indexOf(10, s);
  }
  const finalNewline = s === body.length && body.length > 0;
  if (s < body.length) {
    raw.push(keepRaw ? body.subarray(s) : null);
    lines.push(body.toString("utf8", s));
    eols.push(crlf > lf ? "\r\n" : "\n");
  }
  return { bom, lines, raw, eols, finalNewline, eol: crlf > lf ? "\r\n" : "\n" };
}

/**
 * parseFile for valid UTF-8: the text decoded once and split at "\n" (a
 * line-by-line decode of a 32 MB file costs a third of a second more), each
 * line's "\r" before its "\n" taken off as its ending.
 */
function parseText(bom: boolean, text: string): FileModel {
  const lines = text.split("\n");
  // A final newline starts no line; an empty file has none.
  const finalNewline = text.length > 0 && text.charCodeAt(text.length - 1) === 10;
  if (finalNewline || text.length === 0) lines.pop();
  const eols: Eol[] = new Array(lines.length).fill("\n");
  let crlf = 0;
  // Only a line that had a "\n" after it has an ending to read.
  const ended = finalNewline ? lines.length : Math.max(0, lines.length - 1);
  for (let i = 0; i < ended; i++) {
    const l = lines[i];
    if (l.length > 0 && l.charCodeAt(l.length - 1) === 13) {
      lines[i] = l.slice(0, -1);
      eols[i] = "\r\n";
      crlf++;
    }
  }
  const eol: Eol = crlf > ended - crlf ? "\r\n" : "\n";
  // The last line without a newline gets the file's usual ending (used only if lines are added after it).
  if (ended < lines.length) eols[lines.length - 1] = eol;
  return { bom, lines, raw: new Array(lines.length).fill(null), eols, finalNewline, eol };
}

export function serialize(m: FileModel): Buffer {
  const parts: Buffer[] = [];
  if (m.bom) parts.push(BOM);
  // Lines without original bytes are encoded a run at a time (one string, one encoding), not a Buffer each.
  let run: string[] = [];
  const flush = () => {
    if (run.length > 0) parts.push(Buffer.from(run.join(""), "utf8"));
    run = [];
  };
  for (let i = 0; i < m.lines.length; i++) {
    const r = m.raw[i];
    if (r) {
      flush();
      parts.push(r);
    } else {
      run.push(m.lines[i]);
    }
    if (i < m.lines.length - 1 || m.finalNewline) run.push(m.eols[i]);
  }
  flush();
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

/**
 * serialize(m), where `old` is the model parsed from `oldBytes` and `m` was
 * made from it (withLines keeps the lines it does not change, with their
 * bytes and endings): the unchanged lines at the start and the end are copied
 * from `oldBytes` as they are, and only the lines between are encoded. Equal to
 * serialize(m) (tested); falls back to it when the two cannot be lined up.
 */
export function serializeAgainst(old: FileModel, oldBytes: Buffer, m: FileModel): Buffer {
  const parts = serializeAgainstParts(old, oldBytes, m);
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

/** serializeAgainst as pieces to write one after another: the kept head of `oldBytes`, the new middle, the kept tail. */
export function serializeAgainstParts(old: FileModel, oldBytes: Buffer, m: FileModel): Buffer[] {
  if (old.bom !== m.bom || old.finalNewline !== m.finalNewline || old.lines.length === 0 || m.lines.length === 0)
    return [serialize(m)];
  // A line is the same bytes when its text, ending and original bytes are the same.
  const same = (i: number, j: number) =>
    old.lines[i] === m.lines[j] && old.eols[i] === m.eols[j] && old.raw[i] === m.raw[j];
  const shortest = Math.min(old.lines.length, m.lines.length);
  let p = 0;
  while (p < shortest && same(p, p)) p++;
  let s = 0;
  while (s < shortest - p && same(old.lines.length - 1 - s, m.lines.length - 1 - s)) s++;
  // The old last line's ending exists only with a final newline (checked equal above); and when
  // the new text ends on a kept line without a final newline, that line's ending is not written.
  if ((p === old.lines.length || (s === 0 && p === m.lines.length)) && !old.finalNewline) return [serialize(m)];
  const body = old.bom ? 3 : 0;
  // Byte offset just past line p's ending (p lines kept), and of the first of the s kept last lines.
  let head = body;
  for (let i = 0; i < p; i++) head = oldBytes.indexOf(10, head) + 1;
  let tail = oldBytes.length;
  // `end`: where the line being stepped over ends (its "\n", or the end of a file without a final newline).
  let end = old.finalNewline ? oldBytes.length - 1 : oldBytes.length;
  for (let k = 0; k < s; k++) {
    tail = end <= body ? body : Math.max(body, oldBytes.lastIndexOf(10, end - 1) + 1);
    end = tail - 1;
  }
  const middle = serialize({
    ...m,
    bom: false,
    lines: m.lines.slice(p, m.lines.length - s),
    raw: m.raw.slice(p, m.lines.length - s),
    eols: m.eols.slice(p, m.lines.length - s),
    finalNewline: s > 0 || m.finalNewline,
  });
  return [oldBytes.subarray(0, head), middle, oldBytes.subarray(tail)];
}

/** The text with every line ending normalized to "\n" (what matching works on). */
export function normalizedText(m: FileModel): string {
  if (m.lines.length === 0) return "";
  return m.lines.join("\n") + (m.finalNewline ? "\n" : "");
}

/**
 * A new model with `newLines` as content. Lines equal to old ones (aligned by
 * a diff) keep their original bytes and endings; other lines get the file's
 * usual ending. The final newline state is kept (an empty result has none;
 * content written into an empty file ends with a newline).
 */
export function withLines(
  m: FileModel,
  newLines: string[],
  finalNewline = m.lines.length === 0 || m.finalNewline,
): FileModel {
  const raw: Array<Buffer | null> = new Array(newLines.length).fill(null);
  const eols: Eol[] = new Array(newLines.length).fill(m.eol);
  const old = m.lines;
  let p = 0;
  while (p < old.length && p < newLines.length && old[p] === newLines[p]) {
    raw[p] = m.raw[p];
    eols[p] = m.eols[p];
    p++;
  }
  let s = 0;
  while (
    s < old.length - p &&
    s < newLines.length - p &&
    old[old.length - 1 - s] === newLines[newLines.length - 1 - s]
  ) {
    raw[newLines.length - 1 - s] = m.raw[old.length - 1 - s];
    eols[newLines.length - 1 - s] = m.eols[old.length - 1 - s];
    s++;
  }
  const oldMid = old.slice(p, old.length - s);
  const newMid = newLines.slice(p, newLines.length - s);
  if (oldMid.length && newMid.length) {
    const parts = diffArrays(oldMid, newMid, { maxEditLength: 2000 });
    if (parts) {
      let oi = p;
      let ni = p;
      for (const part of parts) {
        const n = part.count ?? part.value.length;
        if (part.added) ni += n;
        else if (part.removed) oi += n;
        else {
          for (let k = 0; k < n; k++) {
            raw[ni] = m.raw[oi];
            eols[ni] = m.eols[oi];
            ni++;
            oi++;
          }
        }
      }
    }
  }
  return { ...m, lines: newLines, raw, eols, finalNewline: newLines.length === 0 ? false : finalNewline };
}

/** Splits replacement text given by a caller into lines ("" is no lines; a final newline ends the last line). */
export function splitContent(text: string): string[] {
  if (text === "") return [];
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** A large file as its bytes and the offset of each line (largeText.ts reads it). */
export interface LargeText {
  bytes: Buffer;
  bom: boolean;
  /** Number of lines (as parseFile counts them: a final newline starts no line). */
  count: number;
  /** Byte offset where line i starts; `starts[count]` is the end of the file. */
  starts: Uint32Array;
  finalNewline: boolean;
  /** The ending given to new lines: the most common one (LF when none). */
  eol: Eol;
  /** How many lines end in CRLF. */
  crlf: number;
}

/** What the planners read of a file about to be edited (the workspace's Snapshot is one). */
export interface EditTarget {
  /** The workspace root (programs run for checks never come from inside it). */
  root: string;
  /** The file, relative to the root. */
  rel: string;
  /** The bytes read, or null when the file does not exist yet. */
  bytes: Buffer | null;
  model: FileModel;
  /** Line IDs of the lines (files up to LINE_ID_MAX_BYTES). */
  ids?: string[];
  /** What the caller believes is at each line number (see staleNumber). */
  viewedIds?: ReadonlyArray<string | null>;
  /**
   * A large file: its bytes and line offsets. Planners that can edit a window
   * of it read lines through this, and IDs through idList and viewedList (runs
   * of counters, not half a million strings); `model` and `ids` are then made
   * only if read.
   */
  large?: LargeText;
  idList?: IdList;
  viewedList?: IdList;
}
