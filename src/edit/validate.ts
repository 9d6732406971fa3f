// Syntax validation of an edit: does the new text have syntax errors the old
// text did not? Pure over text (the pipeline calls it before writing); the
// language comes from the path (extension, file name) or the shebang.
//
// How "introduced" is decided. Comparing error counts alone is wrong: an edit
// that fixes one error and adds another elsewhere keeps the count. Comparing
// error positions alone is wrong too: inside the edited lines nothing maps
// one-to-one, and a broken line the caller rewrote (still broken) would count
// as a new error. So the lines are split by a line diff into unchanged lines
// and changed regions (hunks), and each side uses the rule that fits it:
//   - a problem on an unchanged line is old only if the old text had a problem
//     on that same line (its position mapped through the edit), of the same
//     kind at the same column, or failing that any problem on that line (error
//     recovery can move a node's start by a token when text elsewhere changes);
//     an error the edit causes on an untouched line (tree-sitter often reports
//     an unclosed bracket where its statement began) is therefore caught;
//   - within each hunk, problems are counted: the edit adds as many problems as
//     the hunk has more after than before, so a caller may rewrite a broken
//     region as long as it does not make it worse.
//
// Two more checks follow when tree-sitter finds nothing new:
//   - the language's own compiler, where it is cheap and present (CPython's
//     compile() through a long-lived python3, V8 for CommonJS files): an error
//     it reports in the new text counts when the old text compiled;
//   - the structure invariant (structure.ts): no untouched line changes block.
// Trees are cached per text and the new text is parsed incrementally from the
// old one's tree, so a warm edit of a large file costs one small re-parse.
import { parse, type LanguageId, type Tree } from "../parsers/treeSitter.ts";
import { detectLanguage } from "../parsers/detectLanguage.ts";
import { syntaxProblems, type RawSyntaxProblem, type RowRange } from "../parsers/syntaxProblems.ts";
import { pythonIndentProblems } from "./pythonIndent.ts";
import { lineHunks, placeAfterLine, placeBeforeLine, type LineHunk } from "./lineHunks.ts";
import { movedLineProblems, offsetOf, structureProblems } from "./structure.ts";
import { pythonVerdict, scriptVerdict, type NativeVerdict } from "./nativeCheck.ts";
import {
  PARSE_CACHE_ENTRIES,
  PARSE_CACHE_MAX_CHARS,
  SYNTAX_CHECK_MAX_BYTES,
  SYNTAX_CONTEXT_LINES,
  SYNTAX_PARSE_TIMEOUT_MS,
  SYNTAX_PROBLEMS_SHOWN,
} from "../base/limits.ts";

/** A syntax error in the new text. Line and column are 1-based; the column counts characters. */
export interface SyntaxProblem {
  line: number;
  column: number;
  /** "error": text the grammar rejects; "missing": a token the parser had to assume (a closing bracket, a semicolon). */
  kind: "error" | "missing";
  /** For "error", the rejected source text (first line, cut short); for "missing", the expected token. */
  text: string;
  /** Set when the problem is better said in words than by its text (Python's own errors, a changed block). */
  message?: string;
  /** A line that would change blocks: its trimmed text and the block (type@row in the new text). */
  moved?: { text: string; block: string };
}

type Problem = RawSyntaxProblem & { message?: string; moved?: { text: string; block: string } };

export interface ValidationResult {
  /** The grammar used, or null when the file's language has none. */
  language: LanguageId | null;
  /** False when nothing was checked: unknown language, grammar not loadable, parse timed out. */
  checked: boolean;
  /** Problems in the new text that the old text did not have, in document order. Empty = accept. */
  introduced: SyntaxProblem[];
  /**
   * Lines the edit only re-indented that would leave a block they were in
   * (see movedLineProblems): never a reason to refuse, but a reason to prefer
   * another reading of ambiguous indentation. Computed when nothing was introduced.
   */
  moved: SyntaxProblem[];
  /** Number of syntax problems in the old and in the new text. */
  before: number;
  after: number;
  /** The lines the edit changed, in the new text: first line (1-based) and how many (0: lines were only removed before `line`). */
  edited: Array<{ line: number; count: number }>;
  /** When not checked: why, in words for the caller. */
  reason?: string;
}

function notChecked(language: LanguageId | null, reason: string): ValidationResult {
  return { language, checked: false, introduced: [], moved: [], before: 0, after: 0, edited: [], reason };
}

// A leading byte-order mark is not part of any grammar; columns on line 1 are
// reported as a reader sees them (the BOM is invisible).
function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

