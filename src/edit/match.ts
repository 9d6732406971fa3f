// Layered string matching for the `edit` family of tools: where in
// a file does old_string mean, and what exactly replaces it. Pure functions
// over text; the caller reads, validates and writes.
//
// old_string must match exactly once (unless replace_all). When the exact
// text is absent, looser tiers are tried in order, each still requiring a
// single match; the first tier that finds anything decides, so a tier that
// finds several places is an error, never a reason to try a looser one:
//
//   exact                 the text as given (a fragment inside a line is fine)
//   trailing-whitespace   whole lines, trailing blanks ignored
//   trimmed-lines         whole lines, leading and trailing blanks ignored, where
//                         the indentation differs irregularly (a uniform shift is
//                         left to indent-shifted; should the next two tiers then
//                         find another place, that is ambiguous)
//   unicode-folded        curly quotes, dashes, ellipsis, odd spaces folded to ASCII,
//                         other characters by compatibility normalization (NFKC:
//                         fullwidth forms, decomposed accents) (fragments, then whole
//                         lines with trailing blanks ignored)
//   unescaped             old_string with one level of escaping undone (\n, \t, \",
//                         \\ ...), then the tiers above again; new_string is taken as
//                         written unless old_string had its very line breaks escaped
//   indent-shifted        whole lines, folded, every line's indentation moved by the
//                         same number of columns (tabs ↔ spaces included)
//   inner-whitespace      whole lines with runs of blanks inside them ignored, or a
//                         fragment inside one line with its spacing and the blanks
//                         and line breaks around it ignored
//   token-whitespace      the same tokens (words, string literals, punctuation) with
//                         only layout between them differing: line breaks, blanks
//                         next to brackets and operators (never between two words, or
//                         inside a string literal, or where an operator would change:
//                         see tokens.ts); the file's layout is kept where new_string
//                         repeats old_string's tokens
//   similar               whole-line windows scoring ≥ 0.95, only when no other
//                         place scores ≥ 0.95 or within 0.05 of the best, and
//                         only for an old_string of 3 or more non-blank lines
//
// The replacement is a three-way merge (see replacementText.ts): lines
// new_string repeats from old_string are taken from the file; lines it changes
// or adds are kept as written, re-indented by the shift the match needed
// unless they are already in the file's indentation; inside a changed line a
// difference between old_string and the file is carried over only where
// new_string left that stretch alone. When new_string's indentation can be
// read two ways, the other reading is returned as an alternative for the
// caller's syntax and structure checks to choose from.
import { type IndentRelation, describeRelation, indentWidth, relateIndentation } from "./indentShift.js";
import {
  type FoldedText,
  type TextView,
  foldText,
  foldWithMap,
  hasFoldable,
  indentOf,
  isBlank,
  normalizeEol,
  similarityKey,
  spacingKey,
  trimBoth,
  trimEnd,
  undoneEscapes,
  unescapeOnce,
  viewOf,
  writtenUnescaped,
} from "./normalize.js";
import { type MergePolicy, type RebuildProblem, rebuildLines } from "./replacementText.js";
import { type LiteralSpan, literalSpansByLine } from "./literals.js";
import { SearchBudget, SearchStopped } from "./searchBudget.js";
import { type Token, findTokenRuns, mergeTokens, tokenize } from "./tokens.js";
import { EDIT_FUZZY_UNBOUNDED_CHARS } from "../base/limits.js";
import { diffArrays } from "diff";
import { detectStyle, fitsPlace } from "./indent.js";
import {
  type LineStats,
  type WindowScore,
  closestWindow,
  levenshtein,
  lineStats,
  windowsAtLeast,
} from "./similarity.js";

export type Tier =
  | "exact"
  | "trailing-whitespace"
  | "trimmed-lines"
  | "unicode-folded"
  | "unescaped"
  | "indent-shifted"
  | "inner-whitespace"
  | "token-whitespace"
  | "line-numbers"
  | "similar";

/** The tiers in the order they are tried. */
export const TIERS: readonly Tier[] = [
  "exact",
  "trailing-whitespace",
  "trimmed-lines",
  "unicode-folded",
  "unescaped",
  "indent-shifted",
  "inner-whitespace",
  "token-whitespace",
  "line-numbers",
  "similar",
];

/** The similarity tier accepts a window scoring at least this... */
export const SIMILARITY_THRESHOLD = 0.95;
/** ...when every other place scores at least this much lower (and below the threshold). */
export const SIMILARITY_MARGIN = 0.05;
/** The similarity tier only considers an old_string with at least this many non-blank lines. */
export const SIMILARITY_MIN_LINES = 3;

export interface Replacement {
  /** Offsets into the text given to planEdit (UTF-16 code units), end exclusive. */
  start: number;
  end: number;
  /** What goes there, with the file's line ending (opts.eol, else the region's, else the file's). */
  text: string;
  /** 1-based lines of the given text that [start, end) touches, inclusive. */
  startLine: number;
  endLine: number;
}

export interface PlanOptions {
  replaceAll?: boolean;
  /**
   * CPU time (ms) the approximate tiers may spend; default: unbounded for a text up to
   * EDIT_FUZZY_UNBOUNDED_CHARS, EDIT_FUZZY_BUDGET_MS above (see searchBudget.ts).
   */
  searchBudgetMs?: number;
  /** Line ending for the replacement text; default: the one used in the matched region, else the file's most common one. */
  eol?: "\n" | "\r\n";
}

export interface MatchSuccess {
  ok: true;
  tier: Tier;
  /** Only for tier "similar": the accepted window's score. */
  similarity?: number;
  /** Non-overlapping, ascending by start. */
  replacements: Replacement[];
  /** 1-based line where each replacement starts. */
  lines: number[];
  /** For tiers other than exact: what was tolerated, in a sentence for the caller to show. */
  note?: string;
  /** How new_string's indentation was read, when another reading was possible. */
  indentation?: string;
  /**
   * Other readings of new_string's indentation, in order of preference (only
   * for a single replacement). The caller tries them in turn when a reading
   * breaks the file's syntax or moves an untouched line into another block.
   */
  alternatives?: Array<{ replacements: Replacement[]; why: string }>;
}

export type FailureReason =
  /** old_string is empty and the file is not. */
  | "empty-old"
  /** old_string and new_string are the same. */
  | "unchanged"
  /** No tier found old_string. */
  | "not-found"
  /** Several places match (or several windows are similar). */
  | "ambiguous"
  /** new_string is already where old_string was expected. */
  | "already-applied"
  /** The match was found only by ignoring indentation, and new_string's indentation cannot be translated. */
  | "indent-unclear"
  /** Similar match: new_string changes a line where old_string's copy also differs from the file. */
  | "conflict"
  /**
   * old_string matched only once escape sequences were undone, and new_string read as written would put
   * one of those sequences where the file does not use it, while reading it unescaped is not certain either.
   */
  | "escape-unclear"
  /** The search for approximate matches stopped at its time budget before finding old_string. */
  | "search-stopped";

export interface ClosestRegion {
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  similarity: number;
  /** The first line of the region that differs from old_string. */
  firstDifference?: { line: number; fileText: string; oldText: string };
}

export interface MatchFailure {
  ok: false;
  reason: FailureReason;
  /** Says what was wrong and what to do next; written for a model. */
  message: string;
  /** The tier that found several places (ambiguous) or could not re-indent. */
  tier?: Tier;
  /** ambiguous: every match's 1-based start line; already-applied: where new_string is. */
  lines?: number[];
  /** not-found: the most similar region. */
  closest?: ClosestRegion;
}

export type MatchOutcome = MatchSuccess | MatchFailure;

// ------------------------------------------------------------------ internals

interface Candidate {
  /** Offsets in view.norm. */
  start: number;
  end: number;
  /** Where old_string itself was found, when the candidate widened it to whole lines (see fragmentOrLines). */
  matchStart?: number;
  /** 0-based lines of view.norm. */
  firstLine: number;
  /** Builds the replacement ("\n" line endings), or says which new line could not be re-indented. */
  build: () =>
    | { ok: true; text: string; why?: string }
    | { ok: false; newLine: number; problem: RebuildProblem; indent: string };
  /** Other readings of new_string's indentation, in order of preference. */
  alternatives?: () => Array<{ text: string; why: string }>;
}

type LadderResult =
  | { kind: "match"; tier: Tier; candidates: Candidate[]; note?: string; similarity?: number }
  | { kind: "ambiguous"; tier: Tier; lines: number[]; message: string }
  | { kind: "refused"; reason: FailureReason; tier?: Tier; lines: number[]; message: string }
  | { kind: "none" };

/** A string split into lines, the final newline (if any) noted apart. */
interface Body {
  lines: string[];
  finalNewline: boolean;
}

function bodyOf(s: string): Body {
  const finalNewline = s.endsWith("\n");
  return { lines: (finalNewline ? s.slice(0, -1) : s).split("\n"), finalNewline };
}

const IDENTITY: IndentRelation = { kind: "identity", tabWidth: 4, delta: 0, useTabs: false, map: new Map() };

