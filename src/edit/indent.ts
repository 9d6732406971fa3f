// Re-indentation of new content to its context.
//
// The content keeps its internal relative indentation. Its base indentation
// (that of its least-indented line) is kept when it already fits the context —
// it equals the indentation of the replaced lines, of the line before (one
// level deeper after a line ending in ":" or "{"), or of the line after (for a
// replacement, column 0 fits only where the replaced lines were at column 0) —
// so a caller who indented correctly, or who deliberately dedents to an
// enclosing level, gets exactly what they wrote. Otherwise (typically content pasted at
// column 0 into a function body) it is shifted to the primary target: the
// replaced lines' indentation, or for an insertion the line before's.
// `indent_level` overrides all of this. Tabs stay tabs in a tab-indented file.
//
// Before that, the content lines that repeat replaced lines (same text once
// trimmed) are compared with them. Unmoved, they show the content is already
// placed. Moved by one uniform relation while the content's base indentation
// differs from the replaced lines' base, they show the caller's copy of the
// block was shifted as a whole (or written with spaces where the file has
// tabs): that relation is undone on every content line, as the `edit` tool does
// for old_string. A block deliberately wrapped (a new `if` at the old level,
// the old lines one level deeper) keeps its base, so it is left alone.
import { reindent, relateIndentation } from "./indentShift.js";
import { levenshtein } from "./similarity.js";

export interface IndentStyle {
  tabs: boolean;
  /** Columns per level (a tab counts as this many columns). */
  unit: number;
}

const lead = (s: string) => /^[ \t]*/.exec(s)![0];
const blank = (s: string) => s.trim() === "";
/** A block comment's continuation line (` * text`): aligned under `/**`, not indented by levels. */
const commentContinuation = (s: string) => /^[ \t]*\*/.test(s);

function widthOf(ws: string, unit: number): number {
  let w = 0;
  for (const ch of ws) w += ch === "\t" ? unit - (w % unit) : 1;
  return w;
}

export function detectStyle(lines: string[]): IndentStyle {
  let tabs = 0;
  let spaces = 0;
  const deltas = new Map<number, number>();
  let prev = 0;
  for (const l of lines) {
    if (blank(l) || commentContinuation(l)) continue;
    const ws = lead(l);
    if (ws.startsWith("\t")) tabs++;
    else if (ws.startsWith(" ")) {
      spaces++;
      const w = ws.length;
      const d = Math.abs(w - prev);
      if (d > 0 && d <= 8) deltas.set(d, (deltas.get(d) ?? 0) + 1);
      prev = w;
      continue;
    }
    prev = ws.length;
  }
  let unit = 4;
  let best = 0;
  for (const [d, n] of deltas) if (n > best || (n === best && d < unit)) [unit, best] = [d, n];
  return { tabs: tabs > spaces, unit: tabs > spaces ? 4 : unit };
}

function render(width: number, style: IndentStyle): string {
  if (!style.tabs) return " ".repeat(width);
  return "\t".repeat(Math.floor(width / style.unit)) + " ".repeat(width % style.unit);
}

function opens(line: string): boolean {
  const t = line.replace(/\s+$/, "");
  return t.endsWith(":") || t.endsWith("{");
}

/** The first line from `from` on, in direction `step`, that is not blank (and that `accept` takes). */
function nearestNonBlank(
  lines: string[],
  from: number,
  step: 1 | -1,
  accept: (line: string) => boolean = () => true,
): string | undefined {
  for (let i = from; i >= 0 && i < lines.length; i += step) if (!blank(lines[i]) && accept(lines[i])) return lines[i];
  return undefined;
}

export interface IndentContext {
  /** The file's current lines. */
  lines: string[];
  /** 0-based index where the content goes (the first replaced line, or the insertion point). */
  at: number;
  /** Number of lines the content replaces (0 for an insertion). */
  replacing: number;
  /** Explicit indentation of the content's base, in columns. */
  indentLevel?: number;
}

