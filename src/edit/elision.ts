// Elision markers: models abbreviate what they mean to keep —
// `// ... existing code ...`, `# rest unchanged`, `{...}`, a bare `...` — and
// an edit tool that writes new_string literally then deletes the code the
// marker stood for. A new line that is such a marker, standing where the old
// text had code (its lines removed in the same place, the marker not there
// before), is refused: the caller must quote the full text or use a line edit.
import { diffArrays } from "diff";

const ELLIPSIS = String.raw`(?:\.\.\.+|…|⋯|···|\[\.\.\.\]|\[…\])`;
/** A comment that says "the rest is as it was": `unchanged`, `omitted`... anywhere, */
const KEPT =
  /\b(?:unchanged|omitted|for brevity|elided|snip(?:ped)?|(?:remains?|stays?) (?:the )?same|same as (?:before|above)|as before|no changes? (?:here|below|above))\b/i;
/** ...or that is nothing but a word of leaving out: `// etc.`, `/* truncated */ `, `; // (as is)`. */
const KEPT_WHOLE = /^(?:etc\.?|and so on|truncated|as[- ]is|left as[- ]is)$/i;
/** ...or starting with `rest`, `existing`... and naming what it stands for. */
const KEPT_START = /^(?:the\s+)?(?:rest|remaining|existing|previous|keep(?:\s+the)?\s+(?:existing|rest))\b/i;
const KEPT_WHAT =
  /\b(?:code|methods?|functions?|implementation|lines?|cases?|file|body|logic|imports?|props|fields|properties|tests?|content|here|class|component)\b/i;
/** How a comment starts, in the languages models write. */
const COMMENT = /^(?:\/\/+|#+|--|;+|%+|\*|\/\*+|<!--|\{\/\*|'|rem\b)\s*/i;
const COMMENT_END = /\s*(?:\*+\/|-->|\*\/\})\s*$/;

/** Whether a line (trimmed) is an elision marker in one of the forms models write. */
export function isElisionMarker(line: string): boolean {
  const t = line.trim();
  if (t === "") return false;
  // A bare ellipsis, or one standing for a body: `...`, `…`, `{ ... }`, `[...]`, `( ... )`.
  if (new RegExp(String.raw`^[{[(]?\s*${ELLIPSIS}\s*[}\])]?[;,]?$`).test(t)) return true;
  // A parenthesized note standing alone: `(rest of methods ...)`, `[unchanged code ...]`.
  const note = /^[([]\s*(.*?)\s*[)\]][;,]?$/.exec(t);
  const comment = COMMENT.exec(t);
  if (!comment && !note) return false;
  const body = note ? note[1] : t.slice(comment![0].length).replace(COMMENT_END, "").trim();
  if (note && !new RegExp(`${ELLIPSIS}|\\b(?:unchanged|omitted)\\b`).test(body)) return false;
  if (body === "") return false;
  if (new RegExp(String.raw`^[(\[]?${ELLIPSIS}`).test(body)) return true;
  const words = body.replace(new RegExp(`${ELLIPSIS}$`), "").trim();
  return (
    KEPT.test(words) ||
    KEPT_WHOLE.test(words.replace(/^[([]\s*|\s*[)\]]$/g, "")) ||
    (KEPT_START.test(words) && KEPT_WHAT.test(words))
  );
}

/** A body elided inside a line: `foo() {...}`, `def f(): ...` (Python's `...` body). */
function elidesBody(line: string): boolean {
  const t = line.trim();
  if (new RegExp(String.raw`\{\s*${ELLIPSIS}\s*\}[;,]?$`).test(t)) return true;
  return /^(?:async\s+)?(?:def|class)\b.*:\s*(?:\.\.\.|…)\s*(?:#.*)?$/.test(t);
}

/** Content a placeholder could stand for: any line with text (a comment deleted behind `...` is lost too). */
const isCode = (line: string): boolean => line.trim() !== "";

export interface Elision {
  /** 0-based line of new text holding the marker. */
  newLine: number;
  marker: string;
  /** 0-based old lines the marker stands in for. */
  oldStart: number;
  oldEnd: number;
}

/**
 * The first elision marker of `newLines` that stands where `oldLines` had
 * code: in the same changed region, code lines removed and a marker added (a
 * marker the old text already had is the file's own text).
 */
export function findElision(oldLines: string[], newLines: string[]): Elision | undefined {
  const oldTexts = new Set(oldLines.map((l) => l.trim()));
  let o = 0;
  let n = 0;
  let removed: number[] = [];
  let added: number[] = [];
  const check = (): Elision | undefined => {
    const code = removed.filter((i) => isCode(oldLines[i]));
    if (code.length > 0) {
      for (const i of added) {
        const line = newLines[i];
        if (oldTexts.has(line.trim())) continue;
        // A line marker needs code gone; a one-line body marker needs more than the one line it rewrites.
        if (isElisionMarker(line) || (elidesBody(line) && code.length > 1)) {
          return { newLine: i, marker: line.trim(), oldStart: removed[0], oldEnd: removed[removed.length - 1] };
        }
      }
    }
    removed = [];
    added = [];
    return undefined;
  };
  for (const c of diffArrays(
    oldLines.map((l) => l.trim()),
    newLines.map((l) => l.trim()),
  )) {
    if (c.removed) for (let k = 0; k < c.count; k++) removed.push(o++);
    else if (c.added) for (let k = 0; k < c.count; k++) added.push(n++);
    else {
      const e = check();
      if (e) return e;
      o += c.count;
      n += c.count;
    }
  }
  return check();
}

/** The refusal, in words for the caller. */
export function elisionMessage(e: Elision, where: string, lineOffset = 0): string {
  const count = e.oldEnd - e.oldStart + 1;
  return (
    `${where} line ${e.newLine + 1} ("${e.marker.slice(0, 80)}") looks like a placeholder for code it leaves out, and it stands where the old text had ` +
    `${count === 1 ? "a line" : `${count} lines`} (from line ${e.oldStart + 1 + lineOffset}) that would be deleted. Nothing was written. ` +
    "Quote the full text you mean to keep, make a smaller edit around the lines you change, or delete lines explicitly with edit_lines."
  );
}