/** Per-file views computed on first use: a fall-through to the last tier needs them all, an exact match none. */
class FileIndex {
  private cache = new Map<string, string[]>();
  private folded?: FoldedText;
  private stats?: LineStats;
  constructor(
    readonly view: TextView,
    readonly budget: SearchBudget,
  ) {}

  keys(name: string, f: (line: string) => string): string[] {
    let k = this.cache.get(name);
    if (!k) {
      const n = this.view.realLineCount;
      const lines = this.view.lines;
      k = new Array<string>(n);
      for (let i = 0; i < n; i++) {
        if ((i & 4095) === 0) this.budget.check();
        k[i] = f(lines[i]);
      }
      this.cache.set(name, k);
    }
    return k;
  }
  foldedText(): FoldedText {
    return (this.folded ??= foldWithMap(this.view.norm, () => this.budget.check()));
  }
  /** The file's indentation unit (columns per level). */
  indentUnit(): number {
    return (this.unit ??= detectStyle(this.view.lines).unit);
  }
  private unit?: number;
  /**
   * Starts of the windows of whole lines whose keys (by `f`, a key that keeps
   * a line's text but for blanks at its ends, and folding when `folded`)
   * equal oldKeys. On a large text whose keys were not built yet, the lines
   * holding old_string's longest key are found by a native string search
   * (a line's key is a substring of the line) and only their windows are
   * keyed: building the keys of every line allocates a string per line, which
   * made a miss in a file of megabytes slow.
   */
  windows(name: string, f: (line: string) => string, oldKeys: string[], folded: boolean): number[] {
    const v = this.view;
    let j = -1;
    for (let t = 0; t < oldKeys.length; t++)
      if (oldKeys[t] !== "" && (j === -1 || oldKeys[t].length > oldKeys[j].length)) j = t;
    if (
      j === -1 ||
      this.cache.has(name) ||
      v.norm.length <= EDIT_FUZZY_UNBOUNDED_CHARS ||
      (folded && this.foldable())
    ) {
      return lineWindows(this.keys(name, f), oldKeys);
    }
    const k = oldKeys.length;
    const out: number[] = [];
    let last = -1;
    let seen = 0;
    for (let p = v.norm.indexOf(oldKeys[j]); p !== -1; p = v.norm.indexOf(oldKeys[j], p + 1)) {
      if ((++seen & 1023) === 0) this.budget.check();
      const line = v.lineAt(p);
      if (line === last) continue;
      last = line;
      const i = line - j;
      if (i < 0 || i + k > v.realLineCount) continue;
      let t = 0;
      while (t < k && f(v.lines[i + t]) === oldKeys[t]) t++;
      if (t === k) out.push(i);
    }
    return out;
  }
  /**
   * The same for tiers that keep every word character (blanks inside lines
   * ignored, tokens): old_string's longest words each occur in the text.
   */
  containsWords(old: string): boolean {
    if (this.foldable()) return true;
    const words = (foldText(old).match(/[\p{L}\p{N}_$]+/gu) ?? []).sort((a, b) => b.length - a.length).slice(0, 3);
    return words.every((w) => this.view.norm.includes(w));
  }
  /** The file's tokens (token-whitespace tier). */
  tokens(): Token[] {
    return (this.fileTokens ??= tokenize(this.view.norm, () => this.budget.check()));
  }
  private fileTokens?: Token[];
  /** Where the file's string literals are, line by line (blanks inside them are content). */
  literals(): LiteralSpan[][] {
    return (this.fileLiterals ??= literalSpansByLine(this.view.norm, () => this.budget.check()));
  }
  private fileLiterals?: LiteralSpan[][];
  private fileFoldable?: boolean;
  private foldable(): boolean {
    return (this.fileFoldable ??= hasFoldable(this.view.norm));
  }
  similarityStats(): LineStats {
    return (this.stats ??= lineStats(this.keys("similar", similarityKey)));
  }
}

const trimEndKey = (l: string): string => trimEnd(l);
const trimKey = (l: string): string => trimBoth(l);
const foldTrimEndKey = (l: string): string => trimEnd(foldText(l));
const foldTrimKey = (l: string): string => trimBoth(foldText(l));
const looseKey = (l: string): string => spacingKey(foldText(l), true).text;

/** Every start (overlapping ones too) of `needle` in `hay`. */
function occurrences(hay: string, needle: string): number[] {
  const out: number[] = [];
  for (let p = hay.indexOf(needle); p !== -1; p = hay.indexOf(needle, p + 1)) out.push(p);
  return out;
}

/** Starts of the windows of whole lines whose keys equal oldKeys. */
function lineWindows(keys: string[], oldKeys: string[]): number[] {
  const k = oldKeys.length;
  const out: number[] = [];
  const first = oldKeys[0];
  outer: for (let i = 0; i + k <= keys.length; i++) {
    if (keys[i] !== first) continue;
    for (let j = 1; j < k; j++) if (keys[i + j] !== oldKeys[j]) continue outer;
    out.push(i);
  }
  return out;
}

/** Indentation pairs (old line, file line) of a window, blank old lines left out. */
function indentPairs(oldLines: string[], fileLines: string[]): [string, string][] {
  const pairs: [string, string][] = [];
  oldLines.forEach((o, j) => {
    if (!isBlank(o) && !isBlank(fileLines[j])) pairs.push([indentOf(o), indentOf(fileLines[j])]);
  });
  return pairs;
}

/**
 * old_string whose first line was copied without its indentation while its
 * other lines are exactly in the file's indentation: a uniform shift of the
 * whole of new_string to the first matched line's indentation, and whether
 * to prefer it (new_string steps from its first to its second line as the
 * file does, so it was written as one block, dedented as a whole).
 */
function firstLineRebase(
  oldLines: string[],
  fileLines: string[],
  newLines: string[],
  relation: IndentRelation,
): { relation: IndentRelation; first: boolean } | undefined {
  if (relation.kind !== "irregular" || oldLines.length < 2) return undefined;
  if (isBlank(oldLines[0]) || indentOf(oldLines[0]) !== "" || indentOf(fileLines[0]) === "") return undefined;
  for (let j = 1; j < oldLines.length; j++)
    if (!isBlank(oldLines[j]) && indentOf(oldLines[j]) !== indentOf(fileLines[j] ?? "")) return undefined;
  const newFirst = newLines.find((l) => !isBlank(l));
  if (newFirst === undefined) return undefined;
  const rebase = relateIndentation([[indentOf(newFirst), indentOf(fileLines[0])]]);
  const nextNew = newLines.slice(newLines.indexOf(newFirst) + 1).find((l) => !isBlank(l));
  const nextFile = fileLines.slice(1).find((l) => !isBlank(l));
  const w = (l: string) => indentWidth(indentOf(l), rebase.tabWidth);
  const first =
    nextNew !== undefined && nextFile !== undefined && w(nextNew) - w(newFirst) === w(nextFile) - w(fileLines[0]);
  return { relation: rebase, first };
}

/** The model's lines with the file's indentation (paired by position), for comparing new_string in the file's terms. */
function inFileIndentation(oldLines: string[], fileLines: string[]): string[] {
  return oldLines.map((l, j) =>
    isBlank(l) || fileLines[j] === undefined || isBlank(fileLines[j])
      ? l
      : indentOf(fileLines[j]) + l.slice(indentOf(l).length),
  );
}

/**
 * Whether new_string is written in old_string's indentation (the model
 * copied a block dedented and wrote its change the same way) or already in
 * the file's (it dedented old_string only). The lines new_string repeats from
 * old_string (same text once trimmed) say which; without them, its base
 * indentation does.
 */
function newStringCoordinates(oldLines: string[], fileLines: string[], newLines: string[]): "old" | "file" {
  let inOld = 0;
  let inFile = 0;
  let o = 0;
  let n = 0;
  for (const c of diffArrays(oldLines.map(trimBoth), newLines.map(trimBoth))) {
    if (c.removed) o += c.count;
    else if (c.added) n += c.count;
    else {
      for (let k = 0; k < c.count; k++, o++, n++) {
        if (isBlank(newLines[n]) || fileLines[o] === undefined || isBlank(fileLines[o])) continue;
        const ind = indentOf(newLines[n]);
        if (ind === indentOf(oldLines[o])) inOld++;
        else if (ind === indentOf(fileLines[o])) inFile++;
      }
    }
  }
  if (inOld !== inFile) return inFile > inOld ? "file" : "old";
  const base = (ls: string[]): string | undefined =>
    ls
      .filter((l) => !isBlank(l))
      .map(indentOf)
      .sort((a, b) => a.length - b.length)[0];
  const nb = base(newLines);
  return nb !== undefined && nb === base(fileLines) && nb !== base(oldLines) ? "file" : "old";
}

class Planner {
  readonly view: TextView;
  /** The outermost tier the ladder has reached (what a stopped search reports). */
  reached: Tier = "exact";
  private depth = 0;
  constructor(readonly index: FileIndex) {
    this.view = index.view;
  }

  /** Notes the tier about to run (outermost ladder only) and checks the budget. */
  enter(tier: Tier): void {
    if (this.depth === 1) this.reached = tier;
    this.index.budget.check();
  }