// ------------------------------------------------------------------ parse cache
//
// A file is validated again and again at the version the last edit wrote, so
// the tree of each validated text is kept (a few, least recently used out): the
// next edit's "before" is found there without parsing, and its "after" is
// parsed incrementally from it (tree-sitter re-parses only what changed).

interface Parsed {
  lang: LanguageId;
  text: string;
  tree: Tree;
  /** Problems of the text on its own (no focus rows), computed once. */
  problems?: Problem[];
  /** Python: indentation and string problems from the scanner. */
  scanned?: Problem[];
  /** The language's own compiler's verdict, once asked. */
  native?: Promise<NativeVerdict>;
  /** In use by a validation: not evicted. */
  pins: number;
  /** Too large to keep: freed after use. */
  transient: boolean;
}

const cache: Parsed[] = [];
/** Parses under way, by language and text: a validation that needs a text being parsed (warmed) waits for it. */
const inFlight = new Map<string, Promise<Parsed | null>>();
/** How many texts this process parsed from scratch and incrementally from an earlier tree (the tests read it). */
export const parseCounts = { scratch: 0, incremental: 0 };

/** Whether the tree of `text` (in `lang`) is in the cache. */
export function hasParse(text: string, lang: LanguageId): boolean {
  return cache.some((e) => e.lang === lang && e.text === text);
}

function release(e: Parsed): void {
  e.pins--;
  if (e.transient && e.pins === 0) e.tree.delete();
  evict();
}

function evict(): void {
  for (let i = cache.length - 1; i >= 0 && cache.length > PARSE_CACHE_ENTRIES; i--) {
    if (cache[i].pins > 0) continue;
    cache[i].tree.delete();
    cache.splice(i, 1);
  }
}

/** Row and column (UTF-16) of offset `at` in `text`. */
function pointAt(text: string, at: number): { row: number; column: number } {
  let row = 0;
  let lineStart = 0;
  for (let nl = text.indexOf("\n"); nl !== -1 && nl < at; nl = text.indexOf("\n", nl + 1)) {
    row++;
    lineStart = nl + 1;
  }
  return { row, column: at - lineStart };
}

/** The parse of `text` (pinned: release it), from the cache, incrementally from `base`, or from scratch; null on timeout. */
async function parsed(text: string, lang: LanguageId, base?: Parsed): Promise<Parsed | null> {
  const hit = cache.findIndex((e) => e.lang === lang && e.text === text);
  if (hit !== -1) {
    const e = cache[hit];
    cache.splice(hit, 1);
    cache.unshift(e);
    e.pins++;
    return e;
  }
  const key = `${lang}\0${text}`;
  const running = inFlight.get(key);
  if (running) {
    // Its parse is under way (a warm-up): once done it is in the cache, or failed and this one parses.
    await running.catch(() => undefined);
    return parsed(text, lang, base);
  }
  // Too large to keep: no one else can use it, so it is not shared either.
  if (text.length > PARSE_CACHE_MAX_CHARS) return parseNew(text, lang, base);
  const job = parseNew(text, lang, base);
  inFlight.set(key, job);
  try {
    return await job;
  } finally {
    inFlight.delete(key);
  }
}

/** Parses `text` (incrementally from `base` when given) and caches its tree (pinned: release it); null on timeout. */
async function parseNew(text: string, lang: LanguageId, base?: Parsed): Promise<Parsed | null> {
  let oldTree: Tree | undefined;
  if (base && base.lang === lang) {
    const a = base.text;
    let p = 0;
    const max = Math.min(a.length, text.length);
    while (p < max && a.charCodeAt(p) === text.charCodeAt(p)) p++;
    let s = 0;
    while (s < max - p && a.charCodeAt(a.length - 1 - s) === text.charCodeAt(text.length - 1 - s)) s++;
    oldTree = base.tree.copy();
    oldTree.edit({
      startIndex: p,
      oldEndIndex: a.length - s,
      newEndIndex: text.length - s,
      startPosition: pointAt(a, p),
      oldEndPosition: pointAt(a, a.length - s),
      newEndPosition: pointAt(text, text.length - s),
    });
  }
  let tree: Tree | null;
  try {
    tree = await parse(text, lang, { timeoutMs: SYNTAX_PARSE_TIMEOUT_MS, oldTree });
  } finally {
    oldTree?.delete();
  }
  if (!tree) return null;
  if (oldTree) parseCounts.incremental++;
  else parseCounts.scratch++;
  const e: Parsed = { lang, text, tree, pins: 1, transient: text.length > PARSE_CACHE_MAX_CHARS };
  if (!e.transient) {
    cache.unshift(e);
    evict();
  }
  return e;
}

