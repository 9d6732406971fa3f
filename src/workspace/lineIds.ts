// Persistent line IDs (seed 002, done right). Every line of a file gets a short
// ID, unique within the file: 4 to 6 characters of [0-9a-z], always starting
// with a letter so an ID can never be mistaken for a line number. IDs persist
// in `.rt/ids/`. When the file changes, by rt or by anyone else, old and new
// line sequences are aligned with a diff, so unchanged lines keep their IDs even
// when lines are inserted or deleted above them. New or changed lines get IDs
// from a per-file counter that only grows, so an ID is never reused in a file.
import { diffArrays } from "diff";
import { StateStore } from "./state.js";
import { LINE_ID_PATTERN } from "../edit/lineRefs.js";

interface IdRecord {
  version: 1;
  path: string;
  /** Hash of the whole text the IDs belong to. */
  textHash: string;
  /** Next counter value: IDs are derived from it and it never goes back. */
  next: number;
  ids: string[];
  /** 53-bit hashes of each line, for alignment. */
  hashes: number[];
  /**
   * What the caller believes is at each line number: the ID rt last showed it
   * there (a whole file by read/open/scroll, the region around an edit, grep
   * matches), or null where it was shown nothing since the file changed.
   * "current": exactly `ids` (the caller saw this version whole), stored without
   * repeating them.
   */
  viewed?: Array<string | null> | "current";
  /**
   * The version of the file rt last showed the caller any part of (read,
   * open, scroll, a grep match, the region printed after an edit): its
   * textHash, or for files read through the line index `s:<size>:<mtime>`.
   * `write` over an existing file requires its current version to be this
   * one (write after read, issue 10).
   */
  shown?: string;
}

const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const ALNUM = "0123456789abcdefghijklmnopqrstuvwxyz";

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** ID widths 4, 5, 6: a letter then 3, 4 or 5 base-36 characters. */
const TIERS = [3, 4, 5].map((rest) => {
  const space = 26 * 36 ** rest;
  // A multiplier near the golden ratio of the space, coprime with it, scatters
  // consecutive counters across the whole space (a bijection, so no collisions).
  let mult = Math.floor(space * 0.6180339887);
  while (gcd(mult, space) !== 1) mult++;
  return { rest, space, mult: BigInt(mult) };
});

/** Counter → ID: distinct counters give distinct IDs. */
export function idFromCounter(counter: number): string {
  let n = counter;
  for (const tier of TIERS) {
    if (n < tier.space || tier === TIERS[TIERS.length - 1]) {
      const m = Number((BigInt(n % tier.space) * tier.mult) % BigInt(tier.space));
      const low = 36 ** tier.rest;
      let s = LETTERS[Math.floor(m / low)];
      let q = m % low;
      for (let i = 0; i < tier.rest; i++) {
        s += ALNUM[q % 36];
        q = Math.floor(q / 36);
      }
      return s;
    }
    n -= tier.space;
  }
  throw new Error("unreachable");
}

// The form of an ID is defined with the line references that carry it (edit/lineRefs.ts).
export { LINE_ID_PATTERN } from "../edit/lineRefs.js";