  /**
   * A candidate covering `k` whole lines from line `i`, plus the last line's
   * newline when old_string ended with one. `base`: the model's text as it
   * sent it, when the match used a transformed copy (unescaped): the merge
   * runs against what the model wrote.
   */
  windowCandidate(
    i: number,
    old: Body,
    neu: Body,
    relation: IndentRelation,
    policy: MergePolicy,
    base: Body = old,
  ): Candidate {
    const v = this.view;
    const last = i + old.lines.length - 1;
    const start = v.lineStarts[i];
    let end = v.lineStarts[last] + v.lines[last].length;
    const hasNewline = last < v.lines.length - 1;
    if (old.finalNewline && hasNewline) end += 1;
    const fileLines = v.lines.slice(i, last + 1);
    // Under `keep`, the file's own string literals (multi-line ones included) say where blanks are content.
    const fileLiterals = policy === "keep" ? (k: number) => this.index.literals()[i + k] ?? [] : undefined;
    // old_string asked for a newline the file does not have (last line): drop new_string's too.
    const nl = neu.finalNewline && !(old.finalNewline && !hasNewline);
    const finish = (lines: string[]): string => lines.join("\n") + (nl ? "\n" : "");
    // new_string written in old_string's indentation (re-indented by the relation the match showed),
    // or already in the file's (kept as written); the evidence decides which comes first.
    type Reading = { run: () => ReturnType<typeof rebuildLines>; why: string };
    const inOld: Reading = {
      run: () => rebuildLines({ oldLines: base.lines, fileLines, newLines: neu.lines, relation, policy, fileLiterals }),
      why: "new_string re-indented by the shift old_string needed",
    };
    const inFile: Reading = {
      run: () =>
        rebuildLines({
          oldLines: inFileIndentation(base.lines, fileLines),
          fileLines,
          newLines: neu.lines,
          relation: IDENTITY,
          policy,
          fileLiterals,
        }),
      why: "new_string kept as indented (it is already in the file's indentation)",
    };
    const readings: Reading[] =
      relation.kind === "identity"
        ? [inOld]
        : newStringCoordinates(base.lines, fileLines, neu.lines) === "file"
          ? [inFile, inOld]
          : [inOld, inFile];
    // The copy's first line taken from after its indentation (the commonest copy slip): the
    // rest of old_string is in the file's indentation, and new_string may be written either
    // way; its own first-to-second-line step says which.
    const rebase = firstLineRebase(base.lines, fileLines, neu.lines, relation);
    if (rebase) {
      const r: Reading = {
        run: () =>
          rebuildLines({ oldLines: base.lines, fileLines, newLines: neu.lines, relation: rebase.relation, policy }),
        why: "new_string shifted as a whole to the first matched line's indentation",
      };
      readings.splice(rebase.first ? 0 : readings.length, 0, r);
    }
    return {
      start,
      end,
      firstLine: i,
      build: () => {
        const r = readings[0].run();
        return r.ok ? { ok: true, text: finish(r.lines), why: readings.length > 1 ? readings[0].why : undefined } : r;
      },
      alternatives: () => {
        const out: Array<{ text: string; why: string }> = [];
        for (const reading of readings.slice(1)) {
          const r = reading.run();
          if (r.ok) out.push({ text: finish(r.lines), why: reading.why });
        }
        return out;
      },
    };
  }

  /**
   * A region matched character by character (exact or folded) that is whole
   * lines but for the first line's indentation: old_string of several lines
   * whose first line was copied from after its indentation (the commonest
   * copy slip). Its lines are lines, not a fragment: it is replaced as a
   * window of whole lines, so that lines new_string repeats keep the file's
   * text and indentation and only the lines it changes or adds are placed
   * (by the indentation the match showed). As a fragment, new_string's first
   * line would land at the old first line's column whatever line it is:
   * deleting the first line moved the next one into the block above it.
   */
  fragmentOrLines(
    start: number,
    end: number,
    old: string,
    neu: string,
    base: string,
    baseBody: Body,
    policy: MergePolicy = "ours",
  ): Candidate {
    const v = this.view;
    const oldBody = bodyOf(old);
    const line = v.lineAt(start);
    const before = v.norm.slice(v.lineStarts[line], start);
    const endsLine = end === v.norm.length || v.norm[end] === "\n" || v.norm[end - 1] === "\n";
    if (
      oldBody.lines.length >= 2 &&
      before !== "" &&
      isBlank(before) &&
      !isBlank(old.slice(0, 1)) &&
      endsLine &&
      line + oldBody.lines.length <= v.realLineCount
    ) {
      const fileLines = v.lines.slice(line, line + oldBody.lines.length);
      const relation = relateIndentation(indentPairs(baseBody.lines, fileLines));
      return { ...this.windowCandidate(line, oldBody, bodyOf(neu), relation, policy, baseBody), matchStart: start };
    }
    return this.spanCandidate(start, end, old, neu, base, policy);
  }

  /**
   * A candidate for a region matched character by character (exact, folded
   * or unescaped fragment). `base`: the model's text as sent (see windowCandidate).
   */
  spanCandidate(
    start: number,
    end: number,
    old: string,
    neu: string,
    base: string = old,
    policy: MergePolicy = "ours",
  ): Candidate {
    const v = this.view;
    const region = v.norm.slice(start, end);
    // A fragment that starts after a line's indentation and is replaced by several lines:
    // the later lines may be written relative to the fragment's column.
    const line = v.lineAt(start);
    const before = v.norm.slice(v.lineStarts[line], start);
    const indentBefore = before.length > 0 && isBlank(before) && !isBlank(old.slice(0, 1)) ? before : "";
    const neuLines = neu.split("\n");
    const continuation = neuLines.slice(1).filter((l) => !isBlank(l));
    const shifted = (): string =>
      [neuLines[0], ...neuLines.slice(1).map((l) => (isBlank(l) ? l : indentBefore + l))].join("\n");
    // The caller's indentation first: as written when the lines it gives fit the place (after
    // the fragment's line, a new `def` at column 0 closes the blocks above it); relative to the
    // fragment's column when they do not (`if name:` then `    z()` inside a block).
    const shallow =
      indentBefore !== "" &&
      continuation.length > 0 &&
      Math.min(...continuation.map((l) => indentOf(l).length)) < indentBefore.length;
    const fits = (text: string): boolean => {
      const lastLine = v.lineAt(Math.max(start, end - 1));
      const head = v.norm.slice(v.lineStarts[line], start);
      const tail = v.norm.slice(end, v.lineStarts[lastLine] + v.lines[lastLine].length);
      const lines = (head + text + tail).split("\n");
      return fitsPlace(
        lines,
        { lines: v.lines.slice(0, v.realLineCount), at: line, replacing: lastLine - line + 1 },
        this.index.indentUnit(),
      );
    };
    // The quoted line itself repeated further down new_string (a line inserted before it) is the
    // anchor: it stays where it is, so the lines after the first are read from the fragment's column.
    const anchor =
      old.includes("\n") || isBlank(old) ? undefined : neuLines.slice(1).find((l) => l.trim() === old.trim());
    const endLine = v.lineAt(Math.max(start, end - 1));
    const anchored =
      indentBefore !== "" &&
      anchor !== undefined &&
      indentOf(anchor) === "" &&
      isBlank(v.norm.slice(end, v.lineStarts[endLine] + v.lines[endLine].length));
    const relative = anchored || (shallow && !fits(neu));
    const build = (
      text: string,
    ): { ok: true; text: string } | { ok: false; newLine: number; problem: RebuildProblem; indent: string } => {
      if (region === base) return { ok: true, text };
      // Same line structure on both sides: folding and unescaping (without encoded line breaks) never touch newlines.
      // The region's first line starts `start - lineStart` characters into the file's line.
      const column = start - v.lineStarts[line];
      const r = rebuildLines({
        oldLines: base.split("\n"),
        fileLines: region.split("\n"),
        newLines: text.split("\n"),
        relation: IDENTITY,
        policy,
        fileLiterals:
          policy === "keep"
            ? (k) =>
                (this.index.literals()[line + k] ?? []).map(
                  ([a, b]): LiteralSpan => (k === 0 ? [a - column, b - column] : [a, b]),
                )
            : undefined,
      });
      return r.ok ? { ok: true, text: r.lines.join("\n") } : r;
    };
    return {
      start,
      end,
      firstLine: line,
      build: () => {
        const r = build(relative ? shifted() : neu);
        return r.ok && relative
          ? { ...r, why: `the lines after the first indented from the fragment's column (${indentBefore.length})` }
          : r;
      },
      alternatives: () => {
        if (indentBefore === "" || continuation.length === 0) return [];
        const r = build(relative ? neu : shifted());
        return r.ok
          ? [
              {
                text: r.text,
                why: relative
                  ? "new_string kept as indented"
                  : `the lines after the first indented from the fragment's column (${indentBefore.length})`,
              },
            ]
          : [];
      },
    };
  }

  lineOf(c: Candidate): number {
    return c.firstLine + 1;
  }

