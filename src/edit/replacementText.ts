// Builds the text that replaces a region matched by a tolerant tier.
//
// The edit is a three-way merge. The base is the model's old_string (its copy
// of the file), one side is new_string (the copy with the change applied), the
// other side is the file's matched region (the truth the copy was taken from).
// Wherever new_string repeats old_string, the model meant "leave this as it
// is", so those lines are taken from the file itself (with the file's
// whitespace, punctuation, escapes and tabs), never from the model's
// imperfect copy. Lines the model changed or added come from new_string,
// re-indented by the relation the match showed. Inside a changed line the
// merge runs character by character: a difference between the copy and the
// file (a curly quote, a doubled escape, a run of blanks, a misremembered
// identifier) is carried into the new line where the model left that stretch
// alone, and only where it did. What the model wrote is never rewritten:
// where its change touches such a difference, either new_string's text wins
// (the difference was one of spelling: `ours` policy) or the edit is refused
// (the difference was one of content: `refuse` policy).
import { diffArrays } from "diff";
import { type IndentRelation, reindent } from "./indentShift.js";
import type { LiteralSpan } from "./literals.js";
import { isBlank, splitLine } from "./normalize.js";
import { levenshtein } from "./similarity.js";

/**
 * What to do where the model's change touches a difference between its copy
 * and the file. `ours`: the difference is one of spelling (typographic
 * characters, escapes, blanks): new_string's text wins. `refuse`: the
 * difference is one of content (a misremembered line): nobody can tell what
 * the line should become. `keep`: nothing is carried into a changed line
 * (the difference is spacing: a rewritten line is spaced as the caller wrote it).
 */
export type MergePolicy = "ours" | "refuse" | "keep";

export interface RebuildInput {
  /** The model's old lines, as it sent them (the merge base). */
  oldLines: string[];
  /** The matched file lines, paired by position with oldLines. */
  fileLines: string[];
  /** The model's new lines. */
  newLines: string[];
  relation: IndentRelation;
  /** How a changed line is merged with the file's line where the copy and the file differ. */
  policy: MergePolicy;
  /**
   * The string-literal content spans of fileLines[k] (literals.ts: the file's own, multi-line
   * literals included); without it, the literals of the caller's copy of the line are used.
   */
  fileLiterals?: (k: number) => LiteralSpan[];
}

export type RebuildProblem =
  /** The relation cannot tell where a new line's indentation puts it. */
  | "indent"
  /** The model changed a line where its copy also differs from the file, and the two changes touch. */
  | "conflict";

export type RebuildResult =
  | { ok: true; lines: string[] }
  | { ok: false; newLine: number; problem: RebuildProblem; indent: string };

/**
 * Under the `ours` policy a changed line is merged with the line it replaces
 * only when at least this share of it is unchanged: below that it was
 * rewritten, and a diff of the two would pair characters by coincidence.
 */
const MIN_MERGE_SHARE = 0.5;
/** Lines longer than this are not merged character by character. */
const MAX_MERGE_LINE = 2000;

export function rebuildLines(input: RebuildInput): RebuildResult {
  const { oldLines, fileLines, newLines } = input;
  const out: string[] = [];
  let o = 0;
  let n = 0;
  let removed: number[] = [];
  let added: number[] = [];
  let failure: { newLine: number; problem: RebuildProblem; indent: string } | undefined;

  const flush = (): void => {
    const pairing = pairLines(
      removed.map((i) => oldLines[i].trim()),
      added.map((i) => newLines[i].trim()),
    );
    added.forEach((ni, k) => {
      const oi = pairing[k] === undefined ? undefined : removed[pairing[k]!];
      const line = adaptLine(
        newLines[ni],
        oi === undefined ? undefined : oldLines[oi],
        oi === undefined ? undefined : fileLines[oi],
        input,
        oi === undefined ? undefined : input.fileLiterals?.(oi),
      );
      if (typeof line === "string") out.push(line);
      else failure ??= { newLine: ni, problem: line.problem, indent: splitLine(newLines[ni]).indent };
    });
    removed = [];
    added = [];
  };

  for (const change of diffArrays(oldLines, newLines)) {
    if (change.removed) {
      for (let c = 0; c < change.count; c++) removed.push(o++);
    } else if (change.added) {
      for (let c = 0; c < change.count; c++) added.push(n++);
    } else {
      flush();
      for (let c = 0; c < change.count; c++) {
        out.push(fileLines[o++]);
        n++;
      }
    }
  }
  flush();
  return failure ? { ok: false, ...failure } : { ok: true, lines: out };
}