/**
 * Parses `text` into the cache (when its language is one rt parses and it is within the check's
 * size), so that a later edit of it finds its tree there and parses only the edited text,
 * incrementally: the agent calls this for a file the model read, while the model thinks.
 */
export async function warmParse(path: string, text: string): Promise<void> {
  const language = detectLanguage(path, text);
  // A text too large to keep in the cache would be parsed again by the edit: nothing to gain.
  if (!language || text.length > PARSE_CACHE_MAX_CHARS || text.length > SYNTAX_CHECK_MAX_BYTES) return;
  const e = await parsed(stripBom(text), language);
  if (e) {
    problemsOf(e);
    release(e);
  }
}

/** The scanner's Python problems of a parsed text (indentation, unterminated strings), computed once. */
function scannedProblems(e: Parsed): Problem[] {
  if (e.lang !== "python") return [];
  return (e.scanned ??= pythonIndentProblems(e.text).map((p): Problem => ({ kind: "error", ...p, text: p.message })));
}

function problemsOf(e: Parsed, focusRows: RowRange[] = []): Problem[] {
  const own = (rows: RowRange[]): Problem[] =>
    [...syntaxProblems(e.tree, e.text, rows), ...scannedProblems(e)].sort((x, y) => x.index - y.index);
  if (focusRows.length > 0) return own(focusRows);
  return (e.problems ??= own([]));
}

/** The language's own compiler's verdict on a parsed text (Python, JavaScript scripts), asked once. */
function nativeVerdict(e: Parsed, path: string, root: string | undefined): Promise<NativeVerdict> {
  if (e.lang === "python") return (e.native ??= pythonVerdict(e.text, root));
  // TypeScript and JSX are not JavaScript to V8; .mjs is module code.
  if (e.lang === "javascript" && /\.(c?js)$/i.test(path)) return (e.native ??= scriptVerdict(e.text));
  return Promise.resolve(undefined);
}

/**
 * Checks that replacing `before` with `after` in the file at `path` adds no
 * syntax error and moves no untouched line into another block. Never throws
 * for an unknown language or a grammar that fails to load: the result says it
 * did not check, and why.
 */
export async function validateEdit(
  path: string,
  before: string,
  after: string,
  opts: { root?: string } = {},
): Promise<ValidationResult> {
  const language = detectLanguage(path, after) ?? detectLanguage(path, before);
  if (!language) return notChecked(null, `no syntax check for ${path}: its language is not one rt parses`);
  // Characters, not bytes: a cheap bound that never parses a file over the limit.
  if (Math.max(before.length, after.length) > SYNTAX_CHECK_MAX_BYTES) {
    return notChecked(
      language,
      `${path} is too large for a syntax check (rt checks files up to ${SYNTAX_CHECK_MAX_BYTES / (1024 * 1024)} MB)`,
    );
  }
  const oldText = stripBom(before);
  const newText = stripBom(after);
  const oldLines = oldText.split("\n");
  const newLines = newText.split("\n");
  const hunks = lineHunks(oldLines, newLines);
  // An error node that reaches into the edited lines is reported there.
  const edited = hunks.map((h) => ({ start: h.afterStart, end: h.afterEnd }));
  let oldParse: Parsed | null = null;
  let newParse: Parsed | null = null;
  try {
    try {
      oldParse = await parsed(oldText, language);
      newParse = oldParse && (await parsed(newText, language, oldParse));
    } catch (err) {
      return notChecked(language, `the ${language} grammar could not be loaded: ${(err as Error).message}`);
    }
    if (!oldParse || !newParse) {
      return notChecked(language, `parsing took longer than ${SYNTAX_PARSE_TIMEOUT_MS} ms`);
    }
    const oldProblems = problemsOf(oldParse);
    const newProblems = oldText === newText ? oldProblems : problemsOf(newParse, edited);
    const introduced = introducedProblems(hunks, oldProblems, newProblems);
    if (introduced.length === 0 && oldText !== newText) {
      // The language's own compiler, where tree-sitter's grammar is more permissive than it.
      const afterVerdict = await nativeVerdict(newParse, path, opts.root);
      if (afterVerdict) {
        const beforeVerdict = await nativeVerdict(oldParse, path, opts.root);
        if (beforeVerdict === null) introduced.push(nativeProblem(afterVerdict, newLines, language));
      }
    }
    if (introduced.length === 0 && oldText !== newText) {
      introduced.push(
        ...structureProblems(oldParse.tree, newParse.tree, hunks, oldLines, newLines).map(
          (p): Problem => ({ kind: "error", ...p, text: p.message }),
        ),
      );
    }
    const moved: Problem[] =
      introduced.length === 0 && oldText !== newText
        ? movedLineProblems(oldParse.tree, newParse.tree, hunks, oldLines, newLines).map(
            (p): Problem => ({ kind: "error", ...p, text: p.message }),
          )
        : [];
    return {
      language,
      checked: true,
      introduced: introduced.map((p) => toSyntaxProblem(p, newLines)),
      moved: moved.map((p) => toSyntaxProblem(p, newLines)),
      before: oldProblems.length,
      after: newProblems.length,
      edited: hunks.map((h) => ({ line: h.afterStart + 1, count: h.afterEnd - h.afterStart })),
    };
  } finally {
    if (oldParse) release(oldParse);
    if (newParse) release(newParse);
  }
}