  ambiguous(tier: Tier, candidates: Candidate[], how: string): LadderResult {
    const lines = candidates.map((c) => this.lineOf(c));
    return {
      kind: "ambiguous",
      tier,
      lines,
      message:
        `old_string matches ${candidates.length} places${how}: ${listLines(lines)}. ` +
        "Include more surrounding lines in old_string to pick one, or set replace_all to change every one.",
    };
  }

  /**
   * A match that starts or ends in the middle of a line is only a fragment.
   * If old_string also matches whole lines somewhere else once whitespace and
   * punctuation are ignored (a stray trailing blank made "if (x) " a prefix of
   * "if (x) {" here while the quoted line is over there), both readings are
   * plausible: that is ambiguous, not a reason to pick the fragment.
   */
  checkFragment(r: LadderResult, oldBody: Body, newBody: Body, replaceAll: boolean): LadderResult {
    if (r.kind !== "match" || replaceAll || r.candidates.length !== 1) return r;
    const c = r.candidates[0];
    const v = this.view;
    // Text on the match's first line before it, and on its last line after it (none when the
    // match starts at a line's end or ends with a newline).
    const before = v.norm[c.start] === "\n" ? "" : v.norm.slice(v.lineStarts[c.firstLine], c.start);
    const lastLine = v.lineAt(c.end);
    const after =
      c.end > 0 && v.norm[c.end - 1] === "\n"
        ? ""
        : v.norm.slice(c.end, v.lineStarts[lastLine] + v.lines[lastLine].length);
    // A match that starts inside a line's indentation quotes fewer blanks than the line has: the
    // caller's indentation is not this line's, and whole lines elsewhere are as likely meant.
    const insideIndent = before !== "" && isBlank(before) && /^[ \t]/.test(oldBody.lines[0] ?? "");
    const partial = !isBlank(before) || !isBlank(after) || insideIndent;
    if (!partial) return r;
    const rivals = this.index
      .windows("foldTrim", foldTrimKey, oldBody.lines.map(foldTrimKey), true)
      .map((i) => this.windowCandidate(i, oldBody, newBody, IDENTITY, "ours"))
      .filter((w) => w.end <= c.start || w.start >= c.end);
    if (rivals.length === 0) return r;
    const lines = [c, ...rivals].map((x) => this.lineOf(x)).sort((a, b) => a - b);
    return {
      kind: "ambiguous",
      tier: r.tier,
      lines,
      message:
        `old_string matches part of line ${this.lineOf(c)}${insideIndent && isBlank(after) ? " (from inside its indentation)" : ""}, and whole lines at ${listLines(rivals.map((x) => this.lineOf(x)))} once whitespace is ignored. ` +
        "Copy old_string exactly from the place you mean, with enough surrounding lines to make it unique.",
    };
  }

  /** The first tier with any candidate decides: one → match, several → ambiguous (unless replace_all). */
  decide(tier: Tier, candidates: Candidate[], replaceAll: boolean, how: string, note?: string): LadderResult {
    if (candidates.length === 0) return { kind: "none" };
    if (candidates.length > 1 && !replaceAll) return this.ambiguous(tier, candidates, how);
    return { kind: "match", tier, candidates: nonOverlapping(candidates), note };
  }

  /**
   * The ladder. `base`: what the model sent as old_string when `old` is a
   * transformed copy of it (the unescaped tier matches its unescaped form but
   * merges against what the model wrote).
   */
  run(old: string, neu: string, replaceAll: boolean, tiers: ReadonlySet<Tier>, base: string = old): LadderResult {
    this.depth++;
    try {
      return this.ladder(old, neu, replaceAll, tiers, base);
    } finally {
      this.depth--;
    }
  }

  private ladder(old: string, neu: string, replaceAll: boolean, tiers: ReadonlySet<Tier>, base: string): LadderResult {
    const v = this.view;
    const oldBody = bodyOf(old);
    const newBody = bodyOf(neu);
    const baseBody = base === old ? oldBody : bodyOf(base);
    const window = (i: number, relation: IndentRelation, policy: MergePolicy = "ours"): Candidate =>
      this.windowCandidate(i, oldBody, newBody, relation, policy, baseBody);

    // 1. exact
    if (tiers.has("exact")) {
      const hits = occurrences(v.norm, old);
      const r = this.decide(
        "exact",
        hits.map((p) => this.fragmentOrLines(p, p + old.length, old, neu, base, baseBody)),
        replaceAll,
        "",
      );
      if (r.kind !== "none") return this.checkFragment(r, oldBody, newBody, replaceAll);
    }

    // 2. trailing whitespace
    if (tiers.has("trailing-whitespace")) {
      this.enter("trailing-whitespace");
      const oldKeys = oldBody.lines.map(trimEndKey);
      const hits = this.index.windows("trimEnd", trimEndKey, oldKeys, false);
      const r = this.decide(
        "trailing-whitespace",
        hits.map((i) => window(i, IDENTITY)),
        replaceAll,
        " when trailing whitespace is ignored",
        "matched after ignoring trailing whitespace",
      );
      if (r.kind !== "none") return r;
    }

    // 3. trimmed lines (irregular indentation); a uniform shift waits for indent-shifted
    let deferred: Candidate[] = [];
    if (tiers.has("trimmed-lines")) {
      this.enter("trimmed-lines");
      const oldKeys = oldBody.lines.map(trimKey);
      const hits = this.index.windows("trim", trimKey, oldKeys, false);
      if (hits.length > 1 && !replaceAll)
        return this.ambiguous(
          "trimmed-lines",
          hits.map((i) => window(i, IDENTITY)),
          " when leading and trailing whitespace is ignored",
        );
      if (hits.length > 0) {
        const rels = hits.map((i) =>
          relateIndentation(indentPairs(oldBody.lines, v.lines.slice(i, i + oldBody.lines.length))),
        );
        if (rels.some((r) => r.kind !== "uniform")) {
          return {
            kind: "match",
            tier: "trimmed-lines",
            candidates: nonOverlapping(hits.map((i, k) => window(i, rels[k]))),
            note: "matched after ignoring leading and trailing whitespace; new_string was re-indented line by line to match",
          };
        }
        deferred = hits.map((i) => window(i, IDENTITY));
      }
    }

    // 4 and 5. Unicode punctuation folded; doubled escapes undone
    const r = this.foldedOrUnescaped(old, neu, oldBody, newBody, replaceAll, tiers, base, baseBody);
    if (r.kind === "refused") return r;
    if (r.kind !== "none") {
      // old_string also matches elsewhere with its indentation shifted: two readings, no guess.
      if (deferred.length === 0 || replaceAll) return r;
      const found = r.kind === "match" ? r.candidates : [];
      const lines = [
        ...(r.kind === "ambiguous" ? r.lines : found.map((c) => this.lineOf(c))),
        ...deferred.map((c) => this.lineOf(c)),
      ].sort((x, y) => x - y);
      return {
        kind: "ambiguous",
        tier: r.tier,
        lines,
        message:
          `old_string matches several places: ${listLines(lines)} (some only with their indentation shifted, others only after ${r.tier === "unescaped" ? "undoing escape sequences" : "folding typographic punctuation"}). ` +
          "Copy old_string exactly from the place you mean, with enough surrounding lines to make it unique.",
      };
    }

    // 6. indentation shifted uniformly
    if (tiers.has("indent-shifted")) {
      this.enter("indent-shifted");
      const oldKeys = oldBody.lines.map(foldTrimKey);
      const hits = this.index.windows("foldTrim", foldTrimKey, oldKeys, true);
      if (hits.length > 1 && !replaceAll)
        return this.ambiguous(
          "indent-shifted",
          hits.map((i) => window(i, IDENTITY)),
          " when indentation is ignored",
        );
      const rels = hits.map((i) =>
        relateIndentation(indentPairs(oldBody.lines, v.lines.slice(i, i + oldBody.lines.length))),
      );
      if (hits.length > 0 && rels.every((r) => r.kind !== "irregular")) {
        return {
          kind: "match",
          tier: "indent-shifted",
          candidates: nonOverlapping(hits.map((i, k) => window(i, rels[k]))),
          note: `matched with ${describeRelation(rels[0])}`,
        };
      }
    }

    // 7. runs of blanks inside lines
    if (tiers.has("inner-whitespace")) {
      this.enter("inner-whitespace");
      const w = this.index.containsWords(old)
        ? this.innerWhitespace(old, neu, oldBody, newBody, replaceAll)
        : ({ kind: "none" } as LadderResult);
      if (w.kind !== "none") return w;
    }

    // 8. the same tokens, laid out differently
    if (tiers.has("token-whitespace")) {
      this.enter("token-whitespace");
      const w = this.index.containsWords(old)
        ? this.tokenWhitespace(old, neu, replaceAll)
        : ({ kind: "none" } as LadderResult);
      if (w.kind !== "none") return w;
    }

    // 9. line numbers copied from a numbered listing
    if (tiers.has("line-numbers")) {
      this.enter("line-numbers");
      const stripped = stripLineNumbers(old);
      if (stripped !== null) {
        // new_string numbered the same way loses its numbers too; otherwise it is taken as written.
        const neuStripped = stripLineNumbers(neu) ?? neu;
        const inner = this.run(stripped, neuStripped, replaceAll, INNER_TIERS);
        if (inner.kind === "match") {
          const how = inner.tier === "exact" ? "" : ` (then ${inner.tier})`;
          return {
            ...inner,
            tier: "line-numbers",
            note: `matched after removing the line numbers old_string was copied with ("12: ", "12 | ")${how}`,
          };
        }
        if (inner.kind === "ambiguous") return { ...inner, tier: "line-numbers" };
      }
    }

    // 10. similarity
    if (tiers.has("similar")) {
      this.enter("similar");
      return this.similar(oldBody, newBody);
    }
    return { kind: "none" };
  }