/**
 * The columns a tab stood for in content written with tabs where the file uses
 * spaces. Models write one tab per level, or a tab for two spaces, so the width
 * is read from evidence, each disagreement a misfit: a line replacing a line at
 * the same position (same line count) sits where that line was; the first line
 * of a replacement sits where the first replaced line was; a line after a block
 * opener is deeper by at most one level, and no other line is deeper than the
 * line before. Ties go to the file's unit.
 */
function contentTabWidth(content: string[], ctx: IndentContext, unit: number): number {
  const before = nearestNonBlank(ctx.lines, ctx.at - 1, -1, (l) => !commentContinuation(l));
  const lines = [...(before === undefined ? [] : [before]), ...content].filter(
    (l) => !blank(l) && !commentContinuation(l),
  );
  const replaced = ctx.lines.slice(ctx.at, ctx.at + ctx.replacing);
  // Position is evidence only for an edited line: a line the replaced lines hold
  // unchanged may have moved (the lines before it deleted).
  const replacedTexts = new Set(replaced.map((l) => l.trim()));
  const edited = (l: string) => !blank(l) && !replacedTexts.has(l.trim());
  const firstReplaced = replaced.find((l) => !blank(l));
  const firstContent = content.find((l) => !blank(l));
  let best = unit;
  let bestMisfits = Infinity;
  for (const tw of [unit, 2, 4, 8]) {
    let misfits = 0;
    if (
      firstReplaced !== undefined &&
      firstContent !== undefined &&
      edited(firstContent) &&
      widthOf(lead(firstContent), tw) !== widthOf(lead(firstReplaced), unit)
    )
      misfits++;
    if (replaced.length === content.length) {
      content.forEach((l, i) => {
        if (
          edited(l) &&
          !blank(replaced[i]) &&
          lead(l).includes("\t") &&
          widthOf(lead(l), tw) !== widthOf(lead(replaced[i]), unit)
        )
          misfits++;
      });
    }
    for (let i = 1; i < lines.length; i++) {
      const w = widthOf(lead(lines[i]), tw);
      const prev = widthOf(lead(lines[i - 1]), tw);
      // A closing bracket is never deeper than the line before (after an opener, its body was removed).
      const closes = /^[}\])]/.test(lines[i].trim());
      if (closes ? w > prev : opens(lines[i - 1]) ? w <= prev || w > prev + unit : w > prev) misfits++;
    }
    if (misfits < bestMisfits) [best, bestMisfits] = [tw, misfits];
  }
  return best;
}

/** One way to place content: its lines, and why, in words for the caller. */
export interface IndentCandidate {
  lines: string[];
  why: string;
}

/**
 * How many parentheses and square brackets a line leaves open (negative:
 * closes more than it opens), counted outside string literals and line
 * comments. A line that starts while they are open continues the line before
 * (a signature over two lines): its indentation is alignment, not a level.
 * Braces are left out: in brace languages they open blocks.
 */
function bracketBalance(line: string): number {
  let n = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "#" || (c === "/" && line[i + 1] === "/")) break;
    if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < line.length && line[j] !== c) j += line[j] === "\\" ? 2 : 1;
      i = j;
    } else if (c === "(" || c === "[") n++;
    else if (c === ")" || c === "]") n--;
  }
  return n;
}

/**
 * The levels open at line `at`, read from the lines before it (never judged):
 * the stack of open widths, whether the last line opens a block, the width
 * of the logical line it ends and whether it continues an earlier line. Lines inside open brackets continue the
 * line before: they open no level, but the logical line's end says whether a
 * block follows. A line back at (or left of) the opening line's indentation
 * that does not close a bracket is no continuation: the count was thrown off
 * (prose in a docstring: "Hyrum's").
 */