function nativeProblem(v: NonNullable<NativeVerdict>, lines: string[], language: LanguageId): Problem {
  const row = Math.min(Math.max(0, v.row), lines.length - 1);
  const column = Math.min(v.column, (lines[row] ?? "").length);
  const index = offsetOf(lines, row, column);
  const who = language === "python" ? "Python" : "V8";
  return {
    kind: "error",
    row,
    column,
    index,
    text: v.message,
    message: `${v.message} (${who} reports this; its parser is stricter than rt's)`,
  };
}

/** The problems of the new text that the old text did not have (see the header comment). */
function introducedProblems(hunks: LineHunk[], oldProblems: Problem[], newProblems: Problem[]): Problem[] {
  if (newProblems.length === 0) return [];

  // Old problems, by where they are now: an unchanged line of the new text, or a hunk.
  const oldOnLine = new Map<number, Problem[]>();
  const oldInHunk = new Map<number, Problem[]>();
  for (const p of oldProblems) {
    const place = placeBeforeLine(hunks, p.row);
    const [map, key] = "hunk" in place ? [oldInHunk, place.hunk] : [oldOnLine, place.line];
    map.set(key, [...(map.get(key) ?? []), p]);
  }

  const introduced: Problem[] = [];
  const newInHunk = new Map<number, Problem[]>();
  const unmatched: Problem[] = [];
  for (const p of newProblems) {
    const place = placeAfterLine(hunks, p.row);
    if ("hunk" in place) newInHunk.set(place.hunk, [...(newInHunk.get(place.hunk) ?? []), p]);
    else if (!take(oldOnLine.get(place.line), (o) => o.kind === p.kind && o.column === p.column)) unmatched.push(p);
  }
  // Second pass, after every exact match is made: same line, any kind or column.
  for (const p of unmatched) {
    if (!take(oldOnLine.get(p.row), () => true)) introduced.push(p);
  }

  for (const [hunk, problems] of newInHunk) {
    const old = oldInHunk.get(hunk) ?? [];
    const added = problems.length - old.length;
    if (added <= 0) continue;
    // Which ones are new is a guess inside a rewritten region: prefer those
    // whose kind and text match no old problem of the region.
    const fresh = problems.filter((p) => !take(old, (o) => o.kind === p.kind && o.text === p.text));
    introduced.push(...fresh.slice(0, added));
  }
  return introduced.sort((x, y) => (x.focus ?? x).index - (y.focus ?? y).index);
}

/** Removes and returns the first element of `list` that satisfies `test`. */
function take<T>(list: T[] | undefined, test: (item: T) => boolean): T | undefined {
  if (!list) return undefined;
  const i = list.findIndex(test);
  return i === -1 ? undefined : list.splice(i, 1)[0];
}

function toSyntaxProblem(p: Problem, lines: string[]): SyntaxProblem {
  const at = p.focus ?? p;
  const line = lines[at.row] ?? "";
  // Characters, not UTF-16 code units: an emoji before the error counts once.
  const column = [...line.slice(0, at.column)].length + 1;
  return {
    line: at.row + 1,
    column,
    kind: p.kind,
    text: p.text,
    ...(p.message ? { message: p.message } : {}),
    ...(p.moved ? { moved: p.moved } : {}),
  };
}

function describe(p: SyntaxProblem): string {
  if (p.message) return p.message;
  if (p.kind === "missing") return `missing ${JSON.stringify(p.text)}`;
  return p.text === "" ? "syntax error" : `unexpected ${JSON.stringify(p.text)}`;
}

/** Longest slice of a line shown in the error text (minified files have huge lines). */
const SHOWN_LINE_CHARS = 200;