  /**
   * Tier 7: old_string differs from the file only in runs of blanks inside
   * lines (`f(a,  b)` for `f(a, b)`), or in blanks and line breaks around a
   * fragment (`  x = 1 ` for the `x = 1` inside a line). Whole lines first,
   * then a fragment inside one line; either way the match must be unique.
   */
  innerWhitespace(old: string, neu: string, oldBody: Body, newBody: Body, replaceAll: boolean): LadderResult {
    const v = this.view;
    const note =
      "matched after ignoring blanks inside lines (runs of them, and next to brackets and commas); lines new_string leaves unchanged keep the file's spacing, the lines it changes are spaced as written";
    // Whole lines: runs of blanks first, then blanks next to brackets and commas too.
    for (const [name, key] of [
      ["similar", similarityKey],
      ["loose", looseKey],
    ] as const) {
      const oldKeys = oldBody.lines.map(key);
      if (!oldKeys.some((k) => k !== "")) break;
      const hits = lineWindows(this.index.keys(name, key), oldKeys);
      const rels = hits.map((i) =>
        relateIndentation(indentPairs(oldBody.lines, v.lines.slice(i, i + oldBody.lines.length))),
      );
      const r = this.decide(
        "inner-whitespace",
        hits.map((i, k) => this.windowCandidate(i, oldBody, newBody, rels[k], "keep")),
        replaceAll,
        " when blanks inside lines are ignored",
        note,
      );
      if (r.kind !== "none") return r;
    }
    // Blank lines quoted around old_string that the file does not have there.
    const stripped = old.replace(/^(?:[ \t]*\n)+/, "").replace(/(?:\n[ \t]*)+$/, "");
    if (stripped !== old && stripped.includes("\n") && stripped.trim() !== "") {
      const leadLines = old.slice(0, old.indexOf(stripped));
      const tailLines = old.slice(old.indexOf(stripped) + stripped.length);
      let neuStripped = neu.startsWith(leadLines) ? neu.slice(leadLines.length) : neu.replace(/^(?:[ \t]*\n)+/, "");
      if (tailLines !== "" && neuStripped.endsWith(tailLines))
        neuStripped = neuStripped.slice(0, neuStripped.length - tailLines.length);
      const inner = this.run(
        stripped + (old.endsWith("\n") ? "\n" : ""),
        neuStripped + (old.endsWith("\n") && !neuStripped.endsWith("\n") && neu.endsWith("\n") ? "\n" : ""),
        replaceAll,
        INNER_TIERS,
      );
      if (inner.kind === "match")
        return {
          ...inner,
          tier: "inner-whitespace",
          note: "matched after leaving out the blank lines old_string had around it, which the file does not have there",
        };
      if (inner.kind === "ambiguous") return { ...inner, tier: "inner-whitespace" };
    }
    // A fragment: old_string without the blanks and line breaks around it, inside one line.
    const lead = /^[ \t\n]*/.exec(old)![0];
    const tail = /[ \t\n]*$/.exec(old.slice(lead.length))![0];
    const core = old.slice(lead.length, old.length - tail.length);
    if (core === "" || core.includes("\n")) return { kind: "none" };
    // The caller's copy of those blanks stands for nothing in the file: where new_string repeats them, they go too.
    const neuCore = neu.slice(
      neu.startsWith(lead) ? lead.length : 0,
      neu.endsWith(tail) && neu.length - tail.length >= lead.length ? neu.length - tail.length : neu.length,
    );
    for (const loose of [false, true]) {
      const key = spacingKey(core, loose);
      if (key.text === "") break;
      const spans: Candidate[] = [];
      for (let i = 0; i < v.realLineCount && spans.length <= MAX_LISTED_LINES; i++) {
        if ((i & 1023) === 0) this.index.budget.check();
        const line = v.lines[i];
        const lk = spacingKey(line, loose);
        if (lk.text.length < key.text.length) continue;
        for (const p of occurrences(lk.text, key.text)) {
          const from = v.lineStarts[i] + lk.map[p];
          const to = v.lineStarts[i] + lk.map[p + key.text.length - 1] + 1;
          // A match must start and end on the same characters as old_string's core does (not inside a word).
          if (/\w/.test(key.text[0]) && /\w/.test(v.norm[from - 1] ?? "")) continue;
          if (/\w/.test(key.text[key.text.length - 1]) && /\w/.test(v.norm[to] ?? "")) continue;
          // Line breaks quoted around a whole line are lines the file does not have, not spacing.
          const wholeLine =
            isBlank(v.norm.slice(v.lineStarts[i], from)) && isBlank(v.norm.slice(to, v.lineStarts[i] + line.length));
          if (wholeLine && (lead + tail).includes("\n")) continue;
          // The merge base is the caller's text: where new_string repeats it, the file's spacing stays.
          spans.push(this.spanCandidate(from, to, core, neuCore, core, "keep"));
        }
      }
      const r = this.decide(
        "inner-whitespace",
        spans,
        replaceAll,
        " when blanks inside and around it are ignored",
        note,
      );
      if (r.kind !== "none") return r;
    }
    return { kind: "none" };
  }

  /**
   * Tier 8: old_string's tokens (tokens.ts) found as a run of the file's
   * tokens, only the layout between them differing (`function f(){return 1;}`
   * for a function written over three lines, a JSON object on one line for a
   * pretty-printed one, old_string padded with blank lines and tabs). The run
   * must be unique (or replace_all). new_string is placed token by token: the
   * file's whitespace where it repeats old_string, its own where it changes.
   */
  tokenWhitespace(old: string, neu: string, replaceAll: boolean): LadderResult {
    const v = this.view;
    const oldTokens = tokenize(old);
    if (oldTokens.length < 2) return { kind: "none" };
    // Tokens compare by their exact text, so a word or string of old_string that is nowhere in the
    // file rules every place out: said without tokenizing the file (a typo'd copy on its way to `similar`).
    const texts = new Set(oldTokens.filter((t) => t.kind !== "punct").map((t) => t.text));
    for (const t of texts) if (!v.norm.includes(t)) return { kind: "none" };
    const fileTokens = this.index.tokens();
    const runs = findTokenRuns(fileTokens, oldTokens, () => this.index.budget.check());
    if (runs.length === 0) return { kind: "none" };
    const neuTokens = tokenize(neu);
    const k = oldTokens.length;
    const candidates: Candidate[] = runs.map((p) => {
      const start = fileTokens[p].start;
      return {
        start,
        end: fileTokens[p + k - 1].end,
        firstLine: v.lineAt(start),
        build: () => {
          const text = mergeTokens(v.norm, fileTokens, p, old, oldTokens, neu, neuTokens);
          return text === null ? { ok: false, newLine: 1, problem: "indent", indent: "" } : { ok: true, text };
        },
      };
    });
    return this.decide(
      "token-whitespace",
      candidates,
      replaceAll,
      " when whitespace between tokens is ignored",
      "matched the same tokens laid out differently (line breaks and blanks between tokens ignored, never between two words or inside a string); where new_string repeats old_string's tokens the file's layout was kept, what it changes is written as given",
    );
  }

