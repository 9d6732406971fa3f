// Token sequences for the token-whitespace tier: old_string and the file are
// compared as tokens, and whitespace between tokens is ignored only where it
// cannot change what the text means.
//
// A token is a word (letters, digits, `_`, `$`: identifiers, keywords,
// numbers), a string literal on one line ("...", '...', `...`, with its
// escapes; inside it every blank counts), or one punctuation character.
// Between two tokens the presence of whitespace must be the same on both
// sides when the tokens would otherwise read differently: two words
// (`const test` is not `consttest`, which the tokens show anyway), a word and
// the string literal after it (a prefix: f"..." is not f "..."), two string
// literals, and two punctuation characters that together form an operator
// (`a - -b` is not `a --b`, `/ /` is not a comment). Anywhere else (a word and
// a bracket, a comma and a word, `>` and `<`) the whitespace, line breaks
// included, is layout. Line comments (`//`, and `#` followed by a blank) are
// marked: a token that follows a comment on its line is part of it, so moving
// the line break that ends a comment changes the tokens.
//
// The replacement (mergeTokens) keeps the file's layout wherever new_string
// repeats old_string's tokens: the whitespace between two tokens new_string
// left unchanged is the file's, and a changed or added stretch is written as
// new_string spells it, joined to the unchanged tokens by the file's
// whitespace where the stretch replaces tokens or starts a line of its own.
import { diffArrays } from "diff";

export type TokenKind = "word" | "string" | "punct";

export interface Token {
  /** Offsets in the text tokenized, end exclusive. */
  start: number;
  end: number;
  text: string;
  kind: TokenKind;
  /** Inside a line comment (after `//` or `# ` on its line). */
  comment: boolean;
}

const WORD = /[\p{L}\p{N}_$]/u;
const isSpace = (c: string): boolean => c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\v" || c === "\f";
const isWordChar = (c: string): boolean => (c < "\x80" ? /[A-Za-z0-9_$]/.test(c) : WORD.test(c));

/** Brackets and separators: whitespace next to them is always layout. */
const TIGHT = new Set(["(", ")", "[", "]", "{", "}", ",", ";"]);
/** Two punctuation characters that read as one operator when written together. */
const OPERATOR_PAIRS = new Set([
  "==",
  "=>",
  "=~",
  "!=",
  "!~",
  "<=",
  ">=",
  "<<",
  ">>",
  "&&",
  "||",
  "++",
  "--",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "&=",
  "|=",
  "^=",
  "->",
  "<-",
  "::",
  ":=",
  "**",
  "//",
  "/*",
  "*/",
  "..",
  "?.",
  "??",
  "?:",
  "<>",
  "|>",
  "<|",
  "!!",
  "@@",
  "%%",
  ".=",
  "~=",
  "=<",
  "#!",
  "<%",
  "%>",
  "<?",
  "?>",
  "<!",
  "-%",
  "%-",
  "#{",
  "${",
]);

/**
 * The tokens of `text`. Stops early (returns undefined) when `check` throws,
 * which is how a search budget interrupts tokenizing a large text.
 */
export function tokenize(text: string, check?: () => void): Token[] {
  const out: Token[] = [];
  let comment = false;
  let lineStart = true;
  for (let i = 0; i < text.length; ) {
    if (check && (out.length & 8191) === 0) check();
    const c = text[i];
    if (isSpace(c)) {
      if (c === "\n") {
        comment = false;
        lineStart = true;
      }
      i++;
      continue;
    }
    const prev = i > 0 ? text[i - 1] : "\n";
    if (!comment) {
      // A line comment starts at `//` (not in `http://`) or at `# ` after a blank or at a line's start.
      const slashes = c === "/" && text[i + 1] === "/" && prev !== ":";
      const hash = c === "#" && (lineStart || isSpace(prev)) && /^[ \t!]|^$|^\n/.test(text.slice(i + 1, i + 2));
      if (slashes || hash) comment = true;
    }
    lineStart = false;
    if (isWordChar(c)) {
      let j = i + 1;
      // A number's decimal point is part of it (1.5).
      const point = (at: number): boolean => text[at] === "." && /[0-9]/.test(c) && /[0-9]/.test(text[at + 1] ?? "");
      while (j < text.length && (isWordChar(text[j]) || point(j))) j++;
      out.push({ start: i, end: j, text: text.slice(i, j), kind: "word", comment });
      i = j;
      continue;
    }
    if (!comment && (c === '"' || c === "`" || (c === "'" && !isWordChar(prev)))) {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== "\n") {
        j += text[j] === "\\" && text[j + 1] !== "\n" ? 2 : 1;
      }
      if (j < text.length && text[j] === c) {
        out.push({ start: i, end: j + 1, text: text.slice(i, j + 1), kind: "string", comment });
        i = j + 1;
        continue;
      }
    }
    out.push({ start: i, end: i + 1, text: c, kind: "punct", comment });
    i++;
  }
  return out;
}

