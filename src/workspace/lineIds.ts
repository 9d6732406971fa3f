// Persistent line IDs. Every line of a file gets a short ID, unique within
// the file: 4 to 6 characters of [0-9a-z], always starting with a letter so an
// ID can never be mistaken for a line number. IDs persist
// in `.rt/ids/`. When the file changes, by rt or by anyone else, old and new
// line sequences are aligned with a diff, so unchanged lines keep their IDs even
// when lines are inserted or deleted above them. New or changed lines get IDs
// from a per-file counter that only grows, so an ID is never reused in a file.
import { diffArrays } from "diff";
import { StateStore } from "./state.js";
import { STATE_FILE_MAX_BYTES } from "../base/limits.js";
import { type IdList } from "../edit/lineRefs.js";
import { IdRuns } from "./idRuns.js";
import { lineRange } from "../edit/largeText.js";
import type { LargeText } from "../edit/fileModel.js";

interface IdRecord {
  version: 1;
  path: string;
  /** Hash of the whole text the IDs belong to. */
  textHash: string;
  /** Next counter value: IDs are derived from it and it never goes back. */
  next: number;
  /** The IDs of the lines, as runs of counters (see idRuns.ts). */
  ids: IdRuns;
  /** 53-bit hashes of each line, for alignment (a typed array: half a million numbers are not half a million objects). */
  hashes: Float64Array;
  /**
   * What the caller believes is at each line number: the ID rt last showed it
   * there (a whole file by read/open/scroll, the region around an edit, grep
   * matches), or null where it was shown nothing since the file changed.
   * "current": exactly `ids` (the caller saw this version whole), stored without
   * repeating them.
   */
  viewed?: IdRuns | "current";
  /**
   * The version of the file rt last showed the caller any part of (read,
   * open, scroll, a grep match, the region printed after an edit): its
   * textHash, or for files read through the line index `s:<size>:<mtime>`.
   * `write` over an existing file requires its current version to be this
   * one (write after read).
   */
  shown?: string;
  /** statVersion of the file when these IDs were made (rt's own write): a re-read of a large file by size and time is of this version. */
  stat?: string;
  /**
   * A large file (read through the line index, without IDs) was shown to the
   * caller at this statVersion, whose IDs are not made yet: when they are, the
   * caller saw that version whole (viewed "current").
   */
  viewedVersion?: string;
}

const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const ALNUM = "0123456789abcdefghijklmnopqrstuvwxyz";
const LETTER_CODES = Array.from(LETTERS, (ch) => ch.charCodeAt(0));
const ALNUM_CODES = Array.from(ALNUM, (ch) => ch.charCodeAt(0));

/**
 * ID widths 4, 5, 6: a letter then 3, 4 or 5 base-36 characters. Each tier's
 * counters are scattered across its space (26 * 36^rest IDs) by a multiplier
 * near the golden ratio of the space, the first above it coprime with it (a
 * bijection, so no collisions); `inverse` is its inverse modulo the space, for
 * idToCounter. Written out, not computed at start-up (a BigInt Euclid and a gcd
 * search cost every command about 0.8 ms); the tests derive them again and
 * check the IDs against the formula rt always used (test/workspace/idRuns.test.ts).
 */
const TIERS = [
  { rest: 3, space: 1213056, mult: 749711, inverse: 471407 },
  { rest: 4, space: 43670016, mult: 26989555, inverse: 2950459 },
  { rest: 5, space: 1572120576, mult: 971623951, inverse: 765735151 },
];

/** 36^rest: how many of a tier's IDs share a first letter. */
const TIER_LOWS = TIERS.map((t) => 36 ** t.rest);
/** Each tier's first counter. */
const TIER_STARTS = TIERS.map((_, i) => TIERS.slice(0, i).reduce((n, t) => n + t.space, 0));

/**
 * (a * b) mod m for a, b < m < 2^31, exactly, in doubles: b is split in 16-bit
 * halves so no product passes 2^48 (a BigInt product costs ten times more, and
 * a large file's first read makes half a million IDs).
 */
function mulMod(a: number, b: number, m: number): number {
  const hi = Math.floor(b / 65536);
  const lo = b % 65536;
  return (((a * hi) % m) * 65536 + a * lo) % m;
}

/** ID → the counter idFromCounter made it from (for a well-formed ID: LINE_ID_PATTERN). */
export function idToCounter(id: string): number {
  const tier = id.length - 4;
  const t = TIERS[tier];
  const low = TIER_LOWS[tier];
  let q = 0;
  for (let i = id.length - 1; i >= 1; i--) {
    const c = id.charCodeAt(i);
    q = q * 36 + (c <= 57 ? c - 48 : c - 87);
  }
  const m = (id.charCodeAt(0) - 97) * low + q;
  return TIER_STARTS[tier] + mulMod(m, t.inverse, t.space);
}

