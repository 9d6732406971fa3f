// Text normalizations the matcher compares through. Each one is a pure
// function; the ones that change lengths also return a map back to the
// original offsets, because a match found in a normalized view must become a
// replacement of the exact original characters (the matcher never rewrites
// text the caller did not ask to change).
import { lastAtMost } from "./largeText.js";

/**
 * A file's text seen as "\n"-separated lines: a leading BOM is set aside and
 * every "\r\n" counts as one "\n". Offsets in `norm` convert back to offsets
 * in `original` with `toOriginal`, so callers may pass CRLF or mixed text as
 * it was decoded and still get replacements that touch nothing else.
 */
export interface TextView {
  original: string;
  /** The text without BOM, with "\r\n" → "\n". */
  norm: string;
  /** `norm.split("\n")`: when the text ends with "\n" the last entry is an empty phantom line. */
  lines: string[];
  /** Offset in `norm` where each line starts. */
  lineStarts: number[];
  /** Lines a whole-line match may cover: `lines` without the phantom after a final "\n". */
  realLineCount: number;
  /** The line ending most lines use (ties and no endings: "\n"). */
  eol: "\n" | "\r\n";
  toOriginal(normOffset: number): number;
  /** 0-based line index holding `normOffset`. */
  lineAt(normOffset: number): number;
}

export function viewOf(text: string): TextView {
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const body = bom ? text.slice(1) : text;
  // Normalized index of every "\n" whose "\r" was dropped, ascending.
  const droppedCr: number[] = [];
  let norm = body;
  if (body.includes("\r\n")) {
    const parts = body.split("\r\n");
    let pos = 0;
    for (let i = 0; i < parts.length - 1; i++) {
      pos += parts[i].length;
      droppedCr.push(pos);
      pos += 1;
    }
    norm = parts.join("\n");
  }
  const lines = norm.split("\n");
  const lineStarts = new Array<number>(lines.length);
  let at = 0;
  for (let i = 0; i < lines.length; i++) {
    lineStarts[i] = at;
    at += lines[i].length + 1;
  }
  const lf = lines.length - 1 - droppedCr.length;
  const endsWithNewline = lines.length > 1 && lines[lines.length - 1] === "";
  const realLineCount = endsWithNewline ? lines.length - 1 : lines.length;

  const toOriginal = (p: number): number => {
    // Count dropped CRs strictly before p: the CR of the "\n" at p itself sits
    // before that "\n" in the original, so an offset at p lands just before it.
    let lo = 0;
    let hi = droppedCr.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (droppedCr[mid] < p) lo = mid + 1;
      else hi = mid;
    }
    return bom + p + lo;
  };
  const lineAt = (p: number): number => lastAtMost(lineStarts, p);
  return {
    original: text,
    norm,
    lines,
    lineStarts,
    realLineCount,
    eol: droppedCr.length > lf ? "\r\n" : "\n",
    toOriginal,
    lineAt,
  };
}

/** "\r\n" → "\n" (what the model sends may carry either). */
export function normalizeEol(s: string): string {
  return s.includes("\r\n") ? s.replace(/\r\n/g, "\n") : s;
}

// ---------------------------------------------------------------- whitespace

const LEADING_WS = /^[ \t]*/;

/** The run of spaces and tabs a line starts with. */
export function indentOf(line: string): string {
  return LEADING_WS.exec(line)![0];
}

function isBlankChar(c: number): boolean {
  return c === 32 || c === 9 || c === 11 || c === 12;
}

/** Drops trailing spaces, tabs, vertical tabs and form feeds (not Unicode spaces: folding handles those). */
export function trimEnd(s: string): string {
  let e = s.length;
  while (e > 0 && isBlankChar(s.charCodeAt(e - 1))) e--;
  return e === s.length ? s : s.slice(0, e);
}

export function trimBoth(s: string): string {
  let b = 0;
  while (b < s.length && isBlankChar(s.charCodeAt(b))) b++;
  return trimEnd(b ? s.slice(b) : s);
}

export function isBlank(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (!isBlankChar(s.charCodeAt(i))) return false;
  return true;
}

