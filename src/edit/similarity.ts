// Similarity of an old_string to windows of whole lines of a file, for the
// last matching tier and for the "closest region" a not-found error shows.
//
// A window is compared line by line (old line j against window line j), so
// the score is 1 - (sum of per-line edit distances) / (the longer total
// length). Aligning lines positionally can only overestimate the true edit
// distance, which makes the score conservative: a window scores high only if
// it has the same lines in the same order. It is also cheap enough to scan a
// 10,000-line file: most windows are discarded by length and character
// histogram bounds before any edit distance is computed.

// Rows reused across calls: the scan calls levenshtein for thousands of short lines.
let scratchA = new Int32Array(256);
let scratchB = new Int32Array(256);

/** Levenshtein distance, or `max + 1` as soon as it is known to exceed `max` (banded, O(len × max)). */
export function levenshtein(a: string, b: string, max: number = Math.max(a.length, b.length)): number {
  if (a === b) return 0;
  if (max < 0) return max + 1;
  let la = a.length;
  let lb = b.length;
  if (Math.abs(la - lb) > max) return max + 1;
  // Shared prefix and suffix cost nothing.
  let s = 0;
  while (s < la && s < lb && a.charCodeAt(s) === b.charCodeAt(s)) s++;
  while (la > s && lb > s && a.charCodeAt(la - 1) === b.charCodeAt(lb - 1)) {
    la--;
    lb--;
  }
  const n = la - s;
  const m = lb - s;
  if (n === 0) return m <= max ? m : max + 1;
  if (m === 0) return n <= max ? n : max + 1;
  const big = max + 1;
  if (scratchA.length <= m) {
    scratchA = new Int32Array(2 * m + 2);
    scratchB = new Int32Array(2 * m + 2);
  }
  let prev = scratchA;
  let cur = scratchB;
  for (let j = 0; j <= m; j++) prev[j] = j <= max ? j : big;
  for (let i = 1; i <= n; i++) {
    const lo = Math.max(1, i - max);
    const hi = Math.min(m, i + max);
    cur[0] = i <= max ? i : big;
    if (lo > 1) cur[lo - 1] = big;
    let rowMin = cur[0] < big && lo === 1 ? cur[0] : big;
    const ca = a.charCodeAt(s + i - 1);
    for (let j = lo; j <= hi; j++) {
      const cost = ca === b.charCodeAt(s + j - 1) ? 0 : 1;
      let v = prev[j - 1] + cost;
      const del = prev[j] + 1;
      if (del < v) v = del;
      const ins = cur[j - 1] + 1;
      if (ins < v) v = ins;
      if (v > big) v = big;
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (hi < m) cur[hi + 1] = big;
    if (rowMin > max) return big;
    const t = prev;
    prev = cur;
    cur = t;
  }
  return prev[m] <= max ? prev[m] : big;
}

const BUCKETS = 32;

/** Per-line character histograms (32 buckets) and lengths, computed once per file. */
export interface LineStats {
  keys: string[];
  lengths: Int32Array;
  hist: Int32Array;
}

export function lineStats(keys: string[]): LineStats {
  const lengths = new Int32Array(keys.length);
  const hist = new Int32Array(keys.length * BUCKETS);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    lengths[i] = k.length;
    const base = i * BUCKETS;
    for (let c = 0; c < k.length; c++) hist[base + (k.charCodeAt(c) & (BUCKETS - 1))]++;
  }
  return { keys, lengths, hist };
}

/** A lower bound of the edit distance of two lines: each edit changes the histograms by at most 2. */
function lineBound(a: LineStats, i: number, b: LineStats, j: number): number {
  const dl = Math.abs(a.lengths[i] - b.lengths[j]);
  let l1 = 0;
  const ba = i * BUCKETS;
  const bb = j * BUCKETS;
  for (let c = 0; c < BUCKETS; c++) l1 += Math.abs(a.hist[ba + c] - b.hist[bb + c]);
  const h = (l1 + 1) >> 1;
  return h > dl ? h : dl;
}

export interface WindowScore {
  /** 0-based index of the window's first line. */
  start: number;
  similarity: number;
}

function totalLength(s: LineStats, from: number, count: number): number {
  let t = count > 0 ? count - 1 : 0; // the newlines, always equal
  for (let j = 0; j < count; j++) t += s.lengths[from + j];
  return t;
}

/**
 * Every window of `old.keys.length` lines in lines [0, fileLineCount) whose
 * similarity is at least `minSimilarity`, with its exact score. With
 * `stopAt`, the scan stops once that many distinct places (windows that do
 * not overlap) score at least `stopAt.similarity`: the answer is then
 * "ambiguous" whatever comes next, and near-copies in generated code would
 * otherwise make every window expensive.
 */