/** How alike two lines are, 0 to 1 (edit distance over the longer length). */
function likeness(a: string, b: string): number {
  const n = Math.max(a.length, b.length);
  if (n === 0) return 1;
  if (n > MAX_MERGE_LINE) return a === b ? 1 : 0;
  return 1 - levenshtein(a, b) / n;
}

/**
 * Which removed line each added line of a changed region replaces (index
 * into `removed`, or undefined for a line that is new): an order-keeping
 * pairing that maximizes how alike the pairs are, so that a line inserted
 * before a rewritten one is not taken for its rewrite. Pairs less than half
 * alike count only where the counts match (a rewritten line is still the
 * line it replaces).
 */
function pairLines(removed: string[], added: string[]): Array<number | undefined> {
  const k = removed.length;
  const m = added.length;
  if (k === 0) return added.map(() => undefined);
  if (k === m || k * m > 400) return added.map((_, i) => (i < k ? i : undefined));
  // best[i][j]: best total over the first i removed and j added lines.
  const best = Array.from({ length: k + 1 }, () => new Array<number>(m + 1).fill(0));
  const sim = (i: number, j: number) => {
    const v = likeness(removed[i], added[j]);
    return v >= 0.5 ? v : 0;
  };
  for (let i = 1; i <= k; i++) {
    for (let j = 1; j <= m; j++)
      best[i][j] = Math.max(best[i - 1][j], best[i][j - 1], best[i - 1][j - 1] + sim(i - 1, j - 1));
  }
  const out: Array<number | undefined> = added.map(() => undefined);
  let i = k;
  let j = m;
  while (i > 0 && j > 0) {
    const s = sim(i - 1, j - 1);
    if (s > 0 && best[i][j] === best[i - 1][j - 1] + s) {
      out[j - 1] = i - 1;
      i--;
      j--;
    } else if (best[i][j] === best[i - 1][j]) i--;
    else j--;
  }
  // Nothing alike at all: by position, as before.
  if (out.every((x) => x === undefined)) return added.map((_, x) => (x < k ? x : undefined));
  return out;
}

/** A changed or added new line, placed in the file's terms, or the reason it cannot be. */
function adaptLine(
  line: string,
  oldLine: string | undefined,
  fileLine: string | undefined,
  input: RebuildInput,
  fileSpans?: LiteralSpan[],
): string | { problem: RebuildProblem } {
  if (isBlank(line)) return line;
  const np = splitLine(line);
  let indent = reindent(np.indent, input.relation);
  let { content, trailing } = np;
  if (oldLine !== undefined && fileLine !== undefined) {
    const op = splitLine(oldLine);
    const fp = splitLine(fileLine);
    // The line this one replaces had the same indentation in the model's copy: that is local evidence.
    if (indent === null && np.indent === op.indent) indent = fp.indent;
    // Trailing blanks are the caller's as written, except stray ones its copy
    // added where the file has none (they were never meant).
    if (trailing === op.trailing && fp.trailing === "") trailing = "";
    if (input.relation.kind === "identity" && np.indent === op.indent && op.indent !== fp.indent) {
      // The copy spelled the indentation differently with no shift between them (a tab written as
      // `\t`, a non-breaking space): a difference of spelling, merged with the rest of the line,
      // so the file's indentation is not dropped.
      const merged = mergeLine(
        op.indent + op.content,
        fp.indent + fp.content,
        np.indent + content,
        input.policy,
        fileSpans,
      );
      if (merged === null) return { problem: "conflict" };
      return merged + trailing;
    }
    if (op.content !== fp.content) {
      const shift = fp.indent.length;
      const spans = fileSpans?.map(([a, b]): LiteralSpan => [a - shift, b - shift]);
      const merged = mergeLine(op.content, fp.content, content, input.policy, spans);
      if (merged === null) return { problem: "conflict" };
      content = merged;
    }
  }
  if (indent === null) return { problem: "indent" };
  return indent + content + trailing;
}

/** An edit of `base` in base coordinates: [start, end) becomes `text`. */
interface Hunk {
  start: number;
  end: number;
  text: string;
}