/** One numbered line; on the problem's line, a marker and a caret under `column`. */
function numberedLine(out: string[], text: string, ln: number, width: number, column?: number): void {
  let chars = [...text];
  let caret = column === undefined ? -1 : column - 1;
  let prefix = "";
  if (chars.length > SHOWN_LINE_CHARS) {
    // Keep the caret in view: start the slice a little before it.
    const from = Math.max(0, Math.min(caret - SHOWN_LINE_CHARS / 2, chars.length - SHOWN_LINE_CHARS));
    if (from > 0) prefix = "…";
    const cut = from + SHOWN_LINE_CHARS < chars.length;
    chars = chars.slice(from, from + SHOWN_LINE_CHARS);
    if (cut) chars.push("…");
    caret -= from;
  }
  out.push(`${column === undefined ? " " : ">"} ${String(ln).padStart(width)} | ${prefix}${chars.join("")}`);
  if (column !== undefined) {
    // Keep tabs so the caret lines up under a tab-indented line.
    const lead = chars
      .slice(0, Math.max(0, caret))
      .map((c) => (c === "\t" ? "\t" : " "))
      .join("");
    out.push(`  ${" ".repeat(width)} | ${prefix ? " " : ""}${lead}^`);
  }
}

/**
 * The body of the error for a rejected edit: the first few introduced problems
 * as `line:column: what`, each with the numbered lines of the new text around
 * it and a caret under the column; then the edited lines when no problem shown
 * is among them (an edit can break a line it did not touch); then, for a file
 * that was already broken, a note that old errors do not count. Empty when
 * nothing was introduced.
 */
export function formatProblems(r: ValidationResult, after: string): string {
  if (r.introduced.length === 0) return "";
  const lines = stripBom(after)
    .split("\n")
    .map((l) => l.replace(/\r$/, ""));
  // A final newline ends the last line; it does not start another one.
  if (lines.length > 1 && lines.at(-1) === "" && r.introduced.every((p) => p.line < lines.length)) lines.pop();
  const n = r.introduced.length;
  // The caller says what was rejected and what to do; this is the evidence.
  const out: string[] = [];
  const shown = r.introduced.slice(0, SYNTAX_PROBLEMS_SHOWN);
  // Lines an edited region spans; a deletion is shown by the lines on either side of it.
  const span = (e: { line: number; count: number }): [number, number] =>
    e.count === 0 ? [Math.max(1, e.line - 1), e.line] : [e.line, e.line + e.count - 1];
  const first = shown[0];
  const region = [...r.edited].sort((x, y) => Math.abs(x.line - first.line) - Math.abs(y.line - first.line))[0];
  const lastShown = Math.max(...shown.map((p) => p.line + SYNTAX_CONTEXT_LINES), region ? span(region)[1] : 0);
  const width = String(Math.min(lines.length, lastShown)).length;
  const windows: Array<[number, number]> = [];
  for (const [i, p] of shown.entries()) {
    // Problems on one line share one window of context, under the first one.
    if (i > 0 && shown[i - 1].line === p.line) continue;
    if (out.length > 0) out.push("");
    out.push(`${p.line}:${p.column}: ${describe(p)}`);
    for (let k = i + 1; shown[k]?.line === p.line; k++) out.push(`${p.line}:${shown[k].column}: ${describe(shown[k])}`);
    const from = Math.max(1, p.line - SYNTAX_CONTEXT_LINES);
    const to = Math.min(lines.length, p.line + SYNTAX_CONTEXT_LINES);
    windows.push([from, to]);
    for (let ln = from; ln <= to; ln++)
      numberedLine(out, lines[ln - 1], ln, width, ln === p.line ? p.column : undefined);
  }
  if (n > shown.length) out.push("", `… and ${n - shown.length} more.`);
  const seen = (e: { line: number; count: number }) => {
    const [from, to] = span(e);
    return windows.some(([a, b]) => a <= to && from <= b);
  };
  if (region && !r.edited.some(seen)) {
    // The problems are away from every edited line: show the edit nearest to the first one.
    const [from, to] = span(region);
    const max = 2 * SYNTAX_CONTEXT_LINES + 1;
    out.push(
      "",
      region.count === 0
        ? `The edit removed lines before line ${region.line}:`
        : `The edited lines (${from === to ? from : `${from}-${to}`}):`,
    );
    for (let ln = from; ln <= Math.min(to, from + max - 1, lines.length); ln++)
      numberedLine(out, lines[ln - 1], ln, width);
    if (to - from + 1 > max) out.push(`  ${" ".repeat(width)} | …`);
  }
  if (r.before > 0) {
    out.push(
      "",
      `(The file already had ${r.before} syntax error${r.before === 1 ? "" : "s"} before this edit; only the new ones block it.)`,
    );
  }
  return out.join("\n");
}