/** A line as indentation, content and trailing whitespace. */
export interface LineParts {
  indent: string;
  content: string;
  trailing: string;
}

export function splitLine(line: string): LineParts {
  const indent = indentOf(line);
  const rest = line.slice(indent.length);
  const content = trimEnd(rest);
  return { indent, content, trailing: rest.slice(content.length) };
}

// ---------------------------------------------------------- Unicode folding

/**
 * Typographic characters models put where code has ASCII (or the reverse):
 * curly quotes, primes, dashes and the minus sign, the ellipsis, the
 * non-breaking and other fixed-width spaces, and zero-width characters.
 * Everything else that is not ASCII is folded by Unicode's compatibility
 * normalization (NFKC), one base character and its combining marks at a
 * time: fullwidth punctuation and letters (，（Ａ１), ligatures, and
 * decomposed accents (e + U+0301) against precomposed ones (é).
 */
const FOLD: Record<string, string> = {};
for (const c of "\u2018\u2019\u201A\u201B\u2032\u2035\uFF07") FOLD[c] = "'";
for (const c of "\u201C\u201D\u201E\u201F\u2033\u2036\uFF02") FOLD[c] = '"';
for (const c of "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\uFE58\uFE63\uFF0D") FOLD[c] = "-";
FOLD["\u2026"] = "...";
for (const c of "\u00A0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000")
  FOLD[c] = " ";
for (const c of "\u200B\u200C\u200D\u2060\uFEFF") FOLD[c] = "";

const NON_ASCII = /[^\x00-\x7f]/;
const COMBINING_MARK = /\p{M}/u;

/** Whether `s` has anything folding could change (a quick test: any non-ASCII character). */
export function hasFoldable(s: string): boolean {
  return NON_ASCII.test(s);
}

/**
 * Folded text plus, for each folded offset, the original offset it came
 * from (`map[folded.length]` = original length). Characters that expand
 * (… → ...) map their offsets to the same original one; a cluster that
 * contracts (e + U+0301 → é) maps to the cluster's first offset.
 */
export interface FoldedText {
  text: string;
  map: Int32Array;
}

/** The end (exclusive) of the cluster starting at `i`: one character (a surrogate pair counts as one) and its combining marks. */
function clusterEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  let j = i + (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length ? 2 : 1);
  while (j < s.length && s.charCodeAt(j) >= 0x300 && COMBINING_MARK.test(s[j])) j++;
  return j;
}

function fold(s: string, withMap: boolean, check?: () => void): FoldedText {
  const out: string[] = [];
  const idx: number[] = [];
  const emit = (text: string, from: number, oneToOne: boolean): void => {
    for (let k = 0; k < text.length; k++) {
      out.push(text[k]);
      if (withMap) idx.push(oneToOne ? from + k : from);
    }
  };
  for (let i = 0, next = 65536; i < s.length; ) {
    if (check && i >= next) {
      check();
      next = i + 65536;
    }
    const code = s.charCodeAt(i);
    const after = s.charCodeAt(i + 1);
    // ASCII not followed by a combining mark: itself.
    if (code < 0x80 && !(after >= 0x300 && COMBINING_MARK.test(s[i + 1] ?? ""))) {
      emit(s[i], i, true);
      i++;
      continue;
    }
    const f = FOLD[s[i]];
    if (f !== undefined) {
      emit(f, i, f.length === 1);
      i++;
      continue;
    }
    const end = clusterEnd(s, i);
    const cluster = s.slice(i, end);
    const k = cluster.normalize("NFKC");
    if (k === cluster) emit(cluster, i, true);
    else emit(k, i, false);
    i = end;
  }
  if (withMap) idx.push(s.length);
  return { text: out.join(""), map: withMap ? Int32Array.from(idx) : new Int32Array(0) };
}

/** Folds typographic punctuation and compatibility forms (no offset map: for comparing lines). */
export function foldText(s: string): string {
  return hasFoldable(s) ? fold(s, false).text : s;
}