  /** Tiers 4 (unicode-folded) and 5 (unescaped). */
  foldedOrUnescaped(
    old: string,
    neu: string,
    oldBody: Body,
    newBody: Body,
    replaceAll: boolean,
    tiers: ReadonlySet<Tier>,
    base: string,
    baseBody: Body,
  ): LadderResult {
    const v = this.view;
    if (tiers.has("unicode-folded") && (hasFoldable(old) || hasFoldable(v.norm))) {
      this.enter("unicode-folded");
      const note =
        "matched after folding typographic punctuation and compatibility forms (curly quotes, dashes, ellipsis, non-breaking spaces, fullwidth forms); text new_string leaves unchanged keeps the file's characters, what it changes is kept as written";
      const foldedOld = foldText(old);
      const ft = this.index.foldedText();
      const spans: Candidate[] = [];
      if (foldedOld.length > 0) {
        for (const fs of occurrences(ft.text, foldedOld)) {
          const fe = fs + foldedOld.length;
          // Skip matches that start or end inside an expanded or contracted character (… → ..., e + ◌́ → é).
          if (fs > 0 && ft.map[fs - 1] === ft.map[fs]) continue;
          if (fe < ft.text.length && ft.map[fe] === ft.map[fe - 1]) continue;
          spans.push(this.fragmentOrLines(ft.map[fs], ft.map[fe], old, neu, base, baseBody));
        }
      }
      let r = this.decide("unicode-folded", spans, replaceAll, " when typographic punctuation is folded", note);
      if (r.kind !== "none") return this.checkFragment(r, oldBody, newBody, replaceAll);
      const oldKeys = oldBody.lines.map(foldTrimEndKey);
      const hits = lineWindows(this.index.keys("foldTrimEnd", foldTrimEndKey), oldKeys);
      r = this.decide(
        "unicode-folded",
        hits.map((i) => this.windowCandidate(i, oldBody, newBody, IDENTITY, "ours", baseBody)),
        replaceAll,
        " when typographic punctuation is folded and trailing whitespace ignored",
        note,
      );
      if (r.kind !== "none") return r;
    }
    if (tiers.has("unescaped")) {
      this.enter("unescaped");
      const uOld = unescapeOnce(old);
      if (uOld !== old && uOld.trim() !== "") {
        // old_string with its line breaks written as \n: the whole call was escaped once too
        // often, new_string included. Otherwise only old_string is known to be: new_string is
        // taken as written, and the escapes old_string doubled are undone where new_string repeats it.
        // With real line breaks in new_string (and escaped ones in old_string) only old_string
        // was escaped: new_string is taken as written, against old_string unescaped.
        const encodedBreaks = !old.includes("\n") && uOld.includes("\n");
        const newWritten = encodedBreaks && neu.includes("\n");
        const inner = newWritten
          ? this.run(uOld, neu, replaceAll, INNER_TIERS)
          : encodedBreaks
            ? this.run(uOld, unescapeOnce(neu), replaceAll, INNER_TIERS)
            : this.run(uOld, neu, replaceAll, INNER_TIERS, base);
        // new_string on one line with escaped line breaks in it: it may have been escaped as a
        // whole too. Both readings go to the caller's checks, new_string as written first.
        if (inner.kind === "match" && !encodedBreaks && !neu.includes("\n") && inner.candidates.length === 1) {
          const uNew = unescapeOnce(neu);
          const other = uNew.includes("\n")
            ? this.run(uOld, uNew, replaceAll, INNER_TIERS)
            : ({ kind: "none" } as LadderResult);
          const c = inner.candidates[0];
          if (
            other.kind === "match" &&
            other.candidates.length === 1 &&
            other.candidates[0].start === c.start &&
            other.candidates[0].end === c.end
          ) {
            const alt = other.candidates[0];
            const own = c.alternatives;
            c.alternatives = () => {
              const built = alt.build();
              return [
                ...(own?.() ?? []),
                ...(built.ok
                  ? [{ text: built.text, why: "new_string unescaped too (its line breaks were written as \\n)" }]
                  : []),
              ];
            };
          }
        }
        if (inner.kind === "match") {
          const guarded = this.guardEscapes(inner, old, uOld, neu, replaceAll, !encodedBreaks || newWritten);
          if (guarded.kind !== "match") return guarded;
          const how = inner.tier === "exact" ? "" : ` (then ${inner.tier})`;
          const what = guarded.unescapedNew
            ? "new_string was unescaped once too: as written it would have put escape sequences into the file where it has none"
            : newWritten
              ? "new_string was taken as written"
              : encodedBreaks
                ? "old_string and new_string had their line breaks written as \\n, so both were unescaped once"
                : "new_string was taken as written, with the escapes old_string doubled undone only where new_string repeats old_string";
          return {
            ...guarded.result,
            tier: "unescaped",
            note: `matched after undoing doubled escape sequences (\\n, \\t, \\", \\\\)${how}; ${what}`,
          };
        }
        if (inner.kind === "ambiguous")
          return {
            ...inner,
            tier: "unescaped",
            message: inner.message.replace("places", "places once escape sequences are undone"),
          };
      }
    }
    return { kind: "none" };
  }

  /**
   * The escape rule of the unescaped tier: old_string matched only once the
   * escape sequences it used (`\"`, `\\`, `\n` ...) were undone, so those
   * sequences are the caller's escaping, not the file's text. A replacement
   * never writes one of them into the file unless the file already uses it
   * literally in the matched lines (a string literal that really holds `\"`).
   * When new_string as written would, it is read unescaped like old_string
   * instead, provided that reading writes none of them and new_string shows
   * no sign of having been written unescaped (a bare `"` where old_string
   * wrote `\"`); otherwise the edit is refused with both readings. The
   * same rule filters the alternative readings offered to the caller's checks.
   * `asWritten`: whether the candidates took new_string as written (else it
   * was unescaped already, and there is no other reading).
   */
  guardEscapes(
    inner: Extract<LadderResult, { kind: "match" }>,
    old: string,
    uOld: string,
    neu: string,
    replaceAll: boolean,
    asWritten: boolean,
  ):
    | { kind: "match"; result: Extract<LadderResult, { kind: "match" }>; unescapedNew: boolean }
    | Extract<LadderResult, { kind: "refused" }> {
    const seqs = undoneEscapes(old);
    if (seqs.length === 0) return { kind: "match", result: inner, unescapedNew: false };
    const v = this.view;
    const uNew = unescapeOnce(neu);
    let other: LadderResult | undefined;
    let unescapedNew = false;
    const candidates: Candidate[] = [];
    for (const c of inner.candidates) {
      const lastLine = v.lineAt(Math.max(c.start, c.end - 1));
      const region = v.norm.slice(v.lineStarts[c.firstLine], v.lineStarts[lastLine] + v.lines[lastLine].length);
      const forbidden = seqs.filter((s) => !region.includes(s));
      const writes = (text: string): string[] => forbidden.filter((s) => text.includes(s));
      const clean = (x: Candidate): Candidate => {
        const alts = x.alternatives;
        return alts ? { ...x, alternatives: () => alts().filter((a) => writes(a.text).length === 0) } : x;
      };
      if (forbidden.length === 0) {
        candidates.push(c);
        continue;
      }
      const built = c.build();
      // A replacement that cannot be built fails later with its own reason.
      if (!built.ok || writes(built.text).length === 0) {
        candidates.push(clean(c));
        continue;
      }
      const bad = writes(built.text);
      if (asWritten && uNew !== neu) {
        other ??= this.run(uOld, uNew, replaceAll, INNER_TIERS);
        const alt =
          other.kind === "match" ? other.candidates.find((a) => a.start === c.start && a.end === c.end) : undefined;
        const altBuilt = alt?.build();
        if (alt && altBuilt?.ok && writes(altBuilt.text).length === 0 && !writtenUnescaped(neu, seqs)) {
          candidates.push(clean(alt));
          unescapedNew = true;
          continue;
        }
      }
      const line = c.firstLine + 1;
      const shown = (t: string): string =>
        showLine(t.split("\n").find((l) => writes(l).length > 0) ?? t.split("\n")[0]);
      return {
        kind: "refused",
        reason: "escape-unclear",
        tier: "unescaped",
        lines: [line],
        message:
          `old_string matches line ${line} only once its escape sequences (${seqs.join(" ")}) are undone, so they were escaping, ` +
          `not the file's text. new_string can be read two ways, and neither is certain:\n` +
          `  as written (puts ${bad.join(" ")} into lines that have none): ${shown(built.text)}\n` +
          `  unescaped like old_string: ${showLine(unescapeOnce(shown(built.text)))}\n` +
          "Nothing was changed. Send old_string and new_string exactly as the file reads, without the extra escaping.",
      };
    }
    return { kind: "match", result: { ...inner, candidates }, unescapedNew };
  }