function hunksOf(base: string, other: string): Hunk[] {
  const out: Hunk[] = [];
  let at = 0;
  let open: Hunk | undefined;
  for (const c of diffArrays(base.split(""), other.split(""))) {
    if (!c.added && !c.removed) {
      if (open) out.push(open);
      open = undefined;
      at += c.count;
      continue;
    }
    open ??= { start: at, end: at, text: "" };
    if (c.removed) {
      at += c.count;
      open.end = at;
    } else open.text += c.value.join("");
  }
  if (open) out.push(open);
  return out;
}

/**
 * The positions an insertion of `text` at `at` could equally be placed at
 * (a diff cannot tell `-` inserted before a `-` from one inserted after it).
 */
function slideRange(base: string, at: number, text: string): [number, number] {
  let lo = at;
  let s = text;
  while (lo > 0 && s.length > 0 && base[lo - 1] === s[s.length - 1]) {
    s = s[s.length - 1] + s.slice(0, -1);
    lo--;
  }
  let hi = at;
  s = text;
  while (hi < base.length && s.length > 0 && base[hi] === s[0]) {
    s = s.slice(1) + s[0];
    hi++;
  }
  return [lo, hi];
}

/** Whether two hunks (one per side) touch the same characters of the base. */
function collide(base: string, a: Hunk, b: Hunk, touching: boolean): boolean {
  if (a.start === b.start && a.end === b.end && a.text === b.text) return false; // the same change on both sides
  const aIns = a.start === a.end;
  const bIns = b.start === b.end;
  if (aIns && bIns) return a.start === b.start;
  if (aIns || bIns) {
    const [ins, range] = aIns ? [a, b] : [b, a];
    if (range.start < ins.start && ins.start < range.end) return true;
    const [lo, hi] = slideRange(base, ins.start, ins.text);
    // An insertion that could as well sit on the other side of the range is about the range's text.
    if (lo <= range.start && hi >= range.end) return true;
    if (lo < range.end && hi > range.start) return true;
    return touching && (ins.start === range.start || ins.start === range.end);
  }
  return a.start < b.end && b.start < a.end ? true : touching && (a.end === b.start || b.end === a.start);
}

function unchangedShare(base: string, ours: string): number {
  let same = 0;
  for (const c of diffArrays(base.split(""), ours.split(""))) if (!c.added && !c.removed) same += c.count;
  return same / Math.max(1, base.length, ours.length);
}

/**
 * Three-way merge of one line: the change from `base` (the model's copy) to
 * `ours` (its new line) applied to `theirs` (the file's line). Where a change
 * on one side touches a change on the other, `refuse` gives null and `ours`
 * keeps new_string's text for that stretch. The same change made on both
 * sides (the model's new line repeats the file's true text) is no conflict.
 */
export function mergeLine(
  base: string,
  theirs: string,
  ours: string,
  policy: MergePolicy = "refuse",
  /** Under `keep`: the string-literal spans of `theirs` (the file's line), when known. */
  theirSpans?: LiteralSpan[],
): string | null {
  if (theirs === ours || base === theirs) return ours;
  if (base === ours) return theirs;
  if (policy === "keep") return keepLiteralSpacing(base, theirs, ours, theirSpans);
  if (base.length > MAX_MERGE_LINE || theirs.length > MAX_MERGE_LINE || ours.length > MAX_MERGE_LINE)
    return policy === "ours" ? ours : null;
  if (policy === "ours" && unchangedShare(base, ours) < MIN_MERGE_SHARE) return ours;
  const t = hunksOf(base, theirs);
  const o = hunksOf(base, ours);
  const touching = policy === "refuse";
  const dropped = new Set<Hunk>();
  for (const a of t) {
    for (const b of o) {
      if (!collide(base, a, b, touching)) continue;
      if (policy === "refuse") return null;
      dropped.add(a);
    }
  }
  // The same change on both sides is applied once.
  const kept = [
    ...t.filter((h) => !dropped.has(h) && !o.some((b) => b.start === h.start && b.end === h.end && b.text === h.text)),
    ...o,
  ];
  const merged = applyHunks(base, kept);
  return merged ?? (policy === "ours" ? ours : null); // overlapping leftovers: nothing sane to merge
}

/** `base` with non-overlapping hunks applied, or null when two overlap. */
function applyHunks(base: string, hunks: Hunk[]): string | null {
  // Insertions before replacements that start at the same place.
  const sorted = [...hunks].sort((x, y) => x.start - y.start || x.end - x.start - (y.end - y.start));
  let out = "";
  let at = 0;
  for (const h of sorted) {
    if (h.start < at) return null;
    out += base.slice(at, h.start) + h.text;
    at = h.end;
  }
  return out + base.slice(at);
}