/** Counter → ID: distinct counters give distinct IDs. */
export function idFromCounter(counter: number): string {
  let n = counter;
  for (let t = 0; t < TIERS.length; t++) {
    const tier = TIERS[t];
    if (n < tier.space || t === TIERS.length - 1) {
      const m = mulMod(n % tier.space, tier.mult, tier.space);
      const low = TIER_LOWS[t];
      // The digits after the letter, least significant first; one string from its character codes
      // (appending a character at a time costs several times more on half a million IDs).
      let q = m % low;
      const d1 = q % 36;
      q = (q - d1) / 36;
      const d2 = q % 36;
      q = (q - d2) / 36;
      const d3 = q % 36;
      q = (q - d3) / 36;
      const first = LETTER_CODES[Math.floor(m / low)];
      if (tier.rest === 3) return String.fromCharCode(first, ALNUM_CODES[d1], ALNUM_CODES[d2], ALNUM_CODES[d3]);
      const d4 = q % 36;
      q = (q - d4) / 36;
      if (tier.rest === 4)
        return String.fromCharCode(first, ALNUM_CODES[d1], ALNUM_CODES[d2], ALNUM_CODES[d3], ALNUM_CODES[d4]);
      return String.fromCharCode(
        first,
        ALNUM_CODES[d1],
        ALNUM_CODES[d2],
        ALNUM_CODES[d3],
        ALNUM_CODES[d4],
        ALNUM_CODES[q % 36],
      );
    }
    n -= tier.space;
  }
  throw new Error("unreachable");
}

// The form of an ID is defined with the line references that carry it (edit/lineRefs.ts).
export { LINE_ID_PATTERN } from "../edit/lineRefs.js";

/**
 * Whether well-formed IDs are all different: each is read as a base-36 number
 * (with its length, so "a000" and "a0000" differ) and the numbers are sorted.
 * A Set of half a million strings cut from one takes ten times as long.
 */
function idsDistinct(ids: readonly string[]): boolean {
  const keys = new Float64Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    let v = 0;
    for (let k = 0; k < id.length; k++) {
      const c = id.charCodeAt(k);
      v = v * 36 + (c <= 57 ? c - 48 : c - 87);
    }
    keys[i] = v * 8 + id.length;
  }
  keys.sort();
  for (let i = 1; i < keys.length; i++) if (keys[i] === keys[i - 1]) return false;
  return true;
}

/** LINE_ID_PATTERN.test, by character codes (records of large files hold hundreds of thousands). */
function isLineId(id: unknown): boolean {
  if (typeof id !== "string" || id.length < 4 || id.length > 6) return false;
  const first = id.charCodeAt(0);
  if (first < 97 || first > 122) return false;
  for (let i = 1; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57))) return false;
  }
  return true;
}

// Math.imul read once, and the length once: in V8's interpreter each
// `Math.imul` is a global load and a property load per character, and hashing a
// small file's lines that way spent enough of the function's budget to have V8
// compile it with TurboFan in the middle of `rt open` (about 1.3 ms of a
// 100-line file's 1.8; 0.4 ms in all now). The same operations, so the same
// numbers: the hashes are stored in line-ID records.
const imul = Math.imul;

/** cyrb53: a fast 53-bit string hash; collisions only matter inside one diff window. */
export function hashLine(s: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const ch = s.charCodeAt(i);
    h1 = imul(h1 ^ ch, 2654435761);
    h2 = imul(h2 ^ ch, 1597334677);
  }
  return finishHash(h1, h2);
}