/** Whether the presence of whitespace between tokens a and b (in this order) changes what they read as. */
export function gapMatters(a: Token, b: Token): boolean {
  if (a.kind === "word" && b.kind === "word") return true;
  if (a.kind === "word" && b.kind === "string") return true;
  if (a.kind === "string" && b.kind === "string") return true;
  if (a.kind === "punct" && b.kind === "punct") {
    if (TIGHT.has(a.text) || TIGHT.has(b.text)) return false;
    return OPERATOR_PAIRS.has(a.text + b.text);
  }
  return false;
}

/** A token's identity for comparison: its text and whether it sits in a line comment. */
function same(a: Token, b: Token): boolean {
  return a.text === b.text && a.comment === b.comment;
}

/**
 * The whitespace joining an added stretch to the file's tokens: new_string's
 * own, but where both it and the file's break the line there, new_string's
 * line breaks (blank lines included) followed by the file's indentation.
 */
function onLine(file: string, own: string): string {
  const a = own.lastIndexOf("\n");
  const b = file.lastIndexOf("\n");
  return a === -1 || b === -1 ? own : own.slice(0, a + 1) + file.slice(b + 1);
}

/** The blanks the line holding `offset` starts with. */
function lineIndent(text: string, offset: number): string {
  const from = text.lastIndexOf("\n", offset - 1) + 1;
  let to = from;
  while (to < text.length && (text[to] === " " || text[to] === "\t")) to++;
  return text.slice(from, to);
}