  similar(oldBody: Body, newBody: Body): LadderResult {
    const v = this.view;
    const k = oldBody.lines.length;
    // A line or two that is merely similar is as likely another place (a sibling file's copy, the
    // next overload) as a slip of the model's memory: similarity needs some context to be evidence.
    if (oldBody.lines.filter((l) => !isBlank(l)).length < SIMILARITY_MIN_LINES) return { kind: "none" };
    const fileStats = this.index.similarityStats();
    const oldStats = lineStats(oldBody.lines.map(similarityKey));
    const scored = windowsAtLeast(
      fileStats,
      v.realLineCount,
      oldStats,
      SIMILARITY_THRESHOLD - SIMILARITY_MARGIN,
      { similarity: SIMILARITY_THRESHOLD, places: MAX_LISTED_PLACES + 1 },
      () => this.index.budget.check(),
    );
    if (scored.length === 0) return { kind: "none" };
    scored.sort((a, b) => b.similarity - a.similarity || a.start - b.start);
    const best = scored[0];
    if (best.similarity < SIMILARITY_THRESHOLD) return { kind: "none" };
    const overlaps = (a: WindowScore, b: WindowScore): boolean => Math.abs(a.start - b.start) < k;
    // Distinct places that come close to the best, each represented by its own best window.
    const places: WindowScore[] = [best];
    for (const w of scored) {
      if (places.some((p) => overlaps(p, w))) {
        if (w !== best && overlaps(best, w) && w.similarity >= best.similarity) places.push(w); // same place, unclear extent
        continue;
      }
      if (w.similarity >= SIMILARITY_THRESHOLD || w.similarity > best.similarity - SIMILARITY_MARGIN) places.push(w);
    }
    if (places.length > 1) {
      places.sort((a, b) => a.start - b.start);
      const shown = places.slice(0, MAX_LISTED_PLACES);
      const more = places.length - shown.length;
      const list =
        shown.map((p) => `${p.start + 1} (${formatSimilarity(p.similarity)})`).join(", ") +
        (more > 0 ? ` and ${more} more` : "");
      return {
        kind: "ambiguous",
        tier: "similar",
        lines: places.map((p) => p.start + 1),
        message:
          `old_string is not in the file as written, and it is about equally similar to ${places.length > MAX_LISTED_PLACES ? "at least " : ""}${places.length} places: lines ${list}. ` +
          "Re-read the file and copy old_string exactly, with enough surrounding lines to pick one place.",
      };
    }
    const fileLines = v.lines.slice(best.start, best.start + k);
    // Near-identical lines that differ in a number (a table row, a version, an
    // offset) are other lines, not a misremembered copy: a model recalls text
    // loosely but a different number means a different place.
    if (oldBody.lines.some((l, i) => numbersIn(l) !== numbersIn(fileLines[i] ?? ""))) return { kind: "none" };
    // The window is compared line by line: each line of the copy must be the file's line at its
    // position, misremembered (more alike than not), never a blank line against a line of text. A
    // copy missing a line (or with one added) scores high against a window shifted by one, and
    // its unchanged lines would then be replaced by their neighbours (a blank line lost, a line
    // doubled, the caller's change put on another line).
    if (!oldBody.lines.every((l, i) => sameLineMisremembered(l, fileLines[i] ?? ""))) return { kind: "none" };
    const relation = relateIndentation(indentPairs(oldBody.lines, fileLines));
    return {
      kind: "match",
      tier: "similar",
      similarity: best.similarity,
      candidates: [this.windowCandidate(best.start, oldBody, newBody, relation, "refuse")],
      note:
        `old_string is not in the file as written; lines ${best.start + 1}-${best.start + k} are the only close match ` +
        `(similarity ${formatSimilarity(best.similarity)}) and were replaced. Lines new_string repeats from old_string were kept as the file has them.`,
    };
  }
}

const INNER_TIERS: ReadonlySet<Tier> = new Set<Tier>([
  "exact",
  "trailing-whitespace",
  "trimmed-lines",
  "unicode-folded",
  "indent-shifted",
]);
const ALL_TIERS: ReadonlySet<Tier> = new Set<Tier>(TIERS);

/** Keeps the first of overlapping candidates (replace_all replaces left to right). */
function nonOverlapping(cands: Candidate[]): Candidate[] {
  const sorted = [...cands].sort((a, b) => a.start - b.start);
  const out: Candidate[] = [];
  for (const c of sorted) if (out.length === 0 || c.start >= out[out.length - 1].end) out.push(c);
  return out;
}

/** A line number prefix as listings show them: rt's `12: ` and `   12: `, `12 | `, cat -n's tab, `12→`. */
const NUMBER_PREFIX = /^[ \t]*(\d+)(?:: | \| |\t|→)/;

/**
 * `text` without the line numbers a model copied from a numbered listing, or
 * null unless every non-blank line has one and they count up one by one (a
 * single line's `3: ` could be a dictionary entry).
 */
function stripLineNumbers(text: string): string | null {
  const lines = text.split("\n");
  let expected: number | undefined;
  let numbered = 0;
  const out: string[] = [];
  for (const l of lines) {
    const m = NUMBER_PREFIX.exec(l);
    if (!m) {
      if (l.trim() !== "") return null;
      out.push(l);
      continue;
    }
    const n = Number(m[1]);
    if (expected !== undefined && n !== expected) return null;
    expected = n + 1;
    numbered++;
    out.push(l.slice(m[0].length));
  }
  return numbered >= 2 || (numbered === 1 && lines.length === 1 && / \| |→|\t/.test(text)) ? out.join("\n") : null;
}

/** Whether a line of the copy can stand for the file's line at its position: both blank, or their texts more alike than not. */
function sameLineMisremembered(copy: string, file: string): boolean {
  const a = similarityKey(copy);
  const b = similarityKey(file);
  if (a === "" || b === "") return a === b;
  const n = Math.max(a.length, b.length);
  return levenshtein(a, b, n) * 2 < n;
}

/** The numeric literals of a line (decimal, hex, with fractions), in order. */
function numbersIn(line: string): string {
  return (line.match(/\b(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d+)?)\b/g) ?? []).join(" ").toLowerCase();
}

/** Two decimals, rounded down: a near miss never shows as 1.00. */
function formatSimilarity(s: number): string {
  return (Math.floor(Math.max(0, s) * 100) / 100).toFixed(2);
}

const MAX_LISTED_LINES = 100;
/** Similar places listed in an ambiguity error (their lines are all in `lines`). */
const MAX_LISTED_PLACES = 20;

function listLines(lines: number[]): string {
  const shown = lines.slice(0, MAX_LISTED_LINES);
  const more = lines.length - shown.length;
  return `line${lines.length === 1 ? "" : "s"} ${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
}

/** Shows a line for an error message, with its leading whitespace visible. */
function showLine(s: string): string {
  const indent = indentOf(s);
  const shown = indent.replace(/\t/g, "→").replace(/ /g, "·") + s.slice(indent.length);
  return shown.length > 200 ? shown.slice(0, 200) + "…" : shown;
}

// ------------------------------------------------------------------ public API

/**
 * Plans the edit "replace old_string by new_string" on `text` (the decoded
 * file content; "\r\n" or "\n" endings, a leading BOM is skipped). Pure: the
 * caller applies the replacements (applyReplacements) and writes the file.
 */
export function planEdit(text: string, oldString: string, newString: string, opts: PlanOptions = {}): MatchOutcome {
  const view = viewOf(text);
  const old = normalizeEol(oldString);
  const neu = normalizeEol(newString);
  const replaceAll = opts.replaceAll === true;

  if (old === "") {
    if (view.norm === "") {
      const start = view.toOriginal(0);
      return {
        ok: true,
        tier: "exact",
        replacements: [{ start, end: text.length, text: withEol(neu, opts.eol ?? "\n"), startLine: 1, endLine: 1 }],
        lines: [1],
      };
    }
    return {
      ok: false,
      reason: "empty-old",
      message:
        "old_string is empty. Give the exact text to replace (copied from the file), or use write to replace the whole file.",
    };
  }
  if (old === neu) {
    return {
      ok: false,
      reason: "unchanged",
      message: "old_string and new_string are the same: there is nothing to change.",
    };
  }

  const planner = new Planner(new FileIndex(view, SearchBudget.forText(view.norm.length, opts.searchBudgetMs)));
  let r: LadderResult;
  try {
    r = planner.run(old, neu, replaceAll, ALL_TIERS);
  } catch (e) {
    if (!(e instanceof SearchStopped)) throw e;
    return searchStopped(planner, e.spentMs);
  }
  if (r.kind === "ambiguous")
    return { ok: false, reason: "ambiguous", tier: r.tier, message: r.message, lines: r.lines };
  if (r.kind === "refused")
    return { ok: false, reason: r.reason, ...(r.tier ? { tier: r.tier } : {}), message: r.message, lines: r.lines };
  if (r.kind === "none") return notFound(planner, old, neu);

  // Already applied: new_string contains old_string and sits right where old_string was found.
  if (r.tier === "exact" && !replaceAll && r.candidates.length === 1) {
    const at = neu.indexOf(old);
    const c = r.candidates[0];
    const found = c.matchStart ?? c.start;
    if (at >= 0 && found - at >= 0 && view.norm.startsWith(neu, found - at)) {
      const line = view.lineAt(found - at) + 1;
      return alreadyApplied(
        line,
        `new_string is already in the file at line ${line}, around old_string: the edit looks already applied`,
      );
    }
  }

  const toReplacement = (c: Candidate, built: string): Replacement => {
    let from = c.start;
    let to = c.end;
    // Whole lines replaced by nothing: the lines go, not only their text (an
    // empty line left where old_string was is never what the caller meant).
    if (built === "" && to > from) {
      const n = view.norm;
      const atLineStart = from === 0 || n[from - 1] === "\n";
      const atLineEnd = to === n.length || n[to] === "\n" || n[to - 1] === "\n";
      if (atLineStart && atLineEnd && n[to - 1] !== "\n") {
        if (to < n.length) to += 1;
        else if (from > 0) from -= 1;
      }
    }
    const start = view.toOriginal(from);
    const end = view.toOriginal(to);
    const region = text.slice(start, end);
    const eol = opts.eol ?? regionEol(region) ?? view.eol;
    const endLine = c.end > c.start ? view.lineAt(c.end - 1) + 1 : c.firstLine + 1;
    return { start, end, text: withEol(built, eol), startLine: c.firstLine + 1, endLine };
  };
  const replacements: Replacement[] = [];
  let indentation: string | undefined;
  for (const c of r.candidates) {
    const built = c.build();
    if (!built.ok) {
      const line = c.firstLine + 1;
      const shown = `line ${built.newLine + 1} of new_string`;
      if (built.problem === "conflict") {
        const applied = appliedBefore(planner, old, neu, { startLine: line, endLine: view.lineAt(c.end) + 1 });
        if (applied) return applied;
        return {
          ok: false,
          reason: "conflict",
          tier: r.tier,
          lines: [line],
          message:
            `old_string is only similar to lines from ${line}, and ${shown} changes a line that old_string does not quote correctly, ` +
            "so the change cannot be placed safely. Re-read the file and copy old_string from it exactly.",
        };
      }
      return {
        ok: false,
        reason: "indent-unclear",
        tier: r.tier,
        lines: [line],
        message:
          `old_string matches lines from ${line} only when indentation is ignored, and its indentation does not map onto the file's ` +
          `consistently, so ${shown} (indented "${showLine(built.indent)}") cannot be placed safely. ` +
          "Copy old_string with the file's exact indentation and indent new_string the same way.",
      };
    }
    replacements.push(toReplacement(c, built.text));
    if (built.why) indentation = built.why;
  }
  const alternatives =
    r.candidates.length === 1 && r.candidates[0].alternatives
      ? r.candidates[0]
          .alternatives()
          .map((a) => ({ replacements: [toReplacement(r.candidates[0], a.text)], why: a.why }))
          .filter((a) => a.replacements[0].text !== replacements[0].text)
      : [];
  if (replacements.every((rep) => rep.text === text.slice(rep.start, rep.end))) {
    const line = replacements[0].startLine;
    return alreadyApplied(
      line,
      `old_string matches line ${line} only approximately (${r.tier}), and what is there already reads as new_string: the edit looks already applied`,
    );
  }
  return {
    ok: true,
    tier: r.tier,
    ...(r.similarity !== undefined ? { similarity: r.similarity } : {}),
    replacements,
    lines: replacements.map((x) => x.startLine),
    ...(r.note ? { note: r.note } : {}),
    ...(indentation && alternatives.length > 0 ? { indentation } : {}),
    ...(alternatives.length > 0 ? { alternatives } : {}),
  };
}