function levelsBefore(
  lines: string[],
  at: number,
  unit: number,
): { stack: number[]; expectDeeper: boolean; lastWidth: number | undefined; lastContinued: boolean } {
  const w = (l: string) => widthOf(lead(l), unit);
  const stack = [0];
  let expectDeeper = false;
  let depth = 0;
  let openerWidth = 0;
  let lastWidth: number | undefined;
  let lastContinued = false;
  for (let i = 0; i < at; i++) {
    const l = lines[i];
    if (blank(l) || commentContinuation(l)) continue;
    if (depth > 0 && w(l) <= openerWidth && !/^\s*[)\]]/.test(l)) depth = 0;
    const continued = depth > 0;
    if (!continued) openerWidth = w(l);
    lastWidth = openerWidth;
    lastContinued = continued;
    // A line ending in `{` inside open brackets (a callback's body) starts a block: levels count again.
    depth = /\{\s*$/.test(l) ? 0 : Math.max(0, depth + bracketBalance(l));
    expectDeeper = depth === 0 && opens(l);
    if (continued) continue;
    while (stack.length > 1 && stack[stack.length - 1] > openerWidth) stack.pop();
    if (stack[stack.length - 1] < openerWidth) stack.push(openerWidth);
  }
  return { stack, expectDeeper, lastWidth, lastContinued };
}

/**
 * Whether content lines (already rendered) fit their place as Python's
 * tokenizer would see the indentation: the levels open at the place are
 * those of the blocks enclosing the line before it; after a line that opens a
 * block the next line must be deeper; a deeper line needs an opener before
 * it; a shallower one must land on an open level; and so must the line after
 * the content. Brace languages are held to the same consistency (their
 * indentation means nothing to the compiler, but a reader reads it). Column 0
 * does not fit the first line of a replacement of indented lines: content
 * stripped of its indentation lands there.
 */
export function fitsPlace(content: string[], ctx: IndentContext, unit: number): boolean {
  const w = (l: string) => widthOf(lead(l), unit);
  const open = levelsBefore(ctx.lines, ctx.at, unit);
  const stack = open.stack;
  let expectDeeper = open.expectDeeper;
  const step = (l: string): boolean => {
    const lw = w(l);
    let top = stack[stack.length - 1];
    if (expectDeeper) {
      if (lw <= top) return false;
      stack.push(lw);
    } else if (lw > top) {
      return false;
    } else {
      while (stack.length > 1 && stack[stack.length - 1] > lw) stack.pop();
      top = stack[stack.length - 1];
      if (top !== lw) return false;
    }
    expectDeeper = opens(l);
    return true;
  };
  const replaced = ctx.lines.slice(ctx.at, ctx.at + ctx.replacing).filter((l) => !blank(l));
  const body = content.filter((l) => !blank(l) && !commentContinuation(l));
  if (replaced.length > 0 && Math.min(...replaced.map(w)) > 0 && body.length > 0 && w(body[0]) === 0) return false;
  const after = nearestNonBlank(ctx.lines, ctx.at + ctx.replacing, 1, (l) => !commentContinuation(l));
  // Right after an opener whose block already has a body, the body's level is the one open there.
  if (expectDeeper && body.length > 0) {
    const existing =
      replaced.length > 0
        ? w(replaced[0])
        : after !== undefined && w(after) > stack[stack.length - 1]
          ? w(after)
          : undefined;
    if (existing !== undefined && w(body[0]) !== existing) return false;
  }
  // Only comment continuation lines (` * text`): nothing says where they belong.
  if (body.length === 0) return false;
  for (const l of body) if (!step(l)) return false;
  return after === undefined || step(after);
}

/** Returns `content` re-indented for its place in the file: the first of indentCandidates. */
export function fitIndentation(content: string[], ctx: IndentContext): string[] {
  return indentCandidates(content, ctx)[0].lines;
}

/**
 * The ways to place `content`, the likeliest first (the caller validates them
 * in turn: the first that breaks neither the syntax nor the structure wins):
 *   1. as the caller wrote it, when the lines it repeats are exactly where they
 *      were, or its base indentation is a level open at the place (the
 *      caller's indentation first);
 *   2. shifted back by the offset the lines it repeats show (a copy of the
 *      block that was dedented as a whole);
 *   3. shifted to the place's primary level (the replaced lines' level; for an
 *      insertion the line before's, one level deeper after an opener), unless
 *      its base fits the neighbours already;
 *   4. every other open level, nearest first.
 * `indent_level`, and content that only re-indents the replaced lines, give a
 * single candidate.
 */
