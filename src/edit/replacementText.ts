// Builds the text that replaces a region matched by a tolerant tier.
//
// The model's old_string is its copy of the file, and new_string is that copy
// with the change applied. Wherever new_string repeats old_string, the model
// meant "leave this as it is", so those lines are taken from the file itself
// (with the file's whitespace, punctuation and tabs) instead of from the
// model's imperfect copy. Lines the model changed or added come from
// new_string, re-indented by the relation the match showed; inside a changed
// line, stretches the model left unchanged keep the file's typographic
// characters (a curly quote the model straightened stays curly), but nothing
// the model wrote is ever folded.
import { diffArrays } from "diff";
import { type IndentRelation, reindent } from "./indentShift.js";
import { foldEqual, foldText, isBlank, splitLine } from "./normalize.js";

export interface RebuildInput {
  /** The model's old lines (after the tier's own transformation, e.g. unescaping). */
  oldLines: string[];
  /** The matched file lines, paired by position with oldLines. */
  fileLines: string[];
  /** The model's new lines. */
  newLines: string[];
  relation: IndentRelation;
  /** Carry the file's typographic characters into unchanged stretches of changed lines. */
  carryFolded: boolean;
  /**
   * The model's copy may differ from the file in content (similarity tier):
   * a changed line is then merged three ways (the model's change applied to
   * the file's line), and refused when the two differences touch.
   */
  mergeContent?: boolean;
}

export type RebuildProblem =
  /** The relation cannot tell where a new line's indentation puts it. */
  | "indent"
  /** The model changed a line where its copy also differs from the file. */
  | "conflict";

export type RebuildResult = { ok: true; lines: string[] } | { ok: false; newLine: number; problem: RebuildProblem; indent: string };

/**
 * A changed line is aligned with the line it replaces only when at least this
 * share of it is unchanged: below that it was rewritten, and a diff of the two
 * would pair characters by coincidence.
 */
const MIN_CARRY_SHARE = 0.5;
/** Lines longer than this are not aligned character by character. */
const MAX_CARRY_LINE = 2000;

export function rebuildLines(input: RebuildInput): RebuildResult {
  const { oldLines, fileLines, newLines } = input;
  const out: string[] = [];
  let o = 0;
  let n = 0;
  let removed: number[] = [];
  let added: number[] = [];
  let failure: { newLine: number; problem: RebuildProblem; indent: string } | undefined;

  const flush = (): void => {
    added.forEach((ni, k) => {
      const oi = k < removed.length ? removed[k] : undefined;
      const line = adaptLine(newLines[ni], oi === undefined ? undefined : oldLines[oi], oi === undefined ? undefined : fileLines[oi], input);
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

/** A changed or added new line, placed in the file's terms, or the reason it cannot be. */
function adaptLine(line: string, oldLine: string | undefined, fileLine: string | undefined, input: RebuildInput): string | { problem: RebuildProblem } {
  if (isBlank(line)) return line;
  const np = splitLine(line);
  let indent = reindent(np.indent, input.relation);
  let { content, trailing } = np;
  if (oldLine !== undefined && fileLine !== undefined) {
    const op = splitLine(oldLine);
    const fp = splitLine(fileLine);
    // The line this one replaces had the same indentation in the model's copy: that is local evidence.
    if (indent === null && np.indent === op.indent) indent = fp.indent;
    if (trailing === op.trailing) trailing = fp.trailing;
    if (op.content !== fp.content) {
      if (foldText(op.content) === foldText(fp.content)) {
        if (input.carryFolded) content = carryCharacters(content, op.content, fp.content);
      } else if (input.mergeContent) {
        const merged = mergeLine(op.content, fp.content, content);
        if (merged === null) return { problem: "conflict" };
        content = merged;
      }
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
 * Three-way merge of one line: the change from `base` (the model's copy) to
 * `ours` (its new line) applied to `theirs` (the file's line). Null when a
 * change on one side touches a change on the other: then nobody can tell
 * what the line should become.
 */
export function mergeLine(base: string, theirs: string, ours: string): string | null {
  if (base.length > MAX_CARRY_LINE || theirs.length > MAX_CARRY_LINE || ours.length > MAX_CARRY_LINE) return null;
  const t = hunksOf(base, theirs).map((h) => ({ ...h, side: "theirs" as const }));
  const o = hunksOf(base, ours).map((h) => ({ ...h, side: "ours" as const }));
  for (const a of t) for (const b of o) if (a.start <= b.end && b.start <= a.end) return null;
  const all = [...t, ...o].sort((a, b) => a.start - b.start);
  let out = "";
  let at = 0;
  for (const h of all) {
    out += base.slice(at, h.start) + h.text;
    at = h.end;
  }
  return out + base.slice(at);
}

/**
 * `text` (a changed line) with every character that sits in a stretch left
 * unchanged from `oldText`, and that the file writes differently but
 * equivalently (“ for "), replaced by the file's character.
 */
export function carryCharacters(text: string, oldText: string, fileText: string): string {
  if (text.length > MAX_CARRY_LINE || oldText.length > MAX_CARRY_LINE || fileText.length > MAX_CARRY_LINE) return text;
  const oldToFile = new Int32Array(oldText.length).fill(-1);
  let oi = 0;
  let fi = 0;
  for (const c of diffArrays(oldText.split(""), fileText.split(""), { comparator: foldEqual })) {
    if (c.removed) oi += c.count;
    else if (c.added) fi += c.count;
    else for (let k = 0; k < c.count; k++) oldToFile[oi++] = fi++;
  }
  const chars = text.split("");
  const changes = diffArrays(oldText.split(""), chars);
  let same = 0;
  for (const c of changes) if (!c.added && !c.removed) same += c.count;
  if (same < MIN_CARRY_SHARE * Math.max(oldText.length, text.length)) return text;
  let ti = 0;
  oi = 0;
  for (const c of changes) {
    if (c.removed) oi += c.count;
    else if (c.added) ti += c.count;
    else {
      for (let k = 0; k < c.count; k++, oi++, ti++) {
        const f = oldToFile[oi];
        if (f >= 0) chars[ti] = fileText[f];
      }
    }
  }
  return chars.join("");
}