/** Applies non-overlapping replacements (as planEdit returns them) to the text they were planned on. */
export function applyReplacements(text: string, replacements: readonly Replacement[]): string {
  const sorted = [...replacements].sort((a, b) => a.start - b.start);
  let out = "";
  let at = 0;
  for (const r of sorted) {
    if (r.start < at) throw new Error(`overlapping replacements at offset ${r.start}`);
    out += text.slice(at, r.start) + r.text;
    at = r.end;
  }
  return out + text.slice(at);
}

/** planEdit then applyReplacements: the new text, or the failure. */
export function replaceInText(
  text: string,
  oldString: string,
  newString: string,
  opts: PlanOptions = {},
): { ok: true; text: string; outcome: MatchSuccess } | MatchFailure {
  const outcome = planEdit(text, oldString, newString, opts);
  if (!outcome.ok) return outcome;
  return { ok: true, text: applyReplacements(text, outcome.replacements), outcome };
}

function withEol(s: string, eol: "\n" | "\r\n"): string {
  return eol === "\n" ? s : s.replace(/\n/g, "\r\n");
}

function regionEol(region: string): "\n" | "\r\n" | undefined {
  const lf = (region.match(/\n/g) ?? []).length;
  if (lf === 0) return undefined;
  const crlf = (region.match(/\r\n/g) ?? []).length;
  return crlf * 2 > lf ? "\r\n" : "\n";
}

function alreadyApplied(line: number, what: string): MatchFailure {
  return {
    ok: false,
    reason: "already-applied",
    lines: [line],
    message: `${what}. Nothing was changed; re-read the file around line ${line} to check.`,
  };
}

/** new_string found once by the whitespace-tolerant comparisons (exact, then whole lines trimmed): its 1-based line. */
function findNewOnce(planner: Planner, neu: string): number | undefined {
  const v = planner.view;
  if (trimBoth(neu.replace(/\n/g, " ")) === "") return undefined;
  const exact = occurrences(v.norm, neu);
  if (exact.length === 1) return v.lineAt(exact[0]) + 1;
  if (exact.length > 1) return undefined;
  const body = bodyOf(neu);
  const hits = planner.index.windows("trim", trimKey, body.lines.map(trimKey), false);
  return hits.length === 1 ? hits[0] + 1 : undefined;
}

/**
 * new_string already in the file, where old_string was expected (near
 * `region`), or unmistakably (unique and substantial): the edit was probably
 * applied before.
 */
function appliedBefore(
  planner: Planner,
  old: string,
  neu: string,
  region: { startLine: number; endLine: number } | undefined,
): MatchFailure | undefined {
  // new_string made only of old_string's lines (a deletion) is in the file whether or not the edit happened.
  const oldKeys = new Set(bodyOf(old).lines.map(trimKey));
  if (bodyOf(neu).lines.every((l) => isBlank(l) || oldKeys.has(trimKey(l)))) return undefined;
  const newLine = findNewOnce(planner, neu);
  if (newLine === undefined) return undefined;
  const newBody = bodyOf(neu);
  const substantial = newBody.lines.filter((l) => !isBlank(l)).length >= 2 || trimBoth(neu).length >= 20;
  const near =
    region !== undefined &&
    newLine <= region.endLine + newBody.lines.length &&
    newLine + newBody.lines.length >= region.startLine;
  if (!substantial && !near) return undefined;
  return alreadyApplied(
    newLine,
    `old_string is not in the file as written, but new_string is, at line ${newLine}: the edit looks already applied`,
  );
}

function searchStopped(planner: Planner, spentMs: number): MatchFailure {
  const v = planner.view;
  const tried = TIERS.slice(0, TIERS.indexOf(planner.reached));
  return {
    ok: false,
    reason: "search-stopped",
    tier: planner.reached,
    message:
      `old_string is not in the file as written${tried.length > 1 ? ` (nor by the ${tried.slice(1).join(", ")} tiers)` : ""}, and the search for ` +
      `approximate matches stopped early: after ${Math.round(spentMs)} ms in the ${planner.reached} tier, on a file of ${v.realLineCount} lines ` +
      `(${v.norm.length} characters; on files this large the looser tiers get ${planner.index.budget.limitMs} ms). Nothing was changed. ` +
      "Copy old_string exactly from the file (grep or read shows its lines), or edit by line number with edit_lines.",
  };
}

function notFound(planner: Planner, old: string, neu: string): MatchFailure {
  try {
    return notFoundWithin(planner, old, neu);
  } catch (e) {
    if (!(e instanceof SearchStopped)) throw e;
    // The closest region is a courtesy: without the time for it, the plain answer.
    return {
      ok: false,
      reason: "not-found",
      message:
        "old_string was not found in the file, not even ignoring whitespace and indentation, typographic punctuation or doubled escapes " +
        `(the search for the closest region stopped after ${Math.round(e.spentMs)} ms: the file has ${planner.view.realLineCount} lines). ` +
        "Re-read the file and copy old_string from it exactly.",
    };
  }
}

function notFoundWithin(planner: Planner, old: string, neu: string): MatchFailure {
  const v = planner.view;
  const oldBody = bodyOf(old);
  const k = oldBody.lines.length;
  const fileStats = planner.index.similarityStats();
  const oldKeys = oldBody.lines.map(similarityKey);
  const best = closestWindow(fileStats, v.realLineCount, lineStats(oldKeys), () => planner.index.budget.check());

  let closest: ClosestRegion | undefined;
  if (best) {
    closest = { startLine: best.start + 1, endLine: best.start + k, similarity: best.similarity };
    for (let j = 0; j < k; j++) {
      if (fileStats.keys[best.start + j] !== oldKeys[j]) {
        closest.firstDifference = {
          line: best.start + j + 1,
          fileText: v.lines[best.start + j],
          oldText: oldBody.lines[j],
        };
        break;
      }
    }
  }

  const applied = appliedBefore(planner, old, neu, closest);
  if (applied) return applied;

  let message =
    "old_string was not found in the file, not even ignoring whitespace and indentation, typographic punctuation or doubled escapes.";
  if (closest) {
    const range =
      closest.startLine === closest.endLine
        ? `line ${closest.startLine}`
        : `lines ${closest.startLine}-${closest.endLine}`;
    message += `\nThe closest region is ${range} (similarity ${formatSimilarity(closest.similarity)}).`;
    const d = closest.firstDifference;
    if (d) {
      message += ` Its first line that differs is line ${d.line}:\n  file:       ${showLine(d.fileText)}\n  old_string: ${showLine(d.oldText)}`;
    }
    message += `\nRe-read the file around line ${closest.startLine} and copy old_string from it exactly.`;
  } else {
    message += `\nold_string has ${k} lines and the file only ${v.realLineCount}. Re-read the file and copy old_string from it exactly.`;
  }
  return { ok: false, reason: "not-found", message, ...(closest ? { closest } : {}) };
}