export function indentCandidates(content: string[], ctx: IndentContext): IndentCandidate[] {
  if (content.every(blank)) return [{ lines: content, why: "blank lines" }];
  const fileStyle = detectStyle(ctx.lines);
  const hasIndented = ctx.lines.some((l) => !blank(l) && lead(l).length > 0);
  const style = hasIndented ? fileStyle : detectStyle(content);
  const u = style.unit;
  // Tabs in content for a space-indented file: how wide the caller meant them.
  const foreignTabs = !style.tabs && content.some((l) => !blank(l) && lead(l).includes("\t"));
  const tw = foreignTabs ? contentTabWidth(content, ctx, u) : u;
  const widths = content.map((l) => (blank(l) ? -1 : widthOf(lead(l), tw)));
  const base = Math.min(...widths.filter((w) => w >= 0));

  // Leading whitespace already written the file's way (tabs then fewer than `unit` spaces, or spaces only).
  const sameStyle = (l: string) => {
    const ws = lead(l);
    return style.tabs ? /^\t* *$/.test(ws) && ws.length - ws.lastIndexOf("\t") - 1 < u : !ws.includes("\t");
  };
  const shiftedTo = (target: number): string[] => {
    const shift = target - base;
    if (shift === 0 && content.every((l) => blank(l) || sameStyle(l))) return content;
    return content.map((l, i) => {
      if (widths[i] < 0) return shift === 0 ? l : "";
      return render(Math.max(0, widths[i] + shift), style) + l.slice(lead(l).length);
    });
  };

  if (ctx.indentLevel !== undefined)
    return [{ lines: shiftedTo(ctx.indentLevel), why: `indent_level ${ctx.indentLevel}` }];

  // Content that repeats the replaced lines with only their indentation changed
  // can mean nothing but a re-indentation (anything else is a no-op), so it is
  // kept as written (a "fix the indentation of this line" edit). Column 0 is left
  // to the rules below, as content stripped of its indentation usually lands there.
  const replacedLines = ctx.lines.slice(ctx.at, ctx.at + ctx.replacing);
  const trimmed = (ls: string[]) => ls.filter((l) => !blank(l)).map((l) => l.trim());
  const fixing =
    ctx.replacing > 0 &&
    base > 0 &&
    trimmed(content).join("\n") === trimmed(replacedLines).join("\n") &&
    content.filter((l) => !blank(l)).join("\n") !== replacedLines.filter((l) => !blank(l)).join("\n");
  if (fixing) return [{ lines: shiftedTo(base), why: "re-indented as written (the lines repeat the replaced ones)" }];

  const out: IndentCandidate[] = [];
  const push = (lines: string[], why: string): void => {
    const key = lines.join("\n");
    if (!out.some((c) => c.lines.join("\n") === key)) out.push({ lines, why });
  };
  const copied = ctx.replacing > 0 ? undoCopyShift(content, replacedLines, style, tw) : null;
  // The lines it repeats are where they were, and the new lines around them fit too.
  const placedFits = copied?.kind === "placed" && fitsPlace(copied.lines, ctx, u);
  if (copied?.kind === "placed" && placedFits)
    push(copied.lines, "kept as written: the lines it repeats are where they were");
  const shiftWhy = copied
    ? `shifted by ${copied.delta > 0 ? "+" : ""}${copied.delta} columns, as the lines it repeats were`
    : "";
  // A copy of the replaced lines shifted as a whole (a repeated line at the content's own
  // base shows it) goes back first; when only deeper lines repeat (a new `if` wrapping an
  // old line), the shift they show is no evidence for the new lines around them.
  if (copied?.kind === "shifted" && copied.atBase) push(copied.lines, shiftWhy);
  const asWritten = shiftedTo(base);
  if (fitsPlace(asWritten, ctx, u)) push(asWritten, `kept as written: column ${base} is a level open here`);

  const replaced = replacedLines.filter((l) => !blank(l));
  const before = nearestNonBlank(ctx.lines, ctx.at - 1, -1);
  const after = nearestNonBlank(ctx.lines, ctx.at + ctx.replacing, 1);
  // A line before that continues a bracket (a signature over two lines) counts as its logical line: the
  // first line's width, and whether the whole opens a block.
  const open = before !== undefined && !commentContinuation(before) ? levelsBefore(ctx.lines, ctx.at, u) : undefined;
  const beforeW =
    before === undefined
      ? 0
      : open?.lastContinued
        ? open.lastWidth! + (open.expectDeeper ? u : 0)
        : widthOf(lead(before), u) + (opens(before) ? u : 0);
  const plausible = new Set<number>();
  let primary: number;
  // The line before counts one level deeper when it opens a block (and never at its own level then).
  const neighbours = [
    before === undefined ? undefined : beforeW,
    after === undefined ? undefined : widthOf(lead(after), u),
  ];
  if (replaced.length > 0) {
    // The replaced lines' base (least) indentation corresponds to the content's base.
    // Replacing indented lines with content at column 0 almost always means the
    // caller stripped the indentation, so column 0 only fits if the replaced
    // lines were there too.
    primary = Math.min(...replaced.map((l) => widthOf(lead(l), u)));
    plausible.add(primary);
    for (const w of neighbours) if (w !== undefined && w > 0) plausible.add(w);
  } else {
    primary = beforeW;
    for (const w of neighbours) if (w !== undefined) plausible.add(w);
  }
  if (before === undefined && after === undefined) plausible.add(0);
  const target = plausible.has(base) ? base : primary;
  push(
    shiftedTo(target),
    target === base
      ? `kept as written: column ${base} fits the lines around it`
      : `moved to column ${target}, ${replaced.length > 0 ? "the replaced lines' level" : "the level of the line before"}`,
  );
  if (copied?.kind === "shifted") push(copied.lines, shiftWhy);
  if (copied?.kind === "placed" && !placedFits)
    push(copied.lines, "kept as written: the lines it repeats are where they were");
  // Every other level that fits, nearest to the primary one first.
  const others = [
    ...new Set(
      ctx.lines
        .slice(0, ctx.at)
        .filter((l) => !blank(l))
        .map((l) => widthOf(lead(l), u)),
    ),
  ].concat(primary + u);
  for (const lv of others.sort((x, y) => Math.abs(x - primary) - Math.abs(y - primary) || x - y)) {
    const lines = shiftedTo(lv);
    if (fitsPlace(lines, ctx, u)) push(lines, `moved to column ${lv}, another level open here`);
  }
  return out;
}