/** cyrb53: a fast 53-bit string hash; collisions only matter inside one diff window. */
export function hashLine(s: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** Diffs bigger than this fall back to fresh IDs for the changed middle part. */
const MAX_EDIT_LENGTH = 4000;

/**
 * Aligns `oldHashes` with `newHashes` and returns IDs for the new lines: the old
 * ID where a line is unchanged, a fresh one otherwise. Pure; exported for tests.
 */
export function reconcileIds(
  oldHashes: number[],
  oldIds: string[],
  newHashes: number[],
  next: number,
): { ids: string[]; next: number; kept: number } {
  const ids = new Array<string>(newHashes.length);
  const fresh = () => idFromCounter(next++);
  let kept = 0;
  // Common prefix and suffix first: a local edit leaves a tiny middle to diff.
  let p = 0;
  while (p < oldHashes.length && p < newHashes.length && oldHashes[p] === newHashes[p]) {
    ids[p] = oldIds[p];
    p++;
  }
  let s = 0;
  while (
    s < oldHashes.length - p &&
    s < newHashes.length - p &&
    oldHashes[oldHashes.length - 1 - s] === newHashes[newHashes.length - 1 - s]
  ) {
    ids[newHashes.length - 1 - s] = oldIds[oldHashes.length - 1 - s];
    s++;
  }
  kept = p + s;
  const oldMid = oldHashes.slice(p, oldHashes.length - s);
  const newMid = newHashes.slice(p, newHashes.length - s);
  if (newMid.length > 0) {
    const parts = oldMid.length > 0 ? diffArrays(oldMid, newMid, { maxEditLength: MAX_EDIT_LENGTH }) : undefined;
    if (!parts) {
      for (let i = 0; i < newMid.length; i++) ids[p + i] = fresh();
    } else {
      let oi = 0;
      let ni = 0;
      for (const part of parts) {
        const n = part.count ?? part.value.length;
        if (part.added) {
          for (let k = 0; k < n; k++) ids[p + ni++] = fresh();
        } else if (part.removed) {
          oi += n;
        } else {
          for (let k = 0; k < n; k++) {
            ids[p + ni++] = oldIds[p + oi++];
            kept++;
          }
        }
      }
    }
  }
  return { ids, next, kept };
}

/**
 * Whether a stored record is well formed for `rel`. Records are read back as
 * untrusted input (a repository can commit `.rt/ids/`): IDs that are not IDs,
 * duplicates (an ID must name one line), arrays that do not line up, another
 * file's record: all rejected, and the file gets fresh IDs. A well-formed
 * planted record can only choose the labels of the file's own lines.
 */
function validRecord(r: IdRecord, rel: string): boolean {
  if (r.version !== 1 || r.path !== rel || typeof r.textHash !== "string" || !Number.isSafeInteger(r.next) || r.next < 0) return false;
  if (!Array.isArray(r.ids) || !Array.isArray(r.hashes) || r.ids.length !== r.hashes.length) return false;
  const isId = (id: unknown) => typeof id === "string" && LINE_ID_PATTERN.test(id);
  if (!r.ids.every(isId) || new Set(r.ids).size !== r.ids.length) return false;
  if (!r.hashes.every((h) => Number.isSafeInteger(h) && h >= 0)) return false;
  if (r.shown !== undefined && typeof r.shown !== "string") return false;
  if (r.viewed !== undefined && r.viewed !== "current" && !(Array.isArray(r.viewed) && r.viewed.every((id) => id === null || isId(id)))) return false;
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
  if (rec.viewed === "current" || (!Array.isArray(lines) && lines.from <= 1 && lines.to >= rec.ids.length)) {
    return rec.viewed === "current" && shown === rec ? rec : { ...shown, viewed: "current" };
  }
  const prev = rec.viewed;
  const viewed: Array<string | null> = Array.from({ length: rec.ids.length }, (_, i) => prev?.[i] ?? null);
  const mark = (n: number) => {
    if (n >= 1 && n <= rec.ids.length) viewed[n - 1] = rec.ids[n - 1];
  };
  if (Array.isArray(lines)) lines.forEach(mark);
  else for (let n = Math.max(1, lines.from); n <= Math.min(rec.ids.length, lines.to); n++) mark(n);
  if (prev && prev.length === viewed.length && prev.every((id, i) => id === viewed[i]) && shown === rec) return rec;
  return { ...shown, viewed };
}

/** Line IDs of every file the workspace has read, persisted under `.rt/ids/`. */
export class LineIdStore {
  private memory = new Map<string, IdRecord>();

  constructor(private state: StateStore) {}

  private load(rel: string): IdRecord | undefined {
    const inMemory = this.memory.get(rel);
    if (inMemory) return inMemory;
    const stored = this.state.readJson<IdRecord>("ids", `${StateStore.keyFor(rel)}.json`);
    if (stored && validRecord(stored, rel)) {
      this.memory.set(rel, stored);
      return stored;
    }
    return undefined;
  }

  private save(rec: IdRecord): void {
    this.memory.set(rec.path, rec);
    this.state.writeJsonBestEffort(rec, "ids", `${StateStore.keyFor(rec.path)}.json`);
  }

  /**
   * The IDs for `lines` (the file's current content, one entry per line),
   * reconciling with what was stored for the file before. `viewed`: the caller
   * is being shown this whole version (see markViewed); `shownRange`: these lines
   * of it; either is saved in the same write.
   */
  idsFor(rel: string, lines: string[], textHash: string, opts: { viewed?: boolean; shownRange?: { from: number; to: number } } = {}): string[] {
    const rec = this.load(rel);
    if (rec && rec.textHash === textHash && rec.ids.length === lines.length) {
      if (opts.viewed && (rec.viewed !== "current" || rec.shown !== textHash)) this.save({ ...rec, viewed: "current", shown: textHash });
      return rec.ids;
    }
    const hashes = lines.map(hashLine);
    let result = rec ? reconcileIds(rec.hashes, rec.ids, hashes, rec.next) : reconcileIds([], [], hashes, 0);
    // A stored counter that was not rt's (planted) could hand out an ID already in use: start afresh then.
    if (rec && new Set(result.ids).size !== result.ids.length) result = reconcileIds([], [], hashes, 0);
    // Beliefs that were "the old version" become that version's IDs, kept as they were.
    const kept = rec?.viewed === "current" ? rec.ids : rec?.viewed;
    const viewed = opts.viewed ? "current" : kept;
    const shown = opts.viewed ? textHash : rec?.shown;
    const next: IdRecord = { version: 1, path: rel, textHash, next: result.next, ids: result.ids, hashes, ...(viewed ? { viewed } : {}), ...(shown ? { shown } : {}) };
    // `shownRange`: lines of this version the caller is being shown (markViewed), in the same write.
    this.save(opts.shownRange ? withViewed(next, opts.shownRange) : next);
    return result.ids;
  }

  /**
   * Remembers that the caller was just shown `lines` (1-based line numbers, or
   * a {from, to} range; the whole file by default) of the version `textHash`,
   * whose IDs idsFor computed.
   */
  markViewed(rel: string, textHash: string, lines: number[] | { from: number; to: number } = { from: 1, to: Infinity }): void {
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
    this.save(rec ? { ...rec, shown: version } : { version: 1, path: rel, textHash: "", next: 0, ids: [], hashes: [], shown: version });
  }

  /** Whether `version` (a textHash, or `s:<size>:<mtime>`) is the one rt last showed the caller (see IdRecord.shown). */
  wasShown(rel: string, version: string): boolean {
    return this.load(rel)?.shown === version;
  }

  /** What the caller believes is at each line number (see IdRecord.viewed), if rt showed it the file. */
  viewed(rel: string): ReadonlyArray<string | null> | undefined {
    const rec = this.load(rel);
    return rec?.viewed === "current" ? rec.ids : rec?.viewed;
  }

  /** Forgets the file's IDs (after `write`), keeping the counter so old IDs never come back. */
  clear(rel: string): void {
    const rec = this.load(rel);
    if (!rec) return;
    this.save({ ...rec, textHash: "", ids: [], hashes: [] });
  }

  /** Drops everything stored for a file (it was deleted). */
  forget(rel: string): void {
    this.memory.delete(rel);
    this.state.remove("ids", `${StateStore.keyFor(rel)}.json`);
  }
}