/** Offsets of the string literals of a line: [opening quote, closing quote] (an unclosed one runs to the end). */
function literalSpans(line: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (let i = 0; i < line.length; i++) {
    const q = line[i];
    if (q !== '"' && q !== "'" && q !== "`") continue;
    let j = i + 1;
    while (j < line.length && line[j] !== q) j += line[j] === "\\" ? 2 : 1;
    spans.push([i, Math.min(j, line.length)]);
    i = j;
  }
  return spans;
}

/**
 * The `keep` policy (blanks inside lines ignored by the match): a line the
 * caller changed is spaced as the caller wrote it, except inside string
 * literals, where blanks are content: a run of blanks the file has inside a
 * literal, which the copy spaced differently and the caller's change does not
 * touch, stays the file's (`"Hello,  world"` is not respaced because the
 * caller renamed the variable it is assigned to; `More, text` inside a
 * docstring is not made `More,text` because the copy dropped the blank).
 * Where the literals are is the file's knowledge (`theirSpans`, over lines),
 * else read from the caller's copy of the line.
 */
function keepLiteralSpacing(base: string, theirs: string, ours: string, theirSpans?: LiteralSpan[]): string {
  if (base.length > MAX_MERGE_LINE || theirs.length > MAX_MERGE_LINE || ours.length > MAX_MERGE_LINE) return ours;
  const o = hunksOf(base, ours);
  const t = theirSpans ? literalGaps(base, theirs, theirSpans) : undefined;
  if (t) {
    // A gap the caller's change overlaps is the caller's; one it only borders stays the file's.
    const kept = t.filter((a) =>
      o.every((b) =>
        b.start === b.end ? b.start <= a.start || b.start >= a.end : b.end <= a.start || b.start >= a.end,
      ),
    );
    if (kept.length === 0) return ours;
    // Two insertions at one place: the caller's first where it extends the text before it (`delta`
    // + `X` before the file's blank), else the file's blanks first.
    const extendsBefore = (h: Hunk): boolean => h.start > 0 && !/[ \t"'`]/.test(base[h.start - 1]);
    const ordered = [...o.filter(extendsBefore), ...kept, ...o.filter((h) => !extendsBefore(h))];
    return applyHunks(base, ordered) ?? ours;
  }
  const spans = literalSpans(base);
  if (spans.length === 0) return ours;
  const blanks = (s: string): boolean => /^[ \t]*$/.test(s);
  const inLiteral = (h: Hunk): boolean => spans.some(([a, b]) => a < h.start && h.end <= b);
  const tb = hunksOf(base, theirs).filter((h) => blanks(base.slice(h.start, h.end)) && blanks(h.text) && inLiteral(h));
  if (tb.length === 0) return ours;
  const kept = tb.filter((a) => !o.some((b) => collide(base, a, b, true)));
  if (kept.length === 0) return ours;
  return applyHunks(base, [...kept, ...o]) ?? ours;
}

/**
 * The file's blanks inside its literals as hunks of `base`, where `base` and `theirs` differ only
 * in blanks: the gaps between their non-blank characters pair one to one, and each gap that lies
 * in one of `theirs`'s literal spans and is spaced otherwise in `base` becomes a hunk. Undefined
 * when they differ in more than blanks.
 */
function literalGaps(base: string, theirs: string, spans: LiteralSpan[]): Hunk[] | undefined {
  const gaps = (s: string): Array<{ start: number; end: number }> => {
    const out: Array<{ start: number; end: number }> = [];
    let start = 0;
    for (let i = 0; i <= s.length; i++) {
      if (i < s.length && (s[i] === " " || s[i] === "\t")) continue;
      out.push({ start, end: i });
      start = i + 1;
    }
    return out;
  };
  const skeleton = (s: string): string => s.replace(/[ \t]+/g, "");
  if (skeleton(base) !== skeleton(theirs)) return undefined;
  const bg = gaps(base);
  const tg = gaps(theirs);
  const out: Hunk[] = [];
  for (let j = 0; j < bg.length; j++) {
    const b = bg[j];
    const t = tg[j];
    const text = theirs.slice(t.start, t.end);
    if (base.slice(b.start, b.end) === text) continue;
    if (spans.some(([a, z]) => a <= t.start && t.end <= z)) out.push({ start: b.start, end: b.end, text });
  }
  return out;
}