/** `check` is called every 64K characters (a search budget throws from it). */
export function foldWithMap(s: string, check?: () => void): FoldedText {
  if (!hasFoldable(s)) {
    const map = new Int32Array(s.length + 1);
    for (let i = 0; i <= s.length; i++) map[i] = i;
    return { text: s, map };
  }
  return fold(s, true, check);
}

// ------------------------------------------------------------- unescaping

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", '"': '"', "'": "'", "\\": "\\", "`": "`", $: "$" };

/**
 * Undoes one level of escaping, the way a model that escaped a string twice
 * wrote it: `\n` → newline, `\t` → tab, `\"` → `"`, `\\` → `\` ... Unknown
 * escapes (`\d`) stay as they are. Returns the input itself when it has no
 * backslash.
 */
export function unescapeOnce(s: string): string {
  if (!s.includes("\\")) return s;
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "\\" && i + 1 < s.length) {
      const e = ESCAPES[s[i + 1]];
      if (e !== undefined) {
        out += e;
        i++;
        continue;
      }
    }
    out += c;
  }
  return normalizeEol(out);
}

/**
 * The escape sequences unescapeOnce would undo in `s` (`\"`, `\n`, `\\` ...),
 * each once, in the order first seen.
 */
export function undoneEscapes(s: string): string[] {
  const out: string[] = [];
  for (let i = s.indexOf("\\"); i !== -1 && i + 1 < s.length; i = s.indexOf("\\", i)) {
    const seq = s.slice(i, i + 2);
    if (ESCAPES[s[i + 1]] !== undefined) {
      if (!out.includes(seq)) out.push(seq);
      i += 2;
    } else i += 1;
  }
  return out;
}

/**
 * Whether `s` holds, outside any escape sequence, a quote character that one
 * of `escapes` escapes (a bare `"` where old_string wrote `\"`): then `s` was
 * not escaped the way old_string was, and unescaping it would be a guess.
 */
export function writtenUnescaped(s: string, escapes: readonly string[]): boolean {
  const quotes: string[] = escapes.map((e) => e[1]).filter((c) => c === '"' || c === "'" || c === "`");
  if (quotes.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "\\") i++;
    else if (quotes.includes(s[i])) return true;
  }
  return false;
}

// ------------------------------------------------------ similarity keys

/** The key a line is compared by in the similarity tier: folded, trimmed, inner runs of blanks collapsed. */
export function similarityKey(line: string): string {
  const t = trimBoth(foldText(line));
  return /[ \t]{2}|\t/.test(t) ? t.replace(/[ \t]+/g, " ") : t;
}

/**
 * A line with every run of blanks (spaces, tabs) made one space, plus, for
 * each offset of the result, the offset in `s` it came from (a run maps to
 * its first blank). For finding a fragment whose spacing differs.
 */
export function collapseBlanks(s: string): { text: string; map: number[] } {
  let text = "";
  const map: number[] = [];
  for (let i = 0; i < s.length; i++) {
    if (isBlankChar(s.charCodeAt(i))) {
      if (i > 0 && isBlankChar(s.charCodeAt(i - 1))) continue;
      text += " ";
    } else text += s[i];
    map.push(i);
  }
  return { text, map };
}

/** Characters around which blanks carry no meaning in code: `f( a, b )` is `f(a, b)`. */
const TIGHT = new Set(["(", ")", "[", "]", "{", "}", ",", ";"]);

/**
 * A line's spacing key: runs of blanks made one space and trimmed, and with
 * `loose` also the blanks next to brackets, commas and semicolons dropped;
 * plus, for each offset of the key, the offset in `s` it came from. Blanks
 * between two words are kept (`typeof a` is not `typeofa`).
 */
export function spacingKey(s: string, loose: boolean): { text: string; map: number[] } {
  const c = collapseBlanks(s);
  let text = "";
  const map: number[] = [];
  for (let i = 0; i < c.text.length; i++) {
    const ch = c.text[i];
    if (ch === " ") {
      if (text.length === 0 || i === c.text.length - 1) continue;
      if (loose && (TIGHT.has(c.text[i - 1]) || TIGHT.has(c.text[i + 1]))) continue;
    }
    text += ch;
    map.push(c.map[i]);
  }
  return { text, map };
}