function lineBreaks(s: string): number {
  let n = 0;
  for (let i = s.indexOf("\n"); i !== -1; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

/** Whether tokens[i - 1] and tokens[i] have whitespace between them in `text`. */
function spaced(tokens: Token[], i: number): boolean {
  return tokens[i].start > tokens[i - 1].end;
}

/**
 * Starts (token indexes into `file`) of the runs of tokens equal to `old`,
 * with whitespace between them wherever old_string has it and it matters.
 */
export function findTokenRuns(file: Token[], old: Token[], check?: () => void): number[] {
  const k = old.length;
  const out: number[] = [];
  if (k === 0) return out;
  for (let p = 0; p + k <= file.length; p++) {
    if (check && (p & 16383) === 0) check();
    if (!same(file[p], old[0])) continue;
    let t = 1;
    for (; t < k; t++) {
      if (!same(file[p + t], old[t])) break;
      if (gapMatters(old[t - 1], old[t]) && spaced(file, p + t) !== spaced(old, t)) break;
    }
    if (t === k) out.push(p);
  }
  return out;
}

/**
 * The text that replaces file tokens [p, p + old.length): new_string's tokens,
 * with the file's whitespace between the tokens new_string keeps from
 * old_string, and new_string's own where it changes or adds tokens (joined
 * to the unchanged ones by the file's whitespace where the change replaces
 * tokens, or starts a line of its own where the file has a line break).
 * Null when a line it adds cannot be indented from evidence (old_string starts
 * inside a line and no line it quotes whole comes before the added one).
 */
export function mergeTokens(
  fileText: string,
  file: Token[],
  p: number,
  oldText: string,
  old: Token[],
  neuText: string,
  neu: Token[],
): string | null {
  if (neu.length === 0) return "";
  // kept[n]: the file token new token n repeats (through old_string), or -1 for a changed or added one.
  const kept = new Array<number>(neu.length).fill(-1);
  // replaces[n]: for a changed or added token, whether its stretch replaces old tokens (else it is inserted).
  const replaces = new Array<boolean>(neu.length).fill(false);
  let o = 0;
  let n = 0;
  let pendingRemoved = false;
  const changes = diffArrays(old, neu, { comparator: same });
  for (let ci = 0; ci < changes.length; ci++) {
    const c = changes[ci];
    const count = c.count ?? c.value.length;
    if (c.removed) {
      o += count;
      pendingRemoved = true;
    } else if (c.added) {
      const removedAfter = changes[ci + 1]?.removed === true;
      for (let x = 0; x < count; x++) replaces[n + x] = pendingRemoved || removedAfter;
      n += count;
      pendingRemoved = false;
    } else {
      for (let x = 0; x < count; x++) kept[n + x] = p + o + x;
      o += count;
      n += count;
      pendingRemoved = false;
    }
  }
  const fileGap = (before: number): string => fileText.slice(file[before - 1].end, file[before].start);
  // The kept token nearest before each new token (else the nearest after) that starts its line
  // in both old_string and the file: the reference for moving new_string's own line breaks into
  // the file's indentation (the indentation of a line old_string quotes from its middle is unknown).
  const startsLine = (text: string, at: number): boolean =>
    lineIndent(text, at).length === at - (text.lastIndexOf("\n", at - 1) + 1);
  const leads = (f: number): boolean => startsLine(fileText, file[f].start) && startsLine(oldText, old[f - p].start);
  const ref = new Array<number>(neu.length).fill(-1);
  for (let x = 0, last = -1; x < neu.length; x++) {
    if (kept[x] >= 0 && leads(kept[x])) last = x;
    ref[x] = last;
  }
  const before = [...ref];
  // old_string starts inside a line of the file: its first line's indentation says nothing.
  const midLine = !startsLine(fileText, file[p].start);
  let unclear = false;
  for (let x = neu.length - 1, next = -1; x >= 0; x--) {
    if (kept[x] >= 0 && leads(kept[x])) next = x;
    if (ref[x] === -1) ref[x] = next;
  }
  /**
   * new_string's own whitespace; where it breaks the line, the new line's
   * indentation moved by the difference between the file's and old_string's
   * indentation of the reference token's line (new_string is written in
   * old_string's layout, which may be indented otherwise than the file).
   */
  const shifted = (own: string, x: number): string => {
    const nl = own.lastIndexOf("\n");
    const r = ref[x];
    if (nl === -1) return own;
    // A line added before any line old_string quotes from its start, after a fragment: no evidence.
    if (before[x] === -1 && midLine) unclear = true;
    if (r === -1) return own;
    const ind = own.slice(nl + 1);
    const inFile = lineIndent(fileText, file[kept[r]].start);
    const inOld = lineIndent(oldText, old[kept[r] - p].start);
    let moved = ind;
    if (ind.startsWith(inOld)) moved = inFile + ind.slice(inOld.length);
    else if (inOld.startsWith(ind) && inFile.length >= inOld.length - ind.length) {
      moved = inFile.slice(0, inFile.length - (inOld.length - ind.length));
    }
    return own.slice(0, nl + 1) + moved;
  };
  let out = neu[0].text;
  for (let x = 1; x < neu.length; x++) {
    const own = neuText.slice(neu[x - 1].end, neu[x].start);
    const a = kept[x - 1];
    const b = kept[x];
    let gap: string;
    if (a >= 0 && b >= 0) {
      // Unchanged on both sides: the file's whitespace. Across a deletion, the whitespace after a or
      // the one before b, whichever breaks more lines (a blank line either side stays), else b's.
      gap = fileGap(b);
      if (b !== a + 1) {
        const after = fileGap(a + 1);
        if (lineBreaks(after) > lineBreaks(gap)) gap = after;
      }
    } else if (a >= 0 && b < 0) {
      // A changed stretch starts: where it replaces tokens, the file's whitespace before them; where
      // it is added, new_string's own, in the file's indentation.
      const g = fileGap(a + 1);
      gap = replaces[x] ? g : shifted(own, x);
      // The rest of the unchanged line (its trailing blanks) is the file's.
      if (!replaces[x] && gap.includes("\n") && g.includes("\n")) {
        gap = g.slice(0, g.indexOf("\n")) + gap.slice(gap.indexOf("\n"));
      }
    } else if (a < 0 && b >= 0 && b > p) {
      // A changed stretch ends before an unchanged token: the file's whitespace before that token
      // (after an added stretch: new_string's line breaks, then the file's indentation of that token).
      const g = fileGap(b);
      gap = replaces[x - 1] ? g : onLine(g, own);
    } else gap = shifted(own, x);
    // Never join what new_string keeps apart (or the reverse) where that changes the tokens,
    // nor end a line comment's line where new_string does not.
    const needs = gapMatters(neu[x - 1], neu[x]);
    if (needs && (gap === "") !== (own === "")) gap = own;
    if (neu[x - 1].comment && gap.includes("\n") !== own.includes("\n")) gap = own;
    out += gap + neu[x].text;
  }
  return unclear ? null : out;
}