/** Two lines more alike than not (edit distance under half the longer one). */
function alike(a: string, b: string): boolean {
  const n = Math.max(a.length, b.length);
  return n > 0 && n <= 2000 && levenshtein(a, b, n) * 2 < n;
}

/** Least indentation string of the non-blank lines (by width, tabs counted as 4). */
function baseIndent(lines: string[]): string {
  let best: string | undefined;
  for (const l of lines) {
    if (blank(l)) continue;
    const ws = lead(l);
    if (best === undefined || widthOf(ws, 4) < widthOf(best, 4)) best = ws;
  }
  return best ?? "";
}

/**
 * Content whose repeated lines show the whole copy shifted from the replaced
 * lines by one uniform relation, re-indented back; the content itself when its
 * repeated lines are exactly where they were; null otherwise (then the context
 * decides).
 */
function undoCopyShift(
  content: string[],
  replaced: string[],
  style: IndentStyle,
  tabWidth: number,
): { kind: "placed" | "shifted"; lines: string[]; delta: number; atBase?: boolean } | null {
  // Pair content lines with replaced lines of the same trimmed text, in order.
  // A text the replaced lines hold more than once (a closing brace) pairs with
  // the occurrence that moved like the lines that can only pair one way, when
  // there is one: removing the first of two `}` must not pair the kept `}` with it.
  const u = style.unit;
  const count = (ls: string[], key: string) => ls.reduce((n, l) => n + (l.trim() === key ? 1 : 0), 0);
  const anchorShifts = new Set<number>();
  for (const line of content) {
    const key = line.trim();
    if (blank(line) || count(content, key) !== 1 || count(replaced, key) !== 1) continue;
    const f = replaced.find((l) => l.trim() === key)!;
    anchorShifts.add(widthOf(lead(line), tabWidth) - widthOf(lead(f), u));
  }
  const shift = anchorShifts.size === 1 ? [...anchorShifts][0] : undefined;
  const pairs: Array<[string, string]> = [];
  const pairedReplaced: string[] = [];
  let j = 0;
  for (const line of content) {
    if (blank(line)) continue;
    const key = line.trim();
    const candidates: number[] = [];
    for (let k = j; k < replaced.length; k++) if (!blank(replaced[k]) && replaced[k].trim() === key) candidates.push(k);
    if (candidates.length === 0) continue;
    const k =
      candidates.find(
        (c) => shift !== undefined && widthOf(lead(line), tabWidth) - widthOf(lead(replaced[c]), u) === shift,
      ) ?? candidates[0];
    pairs.push([lead(line), lead(replaced[k])]);
    pairedReplaced.push(replaced[k]);
    j = k + 1;
  }
  // Only indented pairs say anything about indentation.
  if (pairs.every(([c, f]) => c === "" && f === "")) return null;
  const rel = relateIndentation(pairs, style.tabs ? undefined : style.unit);
  // The repeated lines sit exactly where they were: the content is already placed
  // (its base may differ only because a less indented line was removed).
  if (rel.kind === "identity") {
    // Lines the caller wrote anew may still use tabs in a space-indented file (or the reverse).
    const foreign = (ws: string) => (style.tabs ? ws.startsWith(" ".repeat(style.unit)) : ws.includes("\t"));
    return {
      kind: "placed",
      delta: 0,
      lines: content.map((l) =>
        !blank(l) && foreign(lead(l))
          ? render(widthOf(lead(l), style.tabs ? style.unit : tabWidth), style) + l.slice(lead(l).length)
          : l,
      ),
    };
  }
  if (rel.kind !== "uniform") return null;
  // A shift that leaves the content's base where both the replaced lines' base and
  // the repeated lines' old base were is a deliberate re-indent (a block wrapped
  // in a new statement at the old level), not a copy error.
  const base = baseIndent(content);
  if (rel.delta !== 0 && base === baseIndent(replaced) && base === baseIndent(pairedReplaced)) return null;
  const out: string[] = [];
  for (const line of content) {
    if (blank(line)) {
      out.push(line.trim() === "" ? "" : line);
      continue;
    }
    const ws = reindent(lead(line), rel);
    if (ws === null) return null;
    out.push(ws + line.slice(lead(line).length));
  }
  // Whether a repeated line sits at the content's least indentation.
  const baseW = Math.min(...content.filter((l) => !blank(l)).map((l) => widthOf(lead(l), tabWidth)));
  // A changed first line still stands where the first replaced line stood when it is that line
  // edited (more alike than not): a copy with its first line renamed is still a copy.
  const firstContent = content.find((l) => !blank(l));
  const firstReplaced = replaced.find((l) => !blank(l));
  // (Not when the first line repeats a replaced line: then it is that line, not the first one edited.)
  const firstIsEdited =
    firstContent !== undefined &&
    firstReplaced !== undefined &&
    widthOf(lead(firstContent), tabWidth) === baseW &&
    !replaced.some((l) => l.trim() === firstContent.trim()) &&
    alike(firstContent.trim(), firstReplaced.trim());
  // The repeated line must stand at the base on both sides: the content's least indented line
  // repeating one of the replaced lines' least indented. When the replaced lines' base is held only
  // by lines the content drops (an `if` removed, its body dedented into its place), the repeated
  // lines were deeper and the content's base is the caller's deliberate level, not a copy slip.
  const replacedBaseW = Math.min(...replaced.filter((l) => !blank(l)).map((l) => widthOf(lead(l), u)));
  const atBase =
    firstIsEdited || pairs.some(([c, f]) => widthOf(c, tabWidth) === baseW && widthOf(f, u) === replacedBaseW);
  return { kind: "shifted", delta: rel.delta, lines: out, atBase };
}