export function windowsAtLeast(
  file: LineStats,
  fileLineCount: number,
  old: LineStats,
  minSimilarity: number,
  stopAt?: { similarity: number; places: number },
  check?: () => void,
): WindowScore[] {
  const k = old.keys.length;
  const out: WindowScore[] = [];
  if (k === 0 || k > fileLineCount) return out;
  const oldLen = totalLength(old, 0, k);
  // Sliding total length of the window.
  let winLen = totalLength(file, 0, k);
  let places = 0;
  let lastPlace = -Infinity;
  for (let i = 0; i + k <= fileLineCount; i++) {
    if (check && (i & 1023) === 0) check();
    if (i > 0) winLen += file.lengths[i + k - 1] - file.lengths[i - 1];
    const maxLen = Math.max(oldLen, winLen);
    if (maxLen === 0) continue;
    const budget = Math.floor((1 - minSimilarity) * maxLen + 1e-9);
    if (Math.abs(winLen - oldLen) > budget) continue;
    let s = 0;
    for (let j = 0; j < k && s <= budget; j++) s += Math.abs(file.lengths[i + j] - old.lengths[j]);
    if (s > budget) continue;
    s = 0;
    for (let j = 0; j < k && s <= budget; j++) s += lineBound(file, i + j, old, j);
    if (s > budget) continue;
    s = 0;
    for (let j = 0; j < k && s <= budget; j++) s += levenshtein(file.keys[i + j], old.keys[j], budget - s);
    if (s > budget) continue;
    const similarity = 1 - s / maxLen;
    out.push({ start: i, similarity });
    if (stopAt && similarity >= stopAt.similarity && i >= lastPlace + k) {
      lastPlace = i;
      if (++places >= stopAt.places) break;
    }
  }
  return out;
}

/** Lines longer than this are compared by their bounds only when looking for the closest region. */
const LONG_LINE = 2000;
/** Windows kept after each cheap ranking when looking for the closest region, and then scored exactly. */
const BY_LENGTH = 64;
const BY_HISTOGRAM = 8;
const BY_VOTES = 8;
/** Above this many (window × line) pairs, only windows sharing a line with old_string are ranked. */
const BOUND_SCAN_LIMIT = 2_000_000;

/** The `count` smallest entries of `scores` (by value, then index), as indexes. */
function smallest(scores: Float64Array | Int32Array, count: number): number[] {
  const idx = Array.from(scores.keys());
  idx.sort((a, b) => scores[a] - scores[b] || a - b);
  return idx.slice(0, count);
}

/**
 * An approximation of the most similar window, for error messages. Windows
 * are ranked cheaply (how many of their lines equal old_string's at the same
 * position; how close their line lengths are, then their character
 * histograms) and only the best few are scored exactly. Undefined when the
 * file has fewer lines than old_string.
 */
export function closestWindow(
  file: LineStats,
  fileLineCount: number,
  old: LineStats,
  check?: () => void,
): WindowScore | undefined {
  const k = old.keys.length;
  if (k === 0 || k > fileLineCount) return undefined;
  const windows = fileLineCount - k + 1;
  const candidates = new Set<number>();

  // Votes: a file line equal to old line j votes for the window starting j lines above it.
  const wanted = new Map<string, number[]>();
  old.keys.forEach((key, j) => {
    if (key.length < 2) return; // blank lines and lone braces say nothing about where we are
    const list = wanted.get(key);
    if (list) list.push(j);
    else wanted.set(key, [j]);
  });
  const votes = new Map<number, number>();
  for (let i = 0; i < fileLineCount; i++) {
    if (check && (i & 4095) === 0) check();
    const js = wanted.get(file.keys[i]);
    if (!js) continue;
    for (const j of js) {
      const start = i - j;
      if (start >= 0 && start < windows) votes.set(start, (votes.get(start) ?? 0) + 1);
    }
  }
  [...votes.entries()]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, BY_VOTES)
    .forEach(([start]) => candidates.add(start));

  if (windows * k <= BOUND_SCAN_LIMIT) {
    const byLength = new Int32Array(windows);
    for (let i = 0; i < windows; i++) {
      if (check && (i & 4095) === 0) check();
      let s = 0;
      for (let j = 0; j < k; j++) s += Math.abs(file.lengths[i + j] - old.lengths[j]);
      byLength[i] = s;
    }
    const short = smallest(byLength, BY_LENGTH);
    const byHistogram = new Int32Array(short.length);
    short.forEach((start, n) => {
      let s = 0;
      for (let j = 0; j < k; j++) s += lineBound(file, start + j, old, j);
      byHistogram[n] = s;
    });
    for (const n of smallest(byHistogram, BY_HISTOGRAM)) candidates.add(short[n]);
  }
  if (candidates.size === 0) candidates.add(0);

  const oldLen = totalLength(old, 0, k);
  let best: WindowScore | undefined;
  for (const start of [...candidates].sort((a, b) => a - b)) {
    check?.();
    const maxLen = Math.max(oldLen, totalLength(file, start, k));
    if (maxLen === 0) continue;
    // Branch and bound: stop scoring a window once it cannot beat the best so far.
    const budget = best ? Math.floor((1 - best.similarity) * maxLen) : maxLen;
    let s = 0;
    for (let j = 0; j < k && s <= budget; j++) {
      const a = file.keys[start + j];
      const b = old.keys[j];
      s +=
        a.length > LONG_LINE || b.length > LONG_LINE
          ? lineBound(file, start + j, old, j)
          : levenshtein(a, b, budget - s);
    }
    if (s > budget) continue;
    const sim = 1 - s / maxLen;
    if (!best || sim > best.similarity) best = { start, similarity: sim };
  }
  return best;
}