/** The last mixing step of hashLine: 53 bits from the two 32-bit states. */
function finishHash(h1: number, h2: number): number {
  h1 = imul(h1 ^ (h1 >>> 16), 2246822507) ^ imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = imul(h2 ^ (h2 >>> 16), 2246822507) ^ imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * hashLine of every line of a large text, from its bytes: a line of ASCII
 * bytes hashes its bytes (its characters' codes), any other line is decoded
 * first. The same numbers as hashLine on the lines parseFile gives (tested),
 * without making half a million strings.
 */
export function hashLinesOf(t: LargeText): Float64Array {
  const out = new Float64Array(t.count);
  const b = t.bytes;
  for (let i = 0; i < t.count; i++) {
    const { start, end } = lineRange(t, i);
    let h1 = 0xdeadbeef;
    let h2 = 0x41c6ce57;
    let k = start;
    for (; k < end; k++) {
      const ch = b[k];
      if (ch >= 0x80) break;
      h1 = imul(h1 ^ ch, 2654435761);
      h2 = imul(h2 ^ ch, 1597334677);
    }
    if (k < end) {
      out[i] = hashLine(b.toString("utf8", start, end));
      continue;
    }
    out[i] = finishHash(h1, h2);
  }
  return out;
}

/** Diffs bigger than this fall back to fresh IDs for the changed middle part. */
const MAX_EDIT_LENGTH = 4000;

/**
 * Aligns `oldHashes` with `newHashes` and returns IDs for the new lines: the old
 * ID where a line is unchanged, a fresh one otherwise. Pure; exported for tests
 * (the same as reconcileRuns, on ID strings).
 */
export function reconcileIds(
  oldHashes: ArrayLike<number>,
  oldIds: string[],
  newHashes: ArrayLike<number>,
  next: number,
): { ids: string[]; next: number; kept: number } {
  const r = reconcileRuns(oldHashes, IdRuns.fromIds(oldIds, idToCounter), newHashes, next);
  return { ids: r.ids.toArray(idFromCounter) as string[], next: r.next, kept: r.kept };
}

/** reconcileIds on runs of counters: the unchanged start and end are sliced, not copied an ID at a time. */
export function reconcileRuns(
  oldHashes: ArrayLike<number>,
  oldIds: IdRuns,
  newHashes: ArrayLike<number>,
  next: number,
): { ids: IdRuns; next: number; kept: number } {
  const fresh = (n: number): IdRuns => {
    const r = IdRuns.fresh(next, n);
    next += n;
    return r;
  };
  // Common prefix and suffix first: a local edit leaves a tiny middle to diff.
  let p = 0;
  while (p < oldHashes.length && p < newHashes.length && oldHashes[p] === newHashes[p]) p++;
  let s = 0;
  while (
    s < oldHashes.length - p &&
    s < newHashes.length - p &&
    oldHashes[oldHashes.length - 1 - s] === newHashes[newHashes.length - 1 - s]
  ) {
    s++;
  }
  let kept = p + s;
  const parts: IdRuns[] = [oldIds.slice(0, p)];
  const oldMid = Array.prototype.slice.call(oldHashes, p, oldHashes.length - s) as number[];
  const newMid = Array.prototype.slice.call(newHashes, p, newHashes.length - s) as number[];
  if (newMid.length > 0) {
    const diff = oldMid.length > 0 ? diffArrays(oldMid, newMid, { maxEditLength: MAX_EDIT_LENGTH }) : undefined;
    if (!diff) {
      parts.push(fresh(newMid.length));
    } else {
      let oi = 0;
      for (const part of diff) {
        const n = part.count ?? part.value.length;
        if (part.added) {
          parts.push(fresh(n));
        } else if (part.removed) {
          oi += n;
        } else {
          parts.push(oldIds.slice(p + oi, p + oi + n));
          oi += n;
          kept += n;
        }
      }
    }
  }
  parts.push(oldIds.slice(oldHashes.length - s));
  return { ids: IdRuns.concat(parts), next, kept };
}

/**
 * The hashes of `lines`. When `previous` is the content the record was made
 * for (rt's own edit), lines equal to it at the start and the end (the same
 * strings, compared by identity first) take the record's hashes: a one-line
 * edit of a 500,000-line file hashes a few lines, not all of them.
 */
function hashesOf(
  lines: readonly string[],
  rec: IdRecord | undefined,
  previous: { textHash: string; lines: readonly string[] } | undefined,
): Float64Array {
  if (!rec || !previous || rec.textHash !== previous.textHash || rec.hashes.length !== previous.lines.length) {
    const all = new Float64Array(lines.length);
    for (let i = 0; i < lines.length; i++) all[i] = hashLine(lines[i]);
    return all;
  }
  const old = previous.lines;
  let p = 0;
  while (p < old.length && p < lines.length && old[p] === lines[p]) p++;
  let s = 0;
  while (s < old.length - p && s < lines.length - p && old[old.length - 1 - s] === lines[lines.length - 1 - s]) s++;
  const out = new Float64Array(lines.length);
  out.set(rec.hashes.subarray(0, p));
  for (let i = p; i < lines.length - s; i++) out[i] = hashLine(lines[i]);
  for (let k = 1; k <= s; k++) out[lines.length - k] = rec.hashes[old.length - k];
  return out;
}

/**
 * A record from outside rt (not signed by it) with its counter moved past
 * every counter its IDs were made from. rt's own records keep that invariant
 * (fresh IDs come from `next`, which only grows): with it, a fresh ID can never
 * be a kept line's ID. A planted record's counter could hand out an ID already
 * in use; after this it cannot. (Its IDs are distinct and well formed: checked.)
 */
function withSafeCounter(rec: IdRecord): IdRecord {
  let next = Math.max(rec.next, rec.ids.maxCounter() + 1);
  if (rec.viewed !== undefined && rec.viewed !== "current") next = Math.max(next, rec.viewed.maxCounter() + 1);
  return next === rec.next ? rec : { ...rec, next };
}

/**
 * Whether a stored record is well formed for `rel`. Records are read back as
 * untrusted input (a repository can commit `.rt/ids/`): IDs that are not IDs,
 * duplicates (an ID must name one line), arrays that do not line up, another
 * file's record: all rejected, and the file gets fresh IDs. A well-formed
 * planted record can only choose the labels of the file's own lines.
 * `signed`: the record carries a valid MAC (rt wrote it, for this file, with
 * this user's key), so its IDs and hashes are as rt made them: only the shape
 * is checked, not each of half a million entries.
 */
function validRecord(r: IdRecord, rel: string, signed: boolean): boolean {
  if (
    r.version !== 1 ||
    r.path !== rel ||
    typeof r.textHash !== "string" ||
    !Number.isSafeInteger(r.next) ||
    r.next < 0
  )
    return false;
  if (!(r.ids instanceof IdRuns) || !(r.hashes instanceof Float64Array) || r.ids.length !== r.hashes.length)
    return false;
  // (Each ID was checked well formed, and the IDs distinct, when the record was unpacked: unpackRecord.)
  if (r.ids.hasNone()) return false;
  if (!signed && !r.hashes.every((h) => Number.isSafeInteger(h) && h >= 0)) return false;
  if (r.shown !== undefined && typeof r.shown !== "string") return false;
  if (
    (r.stat !== undefined && typeof r.stat !== "string") ||
    (r.viewedVersion !== undefined && typeof r.viewedVersion !== "string")
  )
    return false;
  if (r.viewed !== undefined && r.viewed !== "current" && !(r.viewed instanceof IdRuns)) return false;
  return true;
}

/** The version key of a file rt shows without hashing it (read through the line index): size and modification time. */
export function statVersion(stat: { size: number; mtimeMs: number }): string {
  return `s:${stat.size}:${stat.mtimeMs}`;
}

/**
 * `rec` with `lines` (numbers, or a {from, to} range) marked as shown to the
 * caller (see IdRecord.viewed and .shown); `rec` itself when nothing changes.
 */
function withViewed(rec: IdRecord, lines: number[] | { from: number; to: number }): IdRecord {
  const shown = rec.shown === rec.textHash ? rec : { ...rec, shown: rec.textHash };
  const total = rec.ids.length;
  if (rec.viewed === "current" || (!Array.isArray(lines) && lines.from <= 1 && lines.to >= total)) {
    return rec.viewed === "current" && shown === rec ? rec : { ...shown, viewed: "current" };
  }
  const prev = rec.viewed;
  // What was believed at each line number (nothing past the old end), then the lines shown now.
  const kept = prev ? prev.slice(0, total) : IdRuns.empty;
  let viewed = IdRuns.concat([kept, IdRuns.none(total - kept.length)]);
  const ranges: Array<[number, number]> = [];
  const add = (from: number, to: number) => {
    const last = ranges[ranges.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else ranges.push([from, to]);
  };
  if (Array.isArray(lines)) {
    for (const n of [...lines].filter((n) => n >= 1 && n <= total).sort((a, b) => a - b)) add(n - 1, n);
  } else if (Math.max(1, lines.from) <= Math.min(total, lines.to)) {
    add(Math.max(1, lines.from) - 1, Math.min(total, lines.to));
  }
  for (const [from, to] of ranges)
    viewed = IdRuns.concat([viewed.slice(0, from), rec.ids.slice(from, to), viewed.slice(to)]);
  // Believing every line's current ID is having seen this version (a one-line change of a large
  // file, its line shown): stored as "current", not as a second copy of the IDs.
  if (viewed.equals(rec.ids)) return { ...shown, viewed: "current" };
  if (prev && prev.equals(viewed) && shown === rec) return rec;
  return { ...shown, viewed };
}

/**
 * Records of files with at least this many lines are stored packed: the IDs
 * (and what the caller was shown) as one comma-separated string each, the
 * hashes as the raw bytes of their 64-bit floats in a file beside the record
 * (NAME.hashes), which the signed record names by its MAC. JSON with half a
 * million separate strings and numbers takes about a second to write and read
 * back; a few long strings take milliseconds, and raw bytes need no encoding
 * at all. (A record not signed by rt, planted or older, may carry its hashes
 * inline as base64 instead; the sidecar is accepted only with this user's MAC.)
 */
const PACK_FROM_LINES = 4096;
/**
 * Packed records of files with fewer lines than this carry their hashes inline
 * (base64, at most 512 KB raw) instead of in the NAME.hashes file: one state
 * file, so one rename, per edit (the second rename was most of what an edit of
 * a 5,000-line file spent beyond the edit itself). Longer files keep the
 * sidecar, whose raw bytes need no decoding.
 */
const INLINE_HASHES_BELOW_LINES = 65_536;

/** A record as stored: arrays, or for long files the same arrays packed (see PACK_FROM_LINES). */
type StoredRecord = Omit<IdRecord, "ids" | "hashes" | "viewed"> & {
  ids?: unknown;
  hashes?: unknown;
  viewed?: unknown;
  packed?: {
    ids?: unknown;
    idRuns?: unknown;
    hashes?: unknown;
    hashesMac?: unknown;
    viewed?: unknown;
    viewedRuns?: unknown;
  };
};

/** A record's hashes as bytes (the Float64Array's own memory, not a copy). */
function hashBytesOf(hashes: Float64Array): Buffer {
  return Buffer.from(hashes.buffer, hashes.byteOffset, hashes.byteLength);
}

/**
 * The record as stored; a packed one names its hashes file by `hashesMac` and
 * holds its IDs (and what the caller was shown) as runs of counters (idRuns.ts),
 * which only a record signed by rt may do.
 */
function packRecord(rec: IdRecord, hashesMac?: string, inline = false): object {
  const { ids, hashes, viewed, ...rest } = rec;
  if (ids.length < PACK_FROM_LINES || (hashesMac === undefined && !inline)) {
    const viewedField =
      viewed === undefined ? {} : { viewed: viewed === "current" ? viewed : viewed.toArray(idFromCounter) };
    return { ...rest, ids: ids.toArray(idFromCounter), hashes: Array.from(hashes), ...viewedField };
  }
  return {
    ...rest,
    ...(viewed === "current" ? { viewed } : {}),
    packed: {
      idRuns: ids.serialize(),
      ...(inline ? { hashes: hashBytesOf(hashes).toString("base64") } : { hashesMac }),
      ...(viewed instanceof IdRuns ? { viewedRuns: viewed.serialize() } : {}),
    },
  };
}

/** Runs of well-formed IDs (and null where `nullable`), or undefined when one is not an ID or, unless `signed`, an ID repeats. */
function runsOfIds(ids: unknown, signed: boolean, nullable: boolean): IdRuns | undefined {
  if (!Array.isArray(ids) || !ids.every((id) => isLineId(id) || (nullable && id === null))) return undefined;
  if (!nullable && !signed && !idsDistinct(ids as string[])) return undefined;
  return IdRuns.fromIds(ids as Array<string | null>, idToCounter);
}

/**
 * The record in memory form, or undefined when a field is malformed
 * (validRecord checks the rest). `hashesFile`: the bytes of the record's hashes
 * file, already checked against its hashesMac. Runs of counters are accepted
 * only from a record `signed` by rt (its IDs distinct by construction).
 */
function unpackRecord(stored: StoredRecord, signed: boolean, hashesFile?: Buffer): IdRecord | undefined {
  const viewedOf = (v: unknown): IdRuns | "current" | undefined | null =>
    v === undefined || v === "current" ? v : (runsOfIds(v, signed, true) ?? null);
  if (stored.packed === undefined) {
    if (!Array.isArray(stored.hashes) || !stored.hashes.every((h) => typeof h === "number")) return undefined;
    const ids = runsOfIds(stored.ids, signed, false);
    const viewed = viewedOf(stored.viewed);
    if (!ids || viewed === null) return undefined;
    return {
      ...stored,
      ids,
      hashes: Float64Array.from(stored.hashes as number[]),
      ...(viewed !== undefined ? { viewed } : {}),
    } as IdRecord;
  }
  const p = stored.packed;
  if (p === null || typeof p !== "object") return undefined;
  let ids: IdRuns | undefined;
  let viewed: IdRuns | "current" | undefined | null = viewedOf(stored.viewed);
  if (typeof p.idRuns === "string") {
    if (!signed) return undefined;
    ids = IdRuns.parse(p.idRuns);
    if (p.viewedRuns !== undefined)
      viewed = typeof p.viewedRuns === "string" ? (IdRuns.parse(p.viewedRuns) ?? null) : null;
  } else if (typeof p.ids === "string") {
    // The form of earlier versions: IDs (and what was shown, "" for nothing) comma-separated.
    ids = runsOfIds(p.ids === "" ? [] : p.ids.split(","), signed, false);
    if (p.viewed !== undefined)
      viewed =
        typeof p.viewed === "string"
          ? (runsOfIds(
              p.viewed.split(",").map((id) => (id === "" ? null : id)),
              signed,
              true,
            ) ?? null)
          : null;
  }
  if (
    !ids ||
    viewed === null ||
    (viewed instanceof IdRuns && viewed.length !== ids.length && typeof p.ids === "string")
  )
    return undefined;
  const bytes =
    typeof p.hashes === "string" ? Buffer.from(p.hashes, "base64") : p.hashesMac !== undefined ? hashesFile : undefined;
  if (bytes === undefined || bytes.length !== ids.length * 8) return undefined;
  // The file's own bytes when they are aligned for 64-bit floats (a 4.6 MB copy costs its page faults).
  const floats =
    bytes.byteOffset % 8 === 0 && hashesFile === bytes
      ? new Float64Array(bytes.buffer, bytes.byteOffset, ids.length)
      : new Float64Array(ids.length);
  if (floats.buffer !== bytes.buffer) Buffer.from(floats.buffer).set(bytes);
  const { packed: _packed, ...rest } = stored;
  return { ...rest, ids, hashes: floats, ...(viewed !== undefined ? { viewed } : {}) } as IdRecord;
}

/** Runs of counters read as a list of IDs (null: none), each ID made when read. */
export function idListOf(runs: IdRuns): IdList {
  return {
    length: runs.length,
    at: (i) => {
      if (i < 0 || i >= runs.length) return undefined;
      const c = runs.counterAt(i);
      return c < 0 ? null : idFromCounter(c);
    },
    indexOf: (id) => (isLineId(id) ? runs.indexOfCounter(idToCounter(id)) : -1),
  };
}

/** Line IDs of every file the workspace has read, persisted under `.rt/ids/`. */
export class LineIdStore {
  private memory = new Map<string, IdRecord>();
  /** While withPreloaded runs: the files it found no valid record for, which load need not look for again. */
  private absent = new Set<string>();

  constructor(private state: StateStore) {}

  private load(rel: string): IdRecord | undefined {
    const inMemory = this.memory.get(rel);
    if (inMemory) return inMemory;
    if (this.absent.has(rel)) return undefined;
    const name = StateStore.keyFor(rel);
    return this.accept(rel, name, this.state.readJsonNotingMac<StoredRecord>("ids", `${name}.json`));
  }

  /**
   * Runs `work` with the records of many files loaded by one walk to the state
   * directory (grep notes every file it shows). A file with no valid record is
   * not looked for again while `work` runs (on a first grep, that is every file
   * shown); afterwards it is, as another process may have written one.
   */
  withPreloaded<T>(rels: readonly string[], work: () => T): T {
    const wanted = rels.filter((rel) => !this.memory.has(rel)).map((rel) => ({ rel, name: StateStore.keyFor(rel) }));
    const read = this.state.readManyJsonNotingMac<StoredRecord>(
      "ids",
      wanted.map((w) => `${w.name}.json`),
    );
    for (const { rel, name } of wanted) {
      const found = read.get(`${name}.json`);
      // What load would make of it: a record missing, refused or not valid is no record.
      if (!(found && this.accept(rel, name, found))) this.absent.add(rel);
    }
    try {
      return work();
    } finally {
      this.absent.clear();
    }
  }

  /** A record read from the state directory, kept in memory when valid for `rel`. */
  private accept(
    rel: string,
    name: string,
    read: { value: StoredRecord; signed: boolean } | undefined,
  ): IdRecord | undefined {
    // rt's own record (its MAC checks) is trusted to be as rt made it; any other (a repository's
    // .rt/ids/, an older rt's unsigned one) is checked entry by entry.
    const rec = read
      ? unpackRecord(read.value, read.signed, this.hashesFile(name, read.value.packed?.hashesMac))
      : undefined;
    if (rec && read && validRecord(rec, rel, read.signed)) {
      const safe = read.signed ? rec : withSafeCounter(rec);
      this.memory.set(rel, safe);
      return safe;
    }
    return undefined;
  }

  /** The bytes of the hashes file NAME.hashes, if they are those the record names by `mac` (this user's MAC). */
  private hashesFile(name: string, mac: unknown): Buffer | undefined {
    if (mac === undefined) return undefined;
    const bytes = this.state.readBytes(["ids", `${name}.hashes`], STATE_FILE_MAX_BYTES);
    return bytes && this.state.macMatches(`ids/${name}.hashes`, bytes, mac) ? bytes : undefined;
  }

  private save(rec: IdRecord): void {
    this.memory.set(rec.path, rec);
    const name = StateStore.keyFor(rec.path);
    let hashesMac: string | undefined;
    if (rec.ids.length >= PACK_FROM_LINES && rec.ids.length < INLINE_HASHES_BELOW_LINES) {
      // One file: the signed record with its hashes inline.
      this.state.writeSignedJsonBestEffort(packRecord(rec, undefined, true), "ids", `${name}.json`);
      return;
    }
    if (rec.ids.length >= PACK_FROM_LINES) {
      // The hashes file first: a record is never written naming hashes that are not there.
      const bytes = hashBytesOf(rec.hashes);
      try {
        this.state.writeText(bytes, "ids", `${name}.hashes`);
        hashesMac = this.state.mac(`ids/${name}.hashes`, bytes);
      } catch {
        hashesMac = undefined;
      }
    }
    // Signed when packed: its hashes file is named by a MAC, and half a million entries are not
    // checked one by one on every load. A short record is cheap to check, and writing it unsigned
    // keeps node:crypto out of `rt open` on a small file.
    if (hashesMac !== undefined)
      this.state.writeSignedJsonBestEffort(packRecord(rec, hashesMac), "ids", `${name}.json`);
    else this.state.writeJsonBestEffort(packRecord(rec), "ids", `${name}.json`);
  }

  /**
   * The IDs for `lines` (the file's current content, one entry per line),
   * reconciling with what was stored for the file before. `viewed`: the caller
   * is being shown this whole version (see markViewed); `shownRange`: these lines
   * of it; either is saved in the same write.
   */
  idsFor(
    rel: string,
    lines: string[],
    textHash: string,
    opts: {
      viewed?: boolean;
      shownRange?: number[] | { from: number; to: number };
      /** The content the stored IDs belong to, when the caller has it (rt's own edit): the hashes of unchanged lines are taken from the record. */
      previous?: { textHash: string; lines: readonly string[] };
      /** The file's size and time (statVersion) for this content: a re-read of a large file compares it (noteShownLarge). */
      stat?: string;
    } = {},
  ): string[] {
    const same = this.currentRuns(rel, textHash, lines.length, opts);
    if (same) return same.toArray(idFromCounter) as string[];
    const rec = this.load(rel);
    return this.reconciled(rel, rec, hashesOf(lines, rec, opts.previous), textHash, opts).toArray(
      idFromCounter,
    ) as string[];
  }

  /** idsFor, given the hashes of the lines (hashLinesOf a large file) instead of the lines. */
  idsForHashes(
    rel: string,
    hashes: Float64Array,
    textHash: string,
    opts: { viewed?: boolean; shownRange?: number[] | { from: number; to: number }; stat?: string } = {},
  ): IdRuns {
    return (
      this.currentRuns(rel, textHash, hashes.length, opts) ??
      this.reconciled(rel, this.load(rel), hashes, textHash, opts)
    );
  }

  /**
   * The stored IDs when they are of this very version (`textHash`, `lineCount`
   * lines), as idsFor gives them (and noting what idsFor notes); undefined when
   * they are not (the lines are needed to reconcile).
   */
  currentRuns(
    rel: string,
    textHash: string,
    lineCount: number,
    opts: { viewed?: boolean; stat?: string } = {},
  ): IdRuns | undefined {
    const rec = this.load(rel);
    if (!rec || rec.textHash !== textHash || rec.ids.length !== lineCount) return undefined;
    const current = opts.viewed || (rec.viewedVersion !== undefined && rec.viewedVersion === opts.stat);
    if ((current && (rec.viewed !== "current" || rec.shown !== textHash)) || (opts.stat && rec.stat !== opts.stat)) {
      const { viewedVersion: _done, ...kept } = rec;
      this.save({
        ...(current ? kept : rec),
        ...(current ? { viewed: "current" as const, shown: textHash } : {}),
        ...(opts.stat ? { stat: opts.stat } : {}),
      });
    }
    return rec.ids;
  }

  /** What the caller believes is at each line number, as runs (see viewed()). */
  viewedRuns(rel: string): IdRuns | undefined {
    const rec = this.load(rel);
    return rec?.viewed === "current" ? rec.ids : rec?.viewed;
  }

  /**
   * idsFor after rt's own edit of a long file, from the edited window alone:
   * the version `previous` (whose IDs are stored, for its `oldTotal` lines) had
   * `oldLines` at lines [first, first + oldLines.length), and the new version
   * has `newLines` there and the same lines everywhere else. The hashes of the
   * lines outside the window are the record's; the result is what idsFor with
   * every line would give.
   */
  afterWindowEdit(
    rel: string,
    previous: string,
    textHash: string,
    window: { oldTotal: number; first: number; oldLines: readonly string[]; newLines: readonly string[] },
    opts: { shownRange?: number[] | { from: number; to: number }; stat?: string } = {},
  ): boolean {
    const rec = this.load(rel);
    if (!rec || rec.textHash !== previous || rec.ids.length !== window.oldTotal) return false;
    const { first, oldLines, newLines } = window;
    const oldCount = rec.hashes.length;
    const hashes = new Float64Array(oldCount - oldLines.length + newLines.length);
    hashes.set(rec.hashes.subarray(0, first));
    // As hashesOf: lines equal at the window's start and end take the record's hashes.
    let p = 0;
    while (p < oldLines.length && p < newLines.length && oldLines[p] === newLines[p]) p++;
    let s = 0;
    while (
      s < oldLines.length - p &&
      s < newLines.length - p &&
      oldLines[oldLines.length - 1 - s] === newLines[newLines.length - 1 - s]
    )
      s++;
    hashes.set(rec.hashes.subarray(first, first + p), first);
    for (let i = p; i < newLines.length - s; i++) hashes[first + i] = hashLine(newLines[i]);
    hashes.set(rec.hashes.subarray(first + oldLines.length - s), first + newLines.length - s);
    this.reconciled(rel, rec, hashes, textHash, opts);
    return true;
  }

  /** The second half of idsFor: `hashes` (the new version's lines) aligned with the record's, saved with what the caller saw. */
  private reconciled(
    rel: string,
    rec: IdRecord | undefined,
    hashes: Float64Array,
    textHash: string,
    opts: { viewed?: boolean; shownRange?: number[] | { from: number; to: number }; stat?: string },
  ): IdRuns {
    // Fresh IDs never repeat a kept one: a record's counter is past all its IDs' (see withSafeCounter).
    const result = rec
      ? reconcileRuns(rec.hashes, rec.ids, hashes, rec.next)
      : reconcileRuns([], IdRuns.empty, hashes, 0);
    // Beliefs that were "the old version" become that version's IDs, kept as they were. A caller
    // shown this very version of a large file (noteShownLarge, before its IDs existed) saw it whole.
    const shownWhole = opts.viewed || (rec?.viewedVersion !== undefined && rec.viewedVersion === opts.stat);
    const kept = rec?.viewed === "current" ? rec.ids : rec?.viewed;
    const viewed = shownWhole ? "current" : kept;
    const shown = shownWhole ? textHash : rec?.shown;
    const next: IdRecord = {
      version: 1,
      path: rel,
      textHash,
      next: result.next,
      ids: result.ids,
      hashes,
      ...(viewed ? { viewed } : {}),
      ...(shown ? { shown } : {}),
      ...(opts.stat ? { stat: opts.stat } : {}),
    };
    // `shownRange`: lines of this version the caller is being shown (markViewed), in the same write.
    this.save(opts.shownRange ? withViewed(next, opts.shownRange) : next);
    return result.ids;
  }

  /**
   * Remembers that the caller was just shown `lines` (1-based line numbers, or
   * a {from, to} range; the whole file by default) of the version `textHash`,
   * whose IDs idsFor computed.
   */
  markViewed(
    rel: string,
    textHash: string,
    lines: number[] | { from: number; to: number } = { from: 1, to: Infinity },
  ): void {
    const rec = this.load(rel);
    if (!rec || rec.textHash !== textHash) return;
    const next = withViewed(rec, lines);
    if (next !== rec) this.save(next);
  }

  /**
   * Remembers that the caller was shown (part of) version `version` of the
   * file without line IDs (a file read through the line index, a grep match
   * in a file never read): see IdRecord.shown.
   */
  noteShown(rel: string, version: string): void {
    const rec = this.load(rel);
    if (rec?.shown === version) return;
    this.save(
      rec
        ? { ...rec, shown: version }
        : {
            version: 1,
            path: rel,
            textHash: "",
            next: 0,
            ids: IdRuns.empty,
            hashes: new Float64Array(0),
            shown: version,
          },
    );
  }

  /**
   * A large file (read through the line index, without IDs) was just shown to
   * the caller at `version` (statVersion). As a re-read of a small file does,
   * this resets what rt remembers the caller saw: if the stored IDs are of
   * this version (rt wrote it), the caller now sees them all; otherwise what it
   * saw of an older version no longer counts, and it saw this version whole
   * once its IDs are made (the next edit).
   */
  noteShownLarge(rel: string, version: string): void {
    const rec = this.load(rel);
    if (rec && rec.textHash !== "" && rec.stat === version) {
      if (rec.viewed !== "current" || rec.shown !== version) {
        const { viewedVersion: _done, ...kept } = rec;
        this.save({ ...kept, viewed: "current", shown: version });
      }
      return;
    }
    if (rec?.shown === version && rec.viewedVersion === version && rec.viewed === undefined) return;
    const base: IdRecord = rec ?? {
      version: 1,
      path: rel,
      textHash: "",
      next: 0,
      ids: IdRuns.empty,
      hashes: new Float64Array(0),
    };
    const { viewed: _forgotten, ...kept } = base;
    this.save({ ...kept, shown: version, viewedVersion: version });
  }

  /** Whether `version` (a textHash, or `s:<size>:<mtime>`) is the one rt last showed the caller (see IdRecord.shown). */
  wasShown(rel: string, version: string): boolean {
    return this.load(rel)?.shown === version;
  }

  /** What the caller believes is at each line number (see IdRecord.viewed), if rt showed it the file. */
  viewed(rel: string): ReadonlyArray<string | null> | undefined {
    return this.viewedRuns(rel)?.toArray(idFromCounter);
  }

  /** Forgets the file's IDs (after `write`), keeping the counter so old IDs never come back. */
  clear(rel: string): void {
    const rec = this.load(rel);
    if (!rec) return;
    this.save({ ...rec, textHash: "", ids: IdRuns.empty, hashes: new Float64Array(0) });
  }

  /** Drops everything stored for a file (it was deleted). */
  forget(rel: string): void {
    this.memory.delete(rel);
    this.state.remove("ids", `${StateStore.keyFor(rel)}.json`);
    this.state.remove("ids", `${StateStore.keyFor(rel)}.hashes`);
  }
}
